package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/dbcopy"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

// pgDSNEnv names the environment variable that gives a PostgreSQL DSN when no
// --pg-dsn flag does (scripts/postgres.sh prints it).
const pgDSNEnv = "SQLRL_PG_DSN"

func init() {
	register(&command{
		name:    "db copy",
		summary: "copy SQLite benchmark databases into PostgreSQL, one schema per database",
		usage:   "[flags] [DB_ID | FILE.sqlite ...]",
		help: `Copies each database (all of --data's, or the ones named) into a PostgreSQL schema of
the same name: tables with types chosen from SQLite's affinity and the values really
stored, data by COPY, then primary keys, indexes and foreign keys (ones the data violates
are skipped and reported). One transaction per database; --replace drops an existing
schema first. Run it as the schemas' owner (e.g. the superuser scripts/postgres.sh
creates); --ro-role then sets up the least-privilege role 'sqlrl eval --engine postgres'
should log in as (docs/postgres.md).

examples:
  eval "$(scripts/postgres.sh start)"
  sqlrl db copy --replace --ro-role sqlrl_ro
  sqlrl db copy --data path/to/bird/dev --replace california_schools financial`,
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
					return writeJSON(*jsonOut, reps)
				}
				return nil
			}
		},
	})
}

// postgresEval opens the PostgreSQL engine for `sqlrl eval --engine
// postgres` and rewrites the gold SQL for PostgreSQL (translate.Catalog.Gold):
// a line of --gold-dialect-file wins, then "SQL_postgres" in the question
// file, else the SQLite gold is translated. The catalog is returned for
// --translate-pred.
func postgresEval(ctx context.Context, dsn string, lim sqlexec.Limits, exs []dataset.Example, questions, dialectFile string) (*sqlexec.Postgres, *translate.Catalog, error) {
	if dsn == "" {
		return nil, nil, usagef("--engine postgres needs --pg-dsn or $%s", pgDSNEnv)
	}
	eng, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: dsn, Limits: lim})
	if err != nil {
		return nil, nil, err
	}
	var over translate.GoldOverrides
	if questions != "" {
		if over.ByIndex, err = translate.ReadSQLPostgres(questions); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	if dialectFile != "" {
		if over.ByQuestionID, err = translate.ReadGoldDialectFile(dialectFile); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	cat := translate.NewCatalog(eng)
	if err := cat.Gold(ctx, exs, over); err != nil {
		eng.Close()
		return nil, nil, err
	}
	return eng, cat, nil
}

// questionsFile is the question file an eval reads its gold from, for the
// per-dialect "SQL_postgres" fields: the benchmark's (src, the file
// loadGold read), or with a gold file the --questions one ("" for none).
func questionsFile(src, gold, questions string) string {
	if gold != "" {
		return questions
	}
	return src
}
