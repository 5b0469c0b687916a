package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecialise runs the command's wiring end to end with -quick, and
// its bad input: usage errors exit 2 before any work.
func TestSpecialise(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hero")
	db := "datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite"
	empty := filepath.Join(t.TempDir(), "empty.sqlite")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no db", []string{"specialise", "-out", out}, 2, "-db is required"},
		{"missing file", []string{"specialise", "-q", "-db", "no/such.sqlite", "-out", out}, 2, "no/such.sqlite"},
		{"empty file", []string{"specialise", "-q", "-db", empty, "-out", out}, 2, "an empty file, not a SQLite database"},
		{"bad kto steps", []string{"specialise", "-q", "-db", db, "-out", out, "-kto-steps", "0"}, 2, "must be positive"},
		{"ok", []string{"specialise", "-quick", "-q", "-db", db, "-out", out, "-n", "300"}, 0, ""},
		{"other settings", []string{"specialise", "-quick", "-q", "-db", db, "-out", out, "-n", "301"}, 1, "pass --force"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := sqlrl(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.err) {
				t.Fatalf("code %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
		})
	}
	for _, f := range []string{"serve.json", "report.md", "data/train.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
