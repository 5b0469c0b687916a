package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/feedback"
)

func init() {
	register(&command{
		name:    "serve bench",
		summary: "load-test 'sqlrl serve': concurrent clients asking and giving feedback, p50/p99, nothing acknowledged lost, optionally a SIGKILL",
		usage:   "-config FILE [-clients 50] [-duration 60s] [-feedback-share 0.5] [-kill-after 20s] [-replicas 2] [-questions FILE] [-model fake|config] [-store LOC] [-json FILE]",
		help: `Starts 'sqlrl serve -config FILE' as child processes of this binary on
free loopback ports, runs -clients clients for -duration that ask questions
(POST /api/ask) and give feedback (a thumb, a correction or a comment) on
-feedback-share of the answers, and records every answer and feedback the
servers acknowledged. With -kill-after it SIGKILLs the (first) server that
far into the run and restarts it on the same port; clients retry requests
that got no HTTP answer and count them apart from HTTP errors. At the end the
servers are stopped, the store is opened directly and every acknowledged
answer and feedback must be in it with its content.

Reports requests, HTTP errors by status, connection errors, p50/p99/max
latency per route and lost acknowledged writes; exits 1 when any HTTP error
or loss was seen. -replicas N starts N servers sharing the config's store
(a postgres:// DSN; -store overrides the config's) and spreads each
client's requests over them.

-model fake (default) points the servers' generator at a fake
OpenAI-compatible model in this process that answers each question with its
SQL at no cost, so the run measures the server: prompt building, execution,
the store. -model config keeps the config's generator. Questions come from
-questions (JSONL {db, question, evidence?, sql}) or are built from each
database's first tables: counts, a page of rows, an unknown column, a write
(refused) and an injection-looking question.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := serveBenchOptions{}
			fs.StringVar(&o.config, "config", "", "the servers' config (required)")
			fs.IntVar(&o.clients, "clients", 50, "concurrent clients")
			fs.DurationVar(&o.duration, "duration", 60*time.Second, "length of the run")
			fs.Float64Var(&o.feedbackShare, "feedback-share", 0.5, "share of answers given feedback (0 to 1)")
			fs.DurationVar(&o.killAfter, "kill-after", 0, "SIGKILL the first server this far into the run and restart it (0: never)")
			fs.IntVar(&o.replicas, "replicas", 1, "servers sharing the store (more than 1 needs a PostgreSQL store)")
			fs.StringVar(&o.questions, "questions", "", "questions file (JSONL {db, question, evidence?, sql}); default: built from the databases' tables")
			fs.StringVar(&o.model, "model", "fake", "fake (a free fake model answering each question's sql) or config (the config's generator)")
			fs.StringVar(&o.store, "store", "", "feedback store to use instead of the config's (a SQLite file or a postgres:// DSN)")
			fs.StringVar(&o.jsonOut, "json", "", "also write the report as JSON to this file")
			fs.Uint64Var(&o.seed, "seed", 1, "seed of the clients' choices")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %v", args)
				}
				switch {
				case o.config == "":
					return usagef("-config is required")
				case o.clients < 1 || o.duration <= 0 || o.replicas < 1:
					return usagef("-clients, -duration and -replicas must be positive")
				case o.feedbackShare < 0 || o.feedbackShare > 1:
					return usagef("-feedback-share %v: want 0 to 1", o.feedbackShare)
				case o.model != "fake" && o.model != "config":
					return usagef("-model %q: want fake or config", o.model)
				case o.killAfter < 0 || o.killAfter >= o.duration && o.killAfter > 0:
					return usagef("-kill-after %v: want a time within -duration %v", o.killAfter, o.duration)
				}
				rep, err := serveBench(ctx, o, os.Stderr)
				if rep != nil {
					rep.WriteText(os.Stdout)
					if o.jsonOut != "" {
						b, _ := json.MarshalIndent(rep, "", "  ")
						if werr := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); werr != nil && err == nil {
							err = fmt.Errorf("write %s: %w", o.jsonOut, werr)
						}
					}
				}
				if err != nil {
					return err
				}
				var httpErrs int64
				for _, r := range rep.Routes {
					httpErrs += r.HTTPErrors()
				}
				if rep.Lost > 0 || httpErrs > 0 || rep.DisruptError != "" {
					return fmt.Errorf("serve bench: %d HTTP errors, %d acknowledged writes lost or altered%s", httpErrs, rep.Lost, map[bool]string{true: ", restart failed: " + rep.DisruptError}[rep.DisruptError != ""])
				}
				return nil
			}
		},
	})
}

type serveBenchOptions struct {
	config, questions, model, store, jsonOut string
	clients, replicas                        int
	duration, killAfter                      time.Duration
	feedbackShare                            float64
	seed                                     uint64
}

// serveBenchReport is the load report with what the run was.
type serveBenchReport struct {
	*askserver.LoadReport
	Store      string `json:"store"`
	Model      string `json:"model"`
	Questions  int    `json:"questions"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUs       int    `json:"cpus"`
}

func (r *serveBenchReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "serve bench: store %s, model %s, %d questions, %d CPUs\n", r.Store, r.Model, r.Questions, r.CPUs)
	r.LoadReport.WriteText(w)
}

func serveBench(ctx context.Context, o serveBenchOptions, logw io.Writer) (*serveBenchReport, error) {
	cfg, err := askserver.LoadConfig(o.config)
	if err != nil {
		return nil, err
	}
	store := cfg.Store
	if o.store != "" {
		store = o.store
		if !feedback.IsPostgres(store) {
			if store, err = filepath.Abs(store); err != nil {
				return nil, err
			}
		}
	}
	if o.replicas > 1 && !feedback.IsPostgres(store) {
		return nil, usagef("-replicas %d: replicas share a PostgreSQL store; the store is %s (set a postgres:// DSN as the config's store or -store)", o.replicas, store)
	}
	key := ""
	names := make([]string, 0, len(cfg.APIKeys))
	for name := range cfg.APIKeys {
		names = append(names, name)
	}
	if sort.Strings(names); len(names) > 0 {
		key = cfg.APIKeys[names[0]].Key
	}
	if key == "" && o.feedbackShare > 0 {
		return nil, fmt.Errorf("serve config %s: api_keys: none, and feedback needs one (or run with -feedback-share 0)", o.config)
	}
	var qs []askserver.LoadQuestion
	if o.questions != "" {
		if qs, err = askserver.ReadLoadQuestions(o.questions); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "sqlrl-serve-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fake := &askserver.FakeModel{}
	modelURL := ""
	if o.model == "fake" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("serve bench: fake model: %w", err)
		}
		srv := &http.Server{Handler: fake}
		go srv.Serve(ln)
		defer srv.Close()
		modelURL = "http://" + ln.Addr().String() + "/v1"
	}
	derived, err := benchConfig(o.config, cfg, store, modelURL, filepath.Join(dir, "serve.json"))
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("serve bench: find this binary: %w", err)
	}
	var reps []*childServer
	defer func() {
		for _, r := range reps {
			r.stop(10 * time.Second)
		}
	}()
	for i := range o.replicas {
		r, err := startChild(ctx, exe, derived, "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("serve bench: start server %d: %w", i+1, err)
		}
		reps = append(reps, r)
		fmt.Fprintf(logw, "serve bench: server %d on %s\n", i+1, r.addr)
	}
	if qs == nil {
		tables, err := benchTables(ctx, "http://"+reps[0].addr)
		if err != nil {
			return nil, err
		}
		qs = askserver.BuiltinLoadQuestions(tables)
		if len(qs) == 0 {
			return nil, errors.New("serve bench: no tables to ask about (give -questions)")
		}
	}
	fake.SetQuestions(qs)
	targets := make([]string, len(reps))
	for i, r := range reps {
		targets[i] = "http://" + r.addr
	}
	lo := askserver.LoadOptions{Targets: targets, Key: key, Questions: qs, Clients: o.clients, Duration: o.duration,
		FeedbackShare: o.feedbackShare, Seed: o.seed, Log: logw}
	if o.killAfter > 0 {
		lo.DisruptAfter = o.killAfter
		lo.Disrupt = func(ctx context.Context) error {
			r := reps[0]
			t0 := time.Now()
			if err := r.kill(); err != nil {
				return err
			}
			nr, err := restartChild(ctx, exe, derived, r.addr)
			if err != nil {
				return err
			}
			reps[0] = nr
			fmt.Fprintf(logw, "serve bench: server 1 killed (SIGKILL) and serving again on %s after %.2fs\n", nr.addr, time.Since(t0).Seconds())
			return nil
		}
	}
	fmt.Fprintf(logw, "serve bench: %d clients for %v on %d server(s), %d questions\n", o.clients, o.duration, len(reps), len(qs))
	lr, err := askserver.RunLoad(ctx, lo)
	if err != nil {
		return nil, err
	}
	out := &serveBenchReport{LoadReport: lr, Store: storeName(store), Model: o.model, Questions: len(qs),
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	// The servers stop first, so that the store is read as a restart would
	// find it.
	for _, r := range reps {
		if err := r.stop(30 * time.Second); err != nil {
			fmt.Fprintf(logw, "serve bench: stopping %s: %v\n", r.addr, err)
		}
	}
	st, err := feedback.Open(ctx, store)
	if err != nil {
		return out, fmt.Errorf("serve bench: open the store to verify: %w", err)
	}
	defer st.Close()
	if err := lr.Verify(ctx, st); err != nil {
		return out, err
	}
	return out, nil
}

// benchConfig writes the config the servers run with to path: the user's,
// with database files and the store made absolute (the file moves to a
// temporary folder), the store replaced by store, and, when modelURL is
// set, the generator replaced by the fake model there. Everything else
// (keys by environment variable, limits) is kept as written.
func benchConfig(orig string, cfg *askserver.Config, store, modelURL, path string) (string, error) {
	raw, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("serve bench: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("serve bench: %s: %w", orig, err)
	}
	var dbs map[string]map[string]any
	if err := json.Unmarshal(m["databases"], &dbs); err != nil {
		return "", fmt.Errorf("serve bench: %s: databases: %w", orig, err)
	}
	for name, d := range dbs {
		if _, ok := d["sqlite"]; ok {
			d["sqlite"] = cfg.Databases[name].SQLite
		}
	}
	set := func(k string, v any) {
		b, _ := json.Marshal(v)
		m[k] = b
	}
	set("databases", dbs)
	set("store", store)
	if modelURL != "" {
		set("generator", map[string]any{"openai": map[string]string{"base_url": modelURL, "model": "load-fake"}})
	} else if cfg.Generator.Native != "" {
		var g map[string]any
		json.Unmarshal(m["generator"], &g)
		g["native"] = cfg.Generator.Native
		set("generator", g)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	// 0600: the store's DSN may carry a password.
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return "", fmt.Errorf("serve bench: %w", err)
	}
	return path, nil
}

// benchTables lists each database's tables through GET /api/databases.
func benchTables(ctx context.Context, base string) (map[string][]string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/databases", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("serve bench: list databases: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Databases []struct {
			Name   string   `json:"name"`
			Tables []string `json:"tables"`
		} `json:"databases"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		return nil, fmt.Errorf("serve bench: list databases: HTTP %d, %v", resp.StatusCode, err)
	}
	tables := map[string][]string{}
	for _, d := range out.Databases {
		tables[d.Name] = d.Tables
	}
	return tables, nil
}

// childServer is one `sqlrl serve` process.
type childServer struct {
	cmd  *exec.Cmd
	addr string
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done
	mu   sync.Mutex
	tail []string // its last lines of stderr
}

func (c *childServer) lastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

// startChild starts `sqlrl serve -config cfg -addr addr -quiet` and waits
// for its "serving ... on http://ADDR/" line and a healthy /healthz.
func startChild(ctx context.Context, exe, cfg, addr string) (*childServer, error) {
	c := &childServer{done: make(chan struct{})}
	c.cmd = exec.Command(exe, "serve", "-config", cfg, "-addr", addr, "-quiet")
	c.cmd.Stdout = io.Discard
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if _, rest, ok := strings.Cut(line, " on http://"); ok && strings.HasPrefix(line, "serving ") {
				if a, _, ok := strings.Cut(rest, "/"); ok {
					select {
					case addrCh <- a:
					default:
					}
				}
			}
			c.mu.Lock()
			c.tail = append(c.tail, line)
			if len(c.tail) > 20 {
				c.tail = c.tail[1:]
			}
			c.mu.Unlock()
		}
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	select {
	case c.addr = <-addrCh:
	case <-c.done:
		return nil, fmt.Errorf("sqlrl serve exited (%v):\n%s", c.err, c.lastLines())
	case <-ctx.Done():
		c.kill()
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		c.kill()
		return nil, fmt.Errorf("sqlrl serve did not say where it serves within 2 minutes:\n%s", c.lastLines())
	}
	for {
		resp, err := http.Get("http://" + c.addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return c, nil
			}
		}
		select {
		case <-c.done:
			return nil, fmt.Errorf("sqlrl serve exited (%v):\n%s", c.err, c.lastLines())
		case <-ctx.Done():
			c.kill()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// restartChild starts a server on the address a killed one used, retrying
// while the port is not yet free again.
func restartChild(ctx context.Context, exe, cfg, addr string) (*childServer, error) {
	var err error
	for range 50 {
		var c *childServer
		if c, err = startChild(ctx, exe, cfg, addr); err == nil {
			return c, nil
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "listen") {
			return nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, err
}

// kill SIGKILLs the process and waits for it.
func (c *childServer) kill() error {
	select {
	case <-c.done:
		return nil
	default:
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return fmt.Errorf("kill %s: %w", c.addr, err)
	}
	<-c.done
	return nil
}

// stop asks the process to drain (SIGTERM) and kills it past grace.
func (c *childServer) stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Errorf("exit %v:\n%s", c.err, c.lastLines())
		}
		return nil
	case <-time.After(grace):
		c.kill()
		return fmt.Errorf("did not stop within %v; killed", grace)
	}
}
