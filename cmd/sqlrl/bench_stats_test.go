package main

import (
	"strings"
	"testing"
)

// bench stats -tokenizer measures the BIRD sample's golds in a
// checkpoint's tokens (a checkpoint directory or its tokenizer.json), and
// names what is wrong with a bad tokenizer or budget list.
func TestBenchStatsTokenizer(t *testing.T) {
	ck := tinyCheckpoint(t, 64)
	for _, tok := range []string{ck, ck + "/tokenizer.json"} {
		out, errs, code := sqlrlOsStdout(t, "bench", "stats", "-no-exec", "-quiet", "-tokenizer", tok, "-budgets", "32,512", "datasets/bird-dev-sample")
		if code != 0 {
			t.Fatalf("-tokenizer %s: code %d\n%s", tok, code, errs)
		}
		for _, want := range []string{"## Gold length in tokens", "| all: over 32 |", "| all: over 512 | 0/"} {
			if !strings.Contains(out, want) {
				t.Errorf("-tokenizer %s: no %q in\n%s", tok, want, out)
			}
		}
	}
	for _, c := range []struct{ args, want string }{
		{"-tokenizer " + t.TempDir(), "-tokenizer:"},
		{"-tokenizer " + ck + " -budgets 64,x", `"64,x" for flag -budgets`},
		{"-tokenizer " + ck + " -budgets 0", `"0" for flag -budgets`},
	} {
		args := append([]string{"bench", "stats", "-no-exec", "-quiet"}, strings.Fields(c.args)...)
		_, errs, code := sqlrl(t, append(args, "datasets/bird-dev-sample")...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: code %d, want an error naming %q:\n%s", c.args, code, c.want, errs)
		}
	}
}
