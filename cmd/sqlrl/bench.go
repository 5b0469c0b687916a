package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/benchstats"
	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "bench generate",
		summary: "generate the bundled Text2SQL benchmark (BIRD layout, deterministic)",
		usage:   "[--preset small|full|v2-small|v2-full] [--seed N] [--out DIR] [--force]",
		help: `Builds SQLite databases and questions with gold SQL in BIRD's tiers and
layout, with train and dev splits whose databases differ; the same preset and
seed give byte-identical files. The v2 presets build procedural databases in
many domains with cross-domain and compositional dev splits (docs/benchmark-v2.md).
Every preset also writes a sealed test split (dev's kind, databases of its
own) that only a pre-registered study's final evaluation reads
('sqlrl experiment study -final-test', docs/results.md "Protocol"); train
and dev are the same with it as without.`,
		args:  argsNone,
		flags: benchGenerateFlags,
	})
	register(&command{
		name:    "bench stats",
		summary: "measure a Text2SQL benchmark: SQL features, schemas, answers, literals, overlap with train",
		usage:   "[-json out.json] [-md out.md] [-compare DIR[:split]]... BENCH_DIR",
		help: `Reports, for every split of BENCH_DIR (BIRD or Spider layout) and every
difficulty tier, the golds' SQL features, schema sizes, answer shapes (every
gold runs read-only) and literals, the evidence, and for each split besides
train what it shares with train (databases, wordings, templates, skeletons).
-compare adds another benchmark as further columns; -tokenizer adds the golds'
lengths in a model's tokens and how many each budget of -budgets cuts.

  sqlrl bench stats -compare datasets/bird-dev-sample data/bench
  sqlrl bench stats -no-exec -tokenizer runs/sft data/bench`,
		args:  argsExactly(1, "exactly one benchmark directory"),
		flags: benchStatsFlags,
	})
}

// benchGenerateFlags declares `bench generate`'s flags.
func benchGenerateFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := bench.Options{Preset: "small", Seed: 1, Out: "data/bench", Progress: os.Stderr}
	o.Flags(fs)
	return func(ctx context.Context, args []string) error {
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		sum, err := bench.Generate(ctx, o)
		if errors.Is(err, bench.ErrExists) {
			return fmt.Errorf("%s exists; pass --force to replace it", o.Out)
		}
		if err == nil {
			sum.WriteText(os.Stdout)
		}
		return err
	}
}

// benchStatsFlags declares `bench stats`'s flags.
func benchStatsFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var compare benchstats.Targets
	fs.Var(&compare, "compare", "another benchmark `DIR[:split]` to report side by side (repeatable)")
	jsonOut := fs.String("json", "", "write every number as JSON to `file`")
	mdOut := fs.String("md", "", "write the Markdown report to `file` instead of stdout")
	o := benchstats.DefaultOptions()
	o.Flags(fs)
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	tokPath := fs.String("tokenizer", "", "a checkpoint, run directory or tokenizer.json: add the golds' lengths in its tokens")
	return func(ctx context.Context, args []string) error {
		if *tokPath != "" {
			tok, err := policy.LoadTokenizer(*tokPath)
			if err != nil {
				return fmt.Errorf("-tokenizer: %w", err)
			}
			o.Tokens = func(sql string) int { return policy.CompletionBudget(tok, sql) }
		}
		o.Progress = progressTo(*quiet)
		start := time.Now()
		reps, err := benchstats.MeasureAll(ctx, args[0], compare, o)
		if err != nil {
			return err
		}
		if err := writeJSON(*jsonOut, reps, true); err != nil {
			return err
		}
		if err := writeTo(cmp.Or(*mdOut, "-"), func(w io.Writer) error { return benchstats.WriteMarkdown(w, reps) }); err != nil {
			return fmt.Errorf("write Markdown report: %w", err)
		}
		if !*quiet {
			fmt.Fprintf(os.Stderr, "measured %d benchmark(s) in %.1fs\n", len(reps), time.Since(start).Seconds())
		}
		return nil
	}
}
