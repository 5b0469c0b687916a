package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
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
// postgres` and rewrites the gold SQL for PostgreSQL: a per-dialect gold
// ("SQL_postgres" in the question file, or a line of --gold-dialect-file)
// wins; otherwise the SQLite gold is translated (package translate).
func postgresEval(ctx context.Context, dsn string, lim sqlexec.Limits, exs []dataset.Example, questions, dialectFile string) (*sqlexec.Postgres, *pgTranslator, error) {
	if dsn == "" {
		return nil, nil, usagef("--engine postgres needs --pg-dsn or $%s", pgDSNEnv)
	}
	eng, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: dsn, Limits: lim})
	if err != nil {
		return nil, nil, err
	}
	over := map[int]string{}
	if questions != "" {
		if over, err = readSQLPostgres(questions); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	byQID := map[int]string{}
	if dialectFile != "" {
		if byQID, err = readGoldDialectFile(dialectFile); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	tr := &pgTranslator{eng: eng, opts: map[string]*translate.Options{}}
	for i := range exs {
		ex := &exs[i]
		if s, ok := byQID[ex.QuestionID]; ok {
			ex.SQL = s
			continue
		}
		if s, ok := over[ex.Index]; ok {
			ex.SQL = s
			continue
		}
		if ex.SQL, err = tr.translate(ctx, ex.DBID, ex.SQL); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	return eng, tr, nil
}

// pgTranslator translates SQLite SQL for one PostgreSQL engine, with the
// table and column names and column types of each schema read once from the
// catalog.
type pgTranslator struct {
	eng  *sqlexec.Postgres
	opts map[string]*translate.Options
}

func (t *pgTranslator) translate(ctx context.Context, db, sql string) (string, error) {
	opts, ok := t.opts[db]
	if !ok {
		var err error
		if opts, err = schemaNames(ctx, t.eng, db); err != nil {
			return "", err
		}
		t.opts[db] = opts
	}
	return translate.ToPostgres(sql, *opts).SQL, nil
}

// schemaNames reads what the translator needs to know about schema db. A
// missing schema gives empty options: the query will then fail as it does on
// SQLite when the database is missing.
func schemaNames(ctx context.Context, eng *sqlexec.Postgres, db string) (*translate.Options, error) {
	opts := &translate.Options{Types: map[string]string{}}
	res, err := eng.Query(ctx, db, `SELECT table_name::text, NULL::text FROM information_schema.tables WHERE table_schema = current_schema()
		UNION ALL SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = current_schema()`)
	if sqlexec.ClassOf(err) == sqlexec.ClassNoDatabase {
		return opts, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the names of schema %q: %w", db, err)
	}
	for _, r := range res.Rows {
		name := r[0].S
		opts.Names = append(opts.Names, name)
		if r[1].Kind == sqlexec.KindNull {
			continue
		}
		if typ, seen := opts.Types[name]; seen && typ != r[1].S {
			opts.Types[name] = "" // same name, different types
			continue
		}
		opts.Types[name] = r[1].S
	}
	return opts, nil
}

// translatePreds translates SQLite-dialect predictions (--translate-pred).
func (t *pgTranslator) translatePreds(ctx context.Context, exs []dataset.Example, preds []*dataset.Prediction) error {
	for i, p := range preds {
		if p == nil {
			continue
		}
		var err error
		if p.SQL, err = t.translate(ctx, exs[i].DBID, p.SQL); err != nil {
			return err
		}
		for k, c := range p.Candidates {
			if p.Candidates[k], err = t.translate(ctx, exs[i].DBID, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// readSQLPostgres reads the optional "SQL_postgres" field of each record of
// a BIRD/Spider question file, by record index.
func readSQLPostgres(path string) (map[int]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read per-dialect gold: %w", err)
	}
	var recs []struct {
		SQLPostgres *string `json:"SQL_postgres"`
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("read per-dialect gold: %s: %w", path, err)
	}
	out := map[int]string{}
	for i, r := range recs {
		if r.SQLPostgres != nil {
			out[i] = *r.SQLPostgres
		}
	}
	return out, nil
}

// readGoldDialectFile reads PostgreSQL gold SQL overrides: JSON Lines
// {"question_id": N, "SQL": "..."} (question_id is Spider's 0-based index).
func readGoldDialectFile(path string) (map[int]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read gold dialect file: %w", err)
	}
	out := map[int]string{}
	for n, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r struct {
			QuestionID *int    `json:"question_id"`
			SQL        *string `json:"SQL"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n+1, err)
		}
		if r.QuestionID == nil || r.SQL == nil {
			return nil, fmt.Errorf("%s: line %d: want {\"question_id\": N, \"SQL\": \"...\"}", path, n+1)
		}
		if _, dup := out[*r.QuestionID]; dup {
			return nil, fmt.Errorf("%s: line %d: question_id %d given twice", path, n+1, *r.QuestionID)
		}
		out[*r.QuestionID] = *r.SQL
	}
	return out, nil
}

// questionsFile is the question file an eval reads its gold from, for the
// per-dialect "SQL_postgres" fields; "" when there is none.
func questionsFile(data, split, gold, questions string) string {
	if gold != "" {
		return questions
	}
	p := filepath.Join(data, split+".json")
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return p
}
