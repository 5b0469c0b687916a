package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func partExamples() []Example {
	var exs []Example
	for i := range 80 {
		exs = append(exs, Example{QuestionID: i, DBID: []string{"a", "b"}[i%2], Difficulty: []string{"simple", "moderate"}[i/2%2]})
	}
	return exs
}

// TestCutPool: RL's pool at a larger share of the same seed lies within
// the policy's holdout and, with the rest, makes all of it (accepted); a
// share whose holdout holds SFT questions is refused, naming how many.
func TestCutPool(t *testing.T) {
	exs := partExamples()
	cut := func(f float64) []Example {
		sp, err := Split(exs, SplitOptions{SFTFraction: f, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return sp.Holdout
	}
	pool, rest, err := CutPool(exs, cut(0.75), Parts{SFTFraction: 0.75, RLFraction: 0.875, Seed: 1})
	if err != nil {
		t.Fatalf("the 0.875 pool within the 0.75 holdout: %v", err)
	}
	seen := map[int]int{}
	for _, ex := range append(append([]Example(nil), pool...), rest...) {
		seen[ex.QuestionID]++
	}
	if len(pool) != 10 || len(rest) != 10 || len(seen) != 20 {
		t.Errorf("pool %d, rest %d, %d distinct of the holdout's 20", len(pool), len(rest), len(seen))
	}
	for _, ex := range cut(0.75) {
		if seen[ex.QuestionID] != 1 {
			t.Errorf("holdout question %d in pool and rest %d times", ex.QuestionID, seen[ex.QuestionID])
		}
	}
	// the 0.75 holdout checked against the 0.5 split the "policy" trained on
	if _, _, err = CutPool(exs, cut(0.5), Parts{SFTFraction: 0.5, RLFraction: 0.75, Seed: 1}); err != nil {
		t.Errorf("0.75 within 0.5: %v", err)
	}
	if _, _, err := CutPool(exs, cut(0.875), Parts{SFTFraction: 0.875, RLFraction: 0.9375, Seed: 1}); err != nil {
		t.Errorf("0.9375 within 0.875: %v", err)
	}
	// a holdout that is not the split's: its questions outside are named
	_, _, err = CutPool(exs, cut(0.875), Parts{SFTFraction: 0.75, RLFraction: 0.8, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "are in the SFT share") {
		t.Errorf("a pool outside the holdout: %v; want a refusal", err)
	}
	// a share at or below SFT's
	if _, _, err := CutPool(exs, cut(0.75), Parts{SFTFraction: 0.75, RLFraction: 0.75, Seed: 1}); err == nil {
		t.Error("RL share equal to SFT's accepted")
	}
}

// TestLoadPart reads the parts of a BIRD-layout train split: "holdout"
// without an RL share is the whole holdout, with one it is RL's pool, and
// "heldout" the rest, each as CutPool and Split give them, over train's
// databases; "heldout" without a share, or another name, is refused.
func TestLoadPart(t *testing.T) {
	dir := t.TempDir()
	exs := partExamples()
	var recs []map[string]any
	for _, ex := range exs {
		recs = append(recs, map[string]any{"question_id": ex.QuestionID, "db_id": ex.DBID, "question": fmt.Sprint("q", ex.QuestionID), "SQL": "SELECT 1", "difficulty": ex.Difficulty})
	}
	raw, _ := json.Marshal(recs)
	write(t, dir, "train.json", string(raw))
	for _, db := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, "train_databases", db), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "train_databases", db), db+".sqlite", "")
	}
	ids := func(exs []Example) string {
		var s []string
		for _, ex := range exs {
			s = append(s, fmt.Sprint(ex.QuestionID))
		}
		return strings.Join(s, ",")
	}
	sp, _ := Split(exs, SplitOptions{SFTFraction: 0.75, Seed: 3})
	pool, rest, err := CutPool(exs, sp.Holdout, Parts{RLFraction: 0.875, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		part string
		p    Parts
		want []Example
	}{
		{PartHoldout, Parts{Seed: 3}, sp.Holdout},
		{PartHoldout, Parts{SFTFraction: 0.75, RLFraction: 0.875, Seed: 3}, pool},
		{PartHeldOut, Parts{RLFraction: 0.875, Seed: 3}, rest},
	} {
		b, err := LoadPart(dir, c.part, c.p)
		if err != nil {
			t.Fatalf("%s %+v: %v", c.part, c.p, err)
		}
		if got, want := ids(b.Examples), ids(c.want); got != want || len(c.want) == 0 {
			t.Errorf("%s %+v: questions %s, want %s", c.part, c.p, got, want)
		}
		if b.DBRoot != filepath.Join(dir, "train_databases") {
			t.Errorf("%s: databases under %s", c.part, b.DBRoot)
		}
	}
	if _, err := LoadPart(dir, PartHeldOut, Parts{Seed: 3}); err == nil || !strings.Contains(err.Error(), "RL fraction") {
		t.Errorf("heldout without an RL share: %v", err)
	}
	if _, err := LoadPart(dir, "dev", Parts{}); err == nil {
		t.Error(`part "dev" accepted`)
	}
}
