package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
	"github.com/sqlrl/sqlrl/train"
)

const rlHelp = `RL from execution feedback after SFT (the OKTO recipe: SFT on 75% of the train
split, RL on the holdout SFT never saw, -augment 4, the default, schema-order
shuffles, the gate reward). BENCH_DIR is the benchmark -init trained on, cut
as -init's; -questions FILE -db-root DIR takes the prompts from a question
file (a feedback export) instead.

Online, each step samples -k completions of -prompts prompts, scores them
(-reward in process, or a running 'sqlrl reward serve' at -reward-url) and
updates the policy against -init, frozen. Offline (-online=false -offline
FILE) trains on a rollouts file, such as -sample-only's. -query-timeout
bounds a runaway sample; -score-batch bounds a step's memory (a run resumes
only with the same value). The same -out resumes; docs/rl.md has the recipe.`

func init() {
	for _, algo := range train.Algos {
		register(&command{
			name:    "train " + algo,
			summary: "RL after SFT with " + train.AlgoSummary(algo),
			usage:   "-init SFT_RUN -out DIR [flags] BENCH_DIR | -online=false -offline FILE -questions FILE -db-root DIR [BENCH_DIR]",
			help:    rlHelp,
			flags:   func(fs *flag.FlagSet) func(context.Context, []string) error { return rlFlags(fs, algo) },
		})
	}
}

// rlFlags declares `train ALGO`'s flags: the run's settings and where its
// data and rewards come from.
func rlFlags(fs *flag.FlagSet, algo string) func(context.Context, []string) error {
	o, stack, d := train.DefaultRLOptions(algo), reward.DefaultStackOptions(), train.RLData{Warn: os.Stderr}
	o.Flags(fs)
	stack.Flags(fs)
	d.Flags(fs)
	sampleOnly := fs.Bool("sample-only", false, "write a rollouts file of -k samples of every prompt from -init to -out, and stop")
	rewardURL := fs.String("reward-url", "", "score with a running 'sqlrl reward serve' at this URL instead of in process")
	quiet := quietFlag(fs)
	return func(ctx context.Context, _ []string) error {
		if o.Out == "" || o.Init == "" {
			return usagef("-init and -out are required")
		}
		if !o.Online && o.OfflineFile == "" {
			return usagef("-online=false needs -offline FILE (a rollouts file: -sample-only's, or a feedback export's rollouts.jsonl)")
		}
		o.Progress = progressTo(*quiet)
		if o.Replay > 0 { // replay renames as -init's SFT renamed
			as, found, err := train.ReplayAsOf(o.Init)
			if err != nil {
				return trainErr(err)
			}
			if !found {
				fmt.Fprintf(os.Stderr, "note: %s records no settings (%s); -replay renames as the recipe's SFT does\n", o.Init, train.SettingsFile)
			}
			o.ReplayAs = as
		}
		scored := o.Online || *sampleOnly
		data, dbRoot, err := d.Load(ctx, &o, fs, scored, *sampleOnly)
		if err != nil {
			return trainErr(err)
		}
		defer data.Close()
		if scored && *rewardURL != "" {
			o.RewardSource, o.RewardName = rewardserver.NewClient(*rewardURL), "remote:"+*rewardURL
		} else if scored { // the stack 'sqlrl reward serve' would run, in process
			stack.Reward, stack.DBRoot = o.Reward, dbRoot
			st, err := reward.NewSQLiteStack(stack)
			if err != nil {
				return err
			}
			defer st.Close()
			o.RewardSource, o.RewardName = st, o.Reward.Name()
		}
		start := time.Now()
		if *sampleOnly {
			n, err := train.SampleRollouts(ctx, data, o, o.Out)
			if err != nil {
				return err
			}
			fmt.Printf("wrote %d samples to %s (%s)\n", n, o.Out, time.Since(start).Round(time.Second))
			return nil
		}
		res, err := train.RL(ctx, data, o)
		if err != nil {
			return trainErr(err)
		}
		printTrained(res, start)
		return nil
	}
}
