package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
)

func init() {
	register(&command{
		name:    "reward serve",
		summary: "serve rewards over HTTP to RLHF trainers (OpenRLHF remote RM protocol + JSON API)",
		usage:   "[flags]",
		help: `Scores completions by executing their SQL read-only against the benchmark's
databases and comparing with the gold (BIRD EX, as 'sqlrl eval'), optionally
with a judge; --reward picks the kind (docs/reward-server.md: protocol,
labels, kinds). POST /get_reward (OpenRLHF) and /v1/reward; GET /healthz,
/metrics.

  sqlrl reward serve --addr 0.0.0.0:5000 --reward mats --data data/bird --split train`,
		args:  argsNone,
		flags: rewardServeFlags,
	})
	register(&command{
		name:    "reward bench",
		summary: "load-test the reward server: floor vs server time, latency, throughput",
		usage:   "[flags]",
		help: `Builds --k completions per question (the gold, mutations, repeats, in the
packagings policies write) and measures (1) the floor: each distinct query
executed once, (2) the same completions through a fresh in-process server
from --clients clients, and their ratio, (3) load for --duration: latency,
throughput, errors, lost requests and reward mismatches (exit 1 if any).`,
		args:  argsNone,
		flags: benchFlags,
	})
}

// rewardServeFlags declares `reward serve`'s flags.
func rewardServeFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var src rewardserver.StackSource
	var cfg rewardserver.Config
	addr := fs.String("addr", "127.0.0.1:5000", "listen `address` (0.0.0.0:5000 to serve other machines)")
	src.Flags(fs, defaultData)
	cfg.Flags(fs)
	quiet := fs.Bool("quiet", false, "do not log failed requests")
	return func(ctx context.Context, args []string) error {
		so, b, err := loadStack(&src)
		if err != nil {
			return err
		}
		cfg.Log = logTo(*quiet)
		srv, closeStack, err := cfg.NewOnStack(so, b)
		if err != nil {
			return err
		}
		defer closeStack()
		return serveOn(ctx, *addr, srv.Serve, func(a net.Addr) string {
			return fmt.Sprintf("sqlrl reward serve: reward %s, databases in %s, %d benchmark questions; listening on http://%s (POST /get_reward, /v1/reward; GET /healthz, /metrics)",
				cfg.Name, so.DBRoot, len(cfg.Questions), a)
		})
	}
}

// benchFlags declares `reward bench`'s flags.
func benchFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var src rewardserver.StackSource
	o := rewardserver.BenchOptions{Log: os.Stderr}
	src.Flags(fs, defaultData)
	o.Flags(fs)
	jsonOut := fs.String("json", "", "also write the report as JSON to `file`")
	return func(ctx context.Context, args []string) error {
		so, b, err := loadStack(&src)
		if err != nil {
			return err
		}
		if b == nil {
			return usagef("bench needs a benchmark (--data) for its questions")
		}
		o.Examples, o.Stack = b.Examples, so
		rep, err := rewardserver.Bench(ctx, o)
		if err != nil {
			return err
		}
		rep.WriteText(os.Stdout)
		if *jsonOut != "" {
			if err := rep.WriteJSON(*jsonOut); err != nil {
				return err
			}
		}
		return rep.Err()
	}
}

// loadStack checks the reward stack's flags and loads its source.
func loadStack(src *rewardserver.StackSource) (reward.StackOptions, *dataset.Benchmark, error) {
	so, b, err := src.Load()
	switch {
	case err != nil:
		return so, nil, err
	case so.DBRoot == "":
		return so, nil, usagef("give --data or --db-root")
	}
	if err := so.Reward.Check(); err != nil {
		return so, nil, usagef("%v", err)
	}
	return so, b, nil
}
