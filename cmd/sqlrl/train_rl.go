package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
	"github.com/sqlrl/sqlrl/train"
)

const rlHelp = `Reinforcement learning from execution feedback after SFT, as the OKTO
recipe does it: SFT on 75%% of the train split, then RL on the 25%% holdout
SFT never saw, its prompts in 4 schema-order shuffles
(-augment 4, the default), with the gate reward (the executor gates, a judge
grades the rest).
BENCH_DIR is the benchmark -init trained on; its train split is cut as -init's.

Online (the default), each step samples -k completions of -prompts prompts
from the current policy, scores them (-reward in process, as 'sqlrl reward
serve' would; -reward-url asks a running one) and updates the policy; the
reference is -init, frozen. Offline (-online=false -offline FILE; kto, dpo,
orpo) trains on a rollouts file: -sample-only -out FILE writes one from -init.
-questions FILE -db-root DIR takes the prompts from a question file (such as
a feedback export) instead of a split.

A step waits for all its rewards: -query-timeout bounds a runaway sample (a
cross join), at the cost of scoring slower completions as failures.
-score-batch bounds the memory of a step's forward passes; float rounding
depends on it, so a run resumes only with the same value.

-out receives checkpoints, settings.json and train_log.jsonl; the same -out
resumes exactly; -restart starts over. docs/rl.md has the recipe and results.`

func init() {
	for _, algo := range train.Algos {
		register(&command{
			name:    "train " + algo,
			summary: rlSummary(algo),
			usage:   "-init SFT_RUN -out DIR [flags] BENCH_DIR | -online=false -offline FILE -questions FILE -db-root DIR [BENCH_DIR]",
			help:    fmt.Sprintf(rlHelp),
			flags:   func(fs *flag.FlagSet) func(context.Context, []string) error { return rlFlags(fs, algo) },
		})
	}
}

func rlSummary(algo string) string {
	switch algo {
	case train.AlgoKTO:
		return "RL after SFT with KTO, online on the holdout (the OKTO recipe) or offline"
	case train.AlgoDPO:
		return "RL after SFT with DPO (best vs worst of K samples), online or offline"
	case train.AlgoORPO:
		return "RL after SFT with ORPO (odds ratio, no reference), online or offline"
	case train.AlgoPPO:
		return "RL after SFT with PPO (value head, GAE, KL penalty)"
	case train.AlgoRLOO:
		return "RL after SFT with REINFORCE leave-one-out"
	}
	return "RL after SFT with GRPO (group-normalised advantages)"
}

// rlCmd is a `train ALGO` command's flags: the run's settings and where
// its data and rewards come from.
type rlCmd struct {
	o                                      train.RLOptions
	stack                                  reward.StackOptions
	quiet, sampleOnly                      bool
	frac                                   float64
	splitSeed                              uint64
	trainSplit, rewardURL, questions, root string
	set                                    map[string]bool
}

func rlFlags(fs *flag.FlagSet, algo string) func(context.Context, []string) error {
	c := &rlCmd{o: train.RLOptions{RLConfig: train.DefaultRLConfig(algo), Run: train.Run{Seed: 1, SaveEvery: 50, Keep: 2, Threads: 2, LogEvery: 1}},
		stack: reward.DefaultStackOptions()}
	fs.StringVar(&c.o.Out, "out", "", "run directory (with -sample-only: the rollouts file to write)")
	fs.StringVar(&c.o.Init, "init", "", "the SFT run or checkpoint to start from (required); also the frozen reference")
	fs.StringVar(&c.o.OfflineFile, "offline", "", "rollouts file for -online=false")
	fs.StringVar(&c.o.RolloutsOut, "rollouts-out", "", "also append every scored sample of an online run to this rollouts file")
	c.o.RLConfig.Flags(fs)
	c.o.Run.Flags(fs)
	c.stack.Flags(fs)
	fs.BoolVar(&c.sampleOnly, "sample-only", false, "write a rollouts file of -k samples of every prompt from -init to -out, and stop")
	fs.StringVar(&c.rewardURL, "reward-url", "", "score with a running 'sqlrl reward serve' at this URL instead of in process")
	fs.Float64Var(&c.frac, "sft-fraction", 0, "SFT share of the train split (default: the -init run's); a larger share leaves RL a part of that run's holdout, the rest unseen by both")
	fs.Uint64Var(&c.splitSeed, "split-seed", 0, "seed of the SFT/holdout split (default: the -init run's)")
	fs.StringVar(&c.trainSplit, "train-split", "train", "benchmark split SFT trained on")
	fs.StringVar(&c.questions, "questions", "", "take the RL prompts from this BIRD-layout question file (a feedback export's feedback.json), not a split")
	fs.StringVar(&c.root, "db-root", "", "with -questions: the databases, as DIR/<db_id>/<db_id>.sqlite")
	fs.BoolVar(&c.quiet, "q", false, "no progress on stderr")
	return func(ctx context.Context, args []string) error {
		c.set = map[string]bool{}
		fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
		return c.run(ctx, args)
	}
}

func (c *rlCmd) run(ctx context.Context, args []string) error {
	o := &c.o
	if o.Out == "" || o.Init == "" {
		return usagef("-init and -out are required")
	}
	if !o.Online && o.OfflineFile == "" {
		return usagef("-online=false needs -offline FILE (a rollouts file: -sample-only's, or a feedback export's rollouts.jsonl)")
	}
	if !c.quiet {
		o.Progress = os.Stderr
	}
	data, dbRoot, err := c.data(ctx, args)
	if err != nil {
		return err
	}
	defer data.Close()
	if o.Online || c.sampleOnly {
		if c.rewardURL != "" {
			o.RewardSource, o.RewardName = rewardserver.NewClient(c.rewardURL), "remote:"+c.rewardURL
		} else {
			// the stack 'sqlrl reward serve' would run, in process
			c.stack.Reward, c.stack.DBRoot = o.Reward, dbRoot
			st, err := reward.NewSQLiteStack(c.stack)
			if err != nil {
				return err
			}
			defer st.Close()
			o.RewardSource, o.RewardName = st, o.Reward.Name()
		}
	}
	start := time.Now()
	if c.sampleOnly {
		n, err := train.SampleRollouts(ctx, data, *o, o.Out)
		if err != nil {
			return err
		}
		fmt.Printf("wrote %d samples to %s (%s)\n", n, o.Out, time.Since(start).Round(time.Second))
		return nil
	}
	res, err := train.RL(ctx, data, *o)
	if err != nil {
		return trainErr(err)
	}
	printTrained(res, start)
	return nil
}

// data loads the prompts (a split's holdout, or -questions) and returns
// the directory of the databases their rewards are scored over.
func (c *rlCmd) data(ctx context.Context, args []string) (*train.Data, string, error) {
	if c.questions != "" || c.root != "" {
		data, err := c.questionsData(ctx, args)
		return data, c.root, err
	}
	if len(args) != 1 {
		return nil, "", usagef("want one BENCH_DIR argument, got %d", len(args))
	}
	data, notes, err := c.bench(args[0], c.set["sft-fraction"], c.set["split-seed"])
	if err != nil {
		return nil, "", err
	}
	if d := notes["data"]; d != "" && !train.SameBench(d, args[0]) {
		fmt.Fprintf(os.Stderr, "warning: -init trained on %s, RL reads %s\n", d, args[0])
	}
	var dbRoot string
	if c.o.Online || c.sampleOnly {
		b, err := dataset.Load(args[0], c.trainSplit)
		if err != nil {
			data.Close()
			return nil, "", err
		}
		dbRoot = b.DBRoot
	}
	return data, dbRoot, nil
}

// bench loads dir's train split cut as the -init run's (-sft-fraction and
// -split-seed may repeat or, for the fraction, raise it) and its dev split.
func (c *rlCmd) bench(dir string, fracSet, seedSet bool) (*train.Data, map[string]string, error) {
	if err := checkSplit(dir, c.trainSplit); err != nil {
		return nil, nil, err
	}
	p, err := policy.Load(c.o.Init)
	if err != nil {
		return nil, nil, fmt.Errorf("-init: %w", err)
	}
	info := p.Info
	fraction, sseed, pool, err := train.StartSplit(info.Notes, c.frac, fracSet, c.splitSeed, seedSet)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	c.o.Fraction, c.o.Pool = fraction, pool
	bo := c.o.Split.Bench(dir, sseed, info.Prompt)
	bo.TrainSplit = c.trainSplit
	data, err := train.LoadBench(bo)
	return data, info.Notes, err
}

// questionsData loads the data of a run on a question file (-questions,
// -db-root; train.Data.UseQuestions): the questions of a feedback export,
// which no split holds. BENCH_DIR is optional: given, its dev split is
// evaluated during the run. Flags that shape a split's pool or an online
// reward are refused rather than ignored.
func (c *rlCmd) questionsData(ctx context.Context, args []string) (*train.Data, error) {
	switch {
	case c.sampleOnly:
		return nil, usagef("-questions: -sample-only is not available; sample a split's holdout instead")
	case len(args) > 1:
		return nil, usagef("-questions: want at most one BENCH_DIR argument (for its dev split), got %d", len(args))
	case c.questions == "" || c.root == "":
		return nil, usagef("-questions and -db-root go together: the questions' prompts are rendered over the databases of -db-root")
	}
	for _, name := range []string{"rl-on", "sft-fraction", "split-seed", "reward-url", "rollouts-out"} {
		if c.set[name] {
			return nil, usagef("-%s: -questions takes its prompts from the file, with no split, and scores them in process", name)
		}
	}
	if st, err := os.Stat(c.root); err != nil || !st.IsDir() {
		return nil, usagef("-db-root %s is not a directory", c.root)
	}
	var data *train.Data
	if len(args) == 1 && c.o.DevSplit != "-" {
		augment := c.o.Augment
		c.o.Augment = 0 // a split's holdout is not used
		d, _, err := c.bench(args[0], false, false)
		if err != nil {
			return nil, err
		}
		data, c.o.Augment = d, augment
	} else {
		p, err := policy.Load(c.o.Init)
		if err != nil {
			return nil, fmt.Errorf("-init: %w", err)
		}
		data = &train.Data{Format: p.Info.Prompt, Notes: map[string]string{}}
	}
	if err := data.UseQuestions(ctx, c.questions, c.root); err != nil {
		data.Close()
		return nil, err
	}
	if c.set["augment"] {
		data.HoldoutAugment = c.o.Augment // schema-order shuffles of each question, as a holdout's
	}
	return data, nil
}
