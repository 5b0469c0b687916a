package askserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/fakechat"
	"github.com/sqlrl/sqlrl/loadtest"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	// Config is the servers' config file; Store, when set, replaces its
	// store (a SQLite file or a postgres:// DSN).
	Config, Store string
	// Serve is the command line that runs one server with a config on an
	// address (e.g. sqlrl serve -config CFG -addr ADDR -quiet).
	Serve func(config, addr string) []string
	// FakeModel points the servers' generator at a fake model in this
	// process that answers each question with its SQL, so that the run
	// measures the server; false keeps the config's generator.
	FakeModel bool
	// Questions is a JSONL file of LoadQuestions; empty: built from the
	// databases' first tables (BuiltinLoadQuestions).
	Questions string
	// Replicas servers share the store (more than one needs PostgreSQL).
	Replicas int
	// KillAfter, when positive, SIGKILLs the first server this far into
	// the run and restarts it on its port.
	KillAfter time.Duration
	// Clients, Duration, FeedbackShare and Seed are RunLoad's.
	Clients       int
	Duration      time.Duration
	FeedbackShare float64
	Seed          uint64
	// Log gets progress lines; nil discards.
	Log io.Writer
}

// BenchReport is the load report with what the run was.
type BenchReport struct {
	*LoadReport
	Store      string `json:"store"`
	Model      string `json:"model"`
	Questions  int    `json:"questions"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUs       int    `json:"cpus"`
}

// WriteText prints the report for people.
func (r *BenchReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "serve bench: store %s, model %s, %d questions, %d CPUs\n", r.Store, r.Model, r.Questions, r.CPUs)
	r.LoadReport.WriteText(w)
}

// Failure is the error a report says the run had: HTTP errors, lost
// writes or a failed restart; nil when there was none.
func (r *BenchReport) Failure() error {
	var httpErrs int64
	for _, rt := range r.Routes {
		httpErrs += rt.HTTPErrors()
	}
	if r.Lost == 0 && httpErrs == 0 && r.DisruptError == "" {
		return nil
	}
	restart := ""
	if r.DisruptError != "" {
		restart = ", restart failed: " + r.DisruptError
	}
	return fmt.Errorf("serve bench: %d HTTP errors, %d acknowledged writes lost or altered%s", httpErrs, r.Lost, restart)
}

// ErrReplicasNeedPostgres is Bench's answer to replicas over a store they
// cannot share.
var ErrReplicasNeedPostgres = errors.New("replicas share a PostgreSQL store")

// Bench starts Replicas servers as child processes on free loopback ports,
// runs RunLoad against them, optionally SIGKILLs and restarts the first,
// stops them and then verifies every acknowledged answer and feedback
// against the store. The report is returned also when verifying fails.
func Bench(ctx context.Context, o BenchOptions) (*BenchReport, error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	cfg, err := LoadConfig(o.Config)
	if err != nil {
		return nil, err
	}
	store, err := benchStore(cfg.Store, o.Store, o.Replicas)
	if err != nil {
		return nil, err
	}
	key := firstKey(cfg)
	if key == "" && o.FeedbackShare > 0 {
		return nil, fmt.Errorf("serve config %s: api_keys: none, and feedback needs one (or run with -feedback-share 0)", o.Config)
	}
	var qs []LoadQuestion
	if o.Questions != "" {
		if qs, err = ReadLoadQuestions(o.Questions); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "sqlrl-serve-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fake := &fakechat.Server{}
	modelURL, model := "", "config"
	if o.FakeModel {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("serve bench: fake model: %w", err)
		}
		srv := &http.Server{Handler: fake}
		go srv.Serve(ln)
		defer srv.Close()
		modelURL, model = "http://"+ln.Addr().String()+"/v1", "fake"
	}
	derived, err := benchConfig(o.Config, cfg, store, modelURL, filepath.Join(dir, "serve.json"))
	if err != nil {
		return nil, err
	}
	reps, err := startReplicas(ctx, o, derived, logw)
	defer func() {
		for _, r := range reps {
			r.Stop(10 * time.Second)
		}
	}()
	if err != nil {
		return nil, err
	}
	if qs == nil {
		if qs, err = builtinQuestions(ctx, "http://"+reps[0].Addr); err != nil {
			return nil, err
		}
	}
	fake.Set(fakeAnswers(qs))
	lr, err := RunLoad(ctx, loadOptions(o, key, qs, reps, logw))
	if err != nil {
		return nil, err
	}
	out := &BenchReport{LoadReport: lr, Store: StoreName(store), Model: model, Questions: len(qs),
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	// The servers stop first, so that the store is read as a restart would
	// find it.
	for _, r := range reps {
		if err := r.Stop(30 * time.Second); err != nil {
			fmt.Fprintf(logw, "serve bench: stopping %s: %v\n", r.Addr, err)
		}
	}
	return out, verifyStore(ctx, store, lr)
}

// benchStore is the store the servers share: the config's, or over, made
// absolute when a file.
func benchStore(store, over string, replicas int) (string, error) {
	if over != "" {
		store = over
		if !feedback.IsPostgres(store) {
			var err error
			if store, err = filepath.Abs(store); err != nil {
				return "", err
			}
		}
	}
	if replicas > 1 && !feedback.IsPostgres(store) {
		return "", fmt.Errorf("%w; the store is %s (set a postgres:// DSN as the config's store or -store)", ErrReplicasNeedPostgres, store)
	}
	return store, nil
}

// firstKey is the key of the first API key by name, "" for none.
func firstKey(cfg *Config) string {
	if names := sortedKeys(cfg.APIKeys); len(names) > 0 {
		return cfg.APIKeys[names[0]].Key
	}
	return ""
}

func startReplicas(ctx context.Context, o BenchOptions, config string, logw io.Writer) ([]*loadtest.Child, error) {
	var reps []*loadtest.Child
	argv := func(addr string) []string { return o.Serve(config, addr) }
	for i := range max(1, o.Replicas) {
		r, err := loadtest.Start(ctx, argv, "127.0.0.1:0")
		if err != nil {
			return reps, fmt.Errorf("serve bench: start server %d: %w", i+1, err)
		}
		reps = append(reps, r)
		fmt.Fprintf(logw, "serve bench: server %d on %s\n", i+1, r.Addr)
	}
	return reps, nil
}

// loadOptions are RunLoad's options over the replicas, with the kill and
// restart of the first as the disruption when o asks for one.
func loadOptions(o BenchOptions, key string, qs []LoadQuestion, reps []*loadtest.Child, logw io.Writer) LoadOptions {
	targets := make([]string, len(reps))
	for i, r := range reps {
		targets[i] = "http://" + r.Addr
	}
	lo := LoadOptions{Targets: targets, Key: key, Questions: qs, Clients: o.Clients, Duration: o.Duration,
		FeedbackShare: o.FeedbackShare, Seed: o.Seed, Log: logw}
	if o.KillAfter > 0 {
		lo.DisruptAfter = o.KillAfter
		lo.Disrupt = func(ctx context.Context) error {
			t0 := time.Now()
			if err := reps[0].Kill(); err != nil {
				return err
			}
			nr, err := reps[0].Restart(ctx)
			if err != nil {
				return err
			}
			reps[0] = nr
			fmt.Fprintf(logw, "serve bench: server 1 killed (SIGKILL) and serving again on %s after %.2fs\n", nr.Addr, time.Since(t0).Seconds())
			return nil
		}
	}
	fmt.Fprintf(logw, "serve bench: %d clients for %v on %d server(s), %d questions\n", o.Clients, o.Duration, len(reps), len(qs))
	return lo
}

func verifyStore(ctx context.Context, store string, lr *LoadReport) error {
	st, err := feedback.Open(ctx, store)
	if err != nil {
		return fmt.Errorf("serve bench: open the store to verify: %w", err)
	}
	defer st.Close()
	return lr.Verify(ctx, st)
}

// fakeAnswers are the questions with their SQL as the fake model's answers.
func fakeAnswers(qs []LoadQuestion) []fakechat.QA {
	out := make([]fakechat.QA, len(qs))
	for i, q := range qs {
		out[i] = fakechat.QA{Question: q.Question, Answer: q.SQL}
	}
	return out
}

// benchConfig writes the config the servers run with to path: the user's,
// with database files and the store made absolute (the file moves to a
// temporary folder), the store replaced by store, and, when modelURL is
// set, the generator replaced by the fake model there. Everything else
// (keys by environment variable, limits) is kept as written.
func benchConfig(orig string, cfg *Config, store, modelURL, path string) (string, error) {
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

// builtinQuestions builds the questions from each database's tables, as
// GET /api/databases lists them.
func builtinQuestions(ctx context.Context, base string) ([]LoadQuestion, error) {
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
	qs := BuiltinLoadQuestions(tables)
	if len(qs) == 0 {
		return nil, errors.New("serve bench: no tables to ask about (give -questions)")
	}
	return qs, nil
}

// StoreName is a store location fit for a log line: a DSN's password is
// left out.
func StoreName(loc string) string {
	if i := strings.Index(loc, "@"); i > 0 && strings.Contains(loc, "://") {
		return loc[:strings.Index(loc, "://")+3] + "…" + loc[i:]
	}
	return loc
}
