package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dbgen"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func init() {
	register(&command{
		name:    "bench from-db",
		summary: "generate verified questions over one of your databases (BIRD layout: train, dev, sealed test)",
		usage:   "-db FILE.sqlite [-db FILE2.sqlite]... [-out DIR] [-n N] [-descriptions FILE] [--force]",
		help: `Reads the database (read-only: its file is never written), its BIRD
database_description/*.csv when present beside it and an optional
descriptions file, types every column by role, and writes -n questions with
evidence and gold SQL over its real values. Every gold is executed and kept
only when its answer passes the plausibility checks. train, dev and test are
written in BIRD's layout under -out; test is sealed (only a pre-registered
study's final evaluation reads it). generation.json records what was skipped,
inferred and rejected (docs/dbgen.md).

  sqlrl bench from-db -db datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite -out data/superhero`,
		args:  argsNone,
		flags: benchFromDBFlags,
	})
}

// benchFromDBFlags declares `bench from-db`'s flags.
func benchFromDBFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var dbs stringList
	fs.Var(&dbs, "db", "a SQLite database `file` to generate over (required; repeat for several, -n questions each)")
	out := fs.String("out", "data/from-db", "output `dir`")
	n := fs.Int("n", 10000, "questions over all splits")
	seed := fs.Uint64("seed", 1, "random seed: the same database, flags and seed give the same questions")
	dev := fs.Float64("dev", 0.05, "share of -n for dev")
	test := fs.Float64("test", 0.05, "share of -n for the sealed test split")
	desc := fs.String("descriptions", "", "a descriptions JSON `file` naming tables and columns (format: docs/dbgen.md)")
	workers := fs.Int("workers", 0, "queries run in parallel (0: one per CPU)")
	force := fs.Bool("force", false, "replace -out if it exists")
	quiet := quietFlag(fs)
	return func(ctx context.Context, _ []string) error {
		switch {
		case len(dbs) == 0:
			return usagef("-db is required: the SQLite file to generate over")
		case *n <= 0:
			return usagef("-n must be positive, got %d", *n)
		case *dev < 0 || *test < 0 || *dev+*test >= 1:
			return usagef("-dev and -test must be non-negative and leave a share for train (got %g and %g)", *dev, *test)
		}
		start := time.Now()
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10 * time.Second, MaxRows: 10000}, MaxConnsPerDB: *workers})
		defer eng.Close()
		var gens []dbgen.Generated
		for _, db := range dbs {
			d, err := dbgen.Introspect(ctx, eng, db, dbgen.IntrospectOptions{DescriptionsFile: *desc})
			if err != nil {
				return err
			}
			var bar *progress.Bar
			if !*quiet {
				bar = progress.New(os.Stderr, d.ID, *n)
			}
			s, err := dbgen.Generate(ctx, eng, d, dbgen.Options{N: *n, Seed: *seed, DevShare: *dev, TestShare: *test, Workers: *workers, Progress: bar.Func()})
			bar.Finish()
			if err != nil {
				return err
			}
			gens = append(gens, dbgen.Generated{DB: d, Splits: s})
		}
		sums, err := dbgen.Write(*out, gens, *seed, *force)
		if errors.Is(err, dbgen.ErrExists) {
			return fmt.Errorf("%s exists; pass --force to replace it", *out)
		}
		if err != nil {
			return err
		}
		for _, sum := range sums {
			sum.WriteText(os.Stdout, *out)
		}
		fmt.Printf("took %.1fs\n", time.Since(start).Seconds())
		return nil
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
