package rewardserver

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
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/loadtest"
	"github.com/sqlrl/sqlrl/mutate"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/procstat"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	// Examples are the questions; completions are derived from their gold.
	Examples []dataset.Example
	// Stack is the server's stack (DBRoot, reward, limits).
	Stack reward.StackOptions
	// Clients send requests concurrently; default 64.
	Clients int
	// K completions per question and request; default 8.
	K int
	// Duration of the load phase; default 60 s.
	Duration time.Duration
	// Seed chooses the mutations.
	Seed int64
	// Questions > 0 uses only the first Questions examples.
	Questions int
	// Rounds repeats floor and server (alternately, fresh each time) and
	// reports the round with the median ratio; default 1. On a shared
	// machine one round is one noisy sample.
	Rounds int
	// Log gets progress lines; nil discards.
	Log io.Writer
}

// BenchReport is what Bench measured.
type BenchReport struct {
	Questions   int `json:"questions"`
	Completions int `json:"completions"`
	// Distinct is the number of distinct (database, SQL) queries among the
	// golds and the completions' extracted SQL: what must be executed.
	Distinct int `json:"distinct_queries"`
	// FloorSeconds: executing each distinct query once on a fresh engine,
	// pooled connections, GOMAXPROCS workers.
	FloorSeconds float64 `json:"floor_seconds"`
	// ServerSeconds: the same completions, one request per question, sent
	// by Clients clients over HTTP to a fresh server.
	ServerSeconds float64 `json:"server_seconds"`
	Ratio         float64 `json:"ratio"`
	// CPU seconds of the same two phases (process user+system time; the
	// server's includes the bench's own clients).
	FloorCPUSeconds  float64 `json:"floor_cpu_seconds"`
	ServerCPUSeconds float64 `json:"server_cpu_seconds"`
	// Executions is how many queries the fresh server executed (result
	// cache misses): Distinct when repeats cost a lookup.
	Executions int64 `json:"executions"`
	// Rounds lists every round when there were several; the fields above
	// are the median round's.
	Rounds     []Round    `json:"rounds,omitempty"`
	Load       LoadReport `json:"load"`
	GOMAXPROCS int        `json:"gomaxprocs"`
}

// Round is one floor + server measurement. CPU seconds are the process's
// (user+system), clients included for the server: steadier than wall time
// on a shared machine.
type Round struct {
	FloorSeconds     float64 `json:"floor_seconds"`
	ServerSeconds    float64 `json:"server_seconds"`
	Ratio            float64 `json:"ratio"`
	FloorCPUSeconds  float64 `json:"floor_cpu_seconds"`
	ServerCPUSeconds float64 `json:"server_cpu_seconds"`
	Executions       int64   `json:"executions"`
}

// LoadReport is the sustained-load phase: the reward route's figures
// (requests, latencies, HTTP and connection errors) and what the bench
// checks of the answers.
type LoadReport struct {
	loadtest.Route
	Clients int     `json:"clients"`
	K       int     `json:"k"`
	Seconds float64 `json:"seconds"`
	// Errors: connection errors and answers other than a readable 200
	// (the route's ConnErrors and HTTPErrors). Lost: requests whose answer
	// never came or did not count as served on the server.
	Errors int64 `json:"errors"`
	Lost   int64 `json:"lost"`
	// Mismatches: answers whose rewards differ from the first pass's
	// (rewards must be deterministic).
	Mismatches      int64   `json:"mismatches"`
	Completions     int64   `json:"completions"`
	CompletionsPerS float64 `json:"completions_per_second"`
	RequestsPerS    float64 `json:"requests_per_second"`
	ServerAnswered  int64   `json:"server_answered"`
}

// benchQuestion is one request of the bench: a question and K completions.
type benchQuestion struct {
	ex          dataset.Example
	completions []string
	body        []byte
	rewards     []float64 // from the speed pass
}

// benchQuery is one distinct query of the floor.
type benchQuery struct{ db, sql string }

// wrappers are the packagings completions come in, as policies write them.
var wrappers = []string{
	"%s",
	"```sql\n%s\n```",
	"Let me think step by step about the tables involved.\nFinal SQL query:\n```sql\n%s\n```",
	"%s<|im_end|>",
}

// benchSet builds K completions per question: the gold and up to K-1
// mutations (safe kinds only), padded with repeats of the gold in other
// packagings, each wrapped as a policy would write it.
func benchSet(examples []dataset.Example, k int, seed int64) []benchQuestion {
	golds := make([]mutate.Gold, len(examples))
	for i, ex := range examples {
		golds[i] = mutate.Gold{QuestionID: ex.QuestionID, DBID: ex.DBID, SQL: ex.SQL}
	}
	per := make([][]string, len(examples))
	for _, p := range mutate.BuildSet(golds, k-1, seed) {
		per[p.GoldIndex] = append(per[p.GoldIndex], p.Pred)
	}
	qs := make([]benchQuestion, len(examples))
	for i, ex := range examples {
		sqls := per[i]
		for len(sqls) < k {
			sqls = append(sqls, ex.SQL)
		}
		cs := make([]string, len(sqls))
		for j, s := range sqls {
			cs[j] = fmt.Sprintf(wrappers[(i+j)%len(wrappers)], s)
		}
		body, _ := json.Marshal(map[string]any{"db_id": ex.DBID, "gold_sql": ex.SQL, "question": ex.Question,
			"evidence": ex.Evidence, "completions": cs})
		qs[i] = benchQuestion{ex: ex, completions: cs, body: body}
	}
	return qs
}

// Bench measures the server against the floor (SQLite alone), then under
// sustained load. See BenchReport.
func Bench(ctx context.Context, o BenchOptions) (*BenchReport, error) {
	if o.Clients <= 0 {
		o.Clients = 64
	}
	if o.K <= 0 {
		o.K = 8
	}
	if o.Duration <= 0 {
		o.Duration = 60 * time.Second
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	if o.Questions > 0 && o.Questions < len(o.Examples) {
		o.Examples = o.Examples[:o.Questions]
	}
	if len(o.Examples) == 0 {
		return nil, errors.New("bench: no questions")
	}
	qs := benchSet(o.Examples, o.K, o.Seed)
	rep := &BenchReport{Questions: len(qs), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	distinct := distinctQueries(qs, rep)
	rep.Distinct = len(distinct)
	warmFiles(o.Stack.DBRoot)
	rounds := max(1, o.Rounds)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}}
	defer client.CloseIdleConnections()
	var bs *benchServer
	defer func() { bs.close() }()
	for r := range rounds {
		bs.close()
		cpu0 := procstat.CPUSeconds()
		floor, err := runFloor(ctx, o.Stack, distinct)
		if err != nil {
			return nil, err
		}
		floorCPU := procstat.CPUSeconds() - cpu0
		fmt.Fprintf(logw, "floor: %d distinct queries in %.3fs\n", rep.Distinct, floor)
		if bs, err = startBenchServer(o.Stack); err != nil {
			return nil, err
		}
		cpu0 = procstat.CPUSeconds()
		secs, err := speedPass(ctx, client, bs.url, qs, o.Clients)
		if err != nil {
			return nil, err
		}
		rd := Round{FloorSeconds: floor, ServerSeconds: secs, Ratio: secs / floor, FloorCPUSeconds: floorCPU,
			ServerCPUSeconds: procstat.CPUSeconds() - cpu0, Executions: bs.stack.Scorer.CacheStats().Misses}
		rep.Rounds = append(rep.Rounds, rd)
		fmt.Fprintf(logw, "server: %d completions in %d requests in %.3fs (%.2fx the floor) [round %d/%d]\n",
			rep.Completions, len(qs), secs, rd.Ratio, r+1, rounds)
	}
	sorted := slices.Clone(rep.Rounds)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Ratio < sorted[j].Ratio })
	med := sorted[len(sorted)/2]
	rep.FloorSeconds, rep.ServerSeconds, rep.Ratio, rep.Executions = med.FloorSeconds, med.ServerSeconds, med.Ratio, med.Executions
	rep.FloorCPUSeconds, rep.ServerCPUSeconds = med.FloorCPUSeconds, med.ServerCPUSeconds
	if rounds == 1 {
		rep.Rounds = nil
	}

	// Sustained load on the warm server.
	fmt.Fprintf(logw, "load: %d clients for %v...\n", o.Clients, o.Duration)
	rep.Load = load(ctx, client, bs.url, qs, o.Clients, o.Duration)
	rep.Load.K = o.K
	// Every request a client saw answered must have been counted by the
	// server, and none more: nothing lost on either side. Shutting down
	// first waits for the handlers, which count after writing.
	if err := bs.shutdown(); err != nil {
		return nil, err
	}
	ok200 := bs.srv.http.Requests("v1", 200)
	rep.Load.ServerAnswered = ok200 - int64(len(qs))
	answered := rep.Load.Requests - rep.Load.Errors
	rep.Load.Lost += max(0, answered-rep.Load.ServerAnswered) + max(0, rep.Load.ServerAnswered-answered)
	return rep, nil
}

// distinctQueries lists the distinct (database, SQL) queries of the golds
// and the completions' extracted SQL, counting the completions in rep.
func distinctQueries(qs []benchQuestion, rep *BenchReport) []benchQuery {
	var distinct []benchQuery
	seen := map[benchQuery]bool{}
	add := func(q benchQuery) {
		q.sql = strings.TrimSpace(q.sql)
		if !seen[q] {
			seen[q] = true
			distinct = append(distinct, q)
		}
	}
	for _, q := range qs {
		add(benchQuery{q.ex.DBID, q.ex.SQL})
		for _, c := range q.completions {
			add(benchQuery{q.ex.DBID, reward.ExtractSQL(c)})
			rep.Completions++
		}
	}
	return distinct
}

// benchServer is a fresh in-process server on a loopback port.
type benchServer struct {
	stack  *reward.Stack
	srv    *Server
	url    string
	stop   context.CancelFunc
	served chan error
	done   bool
}

func startBenchServer(so reward.StackOptions) (*benchServer, error) {
	stack, err := reward.NewSQLiteStack(so)
	if err != nil {
		return nil, err
	}
	srv, err := New(StackConfig(stack, so.Reward.Kind))
	if err != nil {
		stack.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("bench: listen: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	bs := &benchServer{stack: stack, srv: srv, url: "http://" + ln.Addr().String() + "/v1/reward", stop: stop, served: make(chan error, 1)}
	go func() { bs.served <- srv.Serve(ctx, ln) }()
	return bs, nil
}

// shutdown stops the server gracefully (handlers in flight finish).
func (bs *benchServer) shutdown() error {
	if bs == nil || bs.done {
		return nil
	}
	bs.done = true
	bs.stop()
	return <-bs.served
}

// close shuts down and closes the engine; safe on nil and twice.
func (bs *benchServer) close() {
	if bs == nil {
		return
	}
	bs.shutdown()
	bs.stack.Close()
}

// runFloor executes each distinct query once on a fresh engine with the
// stack's limits: one worker per core pulling the next query, pooled
// connections. It returns the wall time in seconds.
func runFloor(ctx context.Context, so reward.StackOptions, distinct []benchQuery) (float64, error) {
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: so.DBRoot, MaxConnsPerDB: so.ConnsPerDB,
		Limits: sqlexec.Limits{Timeout: so.QueryTimeout, MaxBytes: so.MaxResultBytes}})
	defer e.Close()
	start := time.Now()
	// A query's own failure is part of the floor, not an error of the run.
	err := parallel.For(ctx, len(distinct), 0, func(ctx context.Context, i int) error {
		e.Query(ctx, distinct[i].db, distinct[i].sql)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	return time.Since(start).Seconds(), nil
}

// speedPass sends each question's request once from clients concurrent
// clients and keeps the rewards; it returns the wall time in seconds.
func speedPass(ctx context.Context, client *http.Client, url string, qs []benchQuestion, clients int) (float64, error) {
	start := time.Now()
	err := parallel.For(ctx, len(qs), clients, func(ctx context.Context, i int) error {
		rw, _, err := post(ctx, client, url, qs[i].body, len(qs[i].completions))
		if err != nil {
			return fmt.Errorf("question %d: %w", qs[i].ex.QuestionID, err)
		}
		qs[i].rewards = rw
		return nil
	})
	secs := time.Since(start).Seconds()
	if err != nil {
		return 0, fmt.Errorf("bench: speed pass: %w", err)
	}
	return secs, nil
}

// load runs clients for d, each sending the next question's request.
func load(ctx context.Context, client *http.Client, url string, qs []benchQuestion, clients int, d time.Duration) LoadReport {
	var next, mismatches, completions atomic.Int64
	rep := loadtest.Run(ctx, loadtest.Options{Clients: clients, Duration: d}, func(ctx context.Context, _ int, rs loadtest.Routes) {
		r := rs.Get("reward")
		for ctx.Err() == nil {
			q := &qs[int(next.Add(1)-1)%len(qs)]
			t := time.Now()
			// A request started before the deadline is allowed to
			// finish: cutting it would count as lost.
			rw, code, err := post(context.Background(), client, url, q.body, len(q.completions))
			switch {
			case err != nil && code == 0:
				r.Unanswered(err)
			case err != nil:
				r.Failed(code, err.Error())
			default:
				r.Answered(time.Since(t))
				completions.Add(int64(len(rw)))
				if !slices.Equal(rw, q.rewards) {
					mismatches.Add(1)
				}
			}
		}
	})
	r := loadtest.Routes(rep.Routes).Get("reward")
	lr := LoadReport{Route: *r, Clients: clients, Seconds: rep.Seconds, Errors: r.ConnErrors + r.HTTPErrors(),
		Mismatches: mismatches.Load(), Completions: completions.Load()}
	lr.CompletionsPerS = float64(lr.Completions) / lr.Seconds
	lr.RequestsPerS = float64(lr.Requests-lr.Errors) / lr.Seconds
	return lr
}

// post sends one /v1/reward request and returns the rewards and the HTTP
// status (0 when no answer came).
func post(ctx context.Context, client *http.Client, url string, body []byte, n int) ([]float64, int, error) {
	code, raw, err := loadtest.Post(ctx, client, url, "", body)
	if err != nil {
		return nil, 0, err
	}
	if code != http.StatusOK {
		return nil, code, fmt.Errorf("HTTP %d: %s", code, textclip.Clip(string(raw), 200))
	}
	var out struct {
		Results []struct {
			Reward float64 `json:"reward"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, code, fmt.Errorf("decoding answer: %w", err)
	}
	if len(out.Results) != n {
		return nil, code, fmt.Errorf("%d results for %d completions", len(out.Results), n)
	}
	rw := make([]float64, n)
	for i, r := range out.Results {
		rw[i] = r.Reward
	}
	return rw, code, nil
}

// warmFiles reads the database files once so that neither the floor nor
// the server pays for cold disk reads.
func warmFiles(root string) {
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sqlite") {
			if f, err := os.Open(p); err == nil {
				io.Copy(io.Discard, f)
				f.Close()
			}
		}
		return nil
	})
}

// WriteText prints a report for people.
func (r *BenchReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "questions %d, completions %d (K=%d), distinct queries %d, GOMAXPROCS %d\n",
		r.Questions, r.Completions, r.Load.K, r.Distinct, r.GOMAXPROCS)
	for i, rd := range r.Rounds {
		fmt.Fprintf(w, "round %d: floor %.3fs (cpu %.3fs), server %.3fs (cpu %.3fs), ratio %.2fx\n",
			i+1, rd.FloorSeconds, rd.FloorCPUSeconds, rd.ServerSeconds, rd.ServerCPUSeconds, rd.Ratio)
	}
	fmt.Fprintf(w, "floor  (SQLite alone, each distinct query once): %8.3fs  cpu %.3fs\n", r.FloorSeconds, r.FloorCPUSeconds)
	fmt.Fprintf(w, "server (HTTP, fresh caches, %d clients):         %8.3fs  cpu %.3fs  ratio %.2fx  (executions %d)\n",
		r.Load.Clients, r.ServerSeconds, r.ServerCPUSeconds, r.Ratio, r.Executions)
	l := r.Load
	fmt.Fprintf(w, "load   %.1fs: %d requests, %d completions, %.0f completions/s, %.0f requests/s\n",
		l.Seconds, l.Requests, l.Completions, l.CompletionsPerS, l.RequestsPerS)
	fmt.Fprintf(w, "       latency p50 %.2fms p99 %.2fms max %.2fms; errors %d, lost %d, mismatches %d\n",
		l.P50MS, l.P99MS, l.MaxMS, l.Errors, l.Lost, l.Mismatches)
	if l.FirstError != "" {
		fmt.Fprintf(w, "       first error: %s\n", l.FirstError)
	}
}
