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
layout, with train and dev splits whose databases differ; the same preset and
seed give byte-identical files. The v2 presets build procedural databases in
many domains with cross-domain and compositional dev splits (docs/benchmark-v2.md).`,
		flags: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			o := bench.Options{Preset: "small", Seed: 1, Out: "data/bench", Progress: os.Stderr}
			o.Flags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments: %s", strings.Join(args, " "))
				}
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
		},
	})
}
