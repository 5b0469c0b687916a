package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/sqlrl/sqlrl/experiment"
)

func init() {
	register(&command{
		name:    "experiment study",
		summary: "a pre-registered study: arms, seeds and decision rule from a committed config; -final-test reads the sealed test split",
		usage:   "-config FILE [-final-test] [-out DIR] [-run-seeds 1,2] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate'). FILE is
the study's config (JSON: name, question, preset, settings, studies, arms,
seeds, metric, split, comparisons, primary, decision; docs/rl.md "A
pre-registered study"), committed before the first run. The first
invocation records the file's sha256 in -out; every report prints the hash
now, and says so when the file changed after the first run began.

The study trains only the arms the config compares, and the runs they
start from: of the algorithms study, "arms": ["sft75", "okto", "grpo"]
trains SFT-75, online KTO and GRPO, not the other algorithms. Without
-final-test it trains and evaluates them on the dev splits only. With it, every model of the config's arms is evaluated on the
whole sealed test split (nothing else reads it), the read is counted in
-out/test-reads.json, and the report applies the decision rule to the
primary comparison: paired bootstrap interval, McNemar per seed and pooled,
Holm across the config's comparisons (docs/results.md "Protocol").

Runs are cached by config as in 'experiment flywheel' (share -out with it to
reuse its runs); -run-seeds runs some of the config's seeds now, others
later or elsewhere, under another OPENBLAS_CORETYPE.`,
		args:  argsExactly(1, "one BENCH_DIR argument"),
		flags: studyFlags,
	})
}

// studyFlags declares `experiment study`'s flags.
func studyFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := experiment.Options{Trainer: experiment.InProcess{}}
	var so experiment.StudyOptions
	fs.StringVar(&so.Config, "config", "", "the study's config `file` (JSON), committed before its first run")
	fs.BoolVar(&so.FinalTest, "final-test", false, "evaluate the config's arms on the sealed test split and apply the decision rule (each use is counted in the report)")
	o.StudyFlags(fs)
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	return func(ctx context.Context, args []string) error {
		if so.Config == "" {
			return usagef("-config: the study's config file is required")
		}
		c, _, err := experiment.ReadStudyConfig(so.Config)
		if err != nil {
			return usagef("%v", err)
		}
		if o.Out == "" {
			o.Out = experiment.StudyOut(c.Name)
		}
		o.Bench, o.Threads, o.Progress, o.Command = args[0], *threads, progressTo(*quiet), commandLine()
		d, err := experiment.ExecuteStudy(ctx, o, so)
		if err != nil {
			return err
		}
		fmt.Printf("%d runs (%d now, %d done before); report in %s/report.md\n", len(d.Plan.Runs), d.Ran, d.Cached, o.Out)
		if p := d.Report.Protocol; p != nil {
			verdict := "does not hold"
			if p.Decision.Holds {
				verdict = "holds"
			}
			fmt.Printf("decision: %s. %s\n", verdict, p.Decision.Finding)
			for _, u := range p.Decision.Unmet {
				fmt.Printf("  - %s\n", u)
			}
		}
		return nil
	}
}
