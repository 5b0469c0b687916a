package agents

import (
	"flag"
	"fmt"
	"io"
)

// RankerFitJob is `sqlrl pipeline train-ranker`: a ranker fitted on
// rollout files (FitRanker) and written to Out.
type RankerFitJob struct {
	Out    string
	Epochs int
	L2     float64
	Folds  int
}

// DefaultRankerFitJob is `sqlrl pipeline train-ranker`'s defaults.
func DefaultRankerFitJob() RankerFitJob { return RankerFitJob{Epochs: 500, L2: 0.1} }

// Flags declares the job's flags on fs, defaulting to j.
func (j *RankerFitJob) Flags(fs *flag.FlagSet) {
	fs.StringVar(&j.Out, "out", j.Out, "ranker JSON to write (required)")
	fs.IntVar(&j.Epochs, "epochs", j.Epochs, "gradient steps")
	fs.Float64Var(&j.L2, "l2", j.L2, "L2 penalty towards the vote (agents.VotePrior)")
	fs.IntVar(&j.Folds, "folds", j.Folds, "also cross-fit: fit on all folds but one (by question id) and print the ranker's and the vote's EX on each held-out fold")
}

// Run fits the ranker on the rollouts of paths, writes it to Out and the
// fit to w.
func (j *RankerFitJob) Run(paths []string, w io.Writer) error {
	recs, err := ReadRecordFiles(paths)
	if err != nil {
		return err
	}
	fit, err := FitRanker(recs, j.Epochs, j.L2, j.Folds)
	if err != nil {
		return err
	}
	if err := SaveRanker(j.Out, fit.Ranker); err != nil {
		return err
	}
	fit.WriteText(w)
	return nil
}

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
