package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func init() {
	register(&command{
		name:    "reward serve",
		summary: "serve rewards over HTTP to RLHF trainers (OpenRLHF remote RM protocol + JSON API)",
		usage:   "[flags]",
		help: `Scores model completions by executing their SQL read-only against the benchmark's
databases and comparing with the gold (BIRD EX, as 'sqlrl eval' does), optionally with a
judge grading out of 50. See docs/reward-server.md for the protocol and label format.

Endpoints:
  POST /get_reward (or /)  OpenRLHF: {"query", "prompts", "labels"} -> {"rewards", "scores", "extra_logs"}
  POST /v1/reward          {"db_id", "gold_sql" | "question_id", "completions": [...]} -> per-completion results
  GET  /healthz, /metrics  health, Prometheus text metrics

Rewards (--reward): binary, ex, arctic, mats (execution only); judge, judge-blind (judge
only); gate, sum (executor + judge, see --error-value, --exec-scheme, --w-exec, --w-judge).

examples:
  sqlrl reward serve --addr 0.0.0.0:5000
  sqlrl reward serve --reward mats --data data/bird --split train
  OPENAI_BASE_URL=http://localhost:8000/v1 sqlrl reward serve --judge llm --judge-model Qwen2.5-7B-Instruct`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			addr := fs.String("addr", "127.0.0.1:5000", "listen `address` (0.0.0.0:5000 to serve other machines)")
			stackOpts := stackFlags(fs)
			requestTimeout := fs.Duration("request-timeout", rewardserver.DefaultRequestTimeout, "deadline for one request (OpenRLHF's client waits 180s)")
			maxBody := fs.Int("max-body-mib", rewardserver.DefaultMaxBodyBytes>>20, "largest request body in MiB (larger: 413)")
			maxInFlight := fs.Int("max-inflight", 0, "completions scored at once, server-wide (default 32 x CPUs)")
			quiet := fs.Bool("quiet", false, "do not log failed requests")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				so, b, name, err := stackOpts()
				if err != nil {
					return err
				}
				stack, err := reward.NewSQLiteStack(so)
				if err != nil {
					return err
				}
				defer stack.Close()
				cfg := rewardserver.StackConfig(stack, name)
				cfg.RequestTimeout, cfg.MaxBodyBytes, cfg.MaxInFlight = *requestTimeout, int64(*maxBody)<<20, *maxInFlight
				if b != nil {
					cfg.Questions = map[int]dataset.Example{}
					for _, ex := range b.Examples {
						cfg.Questions[ex.QuestionID] = ex
					}
				}
				if !*quiet {
					cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
				}
				srv, err := rewardserver.New(cfg)
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", *addr)
				if err != nil {
					return fmt.Errorf("listen: %w", err)
				}
				fmt.Fprintf(os.Stderr, "sqlrl reward serve: reward %s, databases in %s, %d benchmark questions; listening on http://%s (POST /get_reward, /v1/reward; GET /healthz, /metrics)\n",
					name, so.DBRoot, len(cfg.Questions), ln.Addr())
				return srv.Serve(ctx, ln)
			}
		},
	})
	register(&command{
		name:    "reward bench",
		summary: "load-test the reward server: floor vs server time, latency, throughput",
		usage:   "[flags]",
		help: `Builds K completions per benchmark question (the gold, mutations of it, and repeats,
in the packagings policies write: fences, "Final SQL query:", chat end tokens), then:

  1. floor: executes each distinct query (golds and completions) once on a fresh engine,
     pooled connections, one worker per CPU: what SQLite alone needs;
  2. server: sends the same completions, one request per question, from --clients
     concurrent clients over HTTP to a fresh in-process server, and prints the ratio;
  3. load: the clients keep sending for --duration; prints p50/p99 latency, completions/s,
     errors, lost requests and reward mismatches (rewards must be deterministic).

example:
  sqlrl reward bench --duration 60s --clients 64 --k 8`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			stackOpts := stackFlags(fs)
			clients := fs.Int("clients", 64, "concurrent clients")
			k := fs.Int("k", 8, "completions per question (per request)")
			duration := fs.Duration("duration", 60*time.Second, "length of the load phase")
			seed := fs.Int64("seed", 1, "seed for the mutations")
			limit := fs.Int("questions", 0, "use only the first `N` questions (0: all)")
			rounds := fs.Int("rounds", 1, "repeat floor and server `N` times, alternately, and report the median ratio (a shared machine is noisy)")
			jsonOut := fs.String("json", "", "also write the report as JSON to `file`")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				so, b, _, err := stackOpts()
				if err != nil {
					return err
				}
				if b == nil {
					return usagef("bench needs a benchmark (--data) for its questions")
				}
				exs := b.Examples
				if *limit > 0 && *limit < len(exs) {
					exs = exs[:*limit]
				}
				rep, err := rewardserver.Bench(ctx, rewardserver.BenchOptions{
					Examples: exs, Stack: so, Clients: *clients, K: *k, Duration: *duration, Seed: *seed, Rounds: *rounds, Log: os.Stderr,
				})
				if err != nil {
					return err
				}
				rep.WriteText(os.Stdout)
				if *jsonOut != "" {
					data, err := json.MarshalIndent(rep, "", "  ")
					if err != nil {
						return fmt.Errorf("encode report: %w", err)
					}
					if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
						return fmt.Errorf("write report: %w", err)
					}
				}
				if l := rep.Load; l.Errors > 0 || l.Lost > 0 || l.Mismatches > 0 {
					return fmt.Errorf("load phase: %d errors, %d lost, %d mismatches", l.Errors, l.Lost, l.Mismatches)
				}
				return nil
			}
		},
	})
}

// stackFlags declares the flags shared by serve and bench and returns a
// function that checks them and builds the stack options (plus the loaded
// benchmark, if any, and a name for the reward).
func stackFlags(fs *flag.FlagSet) func() (reward.StackOptions, *dataset.Benchmark, string, error) {
	data := fs.String("data", defaultData, "benchmark `dir` (BIRD or Spider layout): databases, and questions for question_id labels")
	split := fs.String("split", "dev", "benchmark split")
	dbRoot := fs.String("db-root", "", "`dir` holding <db>/<db>.sqlite (instead of, or overriding, --data's)")
	kind := fs.String("reward", reward.KindGate, "reward: "+strings.Join(reward.Kinds(), ", "))
	errorValue := fs.Float64("error-value", -1, "gate: reward of SQL that fails to execute")
	scheme := fs.String("exec-scheme", string(reward.SchemeBinary), "sum: execution part (binary, ex, arctic, mats)")
	wExec := fs.Float64("w-exec", 0.5, "sum: weight of the execution part")
	wJudge := fs.Float64("w-judge", 0.5, "sum: weight of judge/50")
	askOnMatch := fs.Bool("ask-on-match", false, "ask the judge about answers that match the gold too (default: a match gets full marks)")
	judge := fs.String("judge", "analytic", "judge for judge/gate/sum rewards: analytic or llm")
	judgeURL := fs.String("judge-url", os.Getenv("OPENAI_BASE_URL"), "llm judge: OpenAI-compatible API root, e.g. http://localhost:8000/v1 (default $OPENAI_BASE_URL)")
	judgeModel := fs.String("judge-model", os.Getenv("SQLRL_JUDGE_MODEL"), "llm judge: model name (default $SQLRL_JUDGE_MODEL)")
	judgeKey := fs.String("judge-key", "", "llm judge: API key (default $OPENAI_API_KEY; prefer the variable: flags show in ps)")
	judgeTimeout := fs.Duration("judge-timeout", 60*time.Second, "llm judge: time limit per attempt; all attempts also end in time for the fallback to answer before --request-timeout")
	judgeRetries := fs.Int("judge-retries", 2, "llm judge: attempts after the first (exponential backoff)")
	judgeFallback := fs.String("judge-fallback", "analytic", "llm judge: when it fails: analytic, error (fail the request), or fixed points 0..50")
	judgeConc := fs.Int("judge-concurrency", 16, "llm judge: requests in flight to the judge server")
	queryTimeout := fs.Duration("query-timeout", eval.BIRDPairTimeout, "time limit for a completion and its gold together (BIRD: 30s)")
	conns := fs.Int("conns-per-db", 0, "concurrent queries per database (default: 2 x CPUs)")
	maxResult := fs.Int("max-result-mib", sqlexec.DefaultMaxResultBytes>>20, "largest query result in MiB of memory (larger scores as an error)")
	cacheEntries := fs.Int("cache-entries", 200_000, "entries each cache (results, verdicts, scores) holds before it starts afresh")
	noMemo := fs.Bool("no-memo", false, "do not remember scores of repeated completions")
	return func() (reward.StackOptions, *dataset.Benchmark, string, error) {
		var so reward.StackOptions
		var b *dataset.Benchmark
		if *data != "" {
			var err error
			if b, err = dataset.Load(*data, *split); err != nil {
				if *dbRoot == "" {
					return so, nil, "", err
				}
				b = nil
			}
		}
		root := *dbRoot
		if root == "" && b != nil {
			root = b.DBRoot
		}
		if root == "" {
			return so, nil, "", usagef("give --data or --db-root")
		}
		if !validKind(*kind) {
			return so, nil, "", usagef("--reward %q: want one of %s", *kind, strings.Join(reward.Kinds(), ", "))
		}
		cfg := reward.Config{Kind: *kind, ErrorValue: *errorValue, Scheme: reward.Scheme(*scheme), WExec: *wExec, WJudge: *wJudge, AskOnMatch: *askOnMatch}
		name := *kind
		switch *judge {
		case "analytic":
			cfg.Judge = reward.Analytic{}
		case "llm":
			if *judgeURL == "" || *judgeModel == "" {
				return so, nil, "", usagef("--judge llm needs --judge-url (or OPENAI_BASE_URL) and --judge-model")
			}
			key := *judgeKey
			if key == "" {
				key = os.Getenv("OPENAI_API_KEY")
			}
			j := reward.NewLLMJudge(*judgeURL, *judgeModel, key)
			j.Timeout, j.Retries, j.MaxConcurrent = *judgeTimeout, *judgeRetries, *judgeConc
			switch fb := *judgeFallback; fb {
			case "analytic":
			case "error":
				j.Fallback = nil
			default:
				p, err := strconv.ParseFloat(fb, 64)
				if err != nil || p < 0 || p > reward.MaxPoints {
					return so, nil, "", usagef("--judge-fallback %q: want analytic, error or points 0..50", fb)
				}
				j.Fallback = reward.FixedGrade(p)
			}
			cfg.Judge = j
		default:
			return so, nil, "", usagef("--judge %q: want analytic or llm", *judge)
		}
		if reward.NeedsResults(*kind) || *kind == reward.KindJudgeBlind {
			name += "+" + *judge
		}
		so = reward.StackOptions{DBRoot: root, Reward: cfg, QueryTimeout: *queryTimeout, ConnsPerDB: *conns,
			MaxResultBytes: *maxResult << 20, CacheEntries: *cacheEntries, NoMemo: *noMemo}
		return so, b, name, nil
	}
}

func validKind(k string) bool {
	for _, v := range reward.Kinds() {
		if v == k {
			return true
		}
	}
	return false
}
