package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
	"github.com/sqlrl/sqlrl/train"
)

const rlHelp = `Reinforcement learning from execution feedback after SFT, as the OKTO
recipe does it: SFT on 75%% of the train split (sqlrl train sft), then RL on
the 25%% holdout SFT never saw, its prompts augmented x4 by shuffling the
order of the schema's tables (-augment 4, the default; -augment 1 keeps
each question's original schema order only), with a hybrid reward (the
executor gates, a judge grades the rest out of 50: -reward gate).

BENCH_DIR is the benchmark the -init run trained on; its train split is cut
as SFT cut it (the split's seed and fraction are read from the -init
checkpoint), and RL draws its prompts from the holdout (-rl-on holdout) or
from SFT's own questions (-rl-on train: the study of RL on data SFT already
saw; with 'train sft -sft-fraction 1' the only choice).

Online (the default), each step samples -k completions for each of -prompts
prompts from the CURRENT policy, unguided at temperature 1 (so the
log-probabilities the loss uses are those of the distribution that sampled;
dev evaluation stays schema-guided; -guided samples under the guide too, and
then scores each token under the distribution renormalised over what the
guide allowed, the one that drew it, so every algorithm takes it), scores
them (-reward; -reward-url asks a running 'sqlrl reward serve' instead), and
updates:
  kto   desirable iff reward >= the reward's correct level; z0 from samples
        scored under other prompts of the batch; lambdas balance the classes
  dpo   best against worst sample of each prompt (beta)
  orpo  the same pairs, odds ratio plus NLL, no reference
  ppo   value head, GAE, clipped ratio, per-token KL penalty (-kl-coef)
  rloo  REINFORCE with the leave-one-out baseline
  grpo  group-normalised advantages, clipped ratio, k3 KL (-kl-coef)
The reference is the -init checkpoint, frozen. The progress line shows the
reward mean, the share correct (and desirable), the KL to the reference and
the time split of a step (sample_s, reward_s, score_s, update_s).

Offline (-online=false -offline FILE; kto, dpo, orpo): the same losses on a
rollouts file (question_id, variant, completion, reward or label), whose
prompts are rebuilt from BENCH_DIR with the same -augment. Make one from
the SFT policy with -sample-only -out FILE (-k samples of every prompt).

On questions of your own (-questions FILE -db-root DIR): the prompt pool
is exactly FILE's questions (BIRD's JSON layout, with their gold SQL),
rendered in the -init checkpoint's prompt format over
DIR/<db_id>/<db_id>.sqlite, in their original schema order (variant 0;
-augment N adds shuffles, as a holdout's), with no split involved. Online, samples are scored against the gold over
DIR's databases. Offline, this is how the production feedback trains the
next model:
  sqlrl data from-feedback -store serve/feedback.sqlite -out fb
  sqlrl train kto -init SFT -online=false -offline fb/rollouts.jsonl \
    -questions fb/feedback.json -db-root DBROOT -out OUT [BENCH_DIR]
BENCH_DIR is then optional: given, its -dev-split is evaluated during the
run; its train split is not used.

-reward exec is BIRD EX (1 match, else 0); judge, gate and sum are the
reward package's kinds (any kind 'sqlrl reward serve --reward' accepts works
too), with the judge flags of 'sqlrl reward serve'.

-query-timeout (default 30s, BIRD's limit for a completion and its gold
together) is the reward server's, so that a training reward is the one
'sqlrl reward serve' and 'sqlrl eval' give. A runaway sample (a cross join)
then holds up its step until the limit: the step waits for all its rewards.
A shorter limit (say -query-timeout 5s) bounds that stall, but a completion
slower than it scores as a failure where the server would have run it to
its verdict, and a prompt whose gold is slower is skipped for the step.

Each step is scored -score-batch sequences per forward pass (default 8, a
prompt's -k samples kept together): the policy, the reference and KTO's
mismatched pairs. The model keeps every layer's activations for the
sequences of a pass, so this bounds memory (the small preset's 8 x 4
samples of ~480 tokens in one pass peaked near 6 GB); the policy's
micro-batches are forwarded once more for their backward pass. The loss is
the same; float rounding depends on -score-batch, so a run resumes only
with the same value.

-out receives checkpoints and train_log.jsonl; running again with the same
-out resumes exactly (same samples, same losses); -restart starts over.`

func init() {
	for _, algo := range train.Algos {
		register(&command{
			name:    "train " + algo,
			summary: rlSummary(algo),
			usage:   "-init SFT_RUN -out DIR [flags] BENCH_DIR | -online=false -offline FILE -questions FILE -db-root DIR [BENCH_DIR]",
			help:    fmt.Sprintf(rlHelp),
			flags:   func(fs *flag.FlagSet) func(context.Context, []string) error { return rlFlags(fs, algo) },
		})
	}
}

func rlSummary(algo string) string {
	switch algo {
	case train.AlgoKTO:
		return "RL after SFT with KTO, online on the holdout (the OKTO recipe) or offline"
	case train.AlgoDPO:
		return "RL after SFT with DPO (best vs worst of K samples), online or offline"
	case train.AlgoORPO:
		return "RL after SFT with ORPO (odds ratio, no reference), online or offline"
	case train.AlgoPPO:
		return "RL after SFT with PPO (value head, GAE, KL penalty)"
	case train.AlgoRLOO:
		return "RL after SFT with REINFORCE leave-one-out"
	}
	return "RL after SFT with GRPO (group-normalised advantages)"
}

// rewardKind maps -reward to the reward package's kind.
func rewardKind(name string) (string, error) {
	if name == "exec" {
		return reward.KindEX, nil
	}
	if validKind(name) {
		return name, nil
	}
	return "", usagef("-reward %q: want exec, judge, gate, sum (or one of %s)", name, strings.Join(reward.Kinds(), ", "))
}

// correctLevel is the reward a correct completion gets under kind, the
// default KTO threshold: 1 for every kind but a weighted sum, whose top is
// its weights' sum (the execution part at 1, judge 50/50).
func correctLevel(kind string, sub *flag.FlagSet) float64 {
	if kind != reward.KindSum {
		return 1
	}
	we, _ := strconv.ParseFloat(sub.Lookup("w-exec").Value.String(), 64)
	wj, _ := strconv.ParseFloat(sub.Lookup("w-judge").Value.String(), 64)
	return we + wj
}

func rlFlags(fs *flag.FlagSet, algo string) func(context.Context, []string) error {
	out := fs.String("out", "", "run directory (with -sample-only: the rollouts file to write)")
	initDir := fs.String("init", "", "the SFT run or checkpoint to start from (required); also the frozen reference")
	online := fs.Bool("online", true, "sample from the current policy at every step (false: train on -offline; kto, dpo, orpo)")
	offlineFile := fs.String("offline", "", "rollouts file for -online=false")
	sampleOnly := fs.Bool("sample-only", false, "write a rollouts file of -k samples of every prompt from -init to -out, and stop")
	rewardName := fs.String("reward", reward.KindGate, "reward: exec (BIRD EX), judge, gate (the recipe's hybrid), sum")
	rewardURL := fs.String("reward-url", "", "score with a running 'sqlrl reward serve' at this URL instead of in process")
	augment := fs.Int("augment", 4, "prompts per question: 4 = the recipe's x4 table shuffles, 1 = original schema order only")
	rlOn := fs.String("rl-on", train.RLOnHoldout, "RL prompts: holdout (questions SFT left out) or train (SFT's own)")
	k := fs.Int("k", 4, "samples per prompt")
	prompts := fs.Int("prompts", 8, "prompts per step")
	steps := fs.Int("steps", 100, "optimizer steps")
	loop := loopFlags(fs, 2e-5, 50)
	beta := fs.Float64("beta", 0.1, "KTO/DPO beta")
	orpoLambda := fs.Float64("orpo-lambda", 0.1, "ORPO odds-ratio weight")
	klCoef := fs.Float64("kl-coef", 0, "KL-to-reference coefficient: PPO per-token penalty (default 0.05), GRPO k3 (0.04), RLOO reward shaping (0); negative: none")
	ktoThreshold := fs.Float64("kto-threshold", 0, "reward at or above which a sample is desirable (default: the reward's correct level)")
	clipEps := fs.Float64("clip-eps", 0.2, "PPO/GRPO ratio clip")
	epochs := fs.Int("epochs", 1, "PPO/GRPO updates per batch of samples")
	gamma := fs.Float64("gamma", 1, "PPO discount")
	gaeLambda := fs.Float64("gae-lambda", 0.95, "PPO GAE lambda")
	valueLR := fs.Float64("value-lr", 1e-3, "PPO value head learning rate")
	temp := fs.Float64("temperature", 1, "sampling temperature (1: on-policy)")
	maxTokens := fs.Int("max-tokens", train.DevMaxTokens, "completion budget of a sample (below the evaluation's, correct answers longer than it are cut and scored as failures)")
	rename := fs.Float64("rename", 0, "online: rename each schema name of a sampled prompt with this probability, drawn afresh each step, as SFT's augmentation does (samples are mapped back to the database's names to be scored; a name the prompt no longer shows fails)")
	renameText := fs.Bool("rename-text", false, "with -rename: rename the words of the names wherever they occur, question and evidence included (as train sft -rename-text)")
	renameFamilies := fs.Bool("rename-families", false, "with -rename: rename the names' words, one drawn word per word everywhere in the schema, so that names sharing a word keep sharing one (order_id, order_date -> zub_id, zub_date); the question kept")
	sftWeight := fs.Float64("sft-weight", 0, "kto: add the mean token NLL of the desirable samples times this weight (RPO's term: the correct samples also teach as SFT examples)")
	replay := fs.Int("replay", 0, "add to every step the SFT loss of this many examples of the SFT share, renamed as SFT renames them (PPO-ptx's mix: keeps the schema reading SFT's renaming taught)")
	replayWeight := fs.Float64("replay-weight", 1, "with -replay: the weight of the replayed examples' mean token NLL")
	goldUnsolved := fs.Float64("gold-unsolved", 0, "online: add to each step the SFT loss of the gold SQL of every prompt none of whose samples was correct, in the names its prompt showed, at this weight (ReLIFT's interleaving: the golds of what RL cannot yet solve; 0: none, the recipe)")
	guided := fs.Bool("guided", false, "online: sample under the schema guide, as evaluation decodes, each token scored under the distribution renormalised over the tokens the guide allowed (on-policy)")
	scoreBatch := fs.Int("score-batch", train.DefaultScoreBatch, "sequences per forward pass when a step is scored (bounds memory; part of a run's settings)")
	seed := fs.Uint64("seed", 1, "seed of prompt draws and sampling")
	frac := fs.Float64("sft-fraction", 0, "SFT share of the train split (default: the -init run's); a larger share leaves RL a part of that run's holdout, the rest unseen by both")
	splitSeed := fs.Uint64("split-seed", 0, "seed of the SFT/holdout split (default: the -init run's)")
	trainSplit := fs.String("train-split", "train", "benchmark split SFT trained on")
	devSplit := fs.String("dev-split", "dev", "benchmark split to evaluate on ('-': none)")
	rolloutsOut := fs.String("rollouts-out", "", "also append every scored sample of an online run to this rollouts file")
	questions := fs.String("questions", "", "the RL prompts are this BIRD-layout question file's (a feedback export's feedback.json, or any questions with gold SQL), not a split's")
	dbRoot := fs.String("db-root", "", "with -questions: the databases, as DIR/<db_id>/<db_id>.sqlite")
	// the reward's own flags are 'sqlrl reward serve''s (stackFlags); the
	// benchmark and the kind come from BENCH_DIR and -reward
	sub := flag.NewFlagSet("reward", flag.ContinueOnError)
	stack := stackFlags(sub)
	sub.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "data", "split", "db-root", "reward":
			return
		}
		fs.Var(f.Value, f.Name, f.Usage)
	})
	return func(ctx context.Context, args []string) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if *out == "" || *initDir == "" {
			return usagef("-init and -out are required")
		}
		kind, err := rewardKind(*rewardName)
		if err != nil {
			return err
		}
		if !*online && *offlineFile == "" {
			return usagef("-online=false needs -offline FILE (a rollouts file: -sample-only's, or a feedback export's rollouts.jsonl)")
		}
		// the prompts and the databases the reward scores them over
		var data *train.Data
		var rewardOn map[string]string
		if *questions != "" || *dbRoot != "" {
			if *sampleOnly {
				return usagef("-questions: -sample-only is not available; sample a split's holdout instead")
			}
			if data, err = questionsData(ctx, args, *questions, *dbRoot, *initDir, *trainSplit, *devSplit, set); err != nil {
				return err
			}
			if set["augment"] {
				// schema-order shuffles of each question, as a holdout's
				data.HoldoutAugment = *augment
			}
			rewardOn = map[string]string{"data": "", "db-root": *dbRoot}
		} else {
			if len(args) != 1 {
				return usagef("want one BENCH_DIR argument, got %d", len(args))
			}
			if err := checkSplit(args[0], *trainSplit); err != nil {
				return err
			}
			info, err := initInfo(*initDir)
			if err != nil {
				return err
			}
			// the split SFT trained on: RL on its holdout must cut the same
			fraction, sseed, rlFraction, err := initSplit(info, set["sft-fraction"], *frac, set["split-seed"], *splitSeed)
			if err != nil {
				return err
			}
			if d := info.Notes["data"]; d != "" && !samePath(d, args[0]) {
				fmt.Fprintf(os.Stderr, "warning: -init trained on %s, RL reads %s\n", d, args[0])
			}
			if data, err = train.LoadBench(train.BenchOptions{Dir: args[0], TrainSplit: *trainSplit, SFTFraction: fraction, Seed: sseed,
				DevSplit: *devSplit, Format: info.Prompt, HoldoutAugment: *augment, RLFraction: rlFraction}); err != nil {
				return err
			}
			rewardOn = map[string]string{"data": args[0], "split": *trainSplit}
		}
		defer data.Close()
		lo := loop.options(*out, *seed)
		lo.Init, lo.LogEvery = *initDir, 1
		o := train.RLOptions{
			LoopOptions: lo,
			Algo:        algo, Online: *online, OfflineFile: *offlineFile, Steps: *steps, Prompts: *prompts, K: *k, Temperature: *temp,
			MaxTokens: *maxTokens, RLOn: *rlOn, Beta: *beta, ORPOLambda: *orpoLambda, KLCoef: *klCoef, KTOThreshold: *ktoThreshold,
			ClipEps: *clipEps, Epochs: *epochs, Gamma: *gamma, Lambda: *gaeLambda, ValueLR: *valueLR, RolloutsOut: *rolloutsOut,
			ScoreBatch:   *scoreBatch,
			CorrectLevel: correctLevel(kind, sub), Guided: *guided, Rename: *rename, RenameText: *renameText, RenameFamilies: *renameFamilies, SFTWeight: *sftWeight,
			Replay: *replay, ReplayWeight: *replayWeight, GoldUnsolved: *goldUnsolved,
		}
		if *online || *sampleOnly {
			if *rewardURL != "" {
				o.Reward, o.RewardName = rewardserver.NewClient(*rewardURL), "remote:"+*rewardURL
			} else {
				// the stack 'sqlrl reward serve' would run, in process
				rewardOn["reward"] = kind
				for name, v := range rewardOn {
					if err := sub.Set(name, v); err != nil {
						return err
					}
				}
				so, _, name, err := stack()
				if err != nil {
					return err
				}
				st, err := reward.NewSQLiteStack(so)
				if err != nil {
					return err
				}
				defer st.Close()
				o.Reward, o.RewardName = st, name
			}
		}
		start := time.Now()
		if *sampleOnly {
			n, err := train.SampleRollouts(ctx, data, o, *out)
			if err != nil {
				return err
			}
			fmt.Printf("wrote %d samples to %s (%s)\n", n, *out, time.Since(start).Round(time.Second))
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

// initInfo reads the -init checkpoint's config (its prompt format and the
// notes of the data it trained on).
func initInfo(dir string) (*policy.Info, error) {
	ck, err := policy.Resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("-init: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(ck, policy.FileConfig))
	if err != nil {
		return nil, fmt.Errorf("-init: %w", err)
	}
	var info policy.Info
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("-init %s: %w", ck, err)
	}
	return &info, nil
}

// initSplit returns the SFT fraction and split seed RL must cut the train
// split with: the -init run's, which a flag may repeat but not lower (the
// holdout would then hold questions SFT trained on). A larger fraction
// is rlFraction (train.BenchOptions.RLFraction): RL draws from a part of
// that run's holdout, the rest unseen by both, to measure on.
func initSplit(info *policy.Info, fracSet bool, frac float64, seedSet bool, seed uint64) (f float64, s uint64, rlFraction float64, err error) {
	f, s = dataset.DefaultSFTFraction, uint64(1)
	if v, ok := info.Notes["sft_fraction"]; ok {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			f = x
		}
		switch {
		case fracSet && frac < f:
			return 0, 0, 0, usagef("-sft-fraction %v: the -init run trained on a %v share; RL must not cut a holdout with questions SFT trained on", frac, f)
		case fracSet && frac > f && f < 1:
			rlFraction = frac
		}
	} else if fracSet {
		f = frac
	}
	if v, ok := info.Notes["split_seed"]; ok {
		if x, err := strconv.ParseUint(v, 10, 64); err == nil {
			s = x
		}
		if seedSet && seed != s {
			return 0, 0, 0, usagef("-split-seed %d: the -init run's split seed is %d; RL must cut the split as SFT did", seed, s)
		}
	} else if seedSet {
		s = seed
	}
	return f, s, rlFraction, nil
}

// questionsData loads the data of an offline run on a question file
// (-questions, -db-root; train.Data.UseQuestions): the questions of a
// feedback export, which no split holds. BENCH_DIR is optional: given, its
// dev split is loaded for the run's dev evaluation (its train split is cut
// as -init's, but RL draws nothing from it). Flags that shape a split's
// pool or an online reward are refused rather than ignored.
func questionsData(ctx context.Context, args []string, questions, dbRoot, initDir, trainSplit, devSplit string, set map[string]bool) (*train.Data, error) {
	if len(args) > 1 {
		return nil, usagef("-questions: want at most one BENCH_DIR argument (for its dev split), got %d", len(args))
	}
	if questions == "" || dbRoot == "" {
		return nil, usagef("-questions and -db-root go together: the questions' prompts are rendered over the databases of -db-root")
	}
	for _, name := range []string{"rl-on", "sft-fraction", "split-seed", "reward-url", "rollouts-out"} {
		if set[name] {
			return nil, usagef("-%s: -questions takes its prompts from the file, with no split, and scores them in process", name)
		}
	}
	if st, err := os.Stat(dbRoot); err != nil || !st.IsDir() {
		return nil, usagef("-db-root %s is not a directory", dbRoot)
	}
	info, err := initInfo(initDir)
	if err != nil {
		return nil, err
	}
	data := &train.Data{Format: info.Prompt, Notes: map[string]string{}}
	if len(args) == 1 && devSplit != "-" {
		if err := checkSplit(args[0], trainSplit); err != nil {
			return nil, err
		}
		fraction, sseed, _, err := initSplit(info, false, 0, false, 0)
		if err != nil {
			return nil, err
		}
		if data, err = train.LoadBench(train.BenchOptions{Dir: args[0], TrainSplit: trainSplit, SFTFraction: fraction, Seed: sseed,
			DevSplit: devSplit, Format: info.Prompt}); err != nil {
			return nil, err
		}
	}
	if err := data.UseQuestions(ctx, questions, dbRoot); err != nil {
		data.Close()
		return nil, err
	}
	return data, nil
}

// samePath reports whether recorded, a benchmark path as a run recorded
// it (relative to wherever that run was started), may name dir: the same
// directory from here, or, for a relative record, a path dir ends with.
func samePath(recorded, dir string) bool {
	if filepath.Clean(recorded) == filepath.Clean(dir) {
		return true
	}
	if a, err := os.Stat(recorded); err == nil {
		if b, err := os.Stat(dir); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	if filepath.IsAbs(recorded) {
		return false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	rel := string(filepath.Separator) + filepath.Clean(recorded)
	return strings.HasSuffix(abs, rel)
}
