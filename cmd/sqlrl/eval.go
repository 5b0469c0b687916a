package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// defaultData is the benchmark bundled with the repository.
const defaultData = "datasets/bird-dev-sample"

func init() {
	register(&command{
		name:    "eval",
		summary: "score predictions by executing them (BIRD EX, Spider exec match, Soft-F1, VES, pass@K)",
		usage:   "[flags] (--pred FILE | --gold-as-pred)",
		help: `Executes every prediction and its gold read-only and compares the results as
BIRD's evaluation.py (--mode bird) or Spider's test-suite evaluator (--mode
spider) does. The gold is a benchmark (--data) or a gold file (--gold,
--db-root); predictions may be BIRD's JSON, sqlrl's JSONL or one SQL a line.

  sqlrl eval --data datasets/bird-dev-sample --pred predict_dev.json --json report.json`,
		args:  argsNone,
		flags: evalFlags,
	})
	register(&command{
		name:    "compare",
		summary: "compare two evaluations of the same questions question by question (flips, sign test, what changed)",
		usage:   "[flags] BEFORE.json AFTER.json [BEFORE2.json AFTER2.json ...]",
		help: `Reads two reports of 'sqlrl eval --json' on the same questions and prints, by
difficulty, EX before and after, the questions that flipped each way with the
exact sign test on those counts (is the change more than luck in which
questions flipped), the class changes and, with --data, the quoted values put
against another column than the gold's; then the paired bootstrap interval of
the EX difference and McNemar's test.

Given several pairs (one per seed, each pair on the same questions), it
prints the comparison pooled over seeds instead: the mean EX of each side, the
paired bootstrap 95% interval of the difference over questions, McNemar's test
pooled and per seed (package significance, as experiment study reports).

examples:
  sqlrl compare --data data/bench sft.json kto.json
  sqlrl compare greedy-s1.json vote-s1.json greedy-s2.json vote-s2.json greedy-s3.json vote-s3.json`,
		args: func(args []string) error {
			if len(args) < 2 || len(args)%2 != 0 {
				return usagef("want pairs of eval --json reports (BEFORE AFTER, one pair per seed), got %d file(s)", len(args))
			}
			return nil
		},
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			data := fs.String("data", "", "benchmark `dir` whose gold SQL the literal checks read (default: none)")
			split := splitFlags(fs)
			jsonOut := fs.String("json", "", "also write the comparison as JSON to `file` (- for stdout only)")
			seedNames := fs.String("seeds", "", "the `seeds` the pairs come from, comma-separated, in order (default 1, 2, ...)")
			return func(ctx context.Context, args []string) error {
				names, err := experiment.ParseSeeds(*seedNames)
				if err != nil || (names != nil && len(names) != len(args)/2) {
					return usagef("-seeds %q: want one seed number per pair of reports (%d)", *seedNames, len(args)/2)
				}
				if len(args) > 2 {
					pooled, err := pooledComparison(args, names)
					if err != nil {
						return err
					}
					if err := writeJSON(*jsonOut, pooled, true); err != nil || *jsonOut == "-" {
						return err
					}
					return pooled.WriteText(os.Stdout)
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
				if err := writeJSON(*jsonOut, d, true); err != nil || *jsonOut == "-" {
					return err
				}
				if err := d.WriteText(os.Stdout); err != nil {
					return err
				}
				pooled, err := pooledComparison(args, names)
				if err != nil {
					// reports on different questions: the diff above says which
					return nil
				}
				return pooled.WriteText(os.Stdout)
			}
		},
	})
}

func evalFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	c := eval.Config{Ks: "1,5,8", MaxBytes: sqlexec.DefaultMaxResultBytes, Engine: "sqlite", PGDSN: os.Getenv(pgDSNEnv), Warn: os.Stderr}
	fs.StringVar(&c.Gold.Dir, "data", defaultData, "benchmark `dir` (BIRD or Spider layout)")
	split := splitFlags(fs)
	c.Flags(fs)
	jsonOut := fs.String("json", "", "write the full report (summary and per-question verdicts) as JSON to `file` (- for stdout)")
	verdicts := fs.String("verdicts", "", "write per-question verdicts as JSONL to `file`")
	quiet := fs.Bool("quiet", false, "no progress bar")
	return func(ctx context.Context, args []string) error {
		c.Gold.Split, c.Gold.Parts = split.Split, split.Parts
		if err := c.Check(); err != nil {
			return usagef("%v", err)
		}
		var bar *progress.Stages
		if !*quiet {
			bar = progress.NewStages(os.Stderr)
		}
		c.Progress = bar.Start("eval")
		ev, err := eval.Evaluate(ctx, c)
		bar.Finish()
		if err != nil {
			return err
		}
		if *jsonOut != "-" {
			if err := ev.WriteText(os.Stdout); err != nil {
				return err
			}
		}
		if err := writeJSON(*jsonOut, ev.Report, false); err != nil {
			return err
		}
		if *verdicts != "" {
			return eval.WriteVerdicts(*verdicts, ev.Questions)
		}
		return nil
	}
}

// pooledComparison pairs the reports of args (BEFORE AFTER, one pair per
// seed, named by seeds or 1, 2, ...) question by question and pools them
// (significance.Compare).
func pooledComparison(args []string, seeds []uint64) (significance.Comparison, error) {
	var paired []significance.Seed
	for i := 0; i < len(args); i += 2 {
		var r [2]*eval.Report
		for j := range r {
			var err error
			if r[j], err = eval.ReadReport(args[i+j]); err != nil {
				return significance.Comparison{}, err
			}
		}
		s, err := eval.Paired(r[0], r[1])
		if err != nil {
			return significance.Comparison{}, fmt.Errorf("%s, %s: %w", args[i], args[i+1], err)
		}
		s.Seed = uint64(i/2 + 1)
		if seeds != nil {
			s.Seed = seeds[i/2]
		}
		paired = append(paired, s)
	}
	return significance.Compare(paired, significance.Options{Seed: 1})
}
