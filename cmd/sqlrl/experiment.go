package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/experiment"
)

func init() {
	register(&command{
		name:    "experiment okto",
		summary: "the OKTO recipe's studies (algorithms, holdout, augmentation, reward, final) as one resumable command, with a report",
		usage:   "[-quick] [-out DIR] [-seeds 1,2,3] [-studies algorithms,holdout,...] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate --preset
small'). Every study trains from SFT on 75% of the train split (the SFT-75
start, one per seed, shared by all studies) and compares, by difficulty, on
every dev split the benchmark has (<split>.json with <split>_databases/):

  algorithms    online KTO, offline KTO, online DPO, PPO, RLOO, GRPO, ORPO
  holdout       SFT-100 + RL on the same data vs SFT-75 + RL on the holdout
  augmentation  holdout x1 vs x4 schema-order shuffles
  reward        execution only vs judge only vs hybrid (gate)
  final         SFT-100 vs SFT-75 vs SFT-75 + OKTO-25

Each run (SFT, RL, final evaluation) is a directory under -out/runs named by
a hash of its config; a finished run (result.json) is never redone and an
interrupted one resumes from its checkpoints, so Ctrl-C and running the same
command again is safe. Runs shared between studies are one run.

-out receives report.md, report.json and SVG plots: mean, std and min-max
over the seeds, and where the results differ from the recipe's claims.

-quick (a micro model, a few steps, 1 seed, a handful of dev questions) runs
every study end to end in about a minute on 2 cores: it tests the machinery,
not the recipe. The default is sized for about 2 hours on 2 cores: ` + experiment.Full().Budget + `.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			quick := fs.Bool("quick", false, "micro model, a few steps, 1 seed (unless -seeds), a few dev questions: every study in about a minute")
			out := fs.String("out", "", "experiment directory (default out/okto, out/okto-quick with -quick)")
			seeds := fs.String("seeds", "", "comma-separated seeds (default: 1,2,3; 1 with -quick)")
			studies := fs.String("studies", "", "comma-separated studies (default all: "+strings.Join(experiment.StudyNames(), ",")+")")
			threads := fs.Int("threads", 2, "threads")
			quiet := fs.Bool("q", false, "no progress on stderr")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one BENCH_DIR argument, got %d", len(args))
				}
				p := experiment.Full()
				if *quick {
					p = experiment.Quick()
				}
				o := experiment.Options{Out: *out, Bench: args[0], Preset: p, Trainer: experiment.Native{}, Threads: *threads,
					Command: "sqlrl " + strings.Join(os.Args[1:], " ")}
				if o.Out == "" {
					o.Out = "out/okto"
					if *quick {
						o.Out = "out/okto-quick"
					}
				}
				for _, s := range strings.Split(*seeds, ",") {
					if s = strings.TrimSpace(s); s == "" {
						continue
					}
					n, err := strconv.ParseUint(s, 10, 64)
					if err != nil {
						return usagef("-seeds: %q is not a seed", s)
					}
					o.Seeds = append(o.Seeds, n)
				}
				for _, s := range strings.Split(*studies, ",") {
					if s = strings.TrimSpace(s); s != "" {
						o.Studies = append(o.Studies, s)
					}
				}
				if !*quiet {
					o.Progress = os.Stderr
				}
				d, err := experiment.Execute(ctx, o)
				if err != nil {
					return err
				}
				fmt.Printf("%d runs (%d now, %d done before); report in %s\n", len(d.Plan.Runs), d.Ran, d.Cached, o.Out+"/report.md")
				for _, c := range d.Report.Claims {
					v := "holds"
					if !c.Holds {
						v = "DIFFERS"
					}
					fmt.Printf("  [%s] %s (%s): %s\n", v, c.Claim, c.Split, c.Finding)
				}
				return nil
			}
		},
	})
}
