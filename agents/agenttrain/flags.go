package agenttrain

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/sqlrl/sqlrl/dataset"
)

// DefaultOptions are `sqlrl pipeline train`'s defaults.
func DefaultOptions() Options {
	return Options{Epochs: 2, LR: 1e-3, BatchSize: 16, ValFraction: 0.1, Seed: 1, Progress: os.Stderr,
		Pairs: PairsOptions{Samples: 4, Prompts: 1500, Steps: 200, LR: 5e-5}}
}

// Flags declares Train's settings on fs, defaulting to o's, all but Dir
// and Rollouts (the command's arguments), Threads and Progress.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Planner, "planner", o.Planner, "planner checkpoint the agents start from (required)")
	fs.StringVar(&o.Out, "out", o.Out, "run directory (required)")
	fs.IntVar(&o.Epochs, "epochs", o.Epochs, "epochs over the examples")
	fs.IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "stop after this many steps (0: epochs)")
	fs.Float64Var(&o.LR, "lr", o.LR, "peak learning rate")
	fs.IntVar(&o.BatchSize, "batch", o.BatchSize, "sequences per step")
	fs.Float64Var(&o.ValFraction, "val-fraction", o.ValFraction, "share of questions held out to measure the agents")
	fs.IntVar(&o.Fold, "fold", o.Fold, "1 trains on the questions fold 0 holds out and holds out the rest (cross-fitting with -val-fraction 0.5)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed")
	fs.BoolVar(&o.WithPairs, "pairs", o.WithPairs, "also train validators by ORPO on COLLAB and on INDEP preference pairs and compare them")
	fs.IntVar(&o.Pairs.Samples, "pair-samples", o.Pairs.Samples, "with -pairs: feedbacks sampled per validator prompt")
	fs.IntVar(&o.Pairs.Prompts, "pair-prompts", o.Pairs.Prompts, "with -pairs: training validator prompts sampled")
	fs.IntVar(&o.Pairs.Steps, "pair-steps", o.Pairs.Steps, "with -pairs: ORPO steps per pair kind")
	fs.Float64Var(&o.Pairs.LR, "pair-lr", o.Pairs.LR, "with -pairs: ORPO learning rate")
}

// Check refuses settings that Train cannot run, naming the flags.
func (o *Options) Check() error {
	switch {
	case o.Planner == "" || o.Out == "":
		return fmt.Errorf("-planner and -out are required")
	case o.ValFraction <= 0 || o.ValFraction >= 1:
		return fmt.Errorf("-val-fraction %v: want (0, 1): the agents are measured on the questions it holds out", o.ValFraction)
	case o.Fold != 0 && o.Fold != 1:
		return fmt.Errorf("-fold %d: want 0 or 1", o.Fold)
	}
	return nil
}

// WriteText prints the report's tables in Markdown: the agents' held-out
// agreement per role and, with the preference phase, the validators'
// accuracy on held-out pairs.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "agents checkpoint: %s\n\nheld-out agreement with the derived labels (greedy):\n\n| role | train | held out | accuracy | majority baseline | unreadable |\n|---|---|---|---|---|---|\n", r.Checkpoint)
	var keys []string
	for k := range r.Train {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := r.ValAccuracy[k]; !ok {
			fmt.Fprintf(w, "| %s | %d | %d | - | - | - |\n", k, r.Train[k], r.Val[k])
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.1f%% | %.1f%% | %.1f%% |\n", k, r.Train[k], r.Val[k], r.ValAccuracy[k], r.Majority[k], r.ValBad[k])
	}
	if pr := r.Preference; pr != nil {
		fmt.Fprintf(w, "\npreference pairs (train/held out): indep %d/%d, collab %d/%d; the two labellings disagree on %.1f%% of held-out samples\n",
			pr.Pairs["indep/train"], pr.Pairs["indep/val"], pr.Pairs["collab/train"], pr.Pairs["collab/val"], pr.Disagree)
		fmt.Fprintf(w, "validators: indep %s, collab %s\n\n| model | held-out indep pairs | held-out collab pairs |\n|---|---|---|\n", pr.Checkpoints["indep"], pr.Checkpoints["collab"])
		for _, m := range []string{"sft", "indep", "collab"} {
			fmt.Fprintf(w, "| %s | %.1f%% | %.1f%% |\n", m, pr.Accuracy[m+" model on indep pairs"], pr.Accuracy[m+" model on collab pairs"])
		}
	}
}

// HeldOutOf keeps the examples the Train run in dir held out of training
// (`pipeline run -heldout-of`: out-of-sample agents for the ranker).
func HeldOutOf(dir string, exs []dataset.Example) ([]dataset.Example, error) {
	sp, err := ReadSplit(dir)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(exs, func(ex dataset.Example) bool { return !sp.HeldOut(ex.QuestionID) }), nil
}
