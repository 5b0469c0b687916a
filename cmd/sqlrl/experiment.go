package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sqlrl/sqlrl/experiment"
)

func init() {
	register(&command{
		name:    "experiment okto",
		summary: "the OKTO recipe's studies (algorithms, holdout, augmentation, reward, final) as one resumable command, with a report",
		usage:   "[-quick] [-out DIR] [-seeds 1,2,3] [-studies algorithms,holdout,...] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate'). Every study
trains from SFT on 75% of the train split (one SFT-75 per seed, shared) and
compares the arms by difficulty on every dev split; report.md, report.json
and SVG plots go to -out, with where the results differ from the recipe's
claims. Studies: ` + strings.Join(experiment.StudyNames(), ", ") + ` (docs/rl.md).

Each run is a directory under -out/runs named by a hash of its config: a
finished run is never redone and an interrupted one resumes, so running the
same command again is safe. -quick tests the machinery, not the recipe.`,
		args:  argsExactly(1, "one BENCH_DIR argument"),
		flags: oktoFlags,
	})
	register(&command{
		name:    "experiment flywheel",
		summary: "the main job: SFT-75 -> online KTO on the holdout -> every dev question, before/after by difficulty",
		usage:   "[-quick] [-out DIR] [-heldout S] [-sft100] [-sft100-kto] [-kto-rounds R] [-merge M] [-kto-* ...] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate'). The main
job in one resumable command: SFT-75, online KTO from it on the holdout SFT
never saw (less the -heldout share, evaluated as the split "heldout"), a
greedy guided evaluation of every checkpoint on every dev question, and the
before/after table by difficulty (printed; -out/report.md, report.json).
-sft100 adds SFT on all of train, -sft100-kto the same KTO from it,
-kto-rounds iterated KTO, -merge KTO merged back towards SFT-75.

Each stage is a run under -out/runs named by a hash of its config: a
finished stage is never redone, an interrupted one resumes, and a changed
-kto-* flag redoes KTO, not SFT. -quick tests the machinery. Unless -q,
it prints its estimated cost first.`,
		args:  argsExactly(1, "one BENCH_DIR argument"),
		flags: flywheelFlags,
	})
}

// oktoFlags declares `experiment okto`'s flags.
func oktoFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := experiment.Options{Trainer: experiment.InProcess{}}
	quick := fs.Bool("quick", false, "micro model, a few steps, 1 seed (unless -seeds), a few dev questions: tests the machinery, not the recipe")
	preset := fs.String("preset", "full", "full (tiny model: all studies, 3 seeds) or flywheel (the main job's settings; shares runs with 'experiment flywheel' in the same -out; long: pick -studies and -seeds)")
	o.Flags(fs, "out/okto")
	o.StudiesFlag(fs)
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	return func(ctx context.Context, args []string) error {
		var err error
		if o.Preset, err = experiment.OktoPreset(*preset, *quick); err != nil {
			return usagef("%v", err)
		}
		o.OutFor("out/okto", *quick)
		o.Bench, o.Threads, o.Progress, o.Command = args[0], *threads, progressTo(*quiet), commandLine()
		d, err := experiment.Execute(ctx, o)
		if err != nil {
			return err
		}
		fmt.Print(d.Summary(o.Out))
		return nil
	}
}

// commandLine is the command as run, for reports.
func commandLine() string { return "sqlrl " + strings.Join(os.Args[1:], " ") }

// flywheelFlags binds the flywheel's flags to its preset's settings; with
// -quick, the flags given override the quick preset's.
func flywheelFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o, f := experiment.Options{Trainer: experiment.InProcess{}}, experiment.Flywheel()
	quick := fs.Bool("quick", false, "micro model, a few steps, a few dev questions: tests the machinery")
	o.Flags(fs, "out/flywheel")
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	f.FlywheelFlags(fs)
	return func(ctx context.Context, args []string) error {
		var err error
		if o.Preset, err = experiment.FlywheelPreset(f, *quick, fs); err != nil {
			return usagef("%v", err)
		}
		o.OutFor("out/flywheel", *quick)
		o.Bench, o.Threads, o.Progress, o.Command = args[0], *threads, progressTo(*quiet), commandLine()
		if o.Progress != nil {
			fmt.Fprintf(os.Stderr, "flywheel: %s\n", o.Preset.Budget)
		}
		d, err := experiment.ExecuteFlywheel(ctx, o)
		if err != nil {
			return err
		}
		fmt.Print(d.Summary(o.Out))
		return nil
	}
}
