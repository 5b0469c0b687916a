package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dbcopy"
	"github.com/sqlrl/sqlrl/internal/pgtest"
)

type evalReport struct {
	Total struct {
		Count    int
		Correct  int
		Accuracy float64
	}
}

func evalJSON(t *testing.T, args ...string) evalReport {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	_, errs, code := sqlrl(t, append([]string{"eval", "--quiet", "--json", file}, args...)...)
	if code != 0 {
		t.Fatalf("eval %v: code %d: %s", args, code, errs)
	}
	var rep evalReport
	b, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil {
		t.Fatalf("eval %v: %v", args, err)
	}
	return rep
}

// TestDBCopyThenEvalOnPostgres is the user's path: copy the sample into
// PostgreSQL with a read-only role, then score the gold SQL as predictions
// on both engines: 100% on each.
func TestDBCopyThenEvalOnPostgres(t *testing.T) {
	d := pgtest.NewDB(t)
	b := make([]byte, 6)
	rand.Read(b)
	role := "sqlrl_ro_cli_" + hex.EncodeToString(b)
	admin := pgtest.AdminDSN(t)
	t.Cleanup(func() {
		pgtest.Exec(t, d.Admin, "DROP OWNED BY "+role)
		pgtest.Exec(t, admin, "DROP ROLE IF EXISTS "+role)
	})
	reports := filepath.Join(t.TempDir(), "copy.json")
	_, errs, code := sqlrl(t, "db", "copy", "--pg-dsn", d.Admin, "--ro-role", role, "--quiet", "--json", reports)
	if code != 0 {
		t.Fatalf("db copy: code %d: %s", code, errs)
	}
	var reps []struct {
		DB     string
		Tables int
		Rows   int64
	}
	if b, err := os.ReadFile(reports); err != nil || json.Unmarshal(b, &reps) != nil {
		t.Fatalf("copy reports: %v", err)
	}
	if len(reps) != 2 || reps[0].DB != "student_club" || reps[0].Rows != 42511 || reps[1].DB != "superhero" || reps[1].Tables != 10 || reps[1].Rows != 10614 {
		t.Errorf("copy reports: %+v", reps)
	}
	ro := dbcopy.DSNWithUser(d.Admin, role)

	// A second copy needs --replace.
	if _, errs, code := sqlrl(t, "db", "copy", "--pg-dsn", d.Admin, "--quiet", "superhero"); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("second copy: code %d: %s", code, errs)
	}
	if _, errs, code := sqlrl(t, "db", "copy", "--pg-dsn", d.Admin, "--quiet", "--replace", "--ro-role", role, "superhero"); code != 0 {
		t.Errorf("--replace: code %d: %s", code, errs)
	}

	for _, args := range [][]string{{"--gold-as-pred"}, {"--gold-as-pred", "--engine", "postgres", "--pg-dsn", ro}} {
		rep := evalJSON(t, args...)
		if rep.Total.Count != 287 || rep.Total.Accuracy != 100 {
			t.Errorf("eval %v: %+v", args, rep.Total)
		}
	}

	// The engine refuses a superuser login.
	if _, errs, code := sqlrl(t, "eval", "--quiet", "--gold-as-pred", "--engine", "postgres", "--pg-dsn", d.Admin); code != 1 || !strings.Contains(errs, "superuser") {
		t.Errorf("superuser DSN: code %d: %s", code, errs)
	}

	// Per-dialect gold: a --gold-dialect-file line replaces question 717's
	// translated gold; SQLite predictions are translated with
	// --translate-pred, so only question 717 is now wrong.
	dir := t.TempDir()
	dialect := filepath.Join(dir, "gold_pg.jsonl")
	if err := os.WriteFile(dialect, []byte(`{"question_id": 717, "SQL": "SELECT 'not a power'"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := pgtest.RepoRoot(t)
	var qs []map[string]any
	raw, err := os.ReadFile(filepath.Join(root, "datasets", "bird-dev-sample", "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	var preds strings.Builder
	for _, q := range qs {
		line, _ := json.Marshal(map[string]any{"question_id": q["question_id"], "sql": q["SQL"]})
		preds.Write(append(line, '\n'))
	}
	predFile := filepath.Join(dir, "preds.jsonl")
	if err := os.WriteFile(predFile, []byte(preds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := evalJSON(t, "--pred", predFile, "--engine", "postgres", "--pg-dsn", ro, "--translate-pred", "--gold-dialect-file", dialect)
	if rep.Total.Count != 287 || rep.Total.Correct != 286 {
		t.Errorf("--gold-dialect-file: %+v", rep.Total)
	}

	// The same through an "SQL_postgres" field in the question file.
	bench := filepath.Join(dir, "bench")
	if err := os.MkdirAll(bench, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "datasets", "bird-dev-sample", "dev_databases"), filepath.Join(bench, "dev_databases")); err != nil {
		t.Fatal(err)
	}
	qs[0]["SQL_postgres"] = "SELECT 'not a power'"
	raw, _ = json.Marshal(qs)
	if err := os.WriteFile(filepath.Join(bench, "dev.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	rep = evalJSON(t, "--data", bench, "--pred", predFile, "--engine", "postgres", "--pg-dsn", ro, "--translate-pred")
	if rep.Total.Count != 287 || rep.Total.Correct != 286 {
		t.Errorf("SQL_postgres: %+v", rep.Total)
	}
}

func TestDBUsageErrors(t *testing.T) {
	t.Setenv(pgDSNEnv, "")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"db", "copy"}, 2, "no PostgreSQL"},
		{[]string{"eval", "--gold-as-pred", "--engine", "postgres"}, 2, "needs --pg-dsn"},
		{[]string{"eval", "--gold-as-pred", "--engine", "oracle"}, 2, `--engine "oracle"`},
		{[]string{"eval", "--gold-as-pred", "--engine", "postgres", "--suite", "--pg-dsn", "x"}, 2, "--suite needs --engine sqlite"},
		{[]string{"db", "copy", "--pg-dsn", "postgres://nobody@127.0.0.1:1/x", "no_such_db"}, 1, "no_such_db"},
	}
	for _, tt := range tests {
		_, errs, code := sqlrl(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}
