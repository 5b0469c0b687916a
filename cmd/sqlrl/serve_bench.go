package main

import (
	"context"
	"errors"
	"flag"
	"os"

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
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := askserver.DefaultBenchOptions()
			o.Flags(fs)
			jsonOut := fs.String("json", "", "also write the report as JSON to this file")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %v", args)
				}
				if err := o.Check(); err != nil {
					return usagef("%v", err)
				}
				o.Log = os.Stderr
				o.Serve = func(cfg, addr string) []string {
					exe, _ := os.Executable()
					return []string{exe, "serve", "-config", cfg, "-addr", addr, "-quiet"}
				}
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
		},
	})
}
