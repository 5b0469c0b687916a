package experiment

import (
	"encoding/json"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/train"
)

// The canonical JSON of a RunConfig (what its ID hashes, and its run's
// config.json) keeps the flat layout the run configs had before their
// settings became package train's grouped RLConfig and SFTConfig: the
// same bytes, so that every cached run keeps its ID. Settings the layout
// did not have come after it, omitted at zero (their default), so that
// configs that leave them alone keep their IDs too.

type configJSON struct {
	Kind      string       `json:"kind"`
	Bench     string       `json:"bench"`
	Seed      uint64       `json:"seed"`
	SplitSeed uint64       `json:"split_seed"`
	Parent    string       `json:"parent,omitempty"`
	SFT       *sftJSON     `json:"sft,omitempty"`
	RL        *rlJSON      `json:"rl,omitempty"`
	Eval      *EvalConfig  `json:"eval,omitempty"`
	Merge     *MergeConfig `json:"merge,omitempty"`
}

// loopJSON is the loop's settings but the learning rate and evaluation,
// which the layout had.
type loopJSON struct {
	MinLRFrac   float64 `json:"min_lr_frac,omitempty"`
	Warmup      int     `json:"warmup,omitempty"`
	WeightDecay float64 `json:"weight_decay,omitempty"`
	Clip        float64 `json:"clip,omitempty"`
	NoGuide     bool    `json:"no_guide,omitempty"`
}

type sftJSON struct {
	Fraction  float64    `json:"fraction"`
	Preset    string     `json:"preset"`
	Model     *nn.Config `json:"model,omitempty"`
	Vocab     int        `json:"vocab"`
	Epochs    int        `json:"epochs"`
	MaxSteps  int        `json:"max_steps,omitempty"`
	Batch     int        `json:"batch"`
	LR        float64    `json:"lr"`
	EvalEvery int        `json:"eval_every"`
	EvalN     int        `json:"eval_n"`
	DevSplit  string     `json:"dev_split"`
	// later settings
	loopJSON
	On           string            `json:"on,omitempty"`
	Pool         float64           `json:"pool,omitempty"`
	Augment      int               `json:"augment,omitempty"`
	Renaming     train.SFTRenaming `json:"renaming,omitzero"`
	PromptLoss   float64           `json:"prompt_loss,omitempty"`
	Group        int               `json:"group,omitempty"`
	Values       bool              `json:"values,omitempty"`
	DescPhrase   bool              `json:"desc_phrase,omitempty"`
	General      string            `json:"general,omitempty"`
	TokenizerOwn bool              `json:"tokenizer_own,omitempty"`
	GeneralEach  int               `json:"general_each,omitempty"`
}

type rlJSON struct {
	Algo           string  `json:"algo"`
	Online         bool    `json:"online"`
	On             string  `json:"on"`
	Fraction       float64 `json:"fraction"`
	Pool           float64 `json:"pool,omitempty"`
	Augment        int     `json:"augment"`
	Reward         string  `json:"reward"`
	Steps          int     `json:"steps"`
	Prompts        int     `json:"prompts"`
	K              int     `json:"k"`
	Temperature    float64 `json:"temperature"`
	MaxTokens      int     `json:"max_tokens"`
	Beta           float64 `json:"beta"`
	LR             float64 `json:"lr"`
	EvalEvery      int     `json:"eval_every"`
	EvalN          int     `json:"eval_n"`
	DevSplit       string  `json:"dev_split"`
	Replay         int     `json:"replay,omitempty"`
	Guided         bool    `json:"guided,omitempty"`
	Rename         float64 `json:"rename,omitempty"`
	RenameFamilies bool    `json:"rename_families,omitempty"`
	ErrorValue     float64 `json:"error_value,omitempty"`
	GoldUnsolved   float64 `json:"gold_unsolved,omitempty"`
	// later settings
	loopJSON
	ORPOLambda   float64            `json:"orpo_lambda,omitempty"`
	KLCoef       float64            `json:"kl_coef,omitempty"`
	KTOThreshold float64            `json:"kto_threshold,omitempty"`
	ClipEps      float64            `json:"clip_eps,omitempty"`
	Epochs       int                `json:"epochs,omitempty"`
	Gamma        float64            `json:"gamma,omitempty"`
	Lambda       float64            `json:"gae_lambda,omitempty"`
	ValueLR      float64            `json:"value_lr,omitempty"`
	ScoreBatch   int                `json:"score_batch,omitempty"`
	RenameText   bool               `json:"rename_text,omitempty"`
	SFTWeight    float64            `json:"sft_weight,omitempty"`
	ReplayWeight float64            `json:"replay_weight,omitempty"`
	ReplayAs     *train.SFTRenaming `json:"replay_as,omitempty"`
	Judge        reward.JudgeConfig `json:"reward_judge,omitzero"`
	ExecScheme   reward.Scheme      `json:"exec_scheme,omitempty"`
	WExec        float64            `json:"w_exec,omitempty"`
	WJudge       float64            `json:"w_judge,omitempty"`
	AskOnMatch   bool               `json:"ask_on_match,omitempty"`
	General      string             `json:"general,omitempty"`
}

func toLoopJSON(c train.LoopConfig) loopJSON {
	return loopJSON{MinLRFrac: c.MinLRFrac, Warmup: c.Warmup, WeightDecay: c.WeightDecay, Clip: c.Clip, NoGuide: c.NoGuide}
}

func (l loopJSON) config(lr float64, evalEvery, evalN int) train.LoopConfig {
	return train.LoopConfig{LR: lr, EvalEvery: evalEvery, EvalN: evalN,
		MinLRFrac: l.MinLRFrac, Warmup: l.Warmup, WeightDecay: l.WeightDecay, Clip: l.Clip, NoGuide: l.NoGuide}
}

func toSFTJSON(s *SFTConfig) *sftJSON {
	if s == nil {
		return nil
	}
	return &sftJSON{Fraction: s.Fraction, Preset: s.Preset, Model: s.Model, Vocab: s.VocabSize, Epochs: s.Epochs, MaxSteps: s.MaxSteps,
		Batch: s.BatchSize, LR: s.LR, EvalEvery: s.EvalEvery, EvalN: s.EvalN, DevSplit: s.DevSplit,
		loopJSON: toLoopJSON(s.LoopConfig), On: s.On, Pool: s.Pool, Augment: s.Augment, Renaming: s.SFTRenaming,
		PromptLoss: s.PromptLoss, Group: s.Group, Values: s.Values, DescPhrase: s.DescPhrase, General: s.General, TokenizerOwn: s.TokenizerOwn, GeneralEach: s.GeneralEach}
}

func (w *sftJSON) config() *SFTConfig {
	if w == nil {
		return nil
	}
	return &SFTConfig{LoopConfig: w.loopJSON.config(w.LR, w.EvalEvery, w.EvalN),
		Split:  train.Split{On: w.On, Fraction: w.Fraction, Pool: w.Pool, Augment: w.Augment, DevSplit: w.DevSplit, General: w.General},
		Preset: w.Preset, Model: w.Model, VocabSize: w.Vocab, Epochs: w.Epochs, MaxSteps: w.MaxSteps, BatchSize: w.Batch,
		SFTRenaming: w.Renaming, PromptLoss: w.PromptLoss, Group: w.Group, Values: w.Values, DescPhrase: w.DescPhrase, TokenizerOwn: w.TokenizerOwn, GeneralEach: w.GeneralEach}
}

func toRLJSON(r *RLConfig) *rlJSON {
	if r == nil {
		return nil
	}
	return &rlJSON{Algo: r.Algo, Online: r.Online, On: r.On, Fraction: r.Fraction, Pool: r.Pool, Augment: r.Augment,
		Reward: r.Reward.Kind, Steps: r.Steps, Prompts: r.Prompts, K: r.K, Temperature: r.Temperature, MaxTokens: r.MaxTokens,
		Beta: r.Beta, LR: r.LR, EvalEvery: r.EvalEvery, EvalN: r.EvalN, DevSplit: r.DevSplit, Replay: r.Replay, Guided: r.Guided,
		Rename: r.Rename, RenameFamilies: r.RenameFamilies, ErrorValue: r.Reward.ErrorValue, GoldUnsolved: r.GoldUnsolved,
		loopJSON: toLoopJSON(r.LoopConfig), ORPOLambda: r.ORPOLambda, KLCoef: r.KLCoef, KTOThreshold: r.KTOThreshold,
		ClipEps: r.ClipEps, Epochs: r.Epochs, Gamma: r.Gamma, Lambda: r.Lambda, ValueLR: r.ValueLR, ScoreBatch: r.ScoreBatch,
		RenameText: r.RenameText, SFTWeight: r.SFTWeight, ReplayWeight: r.ReplayWeight, ReplayAs: r.ReplayAs, Judge: r.Reward.Judging,
		ExecScheme: r.Reward.Scheme, WExec: r.Reward.WExec, WJudge: r.Reward.WJudge, AskOnMatch: r.Reward.AskOnMatch, General: r.General}
}

func (w *rlJSON) config() *RLConfig {
	if w == nil {
		return nil
	}
	return &RLConfig{
		Algorithm: train.Algorithm{Algo: w.Algo, Online: w.Online, Steps: w.Steps, Beta: w.Beta, ORPOLambda: w.ORPOLambda,
			KLCoef: w.KLCoef, KTOThreshold: w.KTOThreshold, ClipEps: w.ClipEps, Epochs: w.Epochs, Gamma: w.Gamma,
			Lambda: w.Lambda, ValueLR: w.ValueLR, ScoreBatch: w.ScoreBatch},
		LoopConfig:  w.loopJSON.config(w.LR, w.EvalEvery, w.EvalN),
		Split:       train.Split{On: w.On, Fraction: w.Fraction, Pool: w.Pool, Augment: w.Augment, DevSplit: w.DevSplit, General: w.General},
		Sampling:    train.Sampling{Prompts: w.Prompts, K: w.K, Temperature: w.Temperature, MaxTokens: w.MaxTokens, Guided: w.Guided},
		Renaming:    train.Renaming{Rename: w.Rename, RenameText: w.RenameText, RenameFamilies: w.RenameFamilies},
		ExtraLosses: train.ExtraLosses{SFTWeight: w.SFTWeight, Replay: w.Replay, ReplayWeight: w.ReplayWeight, ReplayAs: w.ReplayAs, GoldUnsolved: w.GoldUnsolved},
		Reward: reward.Config{Kind: w.Reward, Judging: w.Judge, ErrorValue: w.ErrorValue, Scheme: w.ExecScheme,
			WExec: w.WExec, WJudge: w.WJudge, AskOnMatch: w.AskOnMatch},
	}
}

func (c RunConfig) toJSON() configJSON {
	return configJSON{Kind: c.Kind, Bench: c.Bench, Seed: c.Seed, SplitSeed: c.SplitSeed, Parent: c.Parent,
		SFT: toSFTJSON(c.SFT), RL: toRLJSON(c.RL), Eval: c.Eval, Merge: c.Merge}
}

// MarshalJSON writes c's canonical layout.
func (c RunConfig) MarshalJSON() ([]byte, error) { return json.Marshal(c.toJSON()) }

// UnmarshalJSON reads the canonical layout (a run's config.json).
func (c *RunConfig) UnmarshalJSON(b []byte) error {
	var w configJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = RunConfig{Kind: w.Kind, Bench: w.Bench, Seed: w.Seed, SplitSeed: w.SplitSeed, Parent: w.Parent,
		SFT: w.SFT.config(), RL: w.RL.config(), Eval: w.Eval, Merge: w.Merge}
	return nil
}

// presetJSON is a Preset in the layout reports recorded before the
// settings moved (report.json).
type presetJSON struct {
	Name      string   `json:"name"`
	SFT       *sftJSON `json:"sft"`
	RL        *rlJSON  `json:"rl"`
	EvalN     int      `json:"eval_n"`
	Seeds     []uint64 `json:"seeds"`
	SFT100    bool     `json:"sft100,omitempty"`
	SFT100KTO bool     `json:"sft100_kto,omitempty"`
	Merge     float64  `json:"merge,omitempty"`
	Rounds    int      `json:"kto_rounds,omitempty"`
	Budget    string   `json:"budget"`
}

// MarshalJSON writes p with its run configs in the canonical layout.
func (p Preset) MarshalJSON() ([]byte, error) {
	return json.Marshal(presetJSON{Name: p.Name, SFT: toSFTJSON(&p.SFT), RL: toRLJSON(&p.RL), EvalN: p.EvalN, Seeds: p.Seeds,
		SFT100: p.SFT100, SFT100KTO: p.SFT100KTO, Merge: p.Merge, Rounds: p.Rounds, Budget: p.Budget})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Preset) UnmarshalJSON(b []byte) error {
	var w presetJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Preset{Name: w.Name, EvalN: w.EvalN, Seeds: w.Seeds, SFT100: w.SFT100, SFT100KTO: w.SFT100KTO, Merge: w.Merge,
		Rounds: w.Rounds, Budget: w.Budget}
	if s := w.SFT.config(); s != nil {
		p.SFT = *s
	}
	if r := w.RL.config(); r != nil {
		p.RL = *r
	}
	return nil
}
