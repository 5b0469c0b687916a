package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
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
'sqlrl data prepare').

From a benchmark, the train split is split as 'sqlrl data prepare' splits it
(-sft-fraction, -split-seed) and SFT uses the SFT share only; prompts are
compact (one line per table) and schema names are renamed at random in part
of the examples (-rename) so that the model learns to copy names from its
prompt. That suits the bundled v1 benchmark, whose dev schemas rename train's
names to synonyms the questions do not use. Where a question's words are the
schema's (bench v2's held-out domains, BIRD), add -rename-text: the words of
the names are renamed wherever they occur, question, evidence and
descriptions included, so that the question still names its tables and
columns (v2-small dev EX 12.6 against 2.6 without renaming and under 1 with
names alone; docs/policy.md).
Questions on one database are trained in groups (-group 8) that share
one draw of names and compute their schema lines once: about 2.3x the steps
per second. The dev split is decoded (schema-guided, as 'sqlrl generate'
does) and scored by execution every -eval-every steps. A TRL file is trained
as given.

The defaults are the recipe of docs/policy.md: preset small, 16 epochs, about
13 minutes on 2 cores for 47% EX on the bundled benchmark's dev split.

-out receives step-NNNNNN/ checkpoints (weights, tokenizer, optimizer state),
"latest", and train_log.jsonl. Running again with the same -out resumes from
the latest checkpoint at the same step, data order and loss; -restart starts
over. Model presets: ` + strings.Join(nn.PresetNames(), ", ") + `.

-task review trains the reviewer instead: the prompt shows the schema, the
evidence and the gold query, and the model writes the question. 'sqlrl
pipeline run -reviewer' then scores every candidate query by how likely the
question is given it, a selection signal the planner's own probability and
the execution vote do not carry (docs/agents.md). Start it from the planner
(-init PLANNER), whose tokenizer and prompt format it keeps, with the same
-sft-fraction and -split-seed, so that it never sees the holdout the ranker
is fit on:

  sqlrl train sft -task review -init runs/sft75 -epochs 6 -lr 1e-3 -out runs/reviewer data/bench`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			out := fs.String("out", "", "run directory (required)")
			task := fs.String("task", "sql", "what the model writes: sql (a planner) or review (the question a query answers)")
			initFrom := fs.String("init", "", "start from this checkpoint or run directory (its prompt format replaces the format flags)")
			preset := fs.String("preset", "small", "model size: "+strings.Join(nn.PresetNames(), ", "))
			vocab := fs.Int("vocab", 2048, "tokenizer vocabulary size")
			seed := fs.Uint64("seed", 1, "seed of initialisation, data order and augmentation")
			epochs := fs.Int("epochs", 16, "passes over the training data")
			maxSteps := fs.Int("max-steps", 0, "stop after this many steps (0: epochs decide)")
			batch := fs.Int("batch", 16, "sequences per step")
			loop := loopFlags(fs, 2e-3, 200)
			rename := fs.Float64("rename", 1, "share of examples whose schema names are renamed at random")
			renameEach := fs.Float64("rename-each", 0.9, "probability that each name of such an example is renamed (with -rename-text: each word)")
			renameText := fs.Bool("rename-text", false, "rename the words of the names wherever they occur, question, evidence and descriptions included, so the question keeps naming its schema (databases whose names are the question's words: bench v2, BIRD)")
			renameFamilies := fs.Bool("rename-families", false, "rename the names' words, one drawn word per word everywhere in the schema, so that names sharing a word keep sharing one (order_id, order_date -> zub_id, zub_date); the question kept; not with -rename-text; measured worse than name by name on the bundled benchmark (docs/rl.md)")
			promptLoss := fs.Float64("prompt-loss", 0, "weight of an auxiliary NLL on prompt tokens (0: completion-only loss)")
			frac := fs.Float64("sft-fraction", dataset.DefaultSFTFraction, "SFT share of the train split (as in 'sqlrl data prepare')")
			splitSeed := fs.Uint64("split-seed", 1, "seed of the SFT/holdout split (as 'sqlrl data prepare -seed')")
			trainSplit := fs.String("train-split", "train", "benchmark split to train on")
			devSplit := fs.String("dev-split", "dev", "benchmark split to evaluate on ('-': none)")
			types := fs.Bool("types", false, "show column types in compact prompts")
			descs := fs.Bool("descriptions", true, "show column descriptions in compact prompts (before each name)")
			descPhrase := fs.Bool("desc-phrase", false, "with -descriptions: show an abbreviated column's readable name alone and leave out descriptions that only restate the names (databases with opaque names and many columns, such as bench v2's)")
			dim := fs.Int("dim", 0, "model width (overrides the preset's)")
			layers := fs.Int("layers", 0, "transformer layers (overrides the preset's)")
			heads := fs.Int("heads", 0, "attention heads (overrides the preset's)")
			group := fs.Int("group", 8, "questions on one database trained together on one draw of renamed names, sharing the schema's computation (1: none)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one DATA argument, got %d", len(args))
				}
				if *out == "" {
					return usagef("-out is required")
				}
				if _, err := nn.Preset(*preset, 0); err != nil {
					return usagef("%v", err)
				}
				if *task != "sql" && *task != policy.TaskReview {
					return usagef("-task %q: want sql or review", *task)
				}
				format := policy.Format{Kind: policy.FormatCompact, Types: *types, Descriptions: *descs, DescPhrase: *descs && *descPhrase}
				if *initFrom != "" {
					p, err := policy.Load(*initFrom)
					if err != nil {
						return fmt.Errorf("-init: %w", err)
					}
					format = p.Info.Prompt
				}
				var data *train.Data
				var err error
				if st, serr := os.Stat(args[0]); serr == nil && st.IsDir() {
					if err := checkSplit(args[0], *trainSplit); err != nil {
						return err
					}
					if *task == policy.TaskReview {
						*devSplit = "-" // dev evaluation decodes SQL
					}
					data, err = train.LoadBench(train.BenchOptions{Dir: args[0], TrainSplit: *trainSplit, SFTFraction: *frac, Seed: *splitSeed,
						DevSplit: *devSplit, Format: format})
				} else if *task == policy.TaskReview {
					return usagef("-task review trains on a benchmark directory, not on %s", args[0])
				} else {
					data, err = train.LoadTRL(args[0])
				}
				if err != nil {
					return err
				}
				defer data.Close()
				if *task == policy.TaskReview {
					data.Task = policy.TaskReview
				}
				opts := train.SFTOptions{
					LoopOptions: loop.options(*out, *seed),
					Preset:      *preset, VocabSize: *vocab, Epochs: *epochs, MaxSteps: *maxSteps, BatchSize: *batch,
					Rename: *rename, RenameEach: *renameEach, RenameText: *renameText, RenameFamilies: *renameFamilies, PromptLoss: *promptLoss, Group: *group,
				}
				if *dim > 0 || *layers > 0 || *heads > 0 {
					cfg, _ := nn.Preset(*preset, 0)
					if *dim > 0 {
						cfg.Dim, cfg.Hidden = *dim, 4**dim
					}
					if *layers > 0 {
						cfg.Layers = *layers
					}
					if *heads > 0 {
						cfg.Heads = *heads
					}
					opts.Model = &cfg
				}
				if *rename == 0 {
					opts.Rename = -1
				}
				opts.Init = *initFrom
				start := time.Now()
				res, err := train.SFT(ctx, data, opts)
				if err != nil {
					return trainErr(err)
				}
				printTrained(res, start)
				if res.Skipped > 0 {
					fmt.Printf("%d examples longer than the model's context were skipped\n", res.Skipped)
				}
				return nil
			}
		},
	})
}

// trainFlags are the training loop's flags that train sft and the RL
// commands share; the learning rate's and checkpoint interval's defaults
// are each command's.
type trainFlags struct {
	lr, wd, clip                                   *float64
	warmup, saveEvery, keep, evalEvery, evalN, thr *int
	noGuide, restart, quiet                        *bool
}

func loopFlags(fs *flag.FlagSet, lr float64, saveEvery int) *trainFlags {
	return &trainFlags{
		lr:        fs.Float64("lr", lr, "peak learning rate"),
		warmup:    fs.Int("warmup", 0, "warmup steps (0: 5% of the run)"),
		wd:        fs.Float64("weight-decay", 0.1, "AdamW weight decay"),
		clip:      fs.Float64("clip", 1, "gradient norm clip"),
		saveEvery: fs.Int("save-every", saveEvery, "checkpoint every N steps"),
		keep:      fs.Int("keep", 2, "checkpoints kept"),
		evalEvery: fs.Int("eval-every", 0, "dev evaluation every N steps (0: at the end only; -1: never)"),
		evalN:     fs.Int("eval-n", 100, "dev questions per evaluation (0: all)"),
		noGuide:   fs.Bool("no-guide", false, "decode dev questions without the schema guide"),
		restart:   fs.Bool("restart", false, "start over even if -out holds a checkpoint"),
		thr:       fs.Int("threads", 2, "threads"),
		quiet:     fs.Bool("q", false, "no progress on stderr"),
	}
}

// options are the loop's options from the flags; progress goes to stderr
// unless -q.
func (f *trainFlags) options(out string, seed uint64) train.LoopOptions {
	o := train.LoopOptions{Out: out, Seed: seed, LR: *f.lr, Warmup: *f.warmup, WeightDecay: *f.wd, Clip: *f.clip,
		SaveEvery: *f.saveEvery, Keep: *f.keep, EvalEvery: *f.evalEvery, EvalN: *f.evalN, NoGuide: *f.noGuide,
		Restart: *f.restart, Threads: *f.thr}
	if !*f.quiet {
		o.Progress = os.Stderr
	}
	return o
}

// trainErr says how to resume a run that a signal stopped.
func trainErr(err error) error {
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
