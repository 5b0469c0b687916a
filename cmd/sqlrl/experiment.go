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
				o := experiment.Options{Out: *out, Bench: args[0], Preset: p, Trainer: experiment.Native{}, Threads: *threads,
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
		},
	})
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
	def := experiment.Flywheel()
	register(&command{
		name:    "experiment flywheel",
		summary: "the main job: SFT-75 -> online KTO on the holdout -> every dev question, before/after by difficulty",
		usage:   "[-quick] [-out DIR] [-heldout S] [-sft100] [-sft100-kto] [-kto-rounds R] [-merge M] [-kto-steps N] [-kto-lr LR] [-kto-beta B] [-kto-temperature T] [-k K] [-prompts P] [-replay N] [-kto-gold-unsolved W] [-guided=false] [-rename P] [-rename-families] BENCH_DIR",
		help: `BENCH_DIR is a benchmark in BIRD's layout ('sqlrl bench generate --preset
small --out data/bench'). The flywheel, in one resumable command:

  1. SFT-75: the native policy from random weights on the 75% of the train
     split that 'sqlrl data prepare' cuts (docs/policy.md's recipe: preset
     small, 16 epochs, batch 16, lr 2e-3);
  2. online KTO from it on half the 25% holdout SFT never saw (-heldout
     0.5 keeps the other half out), each prompt in 4 schema-order
     shuffles, with the hybrid gate reward (the executor gates, the
     analytic judge grades the rest), each prompt's schema names renamed
     afresh every step as SFT renames them (-rename 0.9; samples are
     mapped back before the reward), its samples drawn under the schema
     guide as evaluation decodes and scored under the guide's
     renormalised distribution (-guided), the SFT loss of 8 renamed SFT
     examples added to every step (-replay 8), dev EX on a sample every
     -kto-eval-every steps;
  3. a greedy, schema-guided evaluation of both checkpoints on every
     question of every dev split (<split>.json with <split>_databases/)
     and of the held-out half (the split "heldout");
  4. the before/after table by difficulty (simple, moderate, challenging,
     total: SFT-75, SFT-75 + OKTO, delta), printed and written with each
     stage's time to -out/report.md and report.json, with bar charts and the
     KTO run's reward (and dev EX) over steps as SVG.

-heldout S (default 0.5; 0: KTO on all of it, as the recipe) keeps the
share S of the holdout from KTO: KTO draws from the rest, and the
questions kept out are evaluated as one more split,
"heldout": questions neither SFT nor KTO saw, on the databases both trained
on. Beside the benchmark's dev databases (renamed, or of other domains),
it tells what KTO learnt about its own databases from what carries over to
others.

-sft100 adds SFT on all of train, for the recipe's headline (SFT-75 +
OKTO >= SFT-100); -sft100-kto adds the same KTO from SFT-100 on train's own
questions too: the two ways to spend the holdout's gold SQL side by side
(SFT on it, then KTO on questions SFT saw; or KTO on it without its gold).

-kto-rounds R runs KTO R times from SFT-75: each round after the first
starts from the model of the round before and takes it as its frozen
reference (iterated KTO), so the policy can move on where the last round's
KL term held it near SFT-75. Every round is evaluated and checked like the
first (arms okto_r2, okto_r3, ...), and compared question by question with
the round before.

Each stage is a run under -out/runs named by a hash of its config: a
finished stage is never redone, an interrupted one resumes from its last
checkpoint (Ctrl-C and the same command again is safe), and a changed -kto-*
flag redoes KTO and the evaluations, not SFT.

Cost on 2 cores with the defaults, on the bundled benchmark: ` + def.Budget + `.
Results of other settings are in docs/rl.md.

-quick (a micro model, a few steps, 30 dev questions) runs it all in seconds:
it tests the machinery, not the recipe.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			quick := fs.Bool("quick", false, "micro model, a few steps, a few dev questions: the whole flywheel in seconds")
			out := fs.String("out", "", "output directory (default out/flywheel, out/flywheel-quick with -quick)")
			seeds := fs.String("seeds", "", "comma-separated seeds (default 1)")
			sftEpochs := fs.Int("sft-epochs", def.SFT.Epochs, "SFT-75's (and SFT-100's) epochs; a changed value trains SFT and everything after it anew")
			steps := fs.Int("kto-steps", def.RL.Steps, "KTO optimizer steps")
			lr := fs.Float64("kto-lr", def.RL.LR, "KTO peak learning rate")
			beta := fs.Float64("kto-beta", def.RL.Beta, "KTO beta")
			temp := fs.Float64("kto-temperature", def.RL.Temperature, "KTO sampling temperature (KTO needs labels, not on-policy ratios, so below 1 is sound: samples nearer the greedy answer)")
			k := fs.Int("k", def.RL.K, "completions sampled per prompt")
			prompts := fs.Int("prompts", def.RL.Prompts, "prompts per KTO step")
			maxTokens := fs.Int("kto-max-tokens", def.RL.MaxTokens, "tokens per sampled completion")
			evalEvery := fs.Int("kto-eval-every", def.RL.EvalEvery, "dev EX during KTO every N steps (-1: never)")
			evalN := fs.Int("kto-eval-n", def.RL.EvalN, "dev questions per evaluation during KTO")
			heldOut := fs.Float64("heldout", experiment.HeldOutShare(def.RL), "share of the holdout kept from KTO and evaluated as the split \"heldout\" (0: KTO on all of it)")
			goldUnsolved := fs.Float64("kto-gold-unsolved", def.RL.GoldUnsolved, "add to every KTO step the SFT loss of the gold SQL of each prompt none of whose samples was correct, at this weight (train kto -gold-unsolved; 0: none, the recipe)")
			replay := fs.Int("replay", def.RL.Replay, "add to every KTO step the SFT loss of this many renamed examples of the SFT share (train kto -replay; 0: the recipe's plain KTO)")
			guided := fs.Bool("guided", def.RL.Guided, "sample KTO's completions under the schema guide, as evaluation decodes, scored under the guide's renormalised distribution (train kto -guided; -guided=false: unguided, as the recipe)")
			rename := fs.Float64("rename", def.RL.Rename, "rename each schema name of a sampled KTO prompt with this probability, afresh every step, as SFT renames (train kto -rename; 0: the training databases' own names, as the recipe)")
			families := fs.Bool("rename-families", false, "rename KTO prompts' names word by word, one drawn word per word of the schema, so that names sharing a word keep sharing one (order_id, order_date -> zub_id, zub_date; train kto -rename-families)")
			merge := fs.Float64("merge", 0, "also evaluate the KTO run merged back towards its SFT-75 start, SFT-75 + M x (KTO - SFT-75) (WiSE-FT; 0: not; 0.5 halfway), as the arm okto_merged, checked as KTO is")
			sft100 := fs.Bool("sft100", false, "also train SFT on all of train (same recipe, a third more steps) and evaluate it: the recipe's headline, SFT-75 + OKTO >= SFT-100")
			errorValue := fs.Float64("error-value", def.RL.Reward.ErrorValue, "gate reward of SQL that fails to execute (train kto and reward serve default to -1); KTO's labels do not depend on it")
			sft100KTO := fs.Bool("sft100-kto", false, "also run the same KTO from SFT-100 on train's own questions and evaluate it (implies -sft100): the other use of the holdout's gold SQL, SFT-100 + OKTO against SFT-75 + OKTO")
			rounds := fs.Int("kto-rounds", 1, "rounds of KTO from SFT-75: each round after the first is the same KTO from the model of the round before, which is also its frozen reference (iterated KTO), each round evaluated as the arm okto_rN")
			threads := fs.Int("threads", 2, "threads")
			quiet := fs.Bool("q", false, "no progress on stderr")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one BENCH_DIR argument, got %d", len(args))
				}
				if *rounds < 1 {
					return usagef("-kto-rounds %d: want 1 or more", *rounds)
				}
				if !(*heldOut >= 0 && *heldOut < 1) {
					return usagef("-heldout %v: want a share in [0, 1)", *heldOut)
				}
				p := def
				if *quick {
					p = experiment.FlywheelQuick()
				}
				// An explicit flag overrides the preset's setting (with
				// -quick too); the defaults are the flywheel's.
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				for name, apply := range map[string]func(){
					"kto-steps": func() { p.RL.Steps = *steps }, "kto-lr": func() { p.RL.LR = *lr },
					"sft-epochs": func() { p.SFT.Epochs = *sftEpochs },
					"kto-beta":   func() { p.RL.Beta = *beta }, "k": func() { p.RL.K = *k },
					"kto-temperature": func() { p.RL.Temperature = *temp },
					"prompts":         func() { p.RL.Prompts = *prompts }, "kto-max-tokens": func() { p.RL.MaxTokens = *maxTokens },
					"kto-eval-every": func() { p.RL.EvalEvery = *evalEvery }, "kto-eval-n": func() { p.RL.EvalN = *evalN },
					"heldout":           func() { p.RL.Pool = experiment.PoolFor(p.RL.Fraction, *heldOut) },
					"sft100":            func() { p.SFT100 = *sft100 },
					"sft100-kto":        func() { p.SFT100KTO = *sft100KTO },
					"error-value":       func() { p.RL.Reward.ErrorValue = *errorValue },
					"merge":             func() { p.Merge = *merge },
					"kto-rounds":        func() { p.Rounds = *rounds },
					"replay":            func() { p.RL.Replay = *replay },
					"kto-gold-unsolved": func() { p.RL.GoldUnsolved = *goldUnsolved },
					"guided":            func() { p.RL.Guided = *guided },
					"rename":            func() { p.RL.Rename = *rename },
					"rename-families":   func() { p.RL.RenameFamilies = *families },
				} {
					if set[name] {
						apply()
					}
				}
				if p.RL.Steps < 1 || p.RL.Prompts < 1 || p.RL.K < 1 || p.RL.MaxTokens < 1 || !(p.RL.LR > 0) || !(p.RL.Beta > 0) || !(p.RL.Temperature > 0) {
					return usagef("-kto-steps, -prompts, -k, -kto-max-tokens, -kto-lr, -kto-beta and -kto-temperature must be positive")
				}
				if !(p.RL.GoldUnsolved >= 0) {
					return usagef("-kto-gold-unsolved %v: want a weight of 0 or more", p.RL.GoldUnsolved)
				}
				if p.RL.Replay < 0 {
					return usagef("-replay %d: want 0 or more examples", p.RL.Replay)
				}
				if !(p.RL.Rename >= 0 && p.RL.Rename <= 1) {
					return usagef("-rename %v: want a probability in [0, 1]", p.RL.Rename)
				}
				if p.RL.RenameFamilies && p.RL.Rename == 0 {
					return usagef("-rename-families renames KTO's prompts: it needs -rename above 0")
				}
				if p.SFT.Epochs < 1 {
					return usagef("-sft-epochs %d: want 1 or more", p.SFT.Epochs)
				}
				if !(p.Merge >= 0 && p.Merge <= 2) {
					return usagef("-merge %v: want 0 (no merge) or a share in (0, 2] of the way from SFT-75 to KTO", p.Merge)
				}
				if p.RL.EvalEvery > 0 && p.RL.EvalN < 1 {
					return usagef("-kto-eval-n must be positive when -kto-eval-every is")
				}
				if !*quick {
					p.Budget = experiment.FlywheelBudget(p)
				}
				o := experiment.Options{Out: *out, Bench: args[0], Preset: p, Trainer: experiment.Native{}, Threads: *threads,
					Command: "sqlrl " + strings.Join(os.Args[1:], " ")}
				var err error
				if o.Seeds, err = parseSeeds(*seeds); err != nil {
					return err
				}
				if o.Out == "" {
					o.Out = "out/flywheel"
					if *quick {
						o.Out = "out/flywheel-quick"
					}
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
		},
	})
}
