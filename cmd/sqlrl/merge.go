package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "model merge",
		summary: "merge a fine-tuned checkpoint back towards its start (WiSE-FT): start + alpha x (tuned - start)",
		usage:   "-start DIR -tuned DIR -out DIR [-alpha A]",
		help: `Writes the checkpoint start + alpha x (tuned - start), the weight-space
ensemble of WiSE-FT. Both must be one run's start and end (same architecture,
tokenizer and prompt format), or the merge is refused.

  sqlrl model merge -start out/sft -tuned out/kto -alpha 0.5 -out out/kto-merged`,
		args: argsNone,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			start := fs.String("start", "", "the checkpoint (or run directory) the tuned model started from")
			tuned := fs.String("tuned", "", "the fine-tuned checkpoint (or run directory: its latest checkpoint)")
			alpha := fs.Float64("alpha", 0.5, "how far from -start towards -tuned (1: tuned itself; above 1 extrapolates)")
			out := fs.String("out", "", "directory to write the merged checkpoint into (must not hold one)")
			return func(ctx context.Context, args []string) error {
				if *start == "" || *tuned == "" || *out == "" {
					return usagef("-start, -tuned and -out are required")
				}
				if math.IsNaN(*alpha) || math.IsInf(*alpha, 0) {
					return usagef("-alpha %v: want a number", *alpha)
				}
				if _, err := os.Stat(filepath.Join(*out, policy.FileConfig)); err == nil {
					return fmt.Errorf("%s already holds a checkpoint; pick another -out", *out)
				}
				if err := policy.MergeCheckpoints(*start, *tuned, *alpha, *out); err != nil {
					return err
				}
				fmt.Printf("wrote %s: %s + %g x (%s - %s)\n", *out, *start, *alpha, *tuned, *start)
				return nil
			}
		},
	})
}
