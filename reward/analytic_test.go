package reward

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/mutate"
)

// orderingSet groups, per question of the BIRD sample, the gold answer,
// near misses (mutations of the gold that execute but return a different
// result), an unrelated query (the gold of another question on the same
// database) and errors (mutations that fail to run).
type orderingSet struct {
	gold      string
	db        string
	nearMiss  []string
	unrelated string
	errs      []string
}

func buildOrdering(t *testing.T, sc *eval.Scorer) []orderingSet {
	t.Helper()
	pairs := testkit.Official(t, "bird_ex.jsonl")
	byQ := map[int]*orderingSet{}
	var order []int
	outs := make([]eval.Outcome, len(pairs))
	forEach(len(pairs), func(i int) {
		outs[i] = sc.Score(context.Background(), pairs[i].DBID, pairs[i].Gold, pairs[i].Pred)
	})
	for i, p := range pairs {
		set := byQ[p.QuestionID]
		if set == nil {
			set = &orderingSet{gold: p.Gold, db: p.DBID}
			byQ[p.QuestionID] = set
			order = append(order, p.QuestionID)
		}
		switch cat := mutate.Category(p.Kind); {
		case cat == mutate.CategoryResult && outs[i].Class == eval.ClassWrong:
			set.nearMiss = append(set.nearMiss, p.Pred)
		case cat == mutate.CategoryError && !executed(outs[i]):
			set.errs = append(set.errs, p.Pred)
		}
	}
	var sets []orderingSet
	for k, q := range order {
		set := byQ[q]
		// The unrelated answer: the next question's gold on the same
		// database whose result differs.
		for d := 1; d < len(order); d++ {
			other := byQ[order[(k+d)%len(order)]]
			if other.db != set.db || other.gold == set.gold {
				continue
			}
			if o := sc.Score(context.Background(), set.db, set.gold, other.gold); o.Class == eval.ClassWrong {
				set.unrelated = other.gold
				break
			}
		}
		sets = append(sets, *set)
	}
	return sets
}

func TestAnalyticOrdering(t *testing.T) {
	sc, _ := newScorer(t, true)
	judge := &JudgeReward{Scorer: sc, Judge: Analytic{}}
	sets := buildOrdering(t, sc)
	ctx := context.Background()
	grade := func(db, gold, pred string) float64 {
		s, err := judge.Reward(ctx, Sample{DBID: db, GoldSQL: gold, Completion: pred})
		if err != nil {
			t.Fatal(err)
		}
		return s.Components["judge"]
	}
	var gold, near, unrel, errs []float64
	var nearBeatsUnrelated, compared int
	for _, s := range sets {
		gold = append(gold, grade(s.db, s.gold, s.gold))
		u := -1.0
		if s.unrelated != "" {
			u = grade(s.db, s.gold, s.unrelated)
			unrel = append(unrel, u)
		}
		for _, p := range s.nearMiss {
			n := grade(s.db, s.gold, p)
			near = append(near, n)
			if u >= 0 {
				compared++
				if n > u {
					nearBeatsUnrelated++
				}
			}
		}
		for _, p := range s.errs {
			errs = append(errs, grade(s.db, s.gold, p))
		}
	}
	t.Logf("gold      %s", summary(gold))
	t.Logf("near miss %s", summary(near))
	t.Logf("unrelated %s", summary(unrel))
	t.Logf("error     %s", summary(errs))
	t.Logf("near miss > unrelated on the same question: %d / %d", nearBeatsUnrelated, compared)
	if len(near) < 500 || len(unrel) < 200 || len(errs) < 300 {
		t.Fatalf("too few pairs to judge the ordering: %d near, %d unrelated, %d errors", len(near), len(unrel), len(errs))
	}
	// Every correct answer gets 50, and no wrong one does.
	for _, g := range gold {
		if g != MaxPoints {
			t.Errorf("gold graded %v, want %d", g, MaxPoints)
		}
	}
	// Bands: errors never reach an executing answer's floor; a wrong answer
	// never reaches full marks.
	if m := maxOf(errs); m >= analyticExecBase {
		t.Errorf("an error got %v points, at or above the executing floor %d", m, analyticExecBase)
	}
	if m := maxOf(append(near, unrel...)); m >= MaxPoints {
		t.Errorf("a wrong answer got %v points", m)
	}
	// On average, and question by question, gold > near miss > unrelated > error.
	if !(mean(gold) > mean(near) && mean(near) > mean(unrel)+5 && mean(unrel) > mean(errs)) {
		t.Errorf("mean points not ordered: gold %.1f, near miss %.1f, unrelated %.1f, error %.1f",
			mean(gold), mean(near), mean(unrel), mean(errs))
	}
	if rate := float64(nearBeatsUnrelated) / float64(compared); rate < 0.95 {
		t.Errorf("a near miss beats the unrelated answer in only %.1f%% of pairs (want >= 95%%)", 100*rate)
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func summary(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return "none"
	}
	return fmt.Sprintf("n=%d min=%.1f p10=%.1f mean=%.1f p90=%.1f max=%.1f", len(s), s[0], s[len(s)/10], mean(s), s[len(s)*9/10], s[len(s)-1])
}

// TestAnalyticFeatures checks the schema-linking and structure features on
// hand-made queries.
func TestAnalyticFeatures(t *testing.T) {
	f := features("SELECT T1.name, COUNT(*) AS n FROM superhero AS T1 JOIN publisher p ON T1.pid = p.id, colour WHERE T1.h > 10 AND p.name = 'Marvel' GROUP BY T1.name ORDER BY n DESC")
	wantTables := []string{"colour", "publisher", "superhero"}
	if got := keys(f.tables); fmt.Sprint(got) != fmt.Sprint(wantTables) {
		t.Errorf("tables %v, want %v", got, wantTables)
	}
	wantCols := []string{"h", "id", "name", "pid"}
	if got := keys(f.columns); fmt.Sprint(got) != fmt.Sprint(wantCols) {
		t.Errorf("columns %v, want %v", got, wantCols)
	}
	for _, c := range []string{"agg:count", "WHERE", "GROUP", "ORDER", "DESC", "AND", "op:>", "op:="} {
		if f.clauses[c] == 0 {
			t.Errorf("structure lacks %q: %v", c, f.clauses)
		}
	}
	if f.literals["n:10"] != 1 || f.literals["s:'Marvel'"] != 1 {
		t.Errorf("literals %v", f.literals)
	}
	tests := []struct {
		a, b string
		want float64
	}{
		{"SELECT a FROM t", "select A from T", 1},
		{"SELECT a FROM t", "SELECT b FROM u", 0},
	}
	for _, tt := range tests {
		fa, fb := features(tt.a), features(tt.b)
		if got := (jaccard(fa.tables, fb.tables) + jaccard(fa.columns, fb.columns)) / 2; got != tt.want {
			t.Errorf("schema(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if !sameTokens("SELECT a FROM t;", "select  a\nFROM t -- c") {
		t.Error("sameTokens should ignore case, spacing, comments and a trailing semicolon")
	}
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
