package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/prompt"
)

func init() {
	register(&command{
		name:    "data from-feedback",
		summary: "turn the answers and verdicts of a feedback store into KTO records, DPO pairs and rollouts",
		usage:   "-store PATH_OR_DSN -out DIR [flags]",
		help: `-store is the feedback store 'sqlrl serve' writes (a SQLite file or a
postgres:// DSN). Writes to -out the questions with a signal (BIRD layout),
rollouts.jsonl for 'sqlrl train kto' and 'data prepare -rollouts', and with
-db-root the TRL/OpenRLHF KTO and DPO files. Thumbs-up and validated
corrections are desirable; thumbs-down and execution errors undesirable.
Rules and fields: docs/feedback.md.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			storeLoc := fs.String("store", "", "feedback store: SQLite file or postgres:// DSN (required)")
			out := fs.String("out", "", "output directory (required)")
			dbRoot := fs.String("db-root", "", "databases as DIR/<db_id>/<db_id>.sqlite, for the prompts of the TRL/OpenRLHF files")
			dialect := fs.String("dialect", "sqlite", "SQL dialect named in the prompts: sqlite or postgresql")
			budget := fs.Int("max-tokens", 8192, "token budget of a prompt (approximate count); 0: no limit")
			quiet := fs.Bool("q", false, "no summary on stderr")
			return func(ctx context.Context, args []string) error {
				if len(args) != 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *storeLoc == "" || *out == "" {
					return usagef("-store and -out are required")
				}
				d, err := prompt.ParseDialect(*dialect)
				if err != nil {
					return usagef("-dialect: %v", err)
				}
				if *budget < 0 {
					return usagef("-max-tokens %d: want 0 (no limit) or more", *budget)
				}
				if !feedback.IsPostgres(*storeLoc) {
					// Opening would create an empty store: a typo must not
					// export nothing silently.
					if _, err := os.Stat(*storeLoc); err != nil {
						return fmt.Errorf("store %s: %w", *storeLoc, err)
					}
				}
				st, err := feedback.Open(ctx, *storeLoc)
				if err != nil {
					return err
				}
				defer st.Close()
				m, err := feedback.Export(ctx, st, feedback.ExportOptions{
					Out: *out, DBRoot: *dbRoot, Prompt: prompt.Options{Dialect: d, Budget: *budget},
				})
				if err != nil {
					return err
				}
				var w io.Writer = os.Stderr
				if *quiet {
					w = io.Discard
				}
				fmt.Fprintf(w, "%d answers: %d questions with a signal, %d desirable, %d undesirable, %d DPO pairs -> %s\n",
					m.Answers, m.Questions, m.Desirable, m.Undesirable, m.DPOPairs, *out)
				if *dbRoot == "" {
					fmt.Fprintln(w, "no -db-root: TRL/OpenRLHF files not written (their prompts need the databases)")
				}
				return nil
			}
		},
	})
}
