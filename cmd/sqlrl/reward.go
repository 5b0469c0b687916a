package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
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
		flags: rewardServeFlags,
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
		flags: benchFlags,
	})
}

// rewardServeFlags declares `reward serve`'s flags.
func rewardServeFlags(fs *flag.FlagSet) func(context.Context, []string) error {
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
		so, b, err := stackOpts()
		if err != nil {
			return err
		}
		stack, err := reward.NewSQLiteStack(so)
		if err != nil {
			return err
		}
		defer stack.Close()
		name := so.Reward.Name()
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
}

// benchFlags declares `reward bench`'s flags.
func benchFlags(fs *flag.FlagSet) func(context.Context, []string) error {
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
		so, b, err := stackOpts()
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
}

// stackFlags declares the flags shared by serve and bench (the stack's,
// reward.StackOptions.Flags, and where the databases are) and returns a
// function that builds the stack options and loads the benchmark, if any.
func stackFlags(fs *flag.FlagSet) func() (reward.StackOptions, *dataset.Benchmark, error) {
	data := fs.String("data", defaultData, "benchmark `dir` (BIRD or Spider layout): databases, and questions for question_id labels")
	split := fs.String("split", "dev", "benchmark split")
	dbRoot := fs.String("db-root", "", "`dir` holding <db>/<db>.sqlite (instead of, or overriding, --data's)")
	so := reward.DefaultStackOptions()
	so.Reward.Flags(fs)
	so.Flags(fs)
	return func() (reward.StackOptions, *dataset.Benchmark, error) {
		var b *dataset.Benchmark
		if *data != "" {
			var err error
			if b, err = dataset.Load(*data, *split); err != nil {
				if *dbRoot == "" {
					return so, nil, err
				}
				b = nil
			}
		}
		so.DBRoot = *dbRoot
		if so.DBRoot == "" && b != nil {
			so.DBRoot = b.DBRoot
		}
		if so.DBRoot == "" {
			return so, nil, usagef("give --data or --db-root")
		}
		if err := so.Reward.Check(); err != nil {
			return so, nil, usagef("%v", err)
		}
		return so, b, nil
	}
}
