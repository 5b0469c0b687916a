package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/sqlrl/sqlrl/dbcopy"
)

// pgDSNEnv names the environment variable that gives a PostgreSQL DSN when no
// --pg-dsn flag does (scripts/postgres.sh prints it).
const pgDSNEnv = "SQLRL_PG_DSN"

func init() {
	register(&command{
		name:    "db copy",
		summary: "copy SQLite benchmark databases into PostgreSQL, one schema per database",
		usage:   "[flags] [DB_ID | FILE.sqlite ...]",
		help: `Copies each database (all of --data's, or the ones named) into a PostgreSQL
schema of the same name, keeping every value equal under comparison (package
dbcopy), one transaction per database. --ro-role then sets up the read-only
role 'sqlrl eval --engine postgres' should log in as (docs/postgres.md).

example:
  eval "$(scripts/postgres.sh start)"
  sqlrl db copy --replace --ro-role sqlrl_ro`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			data := fs.String("data", defaultData, "benchmark `dir` (BIRD or Spider layout) or a directory of <db>/<db>.sqlite")
			split := fs.String("split", "dev", "benchmark split (BIRD: <split>_databases/)")
			dsn := fs.String("pg-dsn", os.Getenv(pgDSNEnv), "PostgreSQL `DSN` of the target database (default $"+pgDSNEnv+")")
			replace := fs.Bool("replace", false, "drop and copy again a schema that already exists")
			role := fs.String("ro-role", "", "create or refresh this read-only `role` and let it read the copied schemas")
			jsonOut := fs.String("json", "", "write the copy reports as JSON to `file` (- for stdout)")
			quiet := fs.Bool("quiet", false, "no progress bar")
			return func(ctx context.Context, args []string) error {
				if *dsn == "" {
					return usagef("no PostgreSQL: give --pg-dsn or set $%s (scripts/postgres.sh start prints one)", pgDSNEnv)
				}
				srcs, err := dbcopy.FindSources(*data, *split, args)
				if err != nil {
					return err
				}
				var out io.Writer = os.Stdout
				if *jsonOut == "-" {
					out = io.Discard
				}
				o := dbcopy.AllOptions{Replace: *replace, ReadOnlyRole: *role, Out: out}
				if !*quiet {
					o.Progress = os.Stderr
				}
				reps, err := dbcopy.CopyAll(ctx, *dsn, srcs, o)
				if err != nil {
					return err
				}
				if *jsonOut != "" {
					return writeJSON(*jsonOut, reps, false)
				}
				return nil
			}
		},
	})
}
