package main

import (
	"context"
	"flag"
	"os"

	"github.com/sqlrl/sqlrl/eval"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare two evaluations of the same questions question by question (flips, sign test, what changed)",
		usage:   "[flags] BEFORE.json AFTER.json",
		help: `Reads two reports of 'sqlrl eval --json' on the same questions and prints, by
difficulty, EX before and after, the questions that flipped each way with the
exact sign test on those counts (is the change more than luck in which
questions flipped), the class changes and, with --data, the quoted values put
against another column than the gold's.

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
				var gold map[int]string
				if *data != "" {
					b, err := split.Load(*data, 0)
					if err != nil {
						return err
					}
					gold = b.GoldSQL()
				}
				d, err := eval.CompareFiles(args[0], args[1], gold)
				if err != nil {
					return err
				}
				if *jsonOut != "" {
					if err := writeJSON(*jsonOut, d, true); err != nil || *jsonOut == "-" {
						return err
					}
				}
				return d.WriteText(os.Stdout)
			}
		},
	})
}
