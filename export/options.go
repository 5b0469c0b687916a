package export

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
)

// DefaultOptions are `sqlrl data prepare`'s defaults.
func DefaultOptions() Options {
	return Options{Split: "train", Seed: 1, SFTFraction: dataset.DefaultSFTFraction, Augment: dataset.DefaultAugment,
		Prompt: prompt.Options{Dialect: prompt.SQLite, Budget: 8192}, KeepGoldTables: true,
		Preferences: PreferenceOptions{LabelThreshold: 0.5}, DataSource: "sqlrl"}
}

// Flags declares Prepare's settings on fs, defaulting to o's, all but Dir
// (the command's argument) and Progress.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Split, "split", o.Split, "split of DIR to read")
	fs.StringVar(&o.Out, "out", o.Out, "output directory (required)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the split and the augmentation")
	fs.Float64Var(&o.SFTFraction, "sft-fraction", o.SFTFraction, "share of questions for SFT; the rest is the RLHF holdout")
	fs.IntVar(&o.Augment, "augment", o.Augment, "prompts per holdout question, the original order included")
	fs.BoolVar(&o.ShuffleColumns, "shuffle-columns", o.ShuffleColumns, "also shuffle columns within tables when augmenting")
	o.Prompt.Flags(fs)
	o.Catalog.Flags(fs)
	fs.BoolVar(&o.KeepGoldTables, "keep-gold-tables", o.KeepGoldTables, "when pruning, keep the tables the gold SQL reads")
	fs.StringVar(&o.Rollouts, "rollouts", o.Rollouts, "rollouts JSONL (question_id, completion, reward or label[, variant]) to build KTO and DPO sets from")
	fs.Float64Var(&o.Preferences.LabelThreshold, "label-threshold", o.Preferences.LabelThreshold, "a rollout reward at least this is desirable (when the line has no label)")
	fs.IntVar(&o.Preferences.MaxPairs, "max-pairs", o.Preferences.MaxPairs, "most DPO pairs per prompt; 0: max(desirable, undesirable)")
	fs.BoolVar(&o.Preferences.GoldAsChosen, "gold-chosen", o.Preferences.GoldAsChosen, "pair the gold SQL against wrong completions of prompts with no right one")
	fs.StringVar(&o.DataSource, "data-source", o.DataSource, "verl data_source column")
}

// Check refuses settings out of range, naming the flag.
func (o *Options) Check() error {
	switch {
	case o.Augment < 1:
		return fmt.Errorf("-augment %d: want at least 1", o.Augment)
	case !(o.SFTFraction > 0 && o.SFTFraction < 1):
		return fmt.Errorf("-sft-fraction %v: want a number between 0 and 1", o.SFTFraction)
	}
	return o.Prompt.Check()
}

// WriteText prints the manifest's counts: what Prepare wrote to out, in took.
func (m *Manifest) WriteText(w io.Writer, out string, took time.Duration) {
	fmt.Fprintf(w, "prepared %s in %s: %d questions -> sft %d, holdout %d, holdout_aug %d (x%d); %d prompts pruned, %d over budget\n",
		out, took.Round(time.Millisecond), m.Counts.Questions, m.Counts.SFT, m.Counts.Holdout,
		m.Counts.HoldoutAug, m.Augment, m.Prompt.Pruned, m.Prompt.OverBudget)
	if r := m.Rollouts; r != nil {
		fmt.Fprintf(w, "rollouts: %d read, %d on SFT questions skipped, %d duplicates; KTO %d (%d desirable), DPO pairs %d\n",
			r.Records, r.SkippedSFT, r.Duplicates, r.Desirable+r.Undesirable, r.Desirable, r.DPOPairs)
	}
}
