package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchV2Consumers: a v2 benchmark works with everything that reads a
// benchmark: it generates through the CLI, 'data prepare' exports its
// train split, and every gold of every dev split scores 100 as its own
// prediction.
func TestBenchV2Consumers(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "bench")
	if _, errs, code := sqlrl(t, "bench", "generate", "--preset", "v2-tiny", "--out", b); code != 0 {
		t.Fatalf("bench generate: code %d: %s", code, errs)
	}
	readme, err := os.ReadFile(filepath.Join(b, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| dev_compositional |", "| dev_id |", "Held-out domains (dev): "} {
		if !strings.Contains(string(readme), s) {
			t.Errorf("README.md lacks %q", s)
		}
	}
	if _, errs, code := sqlrl(t, "data", "prepare", "-q", "-out", filepath.Join(dir, "prep"), b); code != 0 {
		t.Fatalf("data prepare: code %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "prep", "manifest.json")); err != nil {
		t.Fatal(err)
	}
	for _, split := range []string{"dev", "dev_compositional", "dev_id"} {
		report := filepath.Join(dir, split+".json")
		if _, errs, code := sqlrl(t, "eval", "--data", b, "--split", split, "--gold-as-pred", "--quiet", "--json", report); code != 0 {
			t.Fatalf("eval %s: code %d: %s", split, code, errs)
		}
		var rep struct{ Total struct{ Count, Correct int } }
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Total.Count != 60 || rep.Total.Correct != rep.Total.Count {
			t.Errorf("eval %s: %d of %d golds correct, want 60 of 60", split, rep.Total.Correct, rep.Total.Count)
		}
	}
}
