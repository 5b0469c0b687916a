package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sqlrl runs the CLI in-process from the repository root, as a user would.
func sqlrl(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestHelpListsCommands(t *testing.T) {
	out, _, code := sqlrl(t, "--help")
	if code != 0 || !strings.Contains(out, "eval") {
		t.Fatalf("code %d, help:\n%s", code, out)
	}
	_, errs, code := sqlrl(t, "no-such-command")
	if code != 2 || !strings.Contains(errs, `unknown command "no-such-command"`) {
		t.Fatalf("code %d: %s", code, errs)
	}
	_, errs, code = sqlrl(t, "eval", "--help")
	if code != 0 || !strings.Contains(errs, "--gold-as-pred") && !strings.Contains(errs, "-gold-as-pred") {
		t.Fatalf("eval --help: code %d\n%s", code, errs)
	}
}

func TestEvalGoldAsPredJSON(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	verdicts := filepath.Join(dir, "v.jsonl")
	_, errs, code := sqlrl(t, "eval", "--gold-as-pred", "--quiet", "--json", report, "--verdicts", verdicts)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	var rep struct {
		Total struct {
			Count    int
			Correct  int
			Accuracy float64
		}
		Levels []struct{ Level string }
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total.Count != 287 || rep.Total.Accuracy != 100 || len(rep.Levels) != 3 {
		t.Fatalf("report: %+v", rep)
	}
	lines, _ := os.ReadFile(verdicts)
	if n := bytes.Count(lines, []byte("\n")); n != 287 {
		t.Fatalf("%d verdict lines, want 287", n)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, 2, "exactly one of"},
		{[]string{"eval", "--gold-as-pred", "--mode", "x"}, 2, `--mode "x"`},
		{[]string{"eval", "--pred", "/no/such/file"}, 1, "/no/such/file"},
		{[]string{"eval", "--gold", "g.sql", "--gold-as-pred"}, 2, "--gold needs --db-root"},
		{[]string{"eval", "--data", "/no/such/dir", "--gold-as-pred"}, 1, "/no/such/dir"},
	}
	for _, tt := range tests {
		_, errs, code := sqlrl(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}
