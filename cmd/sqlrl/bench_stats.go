package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/benchstats"
	"github.com/sqlrl/sqlrl/policy"
)

// compareFlags collects repeated -compare DIR[:split] values.
type compareFlags []string

func (c *compareFlags) String() string     { return strings.Join(*c, ",") }
func (c *compareFlags) Set(v string) error { *c = append(*c, v); return nil }

func init() {
	register(&command{
		name:    "bench stats",
		summary: "measure a Text2SQL benchmark: SQL features, schemas, answers, literals, overlap with train",
		usage:   "[-json out.json] [-md out.md] [-compare DIR[:split]]... BENCH_DIR",
		help: `Reports, for every split of BENCH_DIR (BIRD layout: train.json, dev.json, dev_*.json,
*_tables.json, *_databases/; or Spider's) and every difficulty tier: the SQL features of the
golds, the sizes of the schemas, the shapes of the golds' answers (every gold is run
read-only), whether the golds' string literals occur in the question or evidence, what the
evidence is, and, for each split besides train, how many of its databases, question
wordings, question templates and SQL skeletons occur in train.

-compare adds another benchmark (all its splits, or the one named after a colon) as
further columns, e.g. the bundled BIRD sample:

  sqlrl bench stats -compare datasets/bird-dev-sample data/bench

-tokenizer adds the golds' lengths in a model's tokens, by tier, and how many of
them each completion budget of -budgets cuts:

  sqlrl bench stats -no-exec -tokenizer runs/sft data/bench`,
		flags: benchStatsFlags,
	})
}

func benchStatsFlags(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	var compare compareFlags
	fs.Var(&compare, "compare", "another benchmark `DIR[:split]` to report side by side (repeatable)")
	jsonOut := fs.String("json", "", "write every number as JSON to `file`")
	mdOut := fs.String("md", "", "write the Markdown report to `file` instead of stdout")
	opts := benchstats.Options{Progress: os.Stderr}
	fs.DurationVar(&opts.Timeout, "timeout", benchstats.DefaultTimeout, "time limit per gold query")
	fs.IntVar(&opts.Workers, "workers", 0, "parallel gold queries (default: number of CPUs)")
	fs.BoolVar(&opts.NoExec, "no-exec", false, "do not run the golds (no answer shapes)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	tokPath := fs.String("tokenizer", "", "a checkpoint, run directory or tokenizer.json: add the golds' lengths in its tokens")
	budgets := fs.String("budgets", "64,128,256", "with -tokenizer: completion budgets (tokens) whose cut golds to count")
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return usagef("want exactly one benchmark directory, got %d arguments", len(args))
		}
		if *tokPath != "" {
			tok, err := policy.LoadTokenizer(*tokPath)
			if err != nil {
				return fmt.Errorf("-tokenizer: %w", err)
			}
			opts.Tokens = func(sql string) int { return policy.CompletionBudget(tok, sql) }
			for _, f := range strings.Split(*budgets, ",") {
				b, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || b < 1 {
					return usagef("-budgets %q: want positive token counts separated by commas", *budgets)
				}
				opts.Budgets = append(opts.Budgets, b)
			}
		}
		if *quiet {
			opts.Progress = nil
		}
		start := time.Now()
		reps, err := benchstats.MeasureAll(ctx, args[0], compare, opts)
		if err != nil {
			return err
		}
		if *jsonOut != "" {
			if err := writeJSON(*jsonOut, reps, true); err != nil {
				return err
			}
		}
		if err := writeTo(*mdOut, func(w io.Writer) error { return benchstats.WriteMarkdown(w, reps) }); err != nil {
			return fmt.Errorf("write Markdown report: %w", err)
		}
		if !*quiet {
			fmt.Fprintf(os.Stderr, "measured %d benchmark(s) in %.1fs\n", len(reps), time.Since(start).Seconds())
		}
		return nil
	}
}
