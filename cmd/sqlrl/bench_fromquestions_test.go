package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchFromQuestions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bt")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"no questions", []string{"bench", "from-questions", "-out", out}, 2, "", "-questions is required"},
		{"missing file", []string{"bench", "from-questions", "-q", "-questions", "no/such.json", "-out", out}, 1, "", "no/such.json"},
		{"built in", []string{"bench", "from-questions", "-q", "-questions", "bird-train", "-out", out}, 0, "6510 of 6601 questions kept over 69 stand-in databases", ""},
		{"exists", []string{"bench", "from-questions", "-q", "-questions", "bird-train", "-out", out}, 1, "", "choose another -out or -split"},
		{"a file", []string{"bench", "from-questions", "-q", "-questions", "datasets/bird-dev-sample/dev.json", "-out", out, "-split", "dev"}, 0, "questions kept over 2 stand-in databases", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, errs, code := sqlrlOS(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.err) || !strings.Contains(stdout, tc.out) {
				t.Fatalf("code %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, stdout, errs)
			}
		})
	}
}
