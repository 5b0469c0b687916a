package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"postgres", []string{"bench", "from-db", "-q", "-db", "postgres://u@h/db", "-out", out}, 1, "not yet supported"},
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
