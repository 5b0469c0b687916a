package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// TestModelMerge merges a checkpoint with a copy of it moved by +1 on every
// weight: a quarter of the way gives +0.25 everywhere, and the merged
// checkpoint loads like any other; bad calls are refused with what is
// wrong, and nothing is written over an existing checkpoint.
func TestModelMerge(t *testing.T) {
	start := tinyCheckpoint(t, 64)
	p, err := policy.Load(start)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Model.Params {
		p.Model.Params[i]++
	}
	tuned := filepath.Join(t.TempDir(), "tuned")
	if err := p.Save(tuned); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if _, errs, code := sqlrlOS(t, "model", "merge", "-start", start, "-tuned", tuned, "-alpha", "0.25", "-out", out); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	s, err1 := policy.Load(start)
	m, err2 := policy.Load(out)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i, v := range m.Model.Params {
		if want := s.Model.Params[i] + 0.25; math.Abs(float64(v-want)) > 1e-6*(1+math.Abs(float64(want))) {
			t.Fatalf("param %d = %v, want %v", i, v, want)
		}
	}
	if m.Info.Notes["merge_alpha"] != "0.25" {
		t.Errorf("notes %v: want merge_alpha 0.25", m.Info.Notes)
	}
	other := tinyCheckpoint(t, 128) // another context: another model
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-start", start, "-tuned", tuned}, 2, "required"},
		{[]string{"-start", start, "-tuned", tuned, "-out", out}, 1, "already holds a checkpoint"},
		{[]string{"-start", other, "-tuned", tuned, "-out", filepath.Join(t.TempDir(), "x")}, 1, "models differ"},
		{[]string{"-start", filepath.Join(t.TempDir(), "none"), "-tuned", tuned, "-out", filepath.Join(t.TempDir(), "y")}, 1, "load start"},
	} {
		_, errs, code := sqlrlOS(t, append([]string{"model", "merge"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d (%s); want %d saying %q", c.args, code, errs, c.code, c.want)
		}
	}
}
