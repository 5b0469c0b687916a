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
schema of the same name, one transaction per database, keeping every value
equal under comparison. --ro-role sets up the read-only role 'sqlrl eval
--engine postgres' should log in as (docs/postgres.md).

example:
  eval "$(scripts/postgres.sh start)"
  sqlrl db copy --replace --ro-role sqlrl_ro`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := dbcopy.Job{Data: defaultData, Split: "dev", DSN: os.Getenv(pgDSNEnv), AllOptions: dbcopy.AllOptions{Out: os.Stdout}}
			o.Flags(fs, pgDSNEnv)
			jsonOut := fs.String("json", "", "write the copy reports as JSON to `file` (- for stdout)")
			quiet := fs.Bool("quiet", false, "no progress bar")
			return func(ctx context.Context, args []string) error {
				if o.DSN == "" {
					return usagef("no PostgreSQL: give --pg-dsn or set $%s (scripts/postgres.sh start prints one)", pgDSNEnv)
				}
				if *jsonOut == "-" {
					o.Out = io.Discard
				}
				o.Progress = progressTo(*quiet)
				reps, err := o.Copy(ctx, args)
				if err == nil {
					return writeJSON(*jsonOut, reps, false)
				}
				return err
			}
		},
	})
}
