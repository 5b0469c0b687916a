package train

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
)

// EvalConfig is a final greedy evaluation of a checkpoint on a split of
// the benchmark.
type EvalConfig struct {
	Split string `json:"split"`
	N     int    `json:"n"` // questions (0: all)
	Guide bool   `json:"guide"`
	// HeldOut is RL's pool share (Split.Pool) for the split DevHeldOut.
	HeldOut float64 `json:"held_out,omitempty"`
}

// Bench is the benchmark data options of s: dir's train split cut at
// s.Fraction with seed, s.Pool and s.Augment for RL's holdout, s.DevSplit
// evaluated during training.
func (s Split) Bench(dir string, seed uint64, format policy.Format) BenchOptions {
	return BenchOptions{Dir: dir, SFTFraction: s.Fraction, RLFraction: s.Pool, Seed: seed, DevSplit: s.DevSplit,
		Format: format, HoldoutAugment: s.Augment, General: s.General}
}

// Job is one run on a benchmark directory, as package experiment runs
// them: SFT, RL (whose offline algorithms first sample their rollouts
// file from the start) or a final evaluation. Exactly one of SFT, RL and
// Eval is set.
type Job struct {
	// Bench is the benchmark directory; SplitSeed cuts its train split.
	Bench     string
	SplitSeed uint64
	// Run is where the run writes; its Init is RL's start and the
	// checkpoint an evaluation evaluates.
	Run Run
	// Format renders SFT's prompts (with SFTConfig's Values and DescPhrase
	// set in it); RL and an evaluation use their start checkpoint's.
	Format policy.Format
	SFT    *SFTConfig
	RL     *RLConfig
	Eval   *EvalConfig
	// Rollouts is an offline RL run's rollouts file: K samples of every
	// prompt from Run.Init, scored by the reward, written whole before
	// training unless the file is there.
	Rollouts string
	// FinalTest lets an evaluation (Eval) read the sealed test split
	// (BenchOptions.FinalTest).
	FinalTest bool
}

// Do runs j and returns its result; an evaluation's has only LastEval.
func Do(ctx context.Context, j Job) (*Result, error) {
	switch {
	case j.SFT != nil:
		f := j.Format
		f.Values = f.Values || j.SFT.Values
		f.DescPhrase = f.DescPhrase || f.Descriptions && j.SFT.DescPhrase
		d, err := LoadBench(j.SFT.Split.Bench(j.Bench, j.SplitSeed, f))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		o := SFTOptions{Run: j.Run, SFTConfig: *j.SFT}
		if o.Model != nil { // SFT fills in its Vocab: the caller's stays as it was
			m := *o.Model
			o.Model = &m
		}
		return SFT(ctx, d, o)
	case j.RL != nil:
		return doRL(ctx, j)
	case j.Eval != nil:
		return doEval(ctx, j)
	}
	return nil, errors.New("train: a job with nothing to do")
}

func doRL(ctx context.Context, j Job) (*Result, error) {
	f := j.Format
	if j.Run.Init != "" {
		ck, err := policy.Resolve(j.Run.Init)
		if err != nil {
			return nil, fmt.Errorf("RL start %s: %w", j.Run.Init, err)
		}
		info, err := policy.ReadInfo(ck)
		if err != nil {
			return nil, fmt.Errorf("RL start %s: %w", j.Run.Init, err)
		}
		f = info.Prompt
	}
	d, err := LoadBench(j.RL.Split.Bench(j.Bench, j.SplitSeed, f))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	st, err := reward.NewSQLiteStack(reward.StackOptions{DBRoot: filepath.Join(j.Bench, "train_databases"), Reward: j.RL.Reward})
	if err != nil {
		return nil, fmt.Errorf("reward for %s: %w", j.Run.Out, err)
	}
	defer st.Close()
	o := RLOptions{Run: j.Run, RLConfig: *j.RL, RewardSource: st}
	if !o.Online {
		// written whole before training reads it: a killed sampling
		// starts over, a finished one is kept
		if _, err := os.Stat(j.Rollouts); errors.Is(err, os.ErrNotExist) {
			if _, err := SampleRollouts(ctx, d, o, j.Rollouts+".part"); err != nil {
				return nil, fmt.Errorf("sample rollouts for %s: %w", j.Run.Out, err)
			}
			if err := os.Rename(j.Rollouts+".part", j.Rollouts); err != nil {
				return nil, err
			}
		}
		o.OfflineFile = j.Rollouts
	}
	return RL(ctx, d, o)
}

func doEval(ctx context.Context, j Job) (*Result, error) {
	e := j.Eval
	ck, err := policy.Resolve(j.Run.Init)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", j.Run.Init, err)
	}
	pol, err := policy.Load(ck)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", ck, err)
	}
	s := Split{Fraction: 0.75, Pool: e.HeldOut, DevSplit: e.Split}
	bo := s.Bench(j.Bench, j.SplitSeed, pol.Info.Prompt)
	bo.FinalTest = j.FinalTest
	d, err := LoadBench(bo)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ev, err := EvalDev(ctx, pol, d, e.N, j.Run.Seed, e.Guide)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s on %s: %w", ck, e.Split, err)
	}
	return &Result{LastEval: ev}, nil
}
