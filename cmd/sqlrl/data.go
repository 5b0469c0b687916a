package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/feedback"
)

func init() {
	register(&command{
		name:    "data prepare",
		summary: "split a benchmark 75/25 for SFT and RLHF, augment the holdout, write prompts and trainer exports",
		usage:   "[flags] DIR",
		help: `DIR is a benchmark directory in BIRD's (or Spider's) layout. Writes to -out
the SFT/holdout split with prompts, the augmented holdout, the trainer exports
(TRL, OpenRLHF, verl; KTO and DPO sets with -rollouts) and a manifest, replacing
-out whole in one rename. Files and fields: docs/training-formats.md.`,
		args: argsExactly(1, "one benchmark directory"),
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := export.DefaultOptions()
			o.Flags(fs)
			quiet := fs.Bool("q", false, "no progress on stderr")
			return func(ctx context.Context, args []string) error {
				if o.Out == "" {
					return usagef("-out is required")
				}
				if err := dataset.CheckSplit(args[0], o.Split); err != nil {
					return err
				}
				if err := o.Check(); err != nil {
					return usagef("%v", err)
				}
				o.Dir, o.Progress = args[0], progressTo(*quiet)
				start := time.Now()
				m, err := export.Prepare(ctx, o)
				if err != nil {
					return err
				}
				m.WriteText(os.Stdout, o.Out, time.Since(start))
				return nil
			}
		},
	})
	register(&command{
		name:    "data from-feedback",
		summary: "turn the answers and verdicts of a feedback store into KTO records, DPO pairs and rollouts",
		usage:   "(-config serve.json | -store PATH_OR_DSN [-db-root DIR]) -out DIR [flags]",
		help: `-config reads 'sqlrl serve's config: its feedback store, and its databases
under the names they were served by, for the prompts. Or -store is the
feedback store (a SQLite file or a postgres:// DSN; with -config it replaces
the config's) and -db-root holds the databases as DIR/<db>/<db>.sqlite.
Writes to -out the questions with a signal (BIRD layout), rollouts.jsonl for
'sqlrl train kto' and 'data prepare -rollouts', and, when the databases are
known, the TRL/OpenRLHF KTO and DPO files. Rules and fields: docs/feedback.md.`,
		args: argsNone,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			storeLoc := fs.String("store", "", "feedback store: SQLite file or postgres:// DSN (default: -config's)")
			config := fs.String("config", "", "'sqlrl serve' config: its store and its databases by their served names")
			o := feedback.DefaultExportOptions()
			o.Flags(fs)
			quiet := fs.Bool("q", false, "no summary on stderr")
			return func(ctx context.Context, args []string) error {
				if *storeLoc == "" && *config == "" || o.Out == "" {
					return usagef("-out and one of -config or -store are required")
				}
				if *config != "" && o.DBRoot != "" {
					return usagef("-config names the databases; -db-root is for a store without one")
				}
				if err := o.Prompt.Check(); err != nil {
					return usagef("%v", err)
				}
				if *config != "" {
					cfg, err := askserver.LoadDataConfig(*config)
					if err != nil {
						return err
					}
					if *storeLoc == "" {
						*storeLoc = cfg.Store
					}
					dbs, err := askserver.OpenDatabases(ctx, cfg)
					if err != nil {
						return err
					}
					defer dbs.Close()
					if pg := dbs.Postgres(); len(pg) > 0 {
						fmt.Fprintf(os.Stderr, "%s serves PostgreSQL databases (%s): prompts are written from SQLite schemas only, so the TRL/OpenRLHF files are left out\n", *config, strings.Join(pg, ", "))
					} else {
						o.Databases, o.DescriptionDir = dbs.Engine(), dbs.DescriptionDir
					}
				}
				st, err := feedback.OpenExisting(ctx, *storeLoc)
				if err != nil {
					return err
				}
				defer st.Close()
				m, err := feedback.Export(ctx, st, o)
				if err == nil && !*quiet {
					m.WriteText(os.Stderr, o.Out)
				}
				return err
			}
		},
	})
}
