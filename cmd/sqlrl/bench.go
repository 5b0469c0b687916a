package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sqlrl/sqlrl/bench"
)

func init() {
	register(&command{
		name:    "bench generate",
		summary: "generate the bundled Text2SQL benchmark (BIRD layout, deterministic)",
		usage:   "[--preset small|full|v2-small|v2-full] [--seed N] [--out DIR] [--force]",
		help: `Builds SQLite databases in six domains (retail, school, hospital, flights,
HR, library) and questions with gold SQL in BIRD's tiers (about 60/30/10
simple/moderate/challenging), with train and dev splits. Dev databases are
other instances with renamed tables and columns and different rows.

The output is BIRD's layout: <out>/train.json, train_tables.json,
train_gold.sql, train_databases/<db>/<db>.sqlite (+ database_description/),
the same for dev, README.md and LICENSE. The same preset and seed give
byte-identical files. Every gold query is executed before anything is
written; a broken set is refused and nothing is left behind.

Presets: small (~3000 train / 500 dev questions, 24 databases) for tests and
quick runs; full (~20000 train / 1500 dev, 48 databases).

Benchmark v2 (docs/benchmark-v2.md): procedural databases in 40 domains and
questions from a grammar, in four splits: train; dev, on 10 held-out domains
train never sees (cross-domain, as BIRD and Spider); dev_compositional, new
databases of train's domains with only SQL skeletons train lacks; dev_id, new
databases of train's domains (in-distribution). No dev wording occurs in
train. Presets: v2-small (~3000 train / ~500 per dev split), v2-full (~20000
train / 1500 per dev split).`,
		flags: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			names := append(bench.PresetNames(), bench.V2PresetNames()...)
			preset := fs.String("preset", "small", "size: "+strings.Join(names, ", "))
			seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same files")
			out := fs.String("out", "data/bench", "output directory")
			force := fs.Bool("force", false, "replace an existing output directory")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments: %s", strings.Join(args, " "))
				}
				_, v1 := bench.LookupPreset(*preset)
				_, v2 := bench.LookupV2Preset(*preset)
				if !v1 && !v2 {
					return usagef("unknown preset %q (want %s)", *preset, strings.Join(names, ", "))
				}
				sum, err := bench.Generate(ctx, bench.Options{Preset: *preset, Seed: *seed, Out: *out, Force: *force, Progress: os.Stderr})
				if errors.Is(err, bench.ErrExists) {
					return fmt.Errorf("%s exists; pass --force to replace it", *out)
				}
				if err != nil {
					return err
				}
				for _, s := range sum.Splits {
					fmt.Printf("%-17s %3d databases %8d rows %6d questions (simple %d, moderate %d, challenging %d)",
						s.Name, len(s.DBs), s.Rows, s.Questions, s.ByTier[0], s.ByTier[1], s.ByTier[2])
					if d := sum.Dropped[s.Name]; d != nil && s.Name != bench.SplitTrain {
						fmt.Printf("; dropped %d worded as train, %d with train's skeleton; %d short", d.Wording, d.Skeleton, d.Short)
					}
					fmt.Println()
				}
				if len(sum.HeldOut) > 0 {
					fmt.Printf("held-out domains (dev): %s\n", strings.Join(sum.HeldOut, ", "))
				}
				fmt.Printf("wrote %s (preset %s, seed %d) in %.1fs\n", sum.Out, sum.Preset, sum.Seed, sum.Elapsed.Seconds())
				return nil
			}
		},
	})
}
