package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rankerRecords are synthetic questions where the validators tell the
// correct result from the wrong one and the votes mislead: in question q
// the wrong result has 2 or 3 votes and every validator rejects it, the
// correct one 1 vote and every validator accepts it; which one the greedy
// decode is alternates, so that only the verdicts separate them.
func rankerRecords(n int) []*Record {
	specs := []string{
		"g0:iii s0 g1+:ccc",
		"g0+:ccc g1:iii s1",
		"g0:iii s0 s0 g1+:ccc",
		"g0+:ccc g1:iii s1 s1",
	}
	var out []*Record
	for q := range n {
		r := rec(specs[q%len(specs)])
		r.QuestionID = q
		out = append(out, r)
	}
	return out
}

// TestTrainRanker: trained where a feature separates correct from wrong
// candidates, the ranker weighs it positively and picks the correct
// candidate on questions it was not trained on, where the vote does not;
// saved and loaded, it scores the same.
func TestTrainRanker(t *testing.T) {
	recs := rankerRecords(40)
	train, test := recs[:28], recs[28:]
	rk, err := TrainRanker(train, 300, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rk.Questions != 28 || rk.Informative != 28 || rk.Candidates != 7*3+7*3+7*4+7*4 {
		t.Errorf("trained on %d questions (%d informative), %d candidates", rk.Questions, rk.Informative, rk.Candidates)
	}
	w := func(f string) float64 { return rk.Weights[slices.Index(rk.Features, f)] }
	for _, f := range []string{"validator_share", ValidateSelection, ValidateCondition, ValidateJoin} {
		if w(f) <= 0 {
			t.Errorf("weight of %s %g, want > 0 (weights %v)", f, w(f), rk.Weights)
		}
	}
	if rk.Loss > 0.1 {
		t.Errorf("final loss %g on separable data", rk.Loss)
	}
	path := filepath.Join(t.TempDir(), "ranker.json")
	if err := SaveRanker(path, rk); err != nil {
		t.Fatal(err)
	}
	back, err := LoadRanker(path)
	if err != nil {
		t.Fatal(err)
	}
	votes := 0
	for _, r := range test {
		SelectAll(r, Selection{Ranker: back})
		i := r.Selected[StrategyRanker]
		if i < 0 || !r.Candidates[i].Correct {
			t.Errorf("question %d: the ranker picks %d of %s", r.QuestionID, i, candSigs(r))
		}
		if rk.Select(r) != i {
			t.Errorf("question %d: the loaded ranker picks %d, the trained one %d", r.QuestionID, i, rk.Select(r))
		}
		if r.Candidates[r.Selected[StrategyVote]].Correct {
			votes++
		}
	}
	if votes != 0 {
		t.Errorf("the vote is right on %d test questions: the data do not test the ranker", votes)
	}
}

func candSigs(r *Record) string {
	var s []string
	for _, c := range r.Candidates {
		s = append(s, candSig(c))
	}
	return strings.Join(s, "; ")
}

func TestTrainRankerNothingToLearn(t *testing.T) {
	recs := []*Record{rec("g0+ s0"), rec("x g0"), rec("")}
	unscored := rec("g0 g1+")
	for i := range unscored.Candidates {
		unscored.Candidates[i].Scored = false
	}
	recs = append(recs, unscored)
	_, err := TrainRanker(recs, 10, 0)
	if err == nil || !strings.Contains(err.Error(), "none of 2 scored questions") {
		t.Fatalf("error %v, want one saying none of the 2 scored questions has both kinds", err)
	}
}

// TestLoadRankerRefuses: a ranker of other features, a weight short, a
// file that is not JSON, no file: each refused naming the file.
func TestLoadRankerRefuses(t *testing.T) {
	dir := t.TempDir()
	good := Ranker{Features: RankerFeatures, Weights: make([]float64, len(RankerFeatures))}
	renamed := good
	renamed.Features = append(slices.Clone(RankerFeatures[:len(RankerFeatures)-1]), "old_feature")
	short := good
	short.Weights = short.Weights[1:]
	tests := []struct {
		name string
		body any // marshalled, or a string written as is
		want string
	}{
		{"other features", renamed, "train it again"},
		{"a weight short", short, "weights for"},
		{"more features", Ranker{Features: append(slices.Clone(RankerFeatures), "new"), Weights: make([]float64, len(RankerFeatures)+1)}, "train it again"},
		{"not JSON", "weights: 1", "invalid character"},
		{"missing", nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			switch b := tt.body.(type) {
			case string:
				os.WriteFile(path, []byte(b), 0o644)
			case Ranker:
				raw, _ := json.Marshal(b)
				os.WriteFile(path, raw, 0o644)
			}
			_, err := LoadRanker(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, path, tt.want)
			}
		})
	}
	path := filepath.Join(dir, "good.json")
	if err := SaveRanker(path, &good); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRanker(path); err != nil {
		t.Fatalf("a ranker of this version's features: %v", err)
	}
	// A ranker saved before the last features existed: its weights keep
	// their names, the new features weigh 0.
	old := Ranker{Features: slices.Clone(RankerFeatures[:len(RankerFeatures)-2]), Weights: make([]float64, len(RankerFeatures)-2)}
	for k := range old.Weights {
		old.Weights[k] = float64(k + 1)
	}
	if err := SaveRanker(path, &old); err != nil {
		t.Fatal(err)
	}
	rk, err := LoadRanker(path)
	if err != nil {
		t.Fatalf("a ranker from before the reviewer's features: %v", err)
	}
	want := append(slices.Clone(old.Weights), 0, 0)
	if !slices.Equal(rk.Weights, want) || !slices.Equal(rk.Features, RankerFeatures) {
		t.Errorf("loaded %v %v, want %v %v", rk.Features, rk.Weights, RankerFeatures, want)
	}
}

// TestCrossFit: on records where only the verdicts tell right from wrong
// (the vote is wrong on every one), each held-out fold is ranked right by a
// ranker fit on the other fold, and every question is held out once.
func TestCrossFit(t *testing.T) {
	recs := rankerRecords(24)
	for i, r := range recs {
		r.QuestionID = i
	}
	folds, err := CrossFit(recs, 2, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for f, x := range folds {
		n += x.Questions
		if x.Ranker != 100 || x.Vote != 0 {
			t.Errorf("fold %d: ranker %.1f, vote %.1f; want 100 and 0", f, x.Ranker, x.Vote)
		}
	}
	if n != len(recs) {
		t.Errorf("%d questions held out, want %d", n, len(recs))
	}
	if _, err := CrossFit(recs, 1, 0, 0); err == nil {
		t.Error("one fold: want an error")
	}
}
