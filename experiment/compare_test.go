package experiment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/significance"
)

// evalArm is an arm of one model per seed, each evaluated on split with
// the questions ids answered as right says, the evaluation files written
// under runsDir.
func evalArm(t testing.TB, runsDir, key, split string, seeds []uint64, ids func(seed uint64) []int, right func(seed uint64, id int) bool) Arm {
	a := Arm{Key: key, Label: key}
	for _, s := range seeds {
		m := &Run{Name: fmt.Sprintf("%s/seed%d", key, s), ID: fmt.Sprintf("%s-%d", key, s), Config: RunConfig{Seed: s}, Evals: map[string]*Run{}}
		ev := &Run{ID: fmt.Sprintf("eval-%s-%d-%s", key, s, split)}
		m.Evals[split] = ev
		rep := &eval.Report{}
		for _, id := range ids(s) {
			rep.Questions = append(rep.Questions, eval.QuestionResult{QuestionID: id, Outcome: eval.Outcome{Correct: right(s, id)}})
		}
		if err := os.MkdirAll(filepath.Join(runsDir, ev.ID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeEvalFile(filepath.Join(runsDir, ev.ID), rep); err != nil {
			t.Fatal(err)
		}
		a.Models = append(a.Models, m)
	}
	return a
}

func TestPairedOutcomes(t *testing.T) {
	dir := t.TempDir()
	// Seed 1 scored questions 0-5, seed 2 questions 2-7: their common
	// part, 2-5, is compared; the control has only seed 1.
	ids := func(s uint64) []int {
		if s == 1 {
			return []int{5, 4, 3, 2, 1, 0}
		}
		return []int{2, 3, 4, 5, 6, 7}
	}
	tr := evalArm(t, dir, "t", "dev", []uint64{1, 2}, ids, func(s uint64, id int) bool { return id%2 == 0 })
	ct := evalArm(t, dir, "c", "dev", []uint64{1, 2}, ids, func(s uint64, id int) bool { return s == 2 })
	seeds, note := pairedOutcomes(tr, ct, "dev", dir)
	if note != "" || len(seeds) != 2 {
		t.Fatalf("%d seeds, note %q", len(seeds), note)
	}
	// questions 2, 3, 4, 5 in id order
	want := []struct{ t, c []bool }{
		{[]bool{true, false, true, false}, []bool{false, false, false, false}},
		{[]bool{true, false, true, false}, []bool{true, true, true, true}},
	}
	for k, s := range seeds {
		if fmt.Sprint(s.Treatment) != fmt.Sprint(want[k].t) || fmt.Sprint(s.Control) != fmt.Sprint(want[k].c) {
			t.Errorf("seed %d: %v vs %v, want %v vs %v", s.Seed, s.Treatment, s.Control, want[k].t, want[k].c)
		}
	}
	rows := compareArms("s", "dev", map[string]Arm{"t": tr, "c": ct}, []armPair{{"t", "c"}, {"c", "t"}}, dir, significance.Options{Resamples: 100})
	if len(rows) != 2 || rows[0].Stats == nil || rows[0].Stats.Wins != 2 || rows[0].Stats.Losses != 2 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0].Stats.PHolm != min(1, 2*rows[0].Stats.P) {
		t.Errorf("Holm over 2 equal p-values: %g from %g", rows[0].Stats.PHolm, rows[0].Stats.P)
	}
	// No common question: a note, not a comparison.
	disjoint := evalArm(t, dir, "d", "dev", []uint64{1, 2}, func(s uint64) []int { return []int{int(s) * 100} }, func(uint64, int) bool { return true })
	if _, note := pairedOutcomes(disjoint, disjoint, "dev", dir); note == "" {
		t.Error("seeds with no question in common were compared")
	}
	if _, note := pairedOutcomes(tr, Arm{}, "dev", dir); note == "" {
		t.Error("an arm without models was compared")
	}
}

// BenchmarkCompareArms is one comparison of a report as a study makes it:
// two arms' evaluation files of 500 questions for 5 seeds read, paired,
// and bootstrapped 10,000 times.
func BenchmarkCompareArms(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	ids := func(uint64) []int {
		out := make([]int, 500)
		for i := range out {
			out[i] = i
		}
		return out
	}
	seeds := []uint64{1, 2, 3, 4, 5}
	tr := evalArm(b, dir, "t", "test", seeds, ids, func(uint64, int) bool { return r.Float64() < 0.62 })
	ct := evalArm(b, dir, "c", "test", seeds, ids, func(uint64, int) bool { return r.Float64() < 0.57 })
	arms := map[string]Arm{"t": tr, "c": ct}
	for b.Loop() {
		rows := compareArms("s", "test", arms, []armPair{{"t", "c"}}, dir, significance.Options{Seed: 1})
		if rows[0].Stats == nil {
			b.Fatal(rows[0].Note)
		}
	}
}

// TestWriteComparisonsSameAnswers: a row whose arms never answer a question
// differently says so, rather than printing a bare p of 1.
func TestWriteComparisonsSameAnswers(t *testing.T) {
	for _, c := range []struct {
		wins, losses int
		note         bool
	}{{0, 0, true}, {1, 0, false}, {0, 3, false}} {
		var b bytes.Buffer
		writeComparisons(&b, []ComparisonRow{{TreatmentLabel: "a", ControlLabel: "b",
			Stats: &significance.Comparison{Seeds: 2, Questions: 10, Wins: c.wins, Losses: c.losses, P: 1, PHolm: 1,
				PerSeed: []significance.SeedTest{{Seed: 1, P: 1}, {Seed: 2, P: 1}}}}})
		if got := strings.Contains(b.String(), "no question answered differently"); got != c.note {
			t.Errorf("wins %d, losses %d: note printed %v, want %v:\n%s", c.wins, c.losses, got, c.note, b.String())
		}
	}
}
