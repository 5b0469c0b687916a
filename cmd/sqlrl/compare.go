package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/eval"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare two evaluations of the same questions question by question (flips, sign test, what changed)",
		usage:   "[flags] BEFORE.json AFTER.json",
		help: `Reads two reports of 'sqlrl eval --json' on the same questions and prints, by
difficulty, EX before and after, the questions that flipped each way and the
exact sign test on those counts (is the change more than which questions
flipped by luck), then the class changes and, with --data, the quoted values
put against another column than the gold's.

example:
  sqlrl compare --data data/bench sft.json kto.json`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			data := fs.String("data", "", "benchmark `dir` whose gold SQL the literal checks read (default: none)")
			split := splitFlags(fs)
			jsonOut := fs.String("json", "", "also write the comparison as JSON to `file` (- for stdout only)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 2 {
					return usagef("want two eval --json reports, got %d arguments", len(args))
				}
				var reps [2]*eval.Report
				for i, p := range args {
					var err error
					if reps[i], err = eval.ReadReport(p); err != nil {
						return err
					}
				}
				var gold map[int]string
				if *data != "" {
					b, err := split.Load(*data, 0)
					if err != nil {
						return err
					}
					gold = make(map[int]string, len(b.Examples))
					for _, ex := range b.Examples {
						gold[ex.QuestionID] = ex.SQL
					}
				}
				var levels []string
				for _, l := range reps[0].Levels {
					levels = append(levels, l.Level)
				}
				d, err := eval.Compare(reps[0], reps[1], levels, gold)
				if err != nil {
					return fmt.Errorf("compare %s with %s: %w", args[0], args[1], err)
				}
				if *jsonOut == "-" {
					return writeJSON("-", d, true)
				}
				if *jsonOut != "" {
					if err := writeJSON(*jsonOut, d, true); err != nil {
						return err
					}
				}
				return d.WriteText(os.Stdout)
			}
		},
	})
}
