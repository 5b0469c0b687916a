package eval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func loadSample(t *testing.T) (*dataset.Benchmark, *sqlexec.SQLite) {
	t.Helper()
	b, err := dataset.Load("../datasets/bird-dev-sample", "dev")
	if err != nil {
		t.Fatal(err)
	}
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	t.Cleanup(func() { e.Close() })
	return b, e
}

func TestGoldAsPredictionScoresFull(t *testing.T) {
	b, e := loadSample(t)
	preds := make([]*dataset.Prediction, len(b.Examples))
	for i, ex := range b.Examples {
		preds[i] = &dataset.Prediction{Index: i, SQL: ex.SQL}
	}
	for _, mode := range []Mode{ModeBIRD, ModeSpider} {
		s := &Scorer{Engine: e, Mode: mode, CachePredictions: true}
		rep, err := Run(context.Background(), s, b.Examples, preds, Options{Levels: b.DifficultyLevels()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Total.Correct != len(b.Examples) {
			t.Errorf("%s: %d/%d correct; classes %v", mode, rep.Total.Correct, len(b.Examples), rep.Classes)
		}
	}
}

// TestVerdictClasses scores hand-made predictions for the first question of
// the sample: "Please list all the superpowers of 3-D Man."
func TestVerdictClasses(t *testing.T) {
	b, e := loadSample(t)
	ex := b.Examples[0]
	s := &Scorer{Engine: e, Mode: ModeBIRD, Timeout: 500 * time.Millisecond}
	tests := []struct {
		pred, class string
	}{
		{ex.SQL, ClassCorrect},
		{ex.SQL + " ORDER BY T3.power_name DESC", ClassCorrect},
		{"SELECT power_name FROM superpower", ClassWrong},
		{"SELECT power_nam FROM superpower", string(sqlexec.ClassUnknownColumn)},
		{"SELECT power_name FROM superpowers", string(sqlexec.ClassUnknownTable)},
		{"SELECT power_name FROM superpower WHERE", string(sqlexec.ClassSyntax)},
		{"DELETE FROM superpower", string(sqlexec.ClassNotReadOnly)},
		{"SELECT 1; SELECT 2", string(sqlexec.ClassMultiple)},
		{"SELECT count(*) FROM superhero a, superhero b, superhero c, superhero d", string(sqlexec.ClassTimeout)},
	}
	for _, tt := range tests {
		out := s.Score(context.Background(), ex.DBID, ex.SQL, tt.pred)
		if out.Class != tt.class || out.Correct != (tt.class == ClassCorrect) {
			t.Errorf("%q: class %q correct=%v (%s), want %q", tt.pred, out.Class, out.Correct, out.Error, tt.class)
		}
	}
}

func TestCandidatesAndMissing(t *testing.T) {
	b, e := loadSample(t)
	exs := b.Examples[:3]
	wrong := "SELECT 1"
	preds := []*dataset.Prediction{
		{SQL: exs[0].SQL, Candidates: []string{exs[0].SQL, wrong, wrong, exs[0].SQL}},
		{SQL: wrong, Candidates: []string{wrong, wrong}},
		nil,
	}
	s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}
	rep, err := Run(context.Background(), s, exs, preds, Options{Ks: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Questions
	if q[0].CandidatesCorrect != 2 || q[1].CandidatesCorrect != 0 || q[2].Class != ClassMissing {
		t.Fatalf("verdicts: %+v", q)
	}
	if got := rep.Total.PassAtK["oracle"]; got != 50 {
		t.Errorf("oracle = %v, want 50 (1 of 2 questions with candidates)", got)
	}
	if got, want := rep.Total.PassAtK["pass@1"], 100*(0.5+0)/2; got != want {
		t.Errorf("pass@1 = %v, want %v", got, want)
	}
	if rep.Total.Correct != 1 || rep.Classes[ClassMissing] != 1 {
		t.Errorf("total %+v classes %v", rep.Total, rep.Classes)
	}
}

// TestCachesStayBounded scores many distinct predictions with a small
// MaxCacheEntries: the caches must stay within the bound and verdicts must
// not change when they start afresh.
func TestCachesStayBounded(t *testing.T) {
	_, e := loadSample(t)
	s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true, MaxCacheEntries: 10}
	ctx := context.Background()
	for i := range 300 {
		pred := fmt.Sprintf("SELECT %d", i%60)
		out := s.Score(ctx, "superhero", "SELECT 7", pred)
		if out.Correct != (i%60 == 7) {
			t.Fatalf("%s: correct=%v (%s)", pred, out.Correct, out.Class)
		}
		if n := s.CacheStats().Entries; n > 10 {
			t.Fatalf("after %d predictions the result cache holds %d entries", i+1, n)
		}
	}
	n := 0
	s.verdicts.Range(func(any, any) bool { n++; return true })
	if n > 10 {
		t.Fatalf("verdict cache holds %d entries", n)
	}
}
