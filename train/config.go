package train

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/reward"
)

// The settings of a training run, in groups that each declare their own
// flags (Flags, their current values the defaults). SFTConfig and
// RLConfig are what a run computes: the commands bind flags to them,
// package experiment hashes them into run IDs, and SFT and RL record them
// in the run directory (SettingsFile). Run holds what does not change the
// result beyond the seed: where the run writes, how often, how many
// threads.

// SettingsFile is the run directory's record of its settings.
const SettingsFile = "settings.json"

// LoopConfig is the optimizer's schedule and the evaluation during
// training.
type LoopConfig struct {
	// LR is the peak learning rate (required), reached after Warmup steps
	// (default 5% of the run) and decayed along a cosine to LR*MinLRFrac
	// (default 0.1).
	LR          float64 `json:"lr"`
	MinLRFrac   float64 `json:"min_lr_frac,omitempty"`
	Warmup      int     `json:"warmup,omitempty"`
	WeightDecay float64 `json:"weight_decay,omitempty"` // default 0.1
	Clip        float64 `json:"clip,omitempty"`         // gradient norm clip, default 1
	// EvalEvery steps (0: only at the end; negative: never) the policy
	// decodes EvalN dev questions greedily (default 100; 0 means all) and
	// scores them by execution.
	EvalEvery int `json:"eval_every"`
	EvalN     int `json:"eval_n"`
	// NoGuide decodes dev questions without the schema guide
	// (sqlparse.Guide) that `sqlrl generate` applies by default.
	NoGuide bool `json:"no_guide,omitempty"`
}

// Flags declares the loop's flags.
func (c *LoopConfig) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&c.LR, "lr", c.LR, "peak learning rate")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "warmup steps (0: 5% of the run)")
	fs.Float64Var(&c.WeightDecay, "weight-decay", c.WeightDecay, "AdamW weight decay")
	fs.Float64Var(&c.Clip, "clip", c.Clip, "gradient norm clip")
	fs.IntVar(&c.EvalEvery, "eval-every", c.EvalEvery, "dev evaluation every N steps (0: at the end only; -1: never)")
	fs.IntVar(&c.EvalN, "eval-n", c.EvalN, "dev questions per evaluation (0: all)")
	fs.BoolVar(&c.NoGuide, "no-guide", c.NoGuide, "decode dev questions without the schema guide")
}

// Run is where a run writes and how: its directory, its start, its seed,
// checkpoint cadence, threads and progress.
type Run struct {
	// Out is the run directory: checkpoints step-NNNNNN/, "latest",
	// train_log.jsonl and SettingsFile.
	Out string
	// Init, when set, is a policy checkpoint (or a run directory, whose
	// latest checkpoint is taken) whose weights start the run instead of
	// the objective's fresh policy: RL starts from an SFT checkpoint. Its
	// path and step are part of the run's fingerprint, so a resumed run
	// continues from the same starting point.
	Init string
	// Seed drives the objective's randomness and the sample of dev
	// questions.
	Seed uint64
	// SaveEvery steps a checkpoint is written (default 200) and the last
	// Keep (default 2) are kept.
	SaveEvery, Keep int
	// Restart ignores an existing checkpoint in Out instead of resuming.
	Restart bool
	// Threads for the engine (default 2).
	Threads int
	// Progress receives a line per LogEvery steps (default 20) and each
	// evaluation.
	Progress io.Writer
	LogEvery int
	// StopAfter > 0 makes the run return ErrStopped right after that step,
	// without saving: a simulated kill, for tests.
	StopAfter int
}

// Flags declares the run's flags but -out and -init, which each command
// words for itself.
func (r *Run) Flags(fs *flag.FlagSet) {
	fs.Uint64Var(&r.Seed, "seed", r.Seed, "seed of initialisation, data order, augmentation and sampling")
	fs.IntVar(&r.SaveEvery, "save-every", r.SaveEvery, "checkpoint every N steps")
	fs.IntVar(&r.Keep, "keep", r.Keep, "checkpoints kept")
	fs.BoolVar(&r.Restart, "restart", r.Restart, "start over even if -out holds a checkpoint")
	nn.ThreadsFlag(fs, &r.Threads)
}

// Split is where a run's questions come from: the benchmark's train split
// cut into an SFT share and a holdout, the split evaluated during
// training and, for RL, the prompt pool.
type Split struct {
	// On is RLOnHoldout (default) or RLOnTrain: where RL's prompts come
	// from.
	On string `json:"on,omitempty"`
	// Fraction is the SFT share of the train split.
	Fraction float64 `json:"fraction"`
	// Pool, above Fraction, is the SFT share at which RL cuts its pool
	// instead: RL draws from that part of the holdout, the rest is the
	// split DevHeldOut (BenchOptions.RLFraction). 0: the whole holdout.
	Pool float64 `json:"pool,omitempty"`
	// Augment is RL prompts per holdout question (schema-order
	// shuffles, the original included).
	Augment int `json:"augment,omitempty"`
	// DevSplit is evaluated during training ("-" or "": none).
	DevSplit string `json:"dev_split"`
	// General names a split of the same benchmark (BenchOptions.General)
	// whose questions join the train split before it is cut, SFT's share
	// only: the holdout never holds one. Empty: none.
	General string `json:"general,omitempty"`
}

// Flags declares the split evaluated during training.
func (c *Split) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.DevSplit, "dev-split", c.DevSplit, "benchmark split to evaluate on ('-': none)")
	fs.StringVar(&c.General, "general", c.General, "a `split` of general questions on stand-in databases in train's folder (sqlrl bench from-questions), joined to train before the SFT/holdout cut; never in the holdout")
}

// RLFlags declares RL's prompt pool flags.
func (c *Split) RLFlags(fs *flag.FlagSet) {
	c.Flags(fs)
	fs.StringVar(&c.On, "rl-on", c.On, "RL prompts: holdout (questions SFT left out) or train (SFT's own)")
	fs.IntVar(&c.Augment, "augment", c.Augment, "prompts per question: 4 = the recipe's x4 table shuffles, 1 = original schema order only")
}

// Sampling is how RL samples its completions.
type Sampling struct {
	// Prompts per step (default 8) and samples per prompt (K, default 4;
	// at least 2 for dpo, orpo, rloo and grpo, whose signal compares
	// samples of one prompt).
	Prompts int `json:"prompts"`
	K       int `json:"k"`
	// Temperature of sampling (default 1). Only 1 is on-policy, which the
	// policy-gradient losses assume; KTO, DPO and ORPO take the samples
	// as labelled data, so a lower one changes only which samples they
	// learn from.
	Temperature float64 `json:"temperature"`
	// MaxTokens bounds each completion (default DevMaxTokens, the budget
	// evaluation decodes with). A sample cut at the budget is scored as
	// the SQL it is, so a budget below the evaluation's turns correct
	// answers longer than it into negatives.
	MaxTokens int `json:"max_tokens"`
	// Guided samples under the schema guide, as evaluation decodes, each
	// token scored under the model's distribution renormalised over what
	// the guide allowed (the distribution that drew it), so every
	// algorithm stays on-policy.
	Guided bool `json:"guided,omitempty"`
}

// Flags declares the sampling flags.
func (c *Sampling) Flags(fs *flag.FlagSet) {
	fs.IntVar(&c.Prompts, "prompts", c.Prompts, "prompts per step")
	fs.IntVar(&c.K, "k", c.K, "samples per prompt")
	fs.Float64Var(&c.Temperature, "temperature", c.Temperature, "sampling temperature (1: on-policy)")
	fs.IntVar(&c.MaxTokens, "max-tokens", c.MaxTokens, "completion budget of a sample (below the evaluation's, longer correct answers are cut and fail)")
	fs.BoolVar(&c.Guided, "guided", c.Guided, "online: sample under the schema guide, each token scored under the distribution the guide allowed (on-policy)")
}

// Renaming renames the schema's names in RL's sampled prompts, as SFT's
// augmentation does, so that RL does not reward writing the training
// databases' own names by heart. Benchmark data, online only.
type Renaming struct {
	// Rename > 0 renames each name (with RenameText each word of the
	// names, question and evidence included) with this probability,
	// drawn afresh every step; samples are mapped back to the database's
	// names before they are scored.
	Rename     float64 `json:"rename,omitempty"`
	RenameText bool    `json:"rename_text,omitempty"`
	// RenameFamilies renames word by word, one drawn word per word of
	// the schema's names, so that names sharing a word keep sharing one;
	// the question is kept.
	RenameFamilies bool `json:"rename_families,omitempty"`
}

// Flags declares the renaming flags.
func (c *Renaming) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&c.Rename, "rename", c.Rename, "online: rename each schema name of a sampled prompt with this probability, afresh each step (samples are mapped back to be scored)")
	fs.BoolVar(&c.RenameText, "rename-text", c.RenameText, "with -rename: rename the words of the names wherever they occur, question and evidence included")
	fs.BoolVar(&c.RenameFamilies, "rename-families", c.RenameFamilies, "with -rename: rename word by word, so names sharing a word keep sharing one (order_id, order_date -> zub_id, zub_date)")
}

// Algorithm is the RL algorithm and its constants.
type Algorithm struct {
	// Algo is one of Algos.
	Algo string `json:"algo"`
	// Online samples from the current policy at every step; offline
	// trains on a rollouts file (RLOptions.OfflineFile), OfflineAlgos only.
	Online bool `json:"online"`
	// Steps is the number of optimizer steps (default 100).
	Steps int `json:"steps"`
	// Beta is KTO's and DPO's β (default 0.1); ORPOLambda weighs ORPO's
	// odds-ratio term (default 0.1).
	Beta       float64 `json:"beta"`
	ORPOLambda float64 `json:"orpo_lambda,omitempty"`
	// KLCoef is the KL-to-reference coefficient of PPO (per-token reward
	// penalty, default 0.05), GRPO (k3 penalty, default 0.04) and RLOO
	// (reward shaping, default 0); negative means none.
	KLCoef float64 `json:"kl_coef,omitempty"`
	// KTOThreshold makes a sample desirable when its reward reaches it
	// (default the reward's reward.Config.CorrectLevel).
	KTOThreshold float64 `json:"kto_threshold,omitempty"`
	// ClipEps is PPO's and GRPO's ratio clip (default 0.2); Epochs is the
	// number of updates they make on one batch of samples (default 1:
	// on-policy), its log-probs and values recorded before the first.
	ClipEps float64 `json:"clip_eps,omitempty"`
	Epochs  int     `json:"epochs,omitempty"`
	// Gamma and Lambda are PPO's discount and GAE parameter (defaults 1
	// and 0.95); ValueLR is the value head's learning rate (default 1e-3,
	// it learns from scratch), following the policy's schedule shape.
	Gamma   float64 `json:"gamma,omitempty"`
	Lambda  float64 `json:"gae_lambda,omitempty"`
	ValueLR float64 `json:"value_lr,omitempty"`
	// ScoreBatch is the number of sequences per forward pass when a step
	// is scored (default DefaultScoreBatch; a prompt's samples kept
	// together). It bounds memory; float rounding depends on it, so it
	// is part of the fingerprint.
	ScoreBatch int `json:"score_batch,omitempty"`
}

// Flags declares the algorithm's flags but the algorithm, which the
// command names.
func (c *Algorithm) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.Online, "online", c.Online, "sample from the current policy at every step (false: train on -offline; kto, dpo, orpo)")
	fs.IntVar(&c.Steps, "steps", c.Steps, "optimizer steps")
	fs.Float64Var(&c.Beta, "beta", c.Beta, "KTO/DPO beta")
	fs.Float64Var(&c.ORPOLambda, "orpo-lambda", c.ORPOLambda, "ORPO odds-ratio weight")
	fs.Float64Var(&c.KLCoef, "kl-coef", c.KLCoef, "KL-to-reference coefficient: PPO per-token penalty (default 0.05), GRPO k3 (0.04), RLOO reward shaping (0); negative: none")
	fs.Float64Var(&c.KTOThreshold, "kto-threshold", c.KTOThreshold, "reward at or above which a sample is desirable (default: the reward's correct level)")
	fs.Float64Var(&c.ClipEps, "clip-eps", c.ClipEps, "PPO/GRPO ratio clip")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "PPO/GRPO updates per batch of samples")
	fs.Float64Var(&c.Gamma, "gamma", c.Gamma, "PPO discount")
	fs.Float64Var(&c.Lambda, "gae-lambda", c.Lambda, "PPO GAE lambda")
	fs.Float64Var(&c.ValueLR, "value-lr", c.ValueLR, "PPO value head learning rate")
	fs.IntVar(&c.ScoreBatch, "score-batch", c.ScoreBatch, "sequences per forward pass when a step is scored (bounds memory; part of a run's settings)")
}

// ExtraLosses are SFT terms added to RL's loss.
type ExtraLosses struct {
	// SFTWeight, above 0, adds to KTO the mean token NLL of the batch's
	// desirable samples times SFTWeight (AddNLL). KTO only.
	SFTWeight float64 `json:"sft_weight,omitempty"`
	// Replay, above 0, adds to every step the SFT loss of this many
	// examples of the SFT share, renamed as SFT renamed them, times
	// ReplayWeight (default 1): PPO-ptx's mix, to keep what SFT's
	// renaming taught. Benchmark data only.
	Replay       int     `json:"replay,omitempty"`
	ReplayWeight float64 `json:"replay_weight,omitempty"`
	// ReplayAs is how the SFT run that made the start renamed its
	// examples, which replay follows; nil is the recipe's SFT (every
	// example, each name at DefaultRenameEach). Experiments set it from
	// their SFT's settings where those differ, `train ALGO -replay` from
	// -init's (ReplayAsOf).
	ReplayAs *SFTRenaming `json:"replay_as,omitempty"`
	// GoldUnsolved, above 0, adds to a step the SFT loss of the gold SQL
	// of each prompt none of whose samples was correct, under the prompt
	// they saw, times GoldUnsolved: a prompt that gives only negatives
	// gets the answer too (ReLIFT's interleaving). Online only.
	GoldUnsolved float64 `json:"gold_unsolved,omitempty"`
}

// Flags declares the extra losses' flags.
func (c *ExtraLosses) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&c.SFTWeight, "sft-weight", c.SFTWeight, "kto: add the mean token NLL of the desirable samples times this weight (RPO's term)")
	fs.IntVar(&c.Replay, "replay", c.Replay, "add to every step the SFT loss of this many examples of the SFT share, renamed as -init's SFT renamed them (PPO-ptx's mix)")
	fs.Float64Var(&c.ReplayWeight, "replay-weight", c.ReplayWeight, "with -replay: the weight of the replayed examples' mean token NLL")
	fs.Float64Var(&c.GoldUnsolved, "gold-unsolved", c.GoldUnsolved, "online: add the SFT loss of the gold SQL of every prompt none of whose samples was correct, at this weight (0: none)")
}

// RLConfig is what an RL run computes from its start (RLOptions adds where
// it runs and its reward source). LR defaults to 2e-5, a hundredth of
// SFT's: RL fine-tunes on one scalar per completion, a far noisier signal
// than SFT's per-token targets, and the KL to the reference must stay
// small.
type RLConfig struct {
	Algorithm   `json:"algorithm"`
	LoopConfig  `json:"loop"`
	Split       `json:"split"`
	Sampling    `json:"sampling"`
	Renaming    `json:"renaming"`
	ExtraLosses `json:"extra_losses"`
	// Reward is the reward computed in process, and whose correct level
	// is KTO's default threshold.
	Reward reward.Config `json:"reward"`
}

// DefaultRLConfig is the settings `sqlrl train ALGO` starts from.
func DefaultRLConfig(algo string) RLConfig {
	return RLConfig{
		Algorithm: Algorithm{Algo: algo, Online: true, Steps: 100, Beta: 0.1, ORPOLambda: 0.1, ClipEps: 0.2, Epochs: 1,
			Gamma: 1, Lambda: 0.95, ValueLR: 1e-3, ScoreBatch: DefaultScoreBatch},
		LoopConfig:  LoopConfig{LR: 2e-5, WeightDecay: 0.1, Clip: 1, EvalN: 100},
		Split:       Split{On: RLOnHoldout, Augment: 4, DevSplit: "dev"},
		Sampling:    Sampling{Prompts: 8, K: 4, Temperature: 1, MaxTokens: DevMaxTokens},
		ExtraLosses: ExtraLosses{ReplayWeight: 1},
		Reward:      reward.DefaultConfig(),
	}
}

// Flags declares every RL setting's flag but -sft-fraction, which the
// command reads against its start's.
func (c *RLConfig) Flags(fs *flag.FlagSet) {
	c.Algorithm.Flags(fs)
	c.LoopConfig.Flags(fs)
	c.Split.RLFlags(fs)
	c.Sampling.Flags(fs)
	c.Renaming.Flags(fs)
	c.ExtraLosses.Flags(fs)
	c.Reward.Flags(fs)
}

// SFTRenaming renames schema names in SFT's examples so that the model
// learns to copy names from its prompt.
type SFTRenaming struct {
	// Rename is the share of examples renamed (default 1; negative:
	// none), RenameEach the probability that each name of such an example
	// is (default DefaultRenameEach).
	Rename     float64 `json:"rename,omitempty"`
	RenameEach float64 `json:"rename_each,omitempty"`
	// RenameText renames words rather than names, everywhere they occur,
	// question and evidence included, so that the question keeps naming
	// its tables and columns; RenameEach is then the probability per word.
	RenameText bool `json:"rename_text,omitempty"`
	// RenameFamilies renames the names' words, one drawn word per word of
	// the schema, the question kept, so that names sharing a word keep
	// sharing one. Not with RenameText.
	RenameFamilies bool `json:"rename_families,omitempty"`
}

// Flags declares SFT's renaming flags.
func (c *SFTRenaming) Flags(fs *flag.FlagSet) {
	fs.Var(shareValue{&c.Rename}, "rename", "share of examples whose schema names are renamed at random (0: none)")
	fs.Float64Var(&c.RenameEach, "rename-each", c.RenameEach, "probability that each name of such an example is renamed (with -rename-text: each word)")
	fs.BoolVar(&c.RenameText, "rename-text", c.RenameText, "rename the words of the names wherever they occur, question, evidence and descriptions included (databases whose names are the question's words)")
	fs.BoolVar(&c.RenameFamilies, "rename-families", c.RenameFamilies, "rename the names' words, one drawn word per word of the schema, so that names sharing a word keep sharing one; the question kept; not with -rename-text")
}

// SFTConfig is what an SFT run computes. LR defaults to 2e-3.
type SFTConfig struct {
	LoopConfig `json:"loop"`
	Split      `json:"split"`
	// Preset names the model size (nn.Presets); Model, when set, replaces
	// it (its Vocab is filled in). Both are ignored when Run.Init starts
	// the run from a checkpoint.
	Preset string     `json:"preset"`
	Model  *nn.Config `json:"model,omitempty"`
	// VocabSize of the tokenizer trained on the training data (default
	// 2048).
	VocabSize int `json:"vocab"`
	// Epochs over the training data (default 16); MaxSteps > 0 stops
	// earlier.
	Epochs   int `json:"epochs"`
	MaxSteps int `json:"max_steps,omitempty"`
	// BatchSize is sequences per step (default 16).
	BatchSize   int `json:"batch"`
	SFTRenaming `json:"renaming"`
	// PromptLoss > 0 adds the prompt tokens' NLL, weighted by it, to the
	// completion's (normalised by completion tokens): a denser signal that
	// teaches copying sooner. 0 is completion-only SFT.
	PromptLoss float64 `json:"prompt_loss,omitempty"`
	// Group puts up to this many questions on one database in a row, with
	// one draw of renamed names, so that their batch computes the schema
	// part of their prompts once (nn.Batch.Prefix). 1: each question on
	// its own draw; default 8.
	Group int `json:"group,omitempty"`
	// Values links the stored values a question quotes in its prompt
	// (policy.Format.Values); the checkpoint keeps the format, so RL,
	// evaluation and serving read prompts the same way.
	Values bool `json:"values,omitempty"`
	// DescPhrase shows an abbreviated column's readable name alone and
	// leaves out descriptions that only restate the names
	// (policy.Format.DescPhrase; with the format's descriptions).
	DescPhrase bool `json:"desc_phrase,omitempty"`
	// TokenizerOwn trains the tokenizer on the benchmark's own training
	// questions alone, leaving Split.General's out: its pieces then fit
	// the user's database, and the general questions are cut into more
	// tokens instead of the user's.
	TokenizerOwn bool `json:"tokenizer_own,omitempty"`
	// GeneralEach, when positive, trains each epoch on all the
	// benchmark's own training questions and the next this many of a
	// seeded shuffle of Split.General's: fewer steps than all of them
	// every epoch, more distinct general questions than a fixed subset.
	GeneralEach int `json:"general_each,omitempty"`
}

// DefaultSFTConfig is the settings `sqlrl train sft` starts from: the
// recipe of docs/policy.md.
func DefaultSFTConfig() SFTConfig {
	return SFTConfig{LoopConfig: LoopConfig{LR: 2e-3, WeightDecay: 0.1, Clip: 1, EvalN: 100},
		Split: Split{Fraction: dataset.DefaultSFTFraction, DevSplit: "dev"}, Preset: "small", VocabSize: 2048, Epochs: 16,
		BatchSize: 16, SFTRenaming: SFTRenaming{Rename: 1, RenameEach: DefaultRenameEach}, Group: 8}
}

// Flags declares every SFT setting's flag but the model's shape, which
// the command reads against the preset.
func (c *SFTConfig) Flags(fs *flag.FlagSet) {
	c.LoopConfig.Flags(fs)
	c.Split.Flags(fs)
	fs.Float64Var(&c.Fraction, "sft-fraction", c.Fraction, "SFT share of the train split (as in 'sqlrl data prepare')")
	fs.StringVar(&c.Preset, "preset", c.Preset, "model size: "+strings.Join(nn.PresetNames(), ", "))
	fs.IntVar(&c.VocabSize, "vocab", c.VocabSize, "tokenizer vocabulary size")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "passes over the training data")
	fs.IntVar(&c.MaxSteps, "max-steps", c.MaxSteps, "stop after this many steps (0: epochs decide)")
	fs.IntVar(&c.BatchSize, "batch", c.BatchSize, "sequences per step")
	c.SFTRenaming.Flags(fs)
	fs.Float64Var(&c.PromptLoss, "prompt-loss", c.PromptLoss, "weight of an auxiliary NLL on prompt tokens (0: completion-only loss)")
	fs.BoolVar(&c.Values, "values", c.Values, "link the stored values a question quotes in its prompt: \"values: table.column = 'value'\" (compact prompts)")
	fs.BoolVar(&c.DescPhrase, "desc-phrase", c.DescPhrase, "with -descriptions: show an abbreviated column's readable name alone and leave out descriptions that only restate the names")
	fs.BoolVar(&c.TokenizerOwn, "tokenizer-own", c.TokenizerOwn, "with -general: train the tokenizer on the benchmark's own training questions alone, not the general split's")
	fs.IntVar(&c.GeneralEach, "general-each", c.GeneralEach, "with -general: each epoch trains on all the benchmark's own questions and the next this many of a seeded shuffle of the general split's, each met once before any twice (0: all of them every epoch)")
	fs.IntVar(&c.Group, "group", c.Group, "questions on one database trained together on one draw of renamed names, sharing the schema's computation (1: none)")
}

// shareValue is SFTRenaming.Rename as a flag: 0 is none (stored as -1,
// since 0 is the default's zero value).
type shareValue struct{ p *float64 }

func (v shareValue) String() string {
	if v.p == nil || *v.p < 0 {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v shareValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	if f == 0 {
		f = -1
	}
	*v.p = f
	return nil
}

// recordSettings writes a run's settings to its directory (SettingsFile).
func recordSettings(dir string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("train: record settings: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("train: record settings: %w", err)
	}
	path := filepath.Join(dir, SettingsFile)
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("train: record settings: %w", err)
	}
	return nil
}

// AlgoSummary is one line on what algo does, for the commands' help.
func AlgoSummary(algo string) string {
	switch algo {
	case AlgoKTO:
		return "KTO, online on the holdout (the OKTO recipe) or offline"
	case AlgoDPO:
		return "DPO (best vs worst of K samples), online or offline"
	case AlgoORPO:
		return "ORPO (odds ratio, no reference), online or offline"
	case AlgoPPO:
		return "PPO (value head, GAE, KL penalty)"
	case AlgoRLOO:
		return "REINFORCE leave-one-out"
	}
	return "GRPO (group-normalised advantages)"
}

// DefaultRLOptions are `sqlrl train ALGO`'s defaults: DefaultRLConfig's
// settings, a checkpoint every 50 steps, a log line every step.
func DefaultRLOptions(algo string) RLOptions {
	return RLOptions{RLConfig: DefaultRLConfig(algo), Run: Run{Seed: 1, SaveEvery: 50, Keep: 2, Threads: 2, LogEvery: 1}}
}

// Flags declares an RL run's flags: where it lives and starts, its
// rollouts files, its settings (RLConfig.Flags) and the run's (Run.Flags).
func (o *RLOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "run directory (with -sample-only: the rollouts file to write)")
	fs.StringVar(&o.Init, "init", o.Init, "the SFT run or checkpoint to start from (required); also the frozen reference")
	fs.StringVar(&o.OfflineFile, "offline", o.OfflineFile, "rollouts file for -online=false")
	fs.StringVar(&o.RolloutsOut, "rollouts-out", o.RolloutsOut, "also append every scored sample of an online run to this rollouts file")
	o.RLConfig.Flags(fs)
	o.Run.Flags(fs)
}

// DefaultSFTOptions are `sqlrl train sft`'s defaults: DefaultSFTConfig's
// settings, a checkpoint every 200 steps.
func DefaultSFTOptions() SFTOptions {
	return SFTOptions{SFTConfig: DefaultSFTConfig(), Run: Run{Seed: 1, SaveEvery: 200, Keep: 2, Threads: 2}}
}

// Flags declares an SFT run's flags: where it lives and starts, its
// settings (SFTConfig.Flags) and the run's (Run.Flags).
func (o *SFTOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "run directory (required)")
	fs.StringVar(&o.Init, "init", o.Init, "start from this checkpoint or run directory (its prompt format replaces the format flags)")
	o.SFTConfig.Flags(fs)
	o.Run.Flags(fs)
}
