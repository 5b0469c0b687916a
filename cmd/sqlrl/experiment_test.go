package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/experiment"
)

// TestExperimentOktoQuick runs every study of the quick preset end to end
// on the generator's tiny benchmark with the real trainers, checks the
// report's structure, then runs the same command again: every run is
// found finished, nothing is trained or evaluated again.
func TestExperimentOktoQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every study's runs")
	}
	dir := t.TempDir()
	b := filepath.Join(dir, "bench")
	if _, err := bench.Generate(context.Background(), bench.Options{Preset: "tiny", Seed: 1, Out: b}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "okto")
	args := []string{"experiment", "okto", "-quick", "-q", "-out", out, b}
	if _, stderr, code := sqlrl(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep experiment.Report
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Studies) != len(experiment.StudyNames()) || len(rep.Splits) == 0 {
		t.Fatalf("report: %d studies on splits %v; want %d on at least dev", len(rep.Studies), rep.Splits, len(experiment.StudyNames()))
	}
	for _, st := range rep.Studies {
		for _, tb := range st.Tables {
			for _, r := range tb.Rows {
				if c := r.Cells["total"]; c.N != 1 {
					t.Errorf("%s on %s, %s: total over %d seeds, want 1", st.Name, tb.Split, r.Label, c.N)
				}
			}
		}
	}
	for _, r := range rep.Runs {
		if !r.Done {
			t.Errorf("run %s not done", r.Name)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Command: `", "CPUs", "## algorithms", "## final", "## The recipe's claims", "## Runs", "online KTO", "GRPO"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) < len(experiment.StudyNames()) {
		t.Errorf("%d plots, want a bar chart per study at least", len(svgs))
	}
	for _, p := range svgs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(f)
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Errorf("%s: %v", p, err)
				break
			}
		}
		f.Close()
	}
	// The rerun finds every run finished: no file in a run's directory
	// is written again.
	stamp := map[string]time.Time{}
	filepath.Walk(filepath.Join(out, "runs"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			stamp[p] = fi.ModTime()
		}
		return nil
	})
	if _, stderr, code := sqlrl(t, args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	n := 0
	filepath.Walk(filepath.Join(out, "runs"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		n++
		if old, ok := stamp[p]; !ok || !old.Equal(fi.ModTime()) {
			t.Errorf("rerun wrote %s", p)
		}
		return nil
	})
	t.Logf("%d runs, %d files in their directories", len(rep.Runs), n)
	if n != len(stamp) {
		t.Errorf("rerun: %d files in the runs, before %d", n, len(stamp))
	}
}
