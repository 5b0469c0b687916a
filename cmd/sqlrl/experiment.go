package main

import (
	"cmp"
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
		flags: oktoFlags,
	})
}

// oktoFlags declares `experiment okto`'s flags.
func oktoFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	quick := fs.Bool("quick", false, "micro model, a few steps, 1 seed (unless -seeds), a few dev questions: every study in about a minute")
	preset := fs.String("preset", "full", "full (tiny model, 30 RL steps, 100 questions: all studies, 3 seeds in ~2 hours) or flywheel (the main job's small model, 200 KTO steps, every question; shares runs with 'experiment flywheel' in the same -out; hours: pick -studies and -seeds)")
	out := fs.String("out", "", "experiment directory (default out/okto, out/okto-quick with -quick)")
	seeds := fs.String("seeds", "", "comma-separated seeds (default: 1,2,3; 1 with -quick)")
	studies := fs.String("studies", "", "comma-separated studies (default all: "+strings.Join(experiment.StudyNames(), ",")+")")
	threads := fs.Int("threads", 2, "threads")
	quiet := fs.Bool("q", false, "no progress on stderr")
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return usagef("want one BENCH_DIR argument, got %d", len(args))
		}
		var p experiment.Preset
		switch {
		case *quick:
			p = experiment.Quick()
		case *preset == "full":
			p = experiment.Full()
		case *preset == "flywheel":
			p = experiment.FlywheelStudies()
		default:
			return usagef("-preset %q: want full or flywheel", *preset)
		}
		o := experiment.Options{Out: *out, Bench: args[0], Preset: p, Trainer: experiment.InProcess{}, Threads: *threads,
			Command: "sqlrl " + strings.Join(os.Args[1:], " ")}
		var err error
		if o.Out == "" {
			o.Out = "out/okto"
			if *quick {
				o.Out = "out/okto-quick"
			}
		}
		if o.Seeds, err = parseSeeds(*seeds); err != nil {
			return err
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
}

// parseSeeds reads -seeds: comma-separated seeds, none for the preset's.
func parseSeeds(list string) ([]uint64, error) {
	var out []uint64
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, usagef("-seeds: %q is not a seed", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func init() {
	register(&command{
		name:    "experiment flywheel",
		summary: "the main job: SFT-75 -> online KTO on the holdout -> every dev question, before/after by difficulty",
		usage:   "[-quick] [-out DIR] [-heldout S] [-sft100] [-sft100-kto] [-kto-rounds R] [-merge M] [-kto-* ...] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate --preset
small --out data/bench'). The flywheel, in one resumable command:

  1. SFT-75: the native policy on the 75% of the train split that 'sqlrl
     data prepare' cuts (docs/policy.md's recipe);
  2. online KTO from it on the holdout SFT never saw, less the share
     -heldout keeps out (evaluated as the split "heldout"), with the gate
     reward, renamed (-rename), guided (-guided) samples and replayed SFT
     examples (-replay);
  3. a greedy, schema-guided evaluation of every checkpoint on every
     question of every dev split and of "heldout";
  4. the before/after table by difficulty, printed and written to
     -out/report.md and report.json with SVG charts.

-sft100 adds SFT on all of train (the recipe's headline, SFT-75 + OKTO >=
SFT-100); -sft100-kto adds the same KTO from SFT-100 on train's questions.
-kto-rounds R iterates KTO, each round from (and referenced to) the one
before; -merge M evaluates KTO merged back towards SFT-75.

Each stage is a run under -out/runs named by a hash of its config: a finished
stage is never redone and an interrupted one resumes, so the same command
again is safe; a changed -kto-* flag redoes KTO, not SFT. -quick tests the
machinery in seconds. Cost with the defaults: ` + experiment.Flywheel().Budget + `.`,
		flags: flywheelFlags,
	})
}

// flywheelFlags binds the flywheel's flags to its preset's settings; with
// -quick, the flags given override the quick preset's.
func flywheelFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	f := experiment.Flywheel()
	quick := fs.Bool("quick", false, "micro model, a few steps, a few dev questions: the whole flywheel in seconds")
	out := fs.String("out", "", "output directory (default out/flywheel, out/flywheel-quick with -quick)")
	seeds := fs.String("seeds", "", "comma-separated seeds (default 1)")
	threads := fs.Int("threads", 2, "threads")
	quiet := fs.Bool("q", false, "no progress on stderr")
	heldOut := fs.Float64("heldout", experiment.HeldOutShare(f.RL), "share of the holdout kept from KTO and evaluated as the split \"heldout\" (0: KTO on all of it)")
	rounds := fs.Int("kto-rounds", 1, "rounds of KTO from SFT-75, each from the model of the round before, also its reference (arms okto_rN)")
	fields := flywheelSettings(fs, &f)
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return usagef("want one BENCH_DIR argument, got %d", len(args))
		}
		p := f
		if *quick {
			p = experiment.FlywheelQuick()
			fs.Visit(func(fl *flag.Flag) {
				if copyField := fields[fl.Name]; copyField != nil {
					copyField(&p, &f)
				}
			})
		}
		if *rounds < 1 {
			return usagef("-kto-rounds %d: want 1 or more", *rounds)
		}
		if !(*heldOut >= 0 && *heldOut < 1) {
			return usagef("-heldout %v: want a share in [0, 1)", *heldOut)
		}
		if flagSet(fs, "kto-rounds") {
			p.Rounds = *rounds
		}
		if flagSet(fs, "heldout") {
			p.RL.Pool = experiment.PoolFor(p.RL.Fraction, *heldOut)
		}
		if err := p.CheckFlywheel(); err != nil {
			return usagef("%v", err)
		}
		if !*quick {
			p.Budget = experiment.FlywheelBudget(p)
		}
		o := experiment.Options{Out: cmp.Or(*out, "out/flywheel"), Bench: args[0], Preset: p, Trainer: experiment.InProcess{}, Threads: *threads,
			Command: "sqlrl " + strings.Join(os.Args[1:], " ")}
		if *out == "" && *quick {
			o.Out = "out/flywheel-quick"
		}
		var err error
		if o.Seeds, err = parseSeeds(*seeds); err != nil {
			return err
		}
		if !*quiet {
			o.Progress = os.Stderr
			fmt.Fprintf(os.Stderr, "flywheel: %s\n", p.Budget)
		}
		d, err := experiment.ExecuteFlywheel(ctx, o)
		if err != nil {
			return err
		}
		fmt.Printf("%d stages (%d now, %d done before); report in %s\n\n", len(d.Plan.Runs), d.Ran, d.Cached, o.Out+"/report.md")
		fmt.Print(d.Flywheel.Text())
		return nil
	}
}

// flywheelSettings declares the flags of the flywheel's settings, bound
// to p, and returns for each the copy of its setting from one preset to
// another.
func flywheelSettings(fs *flag.FlagSet, p *experiment.Preset) map[string]func(dst, src *experiment.Preset) {
	r := &p.RL
	fs.IntVar(&p.SFT.Epochs, "sft-epochs", p.SFT.Epochs, "SFT-75's (and SFT-100's) epochs; a changed value trains SFT and everything after it anew")
	fs.IntVar(&r.Steps, "kto-steps", r.Steps, "KTO optimizer steps")
	fs.Float64Var(&r.LR, "kto-lr", r.LR, "KTO peak learning rate")
	fs.Float64Var(&r.Beta, "kto-beta", r.Beta, "KTO beta")
	fs.Float64Var(&r.Temperature, "kto-temperature", r.Temperature, "KTO sampling temperature (KTO needs labels, not on-policy ratios: below 1 is sound)")
	fs.IntVar(&r.K, "k", r.K, "completions sampled per prompt")
	fs.IntVar(&r.Prompts, "prompts", r.Prompts, "prompts per KTO step")
	fs.IntVar(&r.MaxTokens, "kto-max-tokens", r.MaxTokens, "tokens per sampled completion")
	fs.IntVar(&r.EvalEvery, "kto-eval-every", r.EvalEvery, "dev EX during KTO every N steps (-1: never)")
	fs.IntVar(&r.EvalN, "kto-eval-n", r.EvalN, "dev questions per evaluation during KTO")
	fs.Float64Var(&r.GoldUnsolved, "kto-gold-unsolved", r.GoldUnsolved, "add the SFT loss of the gold SQL of each prompt none of whose samples was correct, at this weight (train kto -gold-unsolved; 0: none)")
	fs.IntVar(&r.Replay, "replay", r.Replay, "add to every KTO step the SFT loss of this many renamed SFT examples (train kto -replay; 0: plain KTO)")
	fs.BoolVar(&r.Guided, "guided", r.Guided, "sample KTO's completions under the schema guide (train kto -guided; false: unguided, as the recipe)")
	fs.Float64Var(&r.Rename, "rename", r.Rename, "rename each schema name of a sampled KTO prompt with this probability (train kto -rename; 0: none, as the recipe)")
	fs.BoolVar(&r.RenameFamilies, "rename-families", r.RenameFamilies, "rename KTO prompts' names word by word (train kto -rename-families)")
	fs.Float64Var(&r.Reward.ErrorValue, "error-value", r.Reward.ErrorValue, "gate reward of SQL that fails to execute (train kto and reward serve default to -1)")
	fs.Float64Var(&p.Merge, "merge", p.Merge, "also evaluate KTO merged back towards SFT-75, SFT-75 + M x (KTO - SFT-75), as the arm okto_merged (0: not)")
	fs.BoolVar(&p.SFT100, "sft100", p.SFT100, "also train and evaluate SFT on all of train: the recipe's headline, SFT-75 + OKTO >= SFT-100")
	fs.BoolVar(&p.SFT100KTO, "sft100-kto", p.SFT100KTO, "also run the same KTO from SFT-100 on train's own questions (implies -sft100)")
	return map[string]func(d, s *experiment.Preset){
		"sft-epochs": func(d, s *experiment.Preset) { d.SFT.Epochs = s.SFT.Epochs },
		"kto-steps":  func(d, s *experiment.Preset) { d.RL.Steps = s.RL.Steps },
		"kto-lr":     func(d, s *experiment.Preset) { d.RL.LR = s.RL.LR }, "kto-beta": func(d, s *experiment.Preset) { d.RL.Beta = s.RL.Beta },
		"kto-temperature": func(d, s *experiment.Preset) { d.RL.Temperature = s.RL.Temperature },
		"k":               func(d, s *experiment.Preset) { d.RL.K = s.RL.K }, "prompts": func(d, s *experiment.Preset) { d.RL.Prompts = s.RL.Prompts },
		"kto-max-tokens":    func(d, s *experiment.Preset) { d.RL.MaxTokens = s.RL.MaxTokens },
		"kto-eval-every":    func(d, s *experiment.Preset) { d.RL.EvalEvery = s.RL.EvalEvery },
		"kto-eval-n":        func(d, s *experiment.Preset) { d.RL.EvalN = s.RL.EvalN },
		"kto-gold-unsolved": func(d, s *experiment.Preset) { d.RL.GoldUnsolved = s.RL.GoldUnsolved },
		"replay":            func(d, s *experiment.Preset) { d.RL.Replay = s.RL.Replay },
		"guided":            func(d, s *experiment.Preset) { d.RL.Guided = s.RL.Guided },
		"rename":            func(d, s *experiment.Preset) { d.RL.Rename = s.RL.Rename },
		"rename-families":   func(d, s *experiment.Preset) { d.RL.RenameFamilies = s.RL.RenameFamilies },
		"error-value":       func(d, s *experiment.Preset) { d.RL.Reward.ErrorValue = s.RL.Reward.ErrorValue },
		"merge":             func(d, s *experiment.Preset) { d.Merge = s.Merge },
		"sft100":            func(d, s *experiment.Preset) { d.SFT100 = s.SFT100 },
		"sft100-kto":        func(d, s *experiment.Preset) { d.SFT100KTO = s.SFT100KTO },
	}
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
