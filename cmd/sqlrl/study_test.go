package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/experiment"
)

// TestExperimentStudyFinalTest runs a tiny pre-registered study end to
// end with the real trainers: the final evaluation reads the sealed test
// split (every question of it), counts the read, and the report carries
// the config's hash and the comparison's interval; the ordinary commands
// refuse the split.
func TestExperimentStudyFinalTest(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a study's runs")
	}
	dir := t.TempDir()
	b := tinyBench(t, dir)
	cfg := filepath.Join(dir, "study.json")
	if err := os.WriteFile(cfg, []byte(`{"name": "tiny", "question": "machinery", "preset": "flywheel-quick", "studies": ["flywheel"],
  "arms": ["sft75", "okto"], "seeds": [1], "metric": "ex", "split": "test",
  "comparisons": [{"treatment": "okto", "control": "sft75"}], "primary": {"treatment": "okto", "control": "sft75"},
  "decision": {"alpha": 0.05, "min_seeds": 1, "min_kernels": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "study")
	if _, stderr, code := sqlrl(t, "experiment", "study", "-config", cfg, "-final-test", "-q", "-out", out, b); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep experiment.Report
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	p := rep.Protocol
	// An uncommitted config never holds.
	if p == nil || len(p.SHA256) != 64 || p.TestReads != 1 || !p.FinalTest || p.Commit != "" || p.Decision.Holds {
		t.Fatalf("protocol %+v", p)
	}
	var onTest bool
	for _, c := range p.Comparisons {
		if c.Split == "test" {
			onTest = true
			if c.Stats == nil || c.Stats.Questions != 150 || c.Stats.Seeds != 1 || !(c.Stats.Low <= c.Stats.Diff && c.Stats.Diff <= c.Stats.High) {
				t.Errorf("comparison on test: %+v %s", c.Stats, c.Note)
			}
		}
	}
	if !onTest {
		t.Errorf("no comparison on test: %+v", p.Comparisons)
	}
	// The test binary has no version control stamp: the commit is the
	// work tree's, which the tests run in.
	if len(p.Kernels) == 0 || rep.Machine.Kernel == "" || len(p.Commits) == 0 || !strings.HasSuffix(rep.Machine.Commit, "(work tree)") {
		t.Errorf("kernels %v, commits %v, machine %+v: want the gemm kernel and commit recorded", p.Kernels, p.Commits, rep.Machine)
	}
	// The ordinary commands refuse the sealed split.
	_, stderr, code := sqlrl(t, "eval", "--data", b, "--split", "test", "--gold-as-pred")
	if code == 0 || !strings.Contains(stderr, "sealed") {
		t.Errorf("eval on test: exit %d, %s", code, stderr)
	}
}
