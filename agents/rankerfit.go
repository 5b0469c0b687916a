package agents

import (
	"fmt"
	"io"
)

// RankerFit is a ranker fitted on rollouts with what was measured beside
// it: its cross-fitted folds and the review strategy by weight.
type RankerFit struct {
	Ranker *Ranker
	// Folds are CrossFit's, when asked for.
	Folds []Fold
	// ReviewWeights and ReviewEX are ReviewSweep's over ReviewQuestions
	// questions (none without reviewer scores).
	ReviewWeights   []float64
	ReviewEX        []float64
	ReviewQuestions int
}

// FitRanker trains a ranker on recs (TrainRanker), cross-fits it on folds
// folds when folds > 0, and sweeps the review strategy's weight.
func FitRanker(recs []*Record, epochs int, l2 float64, folds int) (*RankerFit, error) {
	rk, err := TrainRanker(recs, epochs, l2)
	if err != nil {
		return nil, err
	}
	f := &RankerFit{Ranker: rk, ReviewWeights: []float64{0, 0.25, 0.5, 1, 2}}
	if folds > 0 {
		if f.Folds, err = CrossFit(recs, folds, epochs, l2); err != nil {
			return nil, err
		}
	}
	f.ReviewEX, f.ReviewQuestions = ReviewSweep(recs, f.ReviewWeights)
	return f, nil
}

// WriteText prints the fit for people.
func (f *RankerFit) WriteText(w io.Writer) {
	rk := f.Ranker
	fmt.Fprintf(w, "ranker on %d questions (%d with a correct and a wrong candidate), %d candidates: loss %.4f\n", rk.Questions, rk.Informative, rk.Candidates, rk.Loss)
	for i, x := range f.Folds {
		fmt.Fprintf(w, "fold %d of %d (%d questions held out): ranker %.1f, vote %.1f\n", i+1, len(f.Folds), x.Questions, x.Ranker, x.Vote)
	}
	for i, name := range rk.Features {
		fmt.Fprintf(w, "  %-20s %+.3f\n", name, rk.Weights[i])
	}
	if f.ReviewQuestions > 0 {
		fmt.Fprintf(w, "review strategy on these %d questions, by -review-weight:", f.ReviewQuestions)
		for k, wt := range f.ReviewWeights {
			fmt.Fprintf(w, " %g: %.1f", wt, f.ReviewEX[k])
		}
		fmt.Fprintln(w)
	}
}
