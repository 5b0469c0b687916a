package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/significance"
)

// TestCompare: the gold against predictions where five questions fail
// (one with a value on the wrong column): five turned wrong, none right,
// the class changes and the misplaced value counted, JSON beside the text.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	b, err := dataset.Load("../../datasets/bird-dev-sample", "dev")
	if err != nil {
		t.Fatal(err)
	}
	preds := make([]dataset.Prediction, len(b.Examples))
	for i, ex := range b.Examples {
		preds[i] = dataset.Prediction{QuestionID: ex.QuestionID, DBID: ex.DBID, SQL: ex.SQL}
		if i < 5 {
			preds[i].SQL = "SELECT 1 FROM nowhere"
		}
	}
	// a value of the gold put against another column
	for i, ex := range b.Examples {
		if i >= 5 && strings.Contains(ex.SQL, " = '") && !strings.Contains(ex.SQL, "T1.") {
			k := strings.Index(ex.SQL, " = '")
			j := strings.LastIndexAny(ex.SQL[:k], " (")
			preds[i].SQL = ex.SQL[:j+1] + "no_such_col" + ex.SQL[k:]
			break
		}
	}
	pred := filepath.Join(dir, "p.jsonl")
	if err := dataset.WriteJSONLPredictions(pred, preds); err != nil {
		t.Fatal(err)
	}
	gold, after := filepath.Join(dir, "gold.json"), filepath.Join(dir, "after.json")
	for _, args := range [][]string{
		{"eval", "--gold-as-pred", "--quiet", "--json", gold},
		{"eval", "--pred", pred, "--quiet", "--json", after},
	} {
		if _, errs, code := sqlrlOS(t, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	js := filepath.Join(dir, "cmp.json")
	out, errs, code := sqlrlOS(t, "compare", "--data", "datasets/bird-dev-sample", "--json", js, gold, after)
	if code != 0 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	var d eval.Diff
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if tot := d.Total; tot.Count != len(b.Examples) || tot.TurnRight != 0 || tot.TurnWrong != 6 || d.Transitions["correct -> unknown_table"] != 5 {
		t.Errorf("total %+v, transitions %v; want %d questions, 0 turned right, 6 wrong, 5 to unknown_table", tot, d.Transitions, len(b.Examples))
	}
	if d.Literals == nil || d.Literals.Misplaced != [2]int{0, 1} {
		t.Errorf("literals %+v, want 0 then 1 misplaced", d.Literals)
	}
	if !strings.Contains(out, "correct -> ") || !strings.Contains(out, "misplaced") {
		t.Errorf("text:\n%s", out)
	}
	n := len(b.Examples)
	if want := fmt.Sprintf("paired over 1 seed(s) x %d questions: EX 100.0 -> %.1f, difference %+.1f points", n, 100*float64(n-6)/float64(n), -600/float64(n)); !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
	for _, args := range [][]string{{gold}, {gold, after, gold}} {
		if _, errs, code := sqlrl(t, append([]string{"compare"}, args...)...); code != 2 || !strings.Contains(errs, "want pairs") {
			t.Errorf("%d reports: code %d, %s", len(args), code, errs)
		}
	}
	// Two pairs, as two seeds: the pooled comparison alone, as JSON too.
	if _, errs, code := sqlrl(t, "compare", "-seeds", "4", gold, after, gold, gold); code != 2 || !strings.Contains(errs, "one seed number per pair") {
		t.Errorf("-seeds naming one of two pairs: code %d, %s", code, errs)
	}
	out, errs, code = sqlrlOS(t, "compare", "-seeds", "4,7", "--json", js, gold, after, gold, gold)
	if code != 0 {
		t.Fatalf("compare, two pairs: %d %s", code, errs)
	}
	var c significance.Comparison
	if raw, err := os.ReadFile(js); err != nil || json.Unmarshal(raw, &c) != nil {
		t.Fatalf("compare, two pairs: JSON %s (%v)", raw, err)
	}
	if c.Seeds != 2 || c.Questions != n || c.Wins != 0 || c.Losses != 6 || len(c.PerSeed) != 2 || c.PerSeed[1].Losses != 0 || c.PerSeed[1].Seed != 7 || c.Low > c.Diff || c.High < c.Diff {
		t.Errorf("two pairs: %+v; want 2 seeds, 6 losses all in the first", c)
	}
	if !strings.Contains(out, "seed 7: 0 right only after, 0 only before") || strings.Contains(out, "correct -> ") {
		t.Errorf("two pairs: text\n%s", out)
	}
}
