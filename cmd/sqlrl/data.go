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
		help: `DIR is a benchmark directory in BIRD's layout (<split>.json, <split>_databases/),
such as BIRD train or one written by 'sqlrl bench generate'; Spider's layout also works.

Writes to -out:
  sft.jsonl, holdout.jsonl        the split (SFT share / RLHF holdout), with prompts
  holdout_aug.jsonl               the holdout, -augment prompts per question (the original
                                  schema order plus distinct table shuffles)
  trl_sft.jsonl, trl_sft_chat.jsonl, trl_sft_messages.jsonl   SFT part for TRL / OpenRLHF
  trl_grpo.jsonl, openrlhf_prompts.jsonl, verl.jsonl   prompt-only sets of holdout_aug
  trl_kto*.jsonl, openrlhf_kto.jsonl, trl_dpo*.jsonl   with -rollouts only
  manifest.json                   seed, options, counts per part and tier, sha256 of each file
-out is replaced whole, in one rename, once every file is written and synced: a run
that fails or is killed leaves the previous output as it was. It must be missing, empty
or an earlier output of data prepare.
Field lists and training commands: docs/training-formats.md.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			split := fs.String("split", "train", "split of DIR to read")
			out := fs.String("out", "", "output directory (required)")
			seed := fs.Uint64("seed", 1, "seed of the split and the augmentation")
			frac := fs.Float64("sft-fraction", dataset.DefaultSFTFraction, "share of questions for SFT; the rest is the RLHF holdout")
			augment := fs.Int("augment", dataset.DefaultAugment, "prompts per holdout question, the original order included")
			shuffleCols := fs.Bool("shuffle-columns", false, "also shuffle columns within tables when augmenting")
			dialect := fs.String("dialect", "sqlite", "SQL dialect named in the prompts: sqlite or postgresql")
			budget := fs.Int("max-tokens", 8192, "token budget of a prompt (approximate count); larger schemas lose their least relevant tables; 0: no limit")
			examples := fs.Int("examples", prompt.DefaultExamples, "distinct example values shown per column; 0: none")
			keepGold := fs.Bool("keep-gold-tables", true, "when pruning, keep the tables the gold SQL reads")
			rollouts := fs.String("rollouts", "", "rollouts JSONL (question_id, completion, reward or label[, variant]) to build KTO and DPO sets from")
			threshold := fs.Float64("label-threshold", 0.5, "a rollout reward at least this is desirable (when the line has no label)")
			maxPairs := fs.Int("max-pairs", 0, "most DPO pairs per prompt; 0: max(desirable, undesirable)")
			goldChosen := fs.Bool("gold-chosen", false, "pair the gold SQL against wrong completions of prompts with no right one")
			dataSource := fs.String("data-source", "sqlrl", "verl data_source column")
			quiet := fs.Bool("q", false, "no progress on stderr")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one benchmark directory, got %d arguments", len(args))
				}
				if *out == "" {
					return usagef("-out is required")
				}
				if err := checkSplit(args[0], *split); err != nil {
					return err
				}
				d, err := prompt.ParseDialect(*dialect)
				if err != nil {
					return usagef("-dialect: %v", err)
				}
				if *budget < 0 {
					return usagef("-max-tokens %d: want 0 (no limit) or more", *budget)
				}
				if *augment < 1 {
					return usagef("-augment %d: want at least 1", *augment)
				}
				if !(*frac > 0 && *frac < 1) {
					return usagef("-sft-fraction %v: want a number between 0 and 1", *frac)
				}
				if *examples < 0 {
					return usagef("-examples %d: want 0 or more", *examples)
				}
				ex := *examples
				if ex == 0 {
					ex = -1 // CatalogOptions: negative turns examples off
				}
				opts := export.Options{
					Dir: args[0], Split: *split, Out: *out, Seed: *seed, SFTFraction: *frac,
					Augment: *augment, ShuffleColumns: *shuffleCols,
					Prompt:         prompt.Options{Dialect: d, Budget: *budget},
					Catalog:        prompt.CatalogOptions{Examples: ex},
					KeepGoldTables: *keepGold,
					Rollouts:       *rollouts,
					Preferences:    export.PreferenceOptions{LabelThreshold: *threshold, MaxPairs: *maxPairs, GoldAsChosen: *goldChosen},
					DataSource:     *dataSource,
				}
				if !*quiet {
					opts.Progress = os.Stderr
				}
				start := time.Now()
				m, err := export.Prepare(ctx, opts)
				if err != nil {
					return err
				}
				fmt.Printf("prepared %s in %s: %d questions -> sft %d, holdout %d, holdout_aug %d (x%d); %d prompts pruned, %d over budget\n",
					*out, time.Since(start).Round(time.Millisecond), m.Counts.Questions, m.Counts.SFT, m.Counts.Holdout,
					m.Counts.HoldoutAug, m.Augment, m.Prompt.Pruned, m.Prompt.OverBudget)
				if m.Rollouts != nil {
					fmt.Printf("rollouts: %d read, %d on SFT questions skipped, %d duplicates; KTO %d (%d desirable), DPO pairs %d\n",
						m.Rollouts.Records, m.Rollouts.SkippedSFT, m.Rollouts.Duplicates,
						m.Rollouts.Desirable+m.Rollouts.Undesirable, m.Rollouts.Desirable, m.Rollouts.DPOPairs)
				}
				return nil
			}
		},
	})
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
