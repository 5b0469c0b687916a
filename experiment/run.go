package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/significance"
)

// Trainer does the work of one run: train (or resume training) an SFT or
// RL run in j.Out, or evaluate the model in j.ParentOut. The package's InProcess
// trainer calls package train; tests use a fake that counts its calls.
type Trainer interface {
	Do(ctx context.Context, j Job) (*Result, error)
}

// Job is one run handed to a Trainer.
type Job struct {
	Config RunConfig
	ID     string
	// Dir is the run's directory (it holds config.json and result.json);
	// Out, a directory in it, is a training run's output (checkpoints,
	// train_log.jsonl), apart because a checkpoint's config.json is
	// another file than the run's.
	Dir, Out string
	// ParentOut is the parent run's Out: RL's Init (its latest
	// checkpoint), the model an evaluation scores.
	ParentOut string
	// StartOut is the parent's parent's Out: for a merge, the SFT start of
	// the RL run it merges.
	StartOut string
	// Bench is the benchmark's directory.
	Bench    string
	Threads  int
	Progress io.Writer
}

// Result is a finished run's result.json.
type Result struct {
	// Steps trained (training runs).
	Steps int64 `json:"steps,omitempty"`
	// Seconds the trainer reports for the run (training time across
	// resumes, or the evaluation's time).
	Seconds float64 `json:"seconds"`
	// Score is an evaluation's, or a training run's last dev evaluation.
	Score *Score `json:"score,omitempty"`
	// CPU is Machine.CPU where the run finished (empty where unknown,
	// and in runs from before it was recorded). A run is cached by its
	// config, not by its machine, so a report assembled from runs of
	// several machines needs it to say so.
	CPU string `json:"cpu,omitempty"`
	// Kernel and Commit are Machine.Kernel and Machine.Commit where the
	// run finished (empty in runs from before they were recorded).
	Kernel string `json:"kernel,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Score is a dev evaluation: EX overall and by difficulty, in [0, 1].
type Score struct {
	N      int                `json:"n"`
	EX     float64            `json:"ex"`
	Levels map[string]float64 `json:"levels"`
	Counts map[string]int     `json:"counts"`
}

// Files in a run's directory.
const (
	ConfigFile = "config.json"
	ResultFile = "result.json"
	// EvalFile is an evaluation run's report question by question
	// (eval.Report: predictions and verdicts), so that two models' runs
	// can be compared on the same questions (sqlrl compare).
	EvalFile = "eval.json"
	// OutDir is the trainer's directory in a run's.
	OutDir = "train"
)

// Options configure Execute: the whole experiment (where, on which
// benchmark, which preset, seeds and studies, which Trainer); what each of
// its runs computes is that run's RunConfig.
type Options struct {
	// Out holds runs/<ID>/ and the report.
	Out   string
	Bench string
	// Preset, Seeds (empty: the preset's) and Studies (empty: all).
	Preset  Preset
	Seeds   []uint64
	Studies []string
	Trainer Trainer
	Threads int
	// Progress receives a line per run and the trainers' own progress.
	Progress io.Writer
	// RunSeeds, when set, limits this invocation's runs to those seeds;
	// the others' finished results are reported as they are. It lets one
	// study's seeds run on machines (or OpenBLAS kernels) of their own.
	RunSeeds []uint64
	// Command is the command line, for the report.
	Command string
	// Machine describes the computer (default: this one); tests fix it.
	Machine *Machine
	// Now is the clock (default time.Now); tests fix it.
	Now func() time.Time
	// bootstrap, when set, replaces the reports' bootstrap (a study's
	// config's, so that its claims and its decision draw alike).
	bootstrap *significance.Options
}

// Done says what Execute did.
type Done struct {
	Plan *Plan
	// Ran and Cached count the runs trained or evaluated now and those
	// found finished.
	Ran, Cached int
	Report      *Report
	// Flywheel is ExecuteFlywheel's report (nil from Execute).
	Flywheel *FlywheelReport
}

// Summary is what the commands print when d is done: the runs, where the
// report is (in out), and the flywheel's table or each claim's verdict.
func (d *Done) Summary(out string) string {
	var b strings.Builder
	what := "runs"
	if d.Flywheel != nil {
		what = "stages"
	}
	fmt.Fprintf(&b, "%d %s (%d now, %d done before); report in %s\n", len(d.Plan.Runs), what, d.Ran, d.Cached, out+"/report.md")
	if d.Flywheel != nil {
		return b.String() + "\n" + d.Flywheel.Text()
	}
	for _, c := range d.Report.Claims {
		verdict := "holds"
		if !c.Holds {
			verdict = "DIFFERS"
		}
		fmt.Fprintf(&b, "  [%s] %s (%s): %s\n", verdict, c.Claim, c.Split, c.Finding)
	}
	return b.String()
}

// Execute plans the experiment, does every run that is not finished (a run
// with a result.json is skipped; a run with checkpoints resumes from
// them), then writes report.md, report.json and the plots to o.Out. A
// cancelled context stops at the current run, which resumes on the next
// Execute with the same options.
func Execute(ctx context.Context, o Options) (*Done, error) {
	done, rep, _, err := execute(ctx, o, nil, nil)
	if err != nil {
		return done, err
	}
	if err := rep.Write(o.Out); err != nil {
		return done, err
	}
	done.Report = rep
	return done, nil
}

// execute is what the commands (okto, flywheel, study) do before they
// write their reports: fill in o's defaults, plan its studies on the
// benchmark's dev splits (after adjust, when given, has seen them and
// changed o's preset; extend, when given, may add runs to the plan), do
// the runs and aggregate the studies' report.
func execute(ctx context.Context, o Options, adjust func(o *Options, splits []string), extend func(pl *Plan, bench string) error) (*Done, *Report, map[string]*Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	splits, err := DevSplits(o.Bench)
	if err != nil {
		return nil, nil, nil, err
	}
	if adjust != nil {
		adjust(&o, splits)
	}
	fp, err := Fingerprint(o.Bench)
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := NewPlan(o.Preset, fp, o.Seeds, splits, o.Studies)
	if err != nil {
		return nil, nil, nil, err
	}
	if extend != nil {
		if err := extend(pl, fp); err != nil {
			return nil, nil, nil, err
		}
	}
	start := o.Now()
	done, results, err := runAll(ctx, o, pl)
	if err != nil {
		return done, nil, nil, err
	}
	return done, o.report(pl, results, start), results, nil
}

// runAll does every run of pl that is not finished, in order, and returns
// the results of all finished runs by ID. Both commands (okto, flywheel)
// run their plans through it, so caching and resume are one code.
func runAll(ctx context.Context, o Options, pl *Plan) (*Done, map[string]*Result, error) {
	runs := filepath.Join(o.Out, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, nil, fmt.Errorf("experiment: %w", err)
	}
	done := &Done{Plan: pl}
	results := map[string]*Result{}
	start := o.Now()
	m := o.machine()
	for k, r := range pl.Runs {
		if len(o.RunSeeds) > 0 && !slices.Contains(o.RunSeeds, r.Config.Seed) {
			// another invocation's seed (Options.RunSeeds): its result
			// counts if it is there, and it is not run here
			if res, err := readResult(filepath.Join(runs, r.ID)); err == nil {
				results[r.ID] = res
				done.Cached++
			}
			continue
		}
		dir := filepath.Join(runs, r.ID)
		if res, err := readResult(dir); err == nil {
			results[r.ID] = res
			done.Cached++
			fmt.Fprintf(o.Progress, "[%d/%d] %s (%s): done before (%.0fs)\n", k+1, len(pl.Runs), r.Name, r.ID, res.Seconds)
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return done, nil, err
		}
		if err := writeConfig(dir, r.Config); err != nil {
			return done, nil, err
		}
		unlock, err := lockRun(dir, r.Name, o.Progress)
		if err != nil {
			return done, nil, err
		}
		res, err := readResult(dir) // another process may have finished it while this one waited
		if err == nil {
			done.Cached++
		} else {
			fmt.Fprintf(o.Progress, "[%d/%d] %s (%s): running, %s into the experiment\n", k+1, len(pl.Runs), r.Name, r.ID, o.Now().Sub(start).Round(time.Second))
			t0 := o.Now()
			res, err = o.train(ctx, r, dir, runs, m)
			if err == nil {
				done.Ran++
				fmt.Fprintf(o.Progress, "[%d/%d] %s: finished in %s\n", k+1, len(pl.Runs), r.Name, o.Now().Sub(t0).Round(time.Second))
			}
		}
		unlock()
		if err != nil {
			return done, nil, err
		}
		results[r.ID] = res
	}
	return done, results, nil
}

// train hands r to the trainer and records its result, and the CPU,
// kernel and commit of m it ran on, in dir.
func (o *Options) train(ctx context.Context, r *Run, dir, runs string, m Machine) (*Result, error) {
	j := Job{Config: r.Config, ID: r.ID, Dir: dir, Out: filepath.Join(dir, OutDir), Bench: o.Bench, Threads: o.Threads, Progress: o.Progress}
	if r.Parent != nil {
		j.ParentOut = filepath.Join(runs, r.Parent.ID, OutDir)
		if r.Parent.Parent != nil {
			j.StartOut = filepath.Join(runs, r.Parent.Parent.ID, OutDir)
		}
	}
	res, err := o.Trainer.Do(ctx, j)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s interrupted (%w); run the same command again to resume", r.Name, ctx.Err())
		}
		return nil, fmt.Errorf("run %s (%s): %w", r.Name, dir, err)
	}
	res.CPU, res.Kernel, res.Commit = m.CPU, m.Kernel, m.Commit
	if err := writeJSON(filepath.Join(dir, ResultFile), res); err != nil {
		return nil, err
	}
	return res, nil
}

// machine is the computer the runs execute on: o.Machine, or this one.
func (o *Options) machine() Machine {
	if o.Machine != nil {
		return *o.Machine
	}
	return ThisMachine()
}

// report aggregates the results of pl into the studies' report.
func (o *Options) report(pl *Plan, results map[string]*Result, start time.Time) *Report {
	so := significance.Options{Seed: bootstrapSeed}
	if o.bootstrap != nil {
		so = *o.bootstrap
	}
	rep := BuildReport(pl, results, filepath.Join(o.Out, "runs"), o.Command, o.machine(), so)
	rep.WallSeconds = o.Now().Sub(start).Seconds()
	return rep
}

func readResult(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("read %s: %w (delete it to redo the run)", filepath.Join(dir, ResultFile), err)
	}
	return &res, nil
}

// writeConfig writes config.json, or checks that the one there is this
// config (the directory name is a hash of it: anything else is a stray
// file, refused rather than trained over).
func writeConfig(dir string, c RunConfig) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	path := filepath.Join(dir, ConfigFile)
	if b, err := os.ReadFile(path); err == nil {
		var old RunConfig
		if err := json.Unmarshal(b, &old); err != nil || string(old.Canonical()) != string(c.Canonical()) {
			return fmt.Errorf("%s does not hold the config its directory is named after; remove the directory to redo the run", path)
		}
		return nil
	}
	return writeJSON(path, c)
}

// writeJSON writes v indented, atomically (a temporary file renamed into
// place), so that a kill never leaves half a result that reads as done.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFile(path, append(b, '\n'))
}

// writeFile writes b to path atomically (atomicfile: a temporary file of
// its own, so two experiments on one directory may write the same file at
// once).
func writeFile(path string, b []byte) error { return atomicfile.WriteFile(path, b) }

// writeEvalFile writes an evaluation's report question by question into
// its run's directory (EvalFile).
func writeEvalFile(dir string, rep *eval.Report) error {
	if rep == nil {
		return nil
	}
	return writeJSON(filepath.Join(dir, EvalFile), rep)
}

// readEvalFile reads the EvalFile of the run in dir; nil, nil for a run
// evaluated before runs kept one.
func readEvalFile(dir string) (*eval.Report, error) {
	rep, err := eval.ReadReport(filepath.Join(dir, EvalFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return rep, err
}
