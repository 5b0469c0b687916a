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
		usage:   "-db FILE.sqlite|postgres://... [-db ...]... [-pg-schema S] [-out DIR] [-n N] [-descriptions FILE] [--force]",
		help: `Reads the database (read-only: its file is never written), its BIRD
database_description/*.csv when present beside it and an optional
descriptions file, types every column by role, and writes -n questions with
evidence and gold SQL over its real values. Every gold is executed and kept
only when its answer passes the plausibility checks. train, dev and test are
written in BIRD's layout under -out; test is sealed (only a pre-registered
study's final evaluation reads it). generation.json records what was skipped,
inferred and rejected (docs/dbgen.md).

A postgres:// DSN as -db reads the tables of -pg-schema (each schema of a
comma-separated list is a database of its own) that its role can SELECT (read-only transactions: nothing is written) into a SQLite snapshot,
at most -pg-rows rows a table, and generates over that snapshot, which the
benchmark then holds as its database file; tables the role cannot read are
skipped and named (docs/dbgen.md, "PostgreSQL").

  sqlrl bench from-db -db datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite -out data/superhero`,
		args:  argsNone,
		flags: benchFromDBFlags,
	})
}

// benchFromDBFlags declares `bench from-db`'s flags.
func benchFromDBFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var dbs stringList
	fs.Var(&dbs, "db", "a SQLite database `file` or a postgres:// DSN to generate over (required; repeat for several, -n questions each)")
	var so dbgen.SnapshotOptions
	snapshotFlags(fs, &so)
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
			return usagef("-db is required: the SQLite file or postgres:// DSN to generate over")
		case so.MaxRows <= 0:
			return usagef("-pg-rows must be positive, got %d", so.MaxRows)
		case *n <= 0:
			return usagef("-n must be positive, got %d", *n)
		case *dev < 0 || *test < 0 || *dev+*test >= 1:
			return usagef("-dev and -test must be non-negative and leave a share for train (got %g and %g)", *dev, *test)
		}
		start := time.Now()
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10 * time.Second, MaxRows: 10000}, MaxConnsPerDB: *workers})
		defer eng.Close()
		// PostgreSQL snapshots live here until Write has copied them.
		snaps, err := os.MkdirTemp("", "sqlrl-snapshot-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(snaps)
		var gens []dbgen.Generated
		for _, src := range dbgen.Sources(dbs, so.Schema) {
			one := so
			one.Schema = src.Schema
			d, err := dbgen.IntrospectSource(ctx, eng, src.DB, snaps, one, dbgen.IntrospectOptions{DescriptionsFile: *desc})
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

// snapshotFlags declares the flags of a postgres:// -db's snapshot.
func snapshotFlags(fs *flag.FlagSet, so *dbgen.SnapshotOptions) {
	fs.StringVar(&so.Schema, "pg-schema", "public", "the PostgreSQL `schema` holding the tables, or several, comma-separated: each is a database (for a postgres:// -db)")
	fs.Int64Var(&so.MaxRows, "pg-rows", dbgen.SnapshotRows, "rows copied at most per PostgreSQL table (the first in primary-key order)")
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
