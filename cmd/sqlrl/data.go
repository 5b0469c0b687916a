package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/prompt"
)

func init() {
	register(&command{
		name:    "data prepare",
		summary: "split a benchmark 75/25 for SFT and RLHF, augment the holdout, write prompts and trainer exports",
		usage:   "[flags] DIR",
		help: `DIR is a benchmark directory in BIRD's (or Spider's) layout, such as BIRD train
or one written by 'sqlrl bench generate'. Writes to -out the SFT/holdout split
with prompts, the augmented holdout, the trainer exports (TRL, OpenRLHF, verl;
KTO and DPO sets with -rollouts) and a manifest. -out is replaced whole, in
one rename, once every file is written. Files and fields: docs/training-formats.md.`,
		flags: dataPrepareFlags,
	})
}

func dataPrepareFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := export.Options{KeepGoldTables: true}
	fs.StringVar(&o.Split, "split", "train", "split of DIR to read")
	fs.StringVar(&o.Out, "out", "", "output directory (required)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the split and the augmentation")
	fs.Float64Var(&o.SFTFraction, "sft-fraction", dataset.DefaultSFTFraction, "share of questions for SFT; the rest is the RLHF holdout")
	fs.IntVar(&o.Augment, "augment", dataset.DefaultAugment, "prompts per holdout question, the original order included")
	fs.BoolVar(&o.ShuffleColumns, "shuffle-columns", false, "also shuffle columns within tables when augmenting")
	dialect := fs.String("dialect", "sqlite", "SQL dialect named in the prompts: sqlite or postgresql")
	fs.IntVar(&o.Prompt.Budget, "max-tokens", 8192, "token budget of a prompt (approximate count); larger schemas lose their least relevant tables; 0: no limit")
	examples := fs.Int("examples", prompt.DefaultExamples, "distinct example values shown per column; 0: none")
	fs.BoolVar(&o.KeepGoldTables, "keep-gold-tables", true, "when pruning, keep the tables the gold SQL reads")
	fs.StringVar(&o.Rollouts, "rollouts", "", "rollouts JSONL (question_id, completion, reward or label[, variant]) to build KTO and DPO sets from")
	fs.Float64Var(&o.Preferences.LabelThreshold, "label-threshold", 0.5, "a rollout reward at least this is desirable (when the line has no label)")
	fs.IntVar(&o.Preferences.MaxPairs, "max-pairs", 0, "most DPO pairs per prompt; 0: max(desirable, undesirable)")
	fs.BoolVar(&o.Preferences.GoldAsChosen, "gold-chosen", false, "pair the gold SQL against wrong completions of prompts with no right one")
	fs.StringVar(&o.DataSource, "data-source", "sqlrl", "verl data_source column")
	quiet := fs.Bool("q", false, "no progress on stderr")
	return func(ctx context.Context, args []string) error {
		switch {
		case len(args) != 1:
			return usagef("want one benchmark directory, got %d arguments", len(args))
		case o.Out == "":
			return usagef("-out is required")
		}
		if err := checkSplit(args[0], o.Split); err != nil {
			return err
		}
		d, err := prompt.ParseDialect(*dialect)
		switch {
		case err != nil:
			return usagef("-dialect: %v", err)
		case o.Prompt.Budget < 0:
			return usagef("-max-tokens %d: want 0 (no limit) or more", o.Prompt.Budget)
		case o.Augment < 1:
			return usagef("-augment %d: want at least 1", o.Augment)
		case !(o.SFTFraction > 0 && o.SFTFraction < 1):
			return usagef("-sft-fraction %v: want a number between 0 and 1", o.SFTFraction)
		case *examples < 0:
			return usagef("-examples %d: want 0 or more", *examples)
		}
		o.Dir, o.Prompt.Dialect, o.Catalog.Examples = args[0], d, *examples
		if *examples == 0 {
			o.Catalog.Examples = -1 // CatalogOptions: negative turns examples off
		}
		if !*quiet {
			o.Progress = os.Stderr
		}
		start := time.Now()
		m, err := export.Prepare(ctx, o)
		if err != nil {
			return err
		}
		fmt.Printf("prepared %s in %s: %d questions -> sft %d, holdout %d, holdout_aug %d (x%d); %d prompts pruned, %d over budget\n",
			o.Out, time.Since(start).Round(time.Millisecond), m.Counts.Questions, m.Counts.SFT, m.Counts.Holdout,
			m.Counts.HoldoutAug, m.Augment, m.Prompt.Pruned, m.Prompt.OverBudget)
		if r := m.Rollouts; r != nil {
			fmt.Printf("rollouts: %d read, %d on SFT questions skipped, %d duplicates; KTO %d (%d desirable), DPO pairs %d\n",
				r.Records, r.SkippedSFT, r.Duplicates, r.Desirable+r.Undesirable, r.Desirable, r.DPOPairs)
		}
		return nil
	}
}

// checkSplit is dataset.CheckSplit as a usage error.
func checkSplit(dir, split string) error {
	if err := dataset.CheckSplit(dir, split); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// splitFlags is -split with the flags that say how a run cut train, so
// that the parts no file names (dataset.PartHoldout: the RLHF holdout;
// dataset.PartHeldOut: the part of it RL never drew from) are read as
// the run saw them. The defaults are the flywheel's cut.
type splitFlags struct {
	split       *string
	sftFraction *float64
	rlFraction  *float64
	seed        *uint64
}

func addSplitFlags(fs *flag.FlagSet) *splitFlags {
	return &splitFlags{
		split:       fs.String("split", "dev", "benchmark split (<split>.json), or a part of train: holdout (the RLHF holdout at -sft-fraction) or heldout (the part of it that RL at -rl-fraction never drew from)"),
		sftFraction: fs.Float64("sft-fraction", dataset.DefaultSFTFraction, "with -split holdout|heldout: SFT's share of train (as sqlrl train sft -sft-fraction)"),
		rlFraction:  fs.Float64("rl-fraction", experiment.Flywheel().RL.Pool, "with -split heldout: the share whose holdout RL drew from (train kto -sft-fraction; the default is the flywheel's)"),
		seed:        fs.Uint64("split-seed", 1, "with -split holdout|heldout: the seed of the SFT/holdout split (as sqlrl train sft -split-seed)"),
	}
}

// parts is how the run cut train.
func (s *splitFlags) parts() dataset.Parts {
	return dataset.Parts{SFTFraction: *s.sftFraction, RLFraction: *s.rlFraction, Seed: *s.seed}
}

// load checks dir (a usage error lists the splits it has, for a part of
// train its train split) and reads the split or part from it, keeping
// its first limit examples (0: all).
func (s *splitFlags) load(dir string, limit int) (*dataset.Benchmark, error) {
	split := *s.split
	if dataset.IsPart(split) {
		split = "train"
	}
	if err := checkSplit(dir, split); err != nil {
		return nil, err
	}
	b, err := dataset.LoadSplit(dir, *s.split, s.parts())
	if err == nil && limit > 0 && limit < len(b.Examples) {
		b.Examples = b.Examples[:limit]
	}
	return b, err
}
