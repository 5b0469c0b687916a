package train

import (
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// SFTData is what an SFT run learns to write and where its examples come
// from: a benchmark's SFT share, cut as `sqlrl data prepare` cuts it and
// shown in compact prompts, or a TRL prompt/completion file, as given.
type SFTData struct {
	// Task is "sql" (a planner) or policy.TaskReview (the question a
	// query answers).
	Task       string
	TrainSplit string
	SplitSeed  uint64
	// Types and Descriptions shape the compact prompts (policy.Format,
	// with SFTConfig's Values and DescPhrase); a run started from a
	// checkpoint takes its format.
	Types, Descriptions bool
	// Dim, Layers, Heads and Context > 0 override the model preset's.
	Dim, Layers, Heads, Context int
}

// Flags declares the data's flags and the model shape's, bound to d.
func (d *SFTData) Flags(fs *flag.FlagSet) {
	fs.StringVar(&d.Task, "task", "sql", "what the model writes: sql (a planner) or review (the question a query answers)")
	fs.Uint64Var(&d.SplitSeed, "split-seed", 1, "seed of the SFT/holdout split (as 'sqlrl data prepare -seed')")
	fs.StringVar(&d.TrainSplit, "train-split", "train", "benchmark split to train on")
	fs.BoolVar(&d.Types, "types", false, "show column types in compact prompts")
	fs.BoolVar(&d.Descriptions, "descriptions", true, "show column descriptions in compact prompts (before each name)")
	fs.IntVar(&d.Dim, "dim", 0, "model width (overrides the preset's)")
	fs.IntVar(&d.Layers, "layers", 0, "transformer layers (overrides the preset's)")
	fs.IntVar(&d.Heads, "heads", 0, "attention heads (overrides the preset's)")
	fs.IntVar(&d.Context, "ctx", 0, "context in tokens, prompt and completion (overrides the preset's)")
}

// Model checks o's task and model preset and sets o.Model where Dim,
// Layers or Heads override the preset's shape.
func (d SFTData) Model(o *SFTOptions) error {
	cfg, err := nn.Preset(o.Preset, 0)
	if err != nil {
		return usagef("%v", err)
	}
	if d.Task != "sql" && d.Task != policy.TaskReview {
		return usagef("-task %q: want sql or review", d.Task)
	}
	if d.Dim <= 0 && d.Layers <= 0 && d.Heads <= 0 && d.Context <= 0 {
		return nil
	}
	if d.Dim > 0 {
		cfg.Dim, cfg.Hidden = d.Dim, 4*d.Dim
	}
	if d.Layers > 0 {
		cfg.Layers = d.Layers
	}
	if d.Heads > 0 {
		cfg.Heads = d.Heads
	}
	if d.Context > 0 {
		cfg.MaxSeq = d.Context
	}
	o.Model = &cfg
	return nil
}

// Load loads path, a benchmark directory (its SFT share) or a TRL file,
// for o; a review run does not evaluate a dev split (it decodes SQL).
func (d SFTData) Load(o *SFTOptions, path string) (*Data, error) {
	format := policy.Format{Kind: policy.FormatCompact, Types: d.Types, Descriptions: d.Descriptions, DescPhrase: d.Descriptions && o.DescPhrase}
	if o.Init != "" {
		p, err := policy.Load(o.Init)
		if err != nil {
			return nil, fmt.Errorf("-init: %w", err)
		}
		format = p.Info.Prompt
	} else {
		format.Values = o.Values
	}
	review := d.Task == policy.TaskReview
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		if review {
			return nil, usagef("-task review trains on a benchmark directory, not on %s", path)
		}
		return LoadTRL(path)
	}
	if err := dataset.CheckSplit(path, d.TrainSplit); err != nil {
		return nil, usagef("%v", err)
	}
	if review {
		o.DevSplit = "-"
	}
	bo := o.Split.Bench(path, d.SplitSeed, format)
	bo.TrainSplit = d.TrainSplit
	data, err := LoadBench(bo)
	if err == nil && review {
		data.Task = policy.TaskReview
	}
	return data, err
}
