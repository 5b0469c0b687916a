package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
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
them each completion budget of -budgets cuts (an RL run that samples fewer tokens
than an answer needs scores it as a failure):

  sqlrl bench stats -no-exec -tokenizer runs/sft data/bench`,
		flags: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			var compare compareFlags
			fs.Var(&compare, "compare", "another benchmark `DIR[:split]` to report side by side (repeatable)")
			jsonOut := fs.String("json", "", "write every number as JSON to `file`")
			mdOut := fs.String("md", "", "write the Markdown report to `file` instead of stdout")
			timeout := fs.Duration("timeout", benchstats.DefaultTimeout, "time limit per gold query")
			workers := fs.Int("workers", 0, "parallel gold queries (default: number of CPUs)")
			noExec := fs.Bool("no-exec", false, "do not run the golds (no answer shapes)")
			quiet := fs.Bool("quiet", false, "no progress on stderr")
			tokPath := fs.String("tokenizer", "", "a checkpoint, run directory or tokenizer.json: add the golds' lengths in its tokens")
			budgets := fs.String("budgets", "64,128,256", "with -tokenizer: completion budgets (tokens) whose cut golds to count")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want exactly one benchmark directory, got %d arguments", len(args))
				}
				opts := benchstats.Options{Timeout: *timeout, Workers: *workers, NoExec: *noExec, Progress: os.Stderr}
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
				var reps []*benchstats.Report
				type target struct {
					dir    string
					splits []string
				}
				targets := []target{{dir: args[0]}}
				for _, c := range compare {
					dir, split := benchstats.ParseTarget(c)
					t := target{dir: dir}
					if split != "" {
						t.splits = []string{split}
					}
					targets = append(targets, t)
				}
				for _, t := range targets {
					o := opts
					o.Splits = t.splits
					r, err := benchstats.Measure(ctx, t.dir, o)
					if err != nil {
						return err
					}
					reps = append(reps, r)
				}
				if *jsonOut != "" {
					data, err := json.MarshalIndent(reps, "", "  ")
					if err != nil {
						return err
					}
					if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
						return fmt.Errorf("write JSON report: %w", err)
					}
				}
				out := os.Stdout
				if *mdOut != "" {
					f, err := os.Create(*mdOut)
					if err != nil {
						return fmt.Errorf("write Markdown report: %w", err)
					}
					defer f.Close()
					out = f
				}
				if err := benchstats.WriteMarkdown(out, reps); err != nil {
					return fmt.Errorf("write Markdown report: %w", err)
				}
				if out != os.Stdout {
					if err := out.Close(); err != nil {
						return fmt.Errorf("write Markdown report %s: %w", *mdOut, err)
					}
				}
				if !*quiet {
					fmt.Fprintf(os.Stderr, "measured %d benchmark(s) in %.1fs\n", len(reps), time.Since(start).Seconds())
				}
				return nil
			}
		},
	})
}
