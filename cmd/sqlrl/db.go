package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/dbcopy"
	"github.com/sqlrl/sqlrl/progress"
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
				reps, err := copyDatabases(ctx, *dsn, srcs, *replace, *role, *quiet, out)
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

// copyDatabases plans every source first (so the progress bar knows the
// total), then copies them one by one over a single connection.
func copyDatabases(ctx context.Context, dsn string, srcs []dbcopy.Source, replace bool, role string, quiet bool, out io.Writer) ([]*dbcopy.Report, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	plans := make([]*dbcopy.Plan, len(srcs))
	var total int64
	for i, s := range srcs {
		if plans[i], err = dbcopy.PlanCopy(ctx, s); err != nil {
			return nil, err
		}
		total += plans[i].Rows()
	}
	var bar *progress.Bar
	if !quiet {
		bar = progress.New(os.Stderr, "copy", int(total))
	}
	var reps []*dbcopy.Report
	var done int64
	start := time.Now()
	for _, p := range plans {
		base := done
		rep, err := dbcopy.Copy(ctx, conn, p, dbcopy.Options{Replace: replace, Progress: func(n int64) { bar.Set(int(base + n)) }})
		if err != nil {
			bar.Finish()
			return reps, err
		}
		done += rep.Rows
		reps = append(reps, rep)
	}
	bar.Finish()
	for _, r := range reps {
		fmt.Fprintf(out, "%s: %d tables, %d rows in %v (%.0f rows/s); %d primary keys, %d foreign keys, %d indexes\n",
			r.DB, r.Tables, r.Rows, r.Elapsed.Round(time.Millisecond), r.RowsPerSecond(), r.PrimaryKeys, r.ForeignKeys, r.Indexes)
		for _, s := range r.Skipped {
			fmt.Fprintf(out, "  skipped %s\n", s)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(out, "  note: %s\n", n)
		}
	}
	if len(reps) > 1 {
		el := time.Since(start)
		fmt.Fprintf(out, "total: %d databases, %d rows in %v (%.0f rows/s)\n", len(reps), done, el.Round(time.Millisecond), float64(done)/el.Seconds())
	}
	if role == "" {
		return reps, nil
	}
	var database string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&database); err != nil {
		return reps, fmt.Errorf("read-only role: %w", err)
	}
	var schemas []string
	for _, r := range reps {
		schemas = append(schemas, r.Schema)
	}
	stmts, err := sqlexec.PostgresReadOnlyRoleSQL(role, database, schemas)
	if err != nil {
		return reps, err
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return reps, fmt.Errorf("read-only role %s: %s: %w", role, strings.SplitN(s, "\n", 2)[0], err)
		}
	}
	fmt.Fprintf(out, "role %s can read schemas %s; evaluate with --pg-dsn '%s'\n", role, strings.Join(schemas, ", "), dsnWithUser(dsn, role))
	return reps, nil
}

// dsnWithUser is dsn logging in as user instead (no password: set one with
// ALTER ROLE, or rely on the server's trust/peer rules, as the test server does).
func dsnWithUser(dsn, user string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.User = url.User(user)
		return u.String()
	}
	return dsn + " user=" + user
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
