package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sqlrl/sqlrl/train"
)

func init() {
	register(&command{
		name:    "train log",
		summary: "summarise training runs' logs: where an RL step's time goes, and the metrics by window of steps",
		usage:   "[flags] RUN [RUN ...]",
		help: `RUN is a run directory or its train_log.jsonl. Prints where an RL step's
time goes and the mean of -metrics over windows of -window steps.

  sqlrl train log -window 50 -metrics share_correct,kl_ref runs/kto-s1 runs/kto-s2`,
		args: argsMin(1, "at least one RUN"),
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			window := fs.Int("window", 100, "steps per window of the metrics table (0: no table)")
			metrics := fs.String("metrics", "share_correct,share_truncated,reward_mean,kl_ref", "comma-separated metrics of the log to average by window (a step's own metrics, or loss, lr, grad_norm)")
			asJSON := fs.Bool("json", false, "print one JSON object per run instead of tables")
			return func(ctx context.Context, args []string) error {
				if *window < 0 {
					return usagef("-window %d: want 0 or more", *window)
				}
				var ms []string
				for _, m := range strings.Split(*metrics, ",") {
					if m = strings.TrimSpace(m); m != "" {
						ms = append(ms, m)
					}
				}
				for i, run := range args {
					s, err := train.SummarizeRun(run, *window, ms)
					switch {
					case err != nil:
						return err
					case *asJSON:
						if err := json.NewEncoder(os.Stdout).Encode(s); err != nil {
							return err
						}
						continue
					case i > 0:
						fmt.Println()
					}
					fmt.Print(s.Markdown(run, ms))
					if s.Skipped > 0 {
						fmt.Fprintf(os.Stderr, "%s: %d lines that are not JSON skipped (a kill mid-write)\n", run, s.Skipped)
					}
				}
				return nil
			}
		},
	})
}
