package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// InProcess is the Trainer that runs package train in process (train.Do;
// offline KTO first samples its rollouts file from the SFT start). The
// trainers resume exactly from their checkpoints, so an interrupted run
// continues where it stopped.
type InProcess struct{}

// promptFormat is the compact prompt `sqlrl train sft` uses by default.
var promptFormat = policy.Format{Kind: policy.FormatCompact, Descriptions: true}

// Do runs j.
func (InProcess) Do(ctx context.Context, j Job) (*Result, error) {
	c := j.Config
	tj := train.Job{Bench: j.Bench, SplitSeed: c.SplitSeed, Format: promptFormat, SFT: c.SFT, RL: c.RL,
		Run: train.Run{Out: j.Out, Seed: c.Seed, SaveEvery: 50, Keep: 1, Threads: j.Threads, Progress: j.Progress, LogEvery: 10}}
	switch c.Kind {
	case KindSFT, KindRL:
		if c.Kind == KindRL {
			tj.SFT, tj.Run.Init, tj.Rollouts = nil, j.ParentOut, filepath.Join(j.Dir, "rollouts.jsonl")
		} else {
			tj.RL = nil
		}
		res, err := train.Do(ctx, tj)
		if err != nil {
			return nil, err
		}
		r := &Result{Steps: res.State.Step, Seconds: res.State.ElapsedSec}
		if res.LastEval != nil {
			r.Score = score(res.LastEval)
		}
		return r, nil
	case KindEval:
		tj.SFT, tj.RL, tj.Eval, tj.Run.Init = nil, nil, &c.Eval.EvalConfig, j.ParentOut
		// Only a study's final evaluation plans an evaluation on the
		// sealed split, with its fingerprint (finalTestEvals).
		tj.FinalTest = c.Eval.Split == dataset.SplitTest && c.Eval.Test != ""
		res, err := train.Do(ctx, tj)
		if err != nil {
			return nil, err
		}
		ev := res.LastEval
		if j.Progress != nil {
			fmt.Fprintf(j.Progress, "%s on %s: %s\n", filepath.Base(filepath.Dir(j.ParentOut)), c.Eval.Split, ev.Summary())
		}
		if err := writeEvalFile(j.Dir, ev.Report); err != nil {
			return nil, err
		}
		return &Result{Seconds: ev.Seconds, Score: score(ev)}, nil
	case KindMerge:
		return nativeMerge(j)
	}
	return nil, fmt.Errorf("experiment: unknown run kind %q", c.Kind)
}

func score(ev *train.Eval) *Score {
	return &Score{N: ev.N, EX: ev.EX, Levels: ev.Levels, Counts: ev.Counts}
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
