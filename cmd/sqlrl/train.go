package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

func init() {
	register(&command{
		name:    "train sft",
		summary: "train the native policy from random weights by supervised fine-tuning (checkpoints, exact resume)",
		usage:   "-out DIR [flags] DATA",
		help: `DATA is a benchmark directory in BIRD's layout (such as one written by
'sqlrl bench generate') or a TRL prompt/completion file (trl_sft.jsonl from
'sqlrl data prepare'), trained as given.

From a benchmark, SFT trains on the SFT share of the train split, cut as
'sqlrl data prepare' cuts it (-sft-fraction, -split-seed), in compact prompts
whose schema names are renamed at random in part of the examples (-rename),
so that the model learns to copy names from its prompt; -rename-text renames
the names' words in the question too, for schemas whose names are the
question's words. The dev split is decoded, schema-guided, and scored by
execution every -eval-every steps. The defaults are docs/policy.md's recipe.

-out receives checkpoints, settings.json and train_log.jsonl; the same -out
resumes at the same step, data order and loss; -restart starts over. Model
presets: ` + strings.Join(nn.PresetNames(), ", ") + `.

-task review trains the reviewer (the model writes the question a query
answers) that 'sqlrl pipeline run -reviewer' ranks candidates with; start it
from the planner (-init PLANNER) with the same split (docs/agents.md):

  sqlrl train sft -task review -init runs/sft75 -epochs 6 -lr 1e-3 -out runs/reviewer data/bench`,
		flags: sftFlags,
	})
}

// sftCmd is `train sft`'s flags: the run's settings and its data.
type sftCmd struct {
	o                        train.SFTOptions
	task, trainSplit         string
	splitSeed                uint64
	types, descs, descPhrase bool
	dim, layers, heads       int
	quiet                    bool
}

func sftFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	c := &sftCmd{o: train.SFTOptions{SFTConfig: train.DefaultSFTConfig(), Run: train.Run{Seed: 1, SaveEvery: 200, Keep: 2, Threads: 2}}}
	fs.StringVar(&c.o.Out, "out", "", "run directory (required)")
	fs.StringVar(&c.o.Init, "init", "", "start from this checkpoint or run directory (its prompt format replaces the format flags)")
	c.o.SFTConfig.Flags(fs)
	c.o.Run.Flags(fs)
	fs.StringVar(&c.task, "task", "sql", "what the model writes: sql (a planner) or review (the question a query answers)")
	fs.Uint64Var(&c.splitSeed, "split-seed", 1, "seed of the SFT/holdout split (as 'sqlrl data prepare -seed')")
	fs.StringVar(&c.trainSplit, "train-split", "train", "benchmark split to train on")
	fs.BoolVar(&c.types, "types", false, "show column types in compact prompts")
	fs.BoolVar(&c.descs, "descriptions", true, "show column descriptions in compact prompts (before each name)")
	fs.BoolVar(&c.descPhrase, "desc-phrase", false, "with -descriptions: show an abbreviated column's readable name alone and leave out descriptions that only restate the names")
	fs.IntVar(&c.dim, "dim", 0, "model width (overrides the preset's)")
	fs.IntVar(&c.layers, "layers", 0, "transformer layers (overrides the preset's)")
	fs.IntVar(&c.heads, "heads", 0, "attention heads (overrides the preset's)")
	fs.BoolVar(&c.quiet, "q", false, "no progress on stderr")
	return c.run
}

func (c *sftCmd) run(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usagef("want one DATA argument, got %d", len(args))
	}
	o := &c.o
	if o.Out == "" {
		return usagef("-out is required")
	}
	cfg, err := nn.Preset(o.Preset, 0)
	if err != nil {
		return usagef("%v", err)
	}
	if c.task != "sql" && c.task != policy.TaskReview {
		return usagef("-task %q: want sql or review", c.task)
	}
	if c.dim > 0 || c.layers > 0 || c.heads > 0 {
		if c.dim > 0 {
			cfg.Dim, cfg.Hidden = c.dim, 4*c.dim
		}
		if c.layers > 0 {
			cfg.Layers = c.layers
		}
		if c.heads > 0 {
			cfg.Heads = c.heads
		}
		o.Model = &cfg
	}
	if !c.quiet {
		o.Progress = os.Stderr
	}
	data, err := c.data(args[0])
	if err != nil {
		return err
	}
	defer data.Close()
	start := time.Now()
	res, err := train.SFT(ctx, data, *o)
	if err != nil {
		return trainErr(err)
	}
	printTrained(res, start)
	if res.Skipped > 0 {
		fmt.Printf("%d examples longer than the model's context were skipped\n", res.Skipped)
	}
	return nil
}

// data loads a benchmark's SFT share or a TRL file.
func (c *sftCmd) data(path string) (*train.Data, error) {
	format := policy.Format{Kind: policy.FormatCompact, Types: c.types, Descriptions: c.descs, DescPhrase: c.descs && c.descPhrase}
	if c.o.Init != "" {
		p, err := policy.Load(c.o.Init)
		if err != nil {
			return nil, fmt.Errorf("-init: %w", err)
		}
		format = p.Info.Prompt
	}
	review := c.task == policy.TaskReview
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		if review {
			return nil, usagef("-task review trains on a benchmark directory, not on %s", path)
		}
		return train.LoadTRL(path)
	}
	if err := checkSplit(path, c.trainSplit); err != nil {
		return nil, err
	}
	if review {
		c.o.DevSplit = "-" // dev evaluation decodes SQL
	}
	bo := c.o.Split.Bench(path, c.splitSeed, format)
	bo.TrainSplit = c.trainSplit
	data, err := train.LoadBench(bo)
	if err == nil && review {
		data.Task = policy.TaskReview
	}
	return data, err
}

// trainErr says how to resume a run that a signal stopped.
// A train.UsageError is the caller's: its usage is printed.
func trainErr(err error) error {
	var ue train.UsageError
	if errors.As(err, &ue) {
		return usagef("%s", ue.Msg)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted; run again with the same -out to resume from the last checkpoint")
	}
	return err
}

// printTrained is a finished run's summary on stdout.
func printTrained(res *train.Result, start time.Time) {
	fmt.Printf("trained %s: step %d, loss %.4f, %d tokens, %.0fs training (%s wall)\n", res.Checkpoint, res.State.Step,
		res.State.Loss, res.State.Tokens, res.State.ElapsedSec, time.Since(start).Round(time.Second))
	if res.LastEval != nil {
		fmt.Println(res.LastEval)
	}
}
