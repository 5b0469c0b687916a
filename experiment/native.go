package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/train"
)

// Native is the Trainer that runs package train in process: train.SFT,
// train.RL (offline KTO first samples its rollouts file from the SFT
// start with train.SampleRollouts) and train.EvalDev. The trainers resume
// exactly from their checkpoints, so an interrupted run continues where it
// stopped.
type Native struct{}

// promptFormat is the compact prompt `sqlrl train sft` uses by default.
var promptFormat = policy.Format{Kind: policy.FormatCompact, Descriptions: true}

// Do runs j.
func (Native) Do(ctx context.Context, j Job) (*Result, error) {
	c := j.Config
	switch c.Kind {
	case KindSFT:
		return nativeSFT(ctx, j)
	case KindRL:
		return nativeRL(ctx, j)
	case KindEval:
		return nativeEval(ctx, j)
	case KindMerge:
		return nativeMerge(j)
	}
	return nil, fmt.Errorf("experiment: unknown run kind %q", c.Kind)
}

func loop(j Job, evalEvery, evalN int, lr float64) train.LoopOptions {
	return train.LoopOptions{Out: j.Out, Seed: j.Config.Seed, LR: lr, EvalEvery: evalEvery, EvalN: evalN,
		SaveEvery: 50, Keep: 1, Threads: j.Threads, Progress: j.Progress, LogEvery: 10}
}

func nativeSFT(ctx context.Context, j Job) (*Result, error) {
	s := j.Config.SFT
	d, err := train.LoadBench(train.BenchOptions{Dir: j.Bench, SFTFraction: s.Fraction, Seed: j.Config.SplitSeed, DevSplit: s.DevSplit, Format: promptFormat})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	o := train.SFTOptions{LoopOptions: loop(j, s.EvalEvery, s.EvalN, s.LR), Preset: s.Preset, VocabSize: s.Vocab,
		Epochs: s.Epochs, MaxSteps: s.MaxSteps, BatchSize: s.Batch}
	if s.Model != nil {
		m := *s.Model
		o.Model = &m
	}
	res, err := train.SFT(ctx, d, o)
	if err != nil {
		return nil, err
	}
	return trainResult(res), nil
}

func trainResult(res *train.Result) *Result {
	r := &Result{Steps: res.State.Step, Seconds: res.State.ElapsedSec}
	if res.LastEval != nil {
		r.Score = score(res.LastEval)
	}
	return r
}

func score(ev *train.Eval) *Score {
	return &Score{N: ev.N, EX: ev.EX, Levels: ev.Levels, Counts: ev.Counts}
}

func nativeRL(ctx context.Context, j Job) (*Result, error) {
	r := j.Config.RL
	d, err := train.LoadBench(train.BenchOptions{Dir: j.Bench, SFTFraction: r.Fraction, RLFraction: r.Pool, Seed: j.Config.SplitSeed,
		DevSplit: r.DevSplit, Format: promptFormat, HoldoutAugment: r.Augment})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	st, err := reward.NewSQLiteStack(reward.StackOptions{DBRoot: filepath.Join(j.Bench, "train_databases"), Reward: reward.Config{Kind: r.Reward, ErrorValue: r.ErrorValue}})
	if err != nil {
		return nil, fmt.Errorf("reward for %s: %w", j.Dir, err)
	}
	defer st.Close()
	o := train.RLOptions{LoopOptions: loop(j, r.EvalEvery, r.EvalN, r.LR), Algo: r.Algo, Online: r.Online,
		Steps: r.Steps, Prompts: r.Prompts, K: r.K, Temperature: r.Temperature, MaxTokens: r.MaxTokens, Beta: r.Beta,
		RLOn: r.On, Reward: st, RewardName: r.Reward, Replay: r.Replay, GoldUnsolved: r.GoldUnsolved, Guided: r.Guided, Rename: r.Rename, RenameFamilies: r.RenameFamilies}
	o.Init = j.ParentOut
	if !r.Online {
		// Offline: K samples of every RL prompt from the SFT start,
		// scored once, written whole before training reads them (a
		// killed sampling starts over; a finished one is kept).
		path := filepath.Join(j.Dir, "rollouts.jsonl")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if _, err := train.SampleRollouts(ctx, d, o, path+".part"); err != nil {
				return nil, fmt.Errorf("sample rollouts for %s: %w", j.Dir, err)
			}
			if err := os.Rename(path+".part", path); err != nil {
				return nil, err
			}
		}
		o.OfflineFile = path
	}
	res, err := train.RL(ctx, d, o)
	if err != nil {
		return nil, err
	}
	return trainResult(res), nil
}

func nativeEval(ctx context.Context, j Job) (*Result, error) {
	e := j.Config.Eval
	ck, err := policy.Resolve(j.ParentOut)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", j.ParentOut, err)
	}
	pol, err := policy.Load(ck)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", ck, err)
	}
	d, err := train.LoadBench(train.BenchOptions{Dir: j.Bench, SFTFraction: 0.75, Seed: j.Config.SplitSeed, DevSplit: e.Split, Format: pol.Info.Prompt,
		RLFraction: e.HeldOut})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ev, err := train.EvalDev(ctx, pol, d, e.N, j.Config.Seed, e.Guide)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s on %s: %w", ck, e.Split, err)
	}
	if j.Progress != nil {
		fmt.Fprintf(j.Progress, "%s on %s: %s\n", filepath.Base(filepath.Dir(j.ParentOut)), e.Split, ev)
	}
	if err := writeEvalFile(j.Dir, ev.Report); err != nil {
		return nil, err
	}
	return &Result{Seconds: ev.Seconds, Score: score(ev)}, nil
}

// nativeMerge writes the RL run's latest checkpoint merged towards its
// SFT start (policy.Interpolate) as a checkpoint in j.Out: seconds of
// work, redone whole if killed.
func nativeMerge(j Job) (*Result, error) {
	t0 := time.Now()
	if j.StartOut == "" || j.Config.Merge == nil {
		return nil, fmt.Errorf("merge %s: no start to merge towards", j.ParentOut)
	}
	if err := policy.MergeCheckpoints(j.StartOut, j.ParentOut, j.Config.Merge.Alpha, j.Out); err != nil {
		return nil, err
	}
	return &Result{Seconds: time.Since(t0).Seconds()}, nil
}
