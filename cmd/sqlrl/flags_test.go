package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateFlags = os.Getenv("SQLRL_UPDATE_FLAGS") != ""

// TestFlagsKept compares each command's flag names and defaults with
// testdata/flags.txt: moving a setting to its owner keeps its flag.
// SQLRL_UPDATE_FLAGS=1 rewrites the file after a deliberate change.
func TestFlagsKept(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"experiment okto", "experiment flywheel", "experiment study", "train sft", "train kto", "train dpo",
		"train orpo", "train ppo", "train rloo", "train grpo", "reward serve", "reward bench", "serve calibrate", "bench from-db", "specialise",
		"experiment feedback-halves"} {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		commands[name].flags(fs)
		fs.VisitAll(func(f *flag.Flag) { fmt.Fprintf(&b, "%s -%s=%q\n", name, f.Name, f.DefValue) })
	}
	path := filepath.Join("testdata", "flags.txt")
	if updateFlags {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("flags changed:\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
