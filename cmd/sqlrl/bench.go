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
		help: `Builds SQLite databases and questions with gold SQL in BIRD's tiers and
layout, with train and dev splits whose databases differ. The same preset and
seed give byte-identical files; every gold query runs before anything is
written. The v2 presets build procedural databases in many domains with
cross-domain, compositional and in-distribution dev splits (docs/benchmark-v2.md).`,
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
				sum.WriteText(os.Stdout)
				return nil
			}
		},
	})
}
