package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
)

func init() {
	register(&command{
		name:    "serve bench",
		summary: "load-test 'sqlrl serve': concurrent clients asking and giving feedback, p50/p99, nothing acknowledged lost, optionally a SIGKILL",
		usage:   "-config FILE [-clients 50] [-duration 60s] [-feedback-share 0.5] [-kill-after 20s] [-replicas 2] [-questions FILE] [-model fake|config] [-store LOC] [-json FILE]",
		help: `Starts 'sqlrl serve -config FILE' as child processes, runs clients that ask
and give feedback, then checks that every write the servers acknowledged is in
the store (askserver.Bench); exits 1 on any HTTP error or lost write.
-kill-after SIGKILLs the first server mid-run and restarts it; -model fake
answers from a fake model in this process, so the run measures the server.`,
		flags: serveBenchFlags,
	})
}

func serveBenchFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := askserver.BenchOptions{Serve: func(cfg, addr string) []string {
		exe, _ := os.Executable()
		return []string{exe, "serve", "-config", cfg, "-addr", addr, "-quiet"}
	}}
	fs.StringVar(&o.Config, "config", "", "the servers' config (required)")
	fs.IntVar(&o.Clients, "clients", 50, "concurrent clients")
	fs.DurationVar(&o.Duration, "duration", 60*time.Second, "length of the run")
	fs.Float64Var(&o.FeedbackShare, "feedback-share", 0.5, "share of answers given feedback (0 to 1)")
	fs.DurationVar(&o.KillAfter, "kill-after", 0, "SIGKILL the first server this far into the run and restart it (0: never)")
	fs.IntVar(&o.Replicas, "replicas", 1, "servers sharing the store (more than 1 needs a PostgreSQL store)")
	fs.StringVar(&o.Questions, "questions", "", "questions file (JSONL {db, question, evidence?, sql}); default: built from the databases' tables")
	model := fs.String("model", "fake", "fake (a free fake model answering each question's sql) or config (the config's generator)")
	fs.StringVar(&o.Store, "store", "", "feedback store to use instead of the config's (a SQLite file or a postgres:// DSN)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the clients' choices")
	return func(ctx context.Context, args []string) error {
		switch {
		case len(args) > 0:
			return usagef("unexpected arguments %v", args)
		case o.Config == "":
			return usagef("-config is required")
		case o.Clients < 1 || o.Duration <= 0 || o.Replicas < 1:
			return usagef("-clients, -duration and -replicas must be positive")
		case o.FeedbackShare < 0 || o.FeedbackShare > 1:
			return usagef("-feedback-share %v: want 0 to 1", o.FeedbackShare)
		case *model != "fake" && *model != "config":
			return usagef("-model %q: want fake or config", *model)
		case o.KillAfter < 0 || o.KillAfter >= o.Duration && o.KillAfter > 0:
			return usagef("-kill-after %v: want a time within -duration %v", o.KillAfter, o.Duration)
		}
		o.FakeModel, o.Log = *model == "fake", os.Stderr
		rep, err := askserver.Bench(ctx, o)
		if errors.Is(err, askserver.ErrReplicasNeedPostgres) {
			return usagef("-replicas %d: %v", o.Replicas, err)
		}
		if rep != nil {
			rep.WriteText(os.Stdout)
			if *jsonOut != "" {
				if werr := writeJSON(*jsonOut, rep, true); werr != nil && err == nil {
					err = werr
				}
			}
		}
		if err != nil {
			return err
		}
		return rep.Failure()
	}
}
