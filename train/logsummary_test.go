package train

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLogResumed reads a log a run resumed before resume trimmed the
// log: step 3 logged twice (the first with another reward_s), and a last
// line cut by a kill. Every step is read once, the last line of it, in
// order; the cut line is skipped and counted.
func TestReadLogResumed(t *testing.T) {
	lines, skipped, err := ReadLog("testdata/train_log_resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(lines) != 5 {
		t.Fatalf("%d lines, %d skipped; want 5 and 1", len(lines), skipped)
	}
	for i, l := range lines {
		if l.Step != int64(i+1) {
			t.Fatalf("line %d is step %d", i, l.Step)
		}
	}
	if got := lines[2].Metrics["reward_s"]; got != 3 {
		t.Errorf("step 3's reward_s %v: want the last line's 3", got)
	}
	// a directory reads its train_log.jsonl; a line with nothing to
	// recover is skipped and counted
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, logFile), []byte("{\"step\":1,\"loss\":1}\n{\"step\":2,\"lo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, skipped, err := ReadLog(dir); err != nil || len(lines) != 1 || skipped != 1 {
		t.Errorf("dir: %d lines, %d skipped, %v; want 1, 1, nil", len(lines), skipped, err)
	}
	// trimming for a resume from step 1 leaves step 1 alone, the cut line gone
	if err := trimLog(filepath.Join(dir, logFile), 1); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, logFile)); !strings.HasPrefix(string(b), `{"step":1,`) || strings.Count(string(b), "\n") != 1 {
		t.Errorf("trimmed log %q", b)
	}
	if _, _, err := ReadLog(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing log: %v", err)
	}
}

// TestSummarize checks the summary of the resumed log against values
// worked out by hand: steps 1-4 are timed (4, 10, 8 and 4 s), step 5 is not.
func TestSummarize(t *testing.T) {
	lines, _, err := ReadLog("testdata/train_log_resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(lines, 2, []string{"share_correct", "kl_ref", "loss"})
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if s.Steps != 5 {
		t.Errorf("steps %d, want 5 (step 3 counted once)", s.Steps)
	}
	near("median step", s.StepMedianS, 6)
	want := map[string]PartSummary{
		// seconds 1, 9, 1, 1; shares .25, .9, .125, .25
		"sample_s": {MedianS: 1, Share: 12.0 / 26, MedianShare: 0.25, MaxShare: 0.9},
		// seconds .01, .05, 3, .02; shares .0025, .005, .375, .005
		"reward_s": {MedianS: 0.035, Share: 3.08 / 26, MedianShare: 0.005, MaxShare: 0.375},
		// seconds 2, .5, 2, 1; shares .5, .05, .25, .25
		"score_s": {MedianS: 1.5, Share: 5.5 / 26, MedianShare: 0.25, MaxShare: 0.5},
		// seconds .99, .45, 2, 1.98; shares .2475, .045, .25, .495
		"update_s": {MedianS: 1.485, Share: 5.42 / 26, MedianShare: 0.24875, MaxShare: 0.495},
	}
	if len(s.Parts) != len(StepParts) {
		t.Fatalf("%d parts, want %d", len(s.Parts), len(StepParts))
	}
	for _, p := range s.Parts {
		w := want[p.Name]
		near(p.Name+" median", p.MedianS, w.MedianS)
		near(p.Name+" share", p.Share, w.Share)
		near(p.Name+" median share", p.MedianShare, w.MedianShare)
		near(p.Name+" max share", p.MaxShare, w.MaxShare)
	}
	wins := []WindowSummary{
		{First: 1, Last: 2, Metrics: map[string]float64{"share_correct": 0.375, "kl_ref": 0.25, "loss": 0.45}},
		{First: 3, Last: 4, Metrics: map[string]float64{"share_correct": 0.875, "kl_ref": 1.5, "loss": 0.25}},
		{First: 5, Last: 5, Metrics: map[string]float64{"share_correct": 0, "loss": 0.1}},
	}
	if len(s.Windows) != len(wins) {
		t.Fatalf("%d windows, want %d", len(s.Windows), len(wins))
	}
	for i, w := range wins {
		g := s.Windows[i]
		if g.First != w.First || g.Last != w.Last || len(g.Metrics) != len(w.Metrics) {
			t.Errorf("window %d: %+v, want %+v", i, g, w)
			continue
		}
		for m, v := range w.Metrics {
			near("window "+m, g.Metrics[m], v)
		}
	}
	md := s.Markdown("run", []string{"share_correct", "kl_ref", "loss"})
	for _, row := range []string{"run: 5 steps, median step 6 s", "| reward | 0.035 | 0.5% | 11.8% | 37.5% |", "| 5-5 | 0 | - | 0.1 |"} {
		if !strings.Contains(md, row) {
			t.Errorf("markdown lacks %q:\n%s", row, md)
		}
	}
	if s := Summarize(lines, 0, nil); s.Windows != nil {
		t.Errorf("window 0 gave windows %+v", s.Windows)
	}
}

// TestSummarizeRun: a run's summary carries its name and the lines a kill
// cut; a log of no steps is an error naming the run.
func TestSummarizeRun(t *testing.T) {
	empty := filepath.Join(t.TempDir(), logFile)
	if err := os.WriteFile(empty, []byte("{\"step\":1,\"lo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		run     string
		steps   int
		skipped int
		err     string
	}{
		{"testdata/train_log_resumed.jsonl", 5, 1, ""},
		{empty, 0, 0, "no steps logged"},
		{filepath.Join(t.TempDir(), "none"), 0, 0, "none"},
	} {
		s, err := SummarizeRun(c.run, 2, []string{"reward_mean"})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.run, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.run, err)
		}
		if s.Run != c.run || s.Steps != c.steps || s.Skipped != c.skipped {
			t.Errorf("%s: run %q, %d steps, %d skipped; want %d and %d", c.run, s.Run, s.Steps, s.Skipped, c.steps, c.skipped)
		}
	}
}
