package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
)

func TestBenchFromDB(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hero")
	db := "datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite"
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no db", []string{"bench", "from-db", "-out", out}, 2, "-db is required"},
		{"bad shares", []string{"bench", "from-db", "-q", "-db", db, "-dev", "0.6", "-test", "0.5"}, 2, "leave a share for train"},
		{"missing file", []string{"bench", "from-db", "-q", "-db", "no/such.sqlite", "-out", out}, 1, "no/such.sqlite"},
		{"postgres unreachable", []string{"bench", "from-db", "-q", "-db", "postgres://u:pw@127.0.0.1:1/db?sslmode=disable", "-out", out}, 1, "-db postgres://u:xxxxx@127.0.0.1:1/db?sslmode=disable: cannot connect"},
		{"bad rows", []string{"bench", "from-db", "-q", "-db", db, "-pg-rows", "0"}, 2, "-pg-rows must be positive"},
		{"ok", []string{"bench", "from-db", "-q", "-db", db, "-out", out, "-n", "60"}, 0, ""},
		{"exists", []string{"bench", "from-db", "-q", "-db", db, "-out", out, "-n", "60"}, 1, "pass --force"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := sqlrl(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.err) {
				t.Fatalf("code %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
		})
	}
	for _, f := range []string{"train.json", "dev.json", "train_tables.json", "train_databases/superhero/superhero.sqlite",
		"train_databases/superhero/database_description/superhero.csv", "test.json", "test_databases/superhero/superhero.sqlite", "generation.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestBenchFromDBPostgres generates over the bundled sample copied into
// PostgreSQL (two schemas, two databases), read by a role that may not
// read one table: the benchmark holds the snapshots and names the skipped
// table.
func TestBenchFromDBPostgres(t *testing.T) {
	db := pgtest.CopySample(t)
	pgtest.Exec(t, db.Admin, "REVOKE SELECT ON superhero.hero_power FROM "+db.Role)
	out := filepath.Join(t.TempDir(), "hero")
	stdout, errs, code := sqlrlOS(t, "bench", "from-db", "-q", "-db", db.ReadOnly, "-pg-schema", "superhero,student_club", "-out", out, "-n", "60")
	if code != 0 {
		t.Fatalf("code %d; stderr:\n%s", code, errs)
	}
	for _, want := range []string{"superhero: 54 train, 3 dev, 3 test", "schema superhero, 9 tables", "skipped: table hero_power: permission denied",
		"student_club: 54 train, 3 dev, 3 test", "schema student_club, 8 tables"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"train_databases/superhero/superhero.sqlite", "train_databases/student_club/student_club.sqlite"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	_, errs, code = sqlrl(t, "bench", "from-db", "-q", "-db", db.ReadOnly, "-pg-schema", "nope", "-out", out+"2")
	if code != 1 || !strings.Contains(errs, "no schema nope in this database: -pg-schema names") {
		t.Errorf("missing schema: code %d, stderr:\n%s", code, errs)
	}
}
