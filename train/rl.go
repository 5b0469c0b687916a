package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/loss"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
)

// RL algorithms (RLOptions.Algo).
const (
	AlgoKTO  = "kto"
	AlgoDPO  = "dpo"
	AlgoORPO = "orpo"
	AlgoPPO  = "ppo"
	AlgoRLOO = "rloo"
	AlgoGRPO = "grpo"
)

// Algos lists the algorithms RL runs; OfflineAlgos those it runs offline
// (from a rollouts file), the preference losses: the policy-gradient ones
// need samples of the current policy.
var (
	Algos        = []string{AlgoKTO, AlgoDPO, AlgoORPO, AlgoPPO, AlgoRLOO, AlgoGRPO}
	OfflineAlgos = []string{AlgoKTO, AlgoDPO, AlgoORPO}
)

// RewardSource scores the K completions of one prompt. reward.Stack (in
// process, the code the reward server runs) and rewardserver.Client (a
// running `sqlrl reward serve`) satisfy it. An error means the prompt has
// no defined reward (its gold fails): RL skips that prompt for the step.
type RewardSource interface {
	ScoreGroup(ctx context.Context, s reward.Sample, completions []string) ([]reward.Score, error)
}

// HealthChecker is a RewardSource that can say, before any work, whether
// it will answer (a remote reward server that is down fails the run at
// once, not at its first step).
type HealthChecker interface {
	Health(ctx context.Context) error
}

// RLOptions configure RL from execution feedback after SFT: the settings
// (RLConfig), where the run lives (Run) and where its rewards come from.
// Run.Init (the SFT run or checkpoint) is required: it starts the policy
// and is the frozen reference.
type RLOptions struct {
	Run
	RLConfig
	// OfflineFile is the rollouts file an offline run trains on
	// (export.ReadRollouts' format).
	OfflineFile string
	// RewardSource scores completions; RewardName names it in the
	// fingerprint and logs (default RLConfig.Reward's kind, or "custom").
	RewardSource RewardSource
	RewardName   string
	// RolloutsOut, when set, receives every scored sample of an online
	// run (export.ReadRollouts' format, plus step), which offline runs
	// can train on. It is appended to: a resumed run repeats the samples
	// of the steps after its checkpoint (the same ones, with their step).
	RolloutsOut string
}

// loop is the loop's share of o.
func (o *RLOptions) loop() LoopOptions {
	return LoopOptions{Run: o.Run, LoopConfig: o.LoopConfig, Settings: o.RLConfig}
}

// correctLevel is the reward of a correct completion under o's reward.
func (o *RLOptions) correctLevel() float64 {
	if o.Reward.Kind == "" {
		return 1
	}
	return o.Reward.CorrectLevel()
}

func (o *RLOptions) defaults() {
	// Unset settings take DefaultRLConfig's values: the one place they
	// are written.
	d := DefaultRLConfig(o.Algo)
	orDefault(&o.LR, d.LR)
	if o.Replay > 0 {
		orDefault(&o.ReplayWeight, d.ReplayWeight)
	}
	orDefault(&o.Steps, d.Steps)
	orDefault(&o.Prompts, d.Prompts)
	orDefault(&o.K, d.K)
	orDefault(&o.Temperature, d.Temperature)
	orDefault(&o.MaxTokens, d.MaxTokens)
	orDefault(&o.On, d.On)
	orDefault(&o.Beta, d.Beta)
	orDefault(&o.ORPOLambda, d.ORPOLambda)
	if o.KLCoef == 0 {
		switch o.Algo {
		case AlgoPPO:
			o.KLCoef = 0.05
		case AlgoGRPO:
			o.KLCoef = 0.04
		}
	}
	if o.KLCoef < 0 {
		o.KLCoef = 0
	}
	if o.KTOThreshold == 0 {
		o.KTOThreshold = o.correctLevel()
	}
	orDefault(&o.ClipEps, d.ClipEps)
	if o.Epochs == 0 || o.Algo != AlgoPPO && o.Algo != AlgoGRPO {
		o.Epochs = d.Epochs
	}
	orDefault(&o.Gamma, d.Gamma)
	orDefault(&o.Lambda, d.Lambda)
	orDefault(&o.ValueLR, d.ValueLR)
	if o.RewardName == "" {
		o.RewardName = "custom"
		if o.Reward.Kind != "" {
			o.RewardName = o.Reward.Kind
		}
	}
	orDefault(&o.ScoreBatch, d.ScoreBatch)
}

// orDefault sets *p to d when *p is its type's zero value.
func orDefault[T comparable](p *T, d T) {
	var zero T
	if *p == zero {
		*p = d
	}
}

// check refuses options that cannot run, before any work.
func (o *RLOptions) check() error {
	if o.Init == "" {
		return errors.New("train: RL starts from an SFT checkpoint (-init)")
	}
	known := false
	for _, a := range Algos {
		known = known || a == o.Algo
	}
	if !known {
		return fmt.Errorf("train: unknown RL algorithm %q", o.Algo)
	}
	if !o.Online {
		ok := false
		for _, a := range OfflineAlgos {
			ok = ok || a == o.Algo
		}
		if !ok {
			return fmt.Errorf("train: %s is online only (it needs samples of the current policy)", o.Algo)
		}
		if o.OfflineFile == "" {
			return errors.New("train: offline RL needs a rollouts file")
		}
	} else if o.RewardSource == nil {
		return errors.New("train: online RL needs a reward")
	}
	if o.K < 1 || o.Prompts < 1 || o.Steps < 1 || o.MaxTokens < 1 || o.Temperature <= 0 || o.Epochs < 1 || o.ScoreBatch < 1 {
		return fmt.Errorf("train: RL needs K, prompts, steps, max tokens, epochs, score batch >= 1 and temperature > 0")
	}
	if o.Rename < 0 || o.Rename > 1 {
		return fmt.Errorf("train: rename probability %v (want 0 to 1)", o.Rename)
	}
	if _, err := renameModeFor(o.RenameText, o.RenameFamilies); err != nil {
		return err
	}
	if (o.RenameText || o.RenameFamilies) && o.Rename == 0 {
		return errors.New("train: rename text or families need a rename probability above 0")
	}
	if o.Rename > 0 && !o.Online {
		return errors.New("train: renaming applies to online samples; an offline file's completions are in its prompts' names")
	}
	if o.SFTWeight < 0 || o.SFTWeight > 0 && o.Algo != AlgoKTO {
		return fmt.Errorf("train: SFT weight %v: a weight of 0 or more, for kto only (ORPO has its own NLL term)", o.SFTWeight)
	}
	if !(o.GoldUnsolved >= 0) || o.GoldUnsolved > 0 && !o.Online {
		return fmt.Errorf("train: gold for unsolved prompts at weight %v: want 0, or a positive weight on an online run (it reads which prompts the step's samples failed)", o.GoldUnsolved)
	}
	if o.Replay < 0 || o.Replay > 0 && !(o.ReplayWeight > 0) {
		return fmt.Errorf("train: replay of %d examples at weight %v: want 0 examples, or some at a positive weight", o.Replay, o.ReplayWeight)
	}
	if o.Online && o.K < 2 && o.Algo != AlgoKTO && o.Algo != AlgoPPO {
		return fmt.Errorf("train: %s compares the samples of a prompt: K = %d (want >= 2)", o.Algo, o.K)
	}
	return nil
}

// RL trains the policy of o.Init with execution feedback (or resumes
// training it from the latest checkpoint in o.Out) and returns the final
// checkpoint. Everything that can be checked is checked before the first
// step: the options, the prompts (an empty holdout), the Init checkpoint
// against the data (its prompt format, its tokenizer on the prompts), and
// a remote reward's health.
//
// # The online step
//
// Step s draws o.Prompts prompts (schema variants included) from the pool
// with a generator seeded by (Seed, s), samples K completions of each
// from the CURRENT policy, seeded by (Seed, s) too, so a resumed run
// repeats the killed one's samples, scores them with o.RewardSource, and applies
// the algorithm's loss to them:
//
//   - kto: desirable iff reward >= KTOThreshold; z0 from each sample
//     scored under the next different prompt of the batch (loss.KTOMismatch);
//     λ_D, λ_U by loss.KTOLambdas on the batch's counts;
//   - dpo, orpo: the best against the worst sample of each prompt;
//   - rloo, grpo: leave-one-out / group-normalised advantages;
//   - ppo: the value head's GAE advantages (the head and its AdamW moments
//     are checkpointed as value.bin and value_optimizer.bin).
//
// Sampling is UNGUIDED by default, at temperature 1 and top-p 1: the
// log-probs a loss uses are the model's own distribution, exactly the one
// that sampled. Guided samples under the schema guide, which renormalises
// over the tokens it allows, and scores each token under that same
// renormalised distribution (RLOptions.Guided, nn.Batch.Support): on
// policy too. Dev evaluation stays guided (LoopOptions.NoGuide), as
// `sqlrl generate` decodes.
//
// The reference is the Init checkpoint, loaded once and frozen. Each
// step's metrics: reward_mean, share_correct, share_truncated (samples
// cut at MaxTokens), share_desirable (kto), kl_ref (mean per token of
// logπ - logπ_ref over the samples), and the time split sample_s,
// reward_s, score_s (forward passes of the policy and the reference) and
// update_s (loss, backward, with the second forward pass of the policy's
// micro-batches but the last (ScoreBatch), and the optimizer step), whose
// sum is the step's time but for the rollout's bookkeeping.
func RL(ctx context.Context, d *Data, o RLOptions) (*Result, error) {
	o.defaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	pool, err := d.RLPrompts(ctx, o.On)
	if err != nil {
		return nil, err
	}
	if o.Rename > 0 && d.TrainPrompter == nil {
		return nil, errors.New("train: renaming needs a benchmark's schemas; these prompts are given as text")
	}
	initCk, _, err := initCheckpoint(o.Init)
	if err != nil {
		return nil, err
	}
	ref, err := policy.LoadSQL(initCk)
	if err != nil {
		return nil, fmt.Errorf("load init %s: %w", initCk, err)
	}
	if err := checkInit(ref, d, pool); err != nil {
		return nil, fmt.Errorf("init %s: %w", initCk, err)
	}
	if h, ok := o.RewardSource.(HealthChecker); ok && o.Online {
		if err := h.Health(ctx); err != nil {
			return nil, err
		}
	}
	var obj Objective
	if o.Online {
		obj = newOnline(d, o, pool, ref)
	} else {
		if obj, err = newOffline(ctx, d, o, pool, ref); err != nil {
			return nil, err
		}
	}
	res, err := Loop(ctx, d, o.loop(), obj)
	if off, ok := obj.(*offline); ok && err == nil {
		res.Skipped = off.left
	}
	return res, err
}

// checkInit refuses a reference (the Init checkpoint) that was trained on
// other prompts than d renders, or whose tokenizer cannot write them.
func checkInit(p *policy.Policy, d *Data, pool []RLPrompt) error {
	if p.Info.Prompt != d.Format {
		return fmt.Errorf("the policy expects prompts %+v, the data is rendered as %+v (another model's checkpoint?)", p.Info.Prompt, d.Format)
	}
	for i := 0; i < len(pool); i += max(1, len(pool)/16) {
		t := pool[i].Text
		if got := p.Tok.Decode(p.Tok.Encode(t)); got != t {
			return fmt.Errorf("its tokenizer does not write question %d's prompt back as it was (another model's checkpoint?)", pool[i].QuestionID)
		}
	}
	return nil
}

// rlBase is what the online and offline objectives share: the policy,
// its scorers, the frozen reference and the pool of prompts.
type rlBase struct {
	d      *Data
	o      RLOptions
	logf   func(string, ...any)
	pool   []RLPrompt
	ptoks  [][]int32 // pool prompts, tokenized (nil: does not fit)
	fits   []int     // pool indices that fit the context
	ref    *policy.Policy
	refSc  *policy.LogProbScorer
	pol    *policy.Policy
	sc     *policy.LogProbScorer
	vs     *policy.ValueScorer // PPO
	head   *nn.ValueHead
	hopt   *nn.AdamW
	hmv    []float32 // the head's AdamW moments, M then V
	hstep  []float32 // the head's AdamW step count
	vsched Schedule
	rn     *renamer // RLOptions.Rename
	rp     *replay  // RLOptions.Replay
}

func (b *rlBase) fingerprint() map[string]string {
	o := &b.o
	f := map[string]string{
		"algo": o.Algo, "online": fmt.Sprint(o.Online), "steps": fmt.Sprint(o.Steps), "prompts": fmt.Sprint(o.Prompts),
		"k": fmt.Sprint(o.K), "temperature": fmt.Sprint(o.Temperature), "max_tokens": fmt.Sprint(o.MaxTokens),
		"rl_on": o.On, "augment": fmt.Sprint(b.d.HoldoutAugment), "pool": fmt.Sprint(len(b.pool)),
		"beta": fmt.Sprint(o.Beta), "orpo_lambda": fmt.Sprint(o.ORPOLambda), "kl_coef": fmt.Sprint(o.KLCoef),
		"kto_threshold": fmt.Sprint(o.KTOThreshold), "clip_eps": fmt.Sprint(o.ClipEps), "epochs": fmt.Sprint(o.Epochs),
		"gamma": fmt.Sprint(o.Gamma), "gae_lambda": fmt.Sprint(o.Lambda), "value_lr": fmt.Sprint(o.ValueLR),
		"reward": o.RewardName, "score_batch": fmt.Sprint(o.ScoreBatch),
	}
	// Only when set: runs from before these options still resume.
	if o.Guided {
		f["guided"] = "true"
	}
	if o.SFTWeight > 0 {
		f["sft_weight"] = fmt.Sprint(o.SFTWeight)
	}
	if o.Replay > 0 {
		f["replay"] = fmt.Sprint(o.Replay)
		f["replay_weight"] = fmt.Sprint(o.ReplayWeight)
		if o.ReplayAs != nil { // only when set: older runs still resume
			rb, _ := json.Marshal(o.ReplayAs)
			f["replay_as"] = string(rb)
		}
	}
	if o.GoldUnsolved > 0 {
		f["gold_unsolved"] = fmt.Sprint(o.GoldUnsolved)
	}
	if o.Rename > 0 {
		f["rename"] = fmt.Sprint(o.Rename)
		if o.RenameText {
			f["rename_text"] = "true"
		}
		if o.RenameFamilies {
			f["rename_families"] = "true"
		}
	}
	if !o.Online {
		f["offline_file"] = o.OfflineFile
	}
	fb, _ := json.Marshal(b.d.Format)
	f["format"] = string(fb)
	for k, v := range b.d.Notes {
		f["data."+k] = v
	}
	return f
}

func (b *rlBase) Steps() int64 { return int64(b.o.Steps) }

// start takes the policy and tokenizes the pool's prompts, leaving out
// those that leave no room for a completion in the model's context.
func (b *rlBase) start(p *policy.Policy) error {
	if p.Info.Prompt != b.d.Format {
		return fmt.Errorf("train: the policy expects prompts %+v, the data is rendered as %+v", p.Info.Prompt, b.d.Format)
	}
	b.pol = p
	b.sc = policy.NewLogProbScorer(p.Model)
	b.refSc = policy.NewLogProbScorer(b.ref.Model)
	b.ptoks = make([][]int32, len(b.pool))
	b.fits = b.fits[:0]
	for i := range b.pool {
		t := p.Tok.Encode(b.pool[i].Text)
		if !b.fitsContext(len(t)) {
			continue
		}
		b.ptoks[i] = t
		b.fits = append(b.fits, i)
	}
	if b.o.Replay > 0 {
		var err error
		if b.rp, err = newReplay(b.d, p, b.o.ReplayAs); err != nil {
			return err
		}
	}
	if len(b.fits) == 0 {
		return fmt.Errorf("train: none of the %d RL prompts fits the model's context of %d tokens with room for a completion", len(b.pool), p.Model.Cfg.MaxSeq)
	}
	if n := len(b.pool) - len(b.fits); n > 0 {
		b.logf("rl: %d of %d prompts do not fit the context and are left out", n, len(b.pool))
	}
	if b.o.Online && b.o.MaxTokens < DevMaxTokens {
		b.logf("rl: samples stop at %d tokens, evaluation's at %d: a correct answer longer than %d is cut and scored as a failure", b.o.MaxTokens, DevMaxTokens, b.o.MaxTokens)
	}
	if b.o.Algo == AlgoPPO {
		return b.startValue(p)
	}
	return nil
}

// fitsContext says whether a prompt of n tokens leaves room in the
// model's context for a completion (up to 32 tokens of it, or MaxTokens
// if fewer): the rule for the pool's prompts and for their renamed
// variants alike.
func (b *rlBase) fitsContext(n int) bool {
	return n > 0 && n+min(b.o.MaxTokens, 32) <= b.pol.Model.Cfg.MaxSeq
}

// startValue puts PPO's value head in place: the Init checkpoint's, if it
// has one, else fresh; its weights and moments are the objective's extra
// tensors, so a resumed run reads them back.
func (b *rlBase) startValue(p *policy.Policy) error {
	dim := p.Model.Cfg.Dim
	head, err := policy.LoadValueHead(b.o.Init, dim)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if head, err = nn.NewValueHead(dim, b.o.Seed); err != nil {
			return err
		}
	}
	head.EnableGrads()
	b.head = head
	b.hopt = head.NewAdamW(b.o.WeightDecay)
	n := len(head.Params)
	b.hmv = make([]float32, 2*n)
	b.hopt.M, b.hopt.V = b.hmv[:n], b.hmv[n:]
	b.hstep = make([]float32, 1)
	b.vs = &policy.ValueScorer{Scorer: b.sc, Head: head}
	b.vsched = Schedule{LR: b.o.ValueLR, MinLRFrac: b.o.MinLRFrac, Warmup: b.o.Warmup, Total: int64(b.o.Steps)}
	return nil
}

// Extra is PPO's value head and its optimizer state, saved with every
// checkpoint under the names policy.LoadValueHead reads.
func (b *rlBase) Extra() map[string][]float32 {
	if b.head == nil {
		return nil
	}
	return map[string][]float32{"value": b.head.Params, "value_optimizer": b.hmv, "value_step": b.hstep}
}

// updateValue moves the value head by its own AdamW at step's rate.
func (b *rlBase) updateValue(step int64) {
	nn.ClipGrads(b.head.Grads, b.o.Clip)
	b.hopt.Step = int64(b.hstep[0])
	b.hopt.Update(b.head.Params, b.head.Grads, b.vsched.At(step))
	b.hstep[0] = float32(b.hopt.Step)
}

// draw picks n distinct pool prompts (among those that fit) for step
// step, from a generator seeded by (Seed, step, what).
func (b *rlBase) draw(step int64, n int, what uint64) []int {
	perm := newStepRand(b.o.Seed^what, step).Perm(len(b.fits))
	n = min(n, len(perm))
	out := make([]int, n)
	for i := range out {
		out[i] = b.fits[perm[i]]
	}
	return out
}

// newStepRand is the generator of a step's draws: the same for the same
// seed and step, whichever process runs the step.
func newStepRand(seed uint64, step int64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(step)))
}

// sample is one scored completion of a rollout.
type sample struct {
	Prompt int `json:"prompt"` // pool index
	// PromptTokens are the prompt's tokens when they are not the pool
	// prompt's (a renamed schema: RLOptions.Rename).
	PromptTokens []int32 `json:"prompt_tokens,omitempty"`
	Completion   string  `json:"completion"`
	Tokens       []int32 `json:"tokens"` // completion tokens, the end token included when it was sampled
	Reward       float64 `json:"reward"`
	Correct      bool    `json:"correct"`
	// Truncated says sampling stopped at RLOptions.MaxTokens, not at the
	// end token.
	Truncated bool `json:"truncated,omitempty"`
	// Desirable is an offline sample's label, when its file gave one.
	Desirable *bool `json:"desirable,omitempty"`
	// Support is each token's support when the guide drew it
	// (RLOptions.Guided: policy.Completion.Support), aligned with Tokens.
	Support [][]int32 `json:"support,omitempty"`
}

// promptGroups are the sizes of ro's runs of samples of one prompt (they
// are consecutive), the groups loss.DPOPairs pairs within.
func promptGroups(ro *rollout) []int {
	var sizes []int
	for g := 0; g < len(ro.Samples); {
		e := g + 1
		for e < len(ro.Samples) && ro.Samples[e].Prompt == ro.Samples[g].Prompt {
			e++
		}
		sizes = append(sizes, e-g)
		g = e
	}
	return sizes
}

// rollout is a step's scored samples, K per prompt, consecutive, with
// what the loss needs from the time they were sampled.
type rollout struct {
	Step    int64    `json:"step"`
	Samples []sample `json:"samples"`
	K       int      `json:"k"`
	// RefTok are the reference's per-token log-probs; OldTok and OldValue
	// the policy's and the value head's at sampling time (set by the
	// first update on the rollout).
	RefTok   [][]float64 `json:"ref_tok"`
	OldTok   [][]float64 `json:"old_tok,omitempty"`
	OldValue [][]float64 `json:"old_value,omitempty"`
	SampleS  float64     `json:"sample_s"`
	RewardS  float64     `json:"reward_s"`
	RefS     float64     `json:"ref_s"` // the reference's forward pass
	Skipped  int         `json:"skipped"`
	// Golds are the gold answers of the prompts none of whose samples was
	// correct (RLOptions.GoldUnsolved), each under the prompt its samples
	// saw.
	Golds []goldAnswer `json:"golds,omitempty"`
}

// goldAnswer is a prompt's gold SQL in the names its prompt shows.
type goldAnswer struct {
	Prompt int    `json:"prompt"` // pool index
	Text   string `json:"text"`   // the prompt as the samples saw it
	SQL    string `json:"sql"`
}

// seqs builds the rollout's sequences from the sampled tokens themselves
// (not a re-tokenization of their text, which could differ): the K
// samples of a prompt share its tokens but the last (Sequence.Shared).
func (b *rlBase) seqs(ro *rollout) []policy.Sequence {
	out := make([]policy.Sequence, len(ro.Samples))
	for i, s := range ro.Samples {
		pt := b.ptoks[s.Prompt]
		if s.PromptTokens != nil {
			pt = s.PromptTokens
		}
		toks := make([]int32, 0, len(pt)+len(s.Tokens))
		toks = append(append(toks, pt...), s.Tokens...)
		out[i] = policy.Sequence{Tokens: toks, PromptLen: len(pt), Support: s.Support}
		if ro.K > 1 && len(pt) > 1 {
			out[i].Shared = len(pt) - 1
		}
	}
	return out
}

// online is the online objective: sample, score, update.
type online struct {
	rlBase
	cur *rollout
	rw  *rolloutWriter
}

func newOnline(d *Data, o RLOptions, pool []RLPrompt, ref *policy.Policy) *online {
	t := &online{rlBase: rlBase{d: d, o: o, pool: pool, ref: ref, logf: func(string, ...any) {}}}
	if o.Rename > 0 {
		mode, _ := renameModeFor(o.RenameText, o.RenameFamilies) // checked by check
		t.rn = d.trainRenamer(mode)
	}
	if o.Progress != nil {
		t.logf = func(f string, a ...any) { fmt.Fprintf(o.Progress, f+"\n", a...) }
	}
	return t
}

func (t *online) Fingerprint() map[string]string { return t.fingerprint() }

func (t *online) String() string {
	return fmt.Sprintf("online %s on %d %s prompts (x%d schema orders), %d prompts x %d samples a step, reward %s",
		t.o.Algo, len(t.pool), t.o.On, t.d.HoldoutAugment, t.o.Prompts, t.o.K, t.o.RewardName)
}

func (t *online) Start(ctx context.Context, p *policy.Policy) error {
	t.cur = nil
	if t.o.RolloutsOut != "" {
		t.rw = &rolloutWriter{path: t.o.RolloutsOut}
	}
	return t.start(p)
}

// rolloutFile is where a rollout reused by later epochs (PPO, GRPO with
// Epochs > 1) waits, so that a run killed between its epochs resumes
// with the samples and old log-probs the killed run had.
func (t *online) rolloutFile(step int64) string {
	return filepath.Join(t.o.Out, "rollouts", fmt.Sprintf("step-%06d.json", step))
}

// Step runs step step: a fresh rollout every Epochs steps, then the
// algorithm's update on it.
func (t *online) Step(ctx context.Context, step int64) (StepStats, error) {
	E := int64(t.o.Epochs)
	r0 := step - step%E
	fresh := step%E == 0
	if t.cur == nil || t.cur.Step != r0 {
		var err error
		if fresh {
			t.cur, err = t.rollout(ctx, r0)
		} else {
			t.cur, err = t.loadRollout(r0)
		}
		if err != nil {
			return StepStats{}, err
		}
	}
	ro := t.cur
	ss, err := t.update(ctx, step, ro, fresh)
	if err != nil {
		return ss, err
	}
	if fresh && E > 1 {
		if err := t.saveRollout(ro); err != nil {
			return ss, err
		}
	}
	if fresh && t.rw != nil {
		if err := t.rw.write(t.pool, ro); err != nil {
			return ss, err
		}
	}
	// A later epoch on the rollout samples nothing: its time is all update.
	ss.Metrics["sample_s"], ss.Metrics["reward_s"] = 0, 0
	if fresh {
		ss.Metrics["sample_s"], ss.Metrics["reward_s"] = ro.SampleS, ro.RewardS
	}
	return ss, nil
}

// rollout samples and scores step step's prompts.
func (t *online) rollout(ctx context.Context, step int64) (*rollout, error) {
	return t.rolloutOf(ctx, step, t.draw(step, t.o.Prompts, 0x726c))
}

// rolloutOf samples K completions of the pool prompts idx with the
// current policy, seeded by (Seed, step), and scores them.
func (t *rlBase) rolloutOf(ctx context.Context, step int64, idx []int) (*rollout, error) {
	o := &t.o
	texts := make([]string, len(idx))
	back := make([]map[string]string, len(idx)) // renamed -> database names
	fwd := make([]map[string]string, len(idx))  // database -> renamed names
	ptoks := make([][]int32, len(idx))
	rng := newStepRand(o.Seed^0x72656e616d65, step)
	for i, j := range idx {
		texts[i] = t.pool[j].Text
		if t.rn == nil {
			continue
		}
		text, m, f, err := t.renamedPrompt(ctx, t.pool[j], rng)
		if err != nil {
			return nil, fmt.Errorf("rl step %d: rename question %d: %w", step, t.pool[j].QuestionID, err)
		}
		toks := t.pol.Tok.Encode(text)
		if m == nil || !t.fitsContext(len(toks)) {
			continue // the pool's prompt, as it is
		}
		texts[i], back[i], fwd[i], ptoks[i] = text, m, f, toks
	}
	start := time.Now()
	so := policy.SampleOptions{N: o.K, Temperature: o.Temperature, TopP: 1,
		MaxTokens: o.MaxTokens, Seed: o.Seed ^ uint64(step)*0x9e3779b97f4a7c15}
	if o.Guided {
		so.Constrain, _ = policy.PromptGuides(texts, t.pol.Info.SQLWords)
		so.Supports = true
	}
	comps, _, err := t.pol.Generate(ctx, texts, so)
	if err != nil {
		return nil, fmt.Errorf("rl step %d: sample: %w", step, err)
	}
	ro := &rollout{Step: step, K: o.K, SampleS: time.Since(start).Seconds()}
	start = time.Now()
	scores := make([][]reward.Score, len(idx))
	errs := make([]error, len(idx))
	// Every prompt's group at once (the reward source bounds its own
	// queries); a failed group is judged below, so none stops the others.
	_ = parallel.For(ctx, len(idx), len(idx), func(ctx context.Context, i int) error {
		ex := t.pool[idx[i]]
		cs := make([]string, len(comps[i]))
		for k, c := range comps[i] {
			cs[k] = renameSQL(c.Text, back[i])
		}
		scores[i], errs[i] = o.RewardSource.ScoreGroup(ctx, reward.Sample{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence, GoldSQL: ex.SQL}, cs)
		return nil
	})
	ro.RewardS = time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eot := t.pol.Tok.EOT()
	for i, j := range idx {
		if errs[i] != nil {
			if errors.Is(errs[i], reward.ErrGold) {
				ro.Skipped++
				t.logf("rl step %d: question %d skipped: %v", step, t.pool[j].QuestionID, errs[i])
				continue
			}
			return nil, fmt.Errorf("rl step %d: reward of question %d: %w", step, t.pool[j].QuestionID, errs[i])
		}
		solved := false
		for _, sc := range scores[i] {
			solved = solved || sc.Class == "correct"
		}
		if !solved && o.GoldUnsolved > 0 {
			ro.Golds = append(ro.Golds, goldAnswer{Prompt: j, Text: texts[i], SQL: renameSQL(t.pool[j].SQL, fwd[i])})
		}
		for k, c := range comps[i] {
			toks := append([]int32(nil), c.Tokens...)
			if c.Finish == "stop" {
				toks = append(toks, eot)
			}
			if len(toks) == 0 {
				toks = append(toks, eot)
			}
			sc := scores[i][k]
			if c.Support != nil && len(c.Support) != len(toks) {
				return nil, fmt.Errorf("rl step %d: question %d: %d sampling supports for %d tokens", step, t.pool[j].QuestionID, len(c.Support), len(toks))
			}
			ro.Samples = append(ro.Samples, sample{Prompt: j, PromptTokens: ptoks[i], Completion: renameSQL(c.Text, back[i]), Tokens: toks,
				Reward: sc.Value, Correct: sc.Class == "correct", Truncated: c.Finish == "length", Support: c.Support})
		}
	}
	if len(ro.Samples) > 0 {
		if err := t.scoreRef(ro); err != nil {
			return nil, err
		}
	}
	return ro, nil
}

// renamedPrompt renders pool prompt p with its schema's names renamed
// (RLOptions.Rename, in its schema order) and returns the map from the
// names the prompt shows back to the database's, lowercased, in which
// every database name the prompt no longer shows maps to a name no table
// has, so that a sample that writes it from memory fails; and the
// renaming itself (lowercased database names to the names shown, as
// SFT renames its golds). Nil maps mean the draw renamed nothing (or two
// names would map back to one).
func (b *rlBase) renamedPrompt(ctx context.Context, p RLPrompt, rng *rand.Rand) (string, map[string]string, map[string]string, error) {
	s, err := b.d.TrainPrompter.Schema(ctx, p.DBID)
	if err != nil {
		return "", nil, nil, err
	}
	if len(p.Permutation.Tables) > 0 {
		if s, err = permuteSchema(s, p.Permutation); err != nil {
			return "", nil, nil, err
		}
	}
	s, m, q, ev := b.rn.rename(s, p.Question, p.Evidence, b.o.Rename, rng)
	if len(m) == 0 {
		return "", nil, nil, nil
	}
	back := make(map[string]string, 2*len(m))
	for old, nw := range m {
		k := strings.ToLower(nw)
		if _, dup := back[k]; dup {
			return "", nil, nil, nil
		}
		back[k] = old
	}
	for old := range m {
		if _, shown := back[old]; !shown {
			back[old] = "renamed_away_" + old
		}
	}
	return b.d.Format.Compact(s, q, ev), back, m, nil
}

// scoreRef sets ro's reference log-probs (RefTok, RefS), micro-batch by
// micro-batch.
func (b *rlBase) scoreRef(ro *rollout) error {
	start := time.Now()
	seqs := b.seqs(ro)
	r, err := scoreChunks(b.refSc, seqs, microBatches(seqs, b.o.ScoreBatch))
	if err != nil {
		return fmt.Errorf("rl step %d: reference: %w", ro.Step, err)
	}
	ro.RefTok = r.tok
	ro.RefS = time.Since(start).Seconds()
	return nil
}

func (t *online) saveRollout(ro *rollout) error {
	path := t.rolloutFile(ro.Step)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(ro)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("save rollout: %w", err)
	}
	// an earlier rollout is needed only until its epochs are checkpointed
	keep := int64(t.o.SaveEvery + 2*t.o.Epochs)
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		var s int64
		if _, err := fmt.Sscanf(e.Name(), "step-%06d.json", &s); err == nil && s+keep < ro.Step {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
	return nil
}

func (t *online) loadRollout(step int64) (*rollout, error) {
	path := t.rolloutFile(step)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("resume: the samples of step %d: %w", step, err)
	}
	var ro rollout
	if err := json.Unmarshal(b, &ro); err != nil {
		return nil, fmt.Errorf("resume: %s: %w", path, err)
	}
	return &ro, nil
}

// update computes the loss on ro and backpropagates it. fresh says this is
// the first update on ro, whose forward pass records the old log-probs.
func (t *rlBase) update(ctx context.Context, step int64, ro *rollout, fresh bool) (StepStats, error) {
	o := &t.o
	ss := StepStats{Metrics: map[string]float64{}}
	n := len(ro.Samples)
	if n == 0 {
		ss.NoUpdate = true
		ss.Metrics["skipped_prompts"] = float64(ro.Skipped)
		ss.Metrics["score_s"], ss.Metrics[MetricUpdateS] = 0, 0
		return ss, nil
	}
	rewards := make([]float64, n)
	var correct, cut float64
	for i, s := range ro.Samples {
		rewards[i] = s.Reward
		if s.Correct {
			correct++
		}
		if s.Truncated {
			cut++
		}
	}
	ss.Metrics["reward_mean"] = loss.Mean(rewards)
	ss.Metrics["share_correct"] = correct / float64(n)
	ss.Metrics["share_truncated"] = cut / float64(n)
	if ro.Skipped > 0 {
		ss.Metrics["skipped_prompts"] = float64(ro.Skipped)
	}
	seqs := t.seqs(ro)
	spans := microBatches(seqs, o.ScoreBatch)
	start := time.Now()
	// KTO's z0 first: the main forward pass must be the last before
	// Backward.
	var mmPol, mmRef []float64
	if o.Algo == AlgoKTO {
		var err error
		if mmPol, mmRef, err = t.mismatched(ro, seqs); err != nil {
			return ss, err
		}
	}
	var pol tokenScorer = t.sc
	if t.vs != nil {
		t.head.ZeroGrads()
		pol = t.vs
	}
	sc, err := scoreChunks(pol, seqs, spans)
	if err != nil {
		return ss, fmt.Errorf("rl step %d: score: %w", step, err)
	}
	lps, newTok, values := sc.lps, sc.tok, sc.values
	if fresh {
		ro.OldTok = newTok
		if values != nil {
			ro.OldValue = values
		}
	}
	sum, mean := make([]float64, n), make([]float64, n)
	refSum := make([]float64, n)
	var kl float64
	for i, lp := range lps {
		sum[i], mean[i] = lp.Sum, lp.Mean
		ss.Tokens += lp.Tokens
		for k, v := range ro.RefTok[i] {
			refSum[i] += v
			kl += ro.OldTok[i][k] - v
		}
	}
	ss.Metrics["kl_ref"] = kl / float64(ss.Tokens)
	ss.Metrics["tokens"] = float64(ss.Tokens)
	ss.Metrics["score_s"] = time.Since(start).Seconds()
	if fresh {
		ss.Metrics["score_s"] += ro.RefS
	}
	start = time.Now()
	var g loss.Grad
	switch o.Algo {
	case AlgoKTO:
		lab := loss.KTOLabels(rewards, o.KTOThreshold-1e-9)
		for i, s := range ro.Samples {
			if s.Desirable != nil {
				lab[i] = *s.Desirable
			}
		}
		var nD int
		for _, l := range lab {
			if l {
				nD++
			}
		}
		ld, lu := loss.KTOLambdas(nD, n-nD)
		ss.Metrics["share_desirable"] = float64(nD) / float64(n)
		g, err = loss.KTO(loss.KTOConfig{Beta: o.Beta, LambdaD: ld, LambdaU: lu}, sum, refSum, lab, mmPol, mmRef)
		if err == nil {
			err = loss.AddNLL(&g, mean, lab, o.SFTWeight)
		}
	case AlgoDPO, AlgoORPO:
		var pairs []loss.Pair
		if pairs, err = loss.DPOPairs(rewards, promptGroups(ro)); err != nil {
			return ss, fmt.Errorf("rl step %d: %w", step, err)
		}
		ss.Metrics["pairs"] = float64(len(pairs))
		if len(pairs) == 0 {
			ss.NoUpdate = true
			ss.Metrics[MetricUpdateS] = 0
			return ss, nil
		}
		if o.Algo == AlgoDPO {
			g, err = loss.DPO(o.Beta, sum, refSum, pairs)
		} else {
			g, err = loss.ORPO(o.ORPOLambda, mean, pairs)
		}
	case AlgoRLOO:
		shaped := rewards
		if o.KLCoef > 0 {
			oldSum := make([]float64, n)
			for i := range oldSum {
				for _, v := range ro.OldTok[i] {
					oldSum[i] += v
				}
			}
			if shaped, err = loss.PenalizeKL(rewards, oldSum, refSum, o.KLCoef); err != nil {
				return ss, err
			}
		}
		adv, aerr := loss.RLOOAdvantages(shaped, o.K)
		if aerr != nil {
			return ss, aerr
		}
		g, err = loss.RLOO(sum, adv)
	case AlgoGRPO:
		adv, aerr := loss.GRPOAdvantages(rewards, o.K, 0)
		if aerr != nil {
			return ss, aerr
		}
		var refTok [][]float64
		if o.KLCoef > 0 {
			refTok = ro.RefTok
		}
		g, err = loss.GRPO(loss.GRPOConfig{ClipEps: o.ClipEps, Beta: o.KLCoef}, newTok, ro.OldTok, refTok, adv)
	case AlgoPPO:
		var refTok [][]float64
		if o.KLCoef > 0 {
			refTok = ro.RefTok
		}
		g, err = loss.PPO(loss.PPOConfig{Gamma: o.Gamma, Lambda: o.Lambda, ClipEps: o.ClipEps, KLCoef: o.KLCoef}, newTok, ro.OldTok, refTok, values, ro.OldValue, rewards)
	}
	if err != nil {
		return ss, fmt.Errorf("rl step %d: %w", step, err)
	}
	if math.IsNaN(g.Loss) || math.IsInf(g.Loss, 0) {
		return ss, fmt.Errorf("rl step %d: %s loss is %v", step, o.Algo, g.Loss)
	}
	if err := t.backward(g, seqs, spans); err != nil {
		return ss, fmt.Errorf("rl step %d: backward: %w", step, err)
	}
	if t.rp != nil {
		nll, ntok, err := t.replayStep(ctx, step)
		if err != nil {
			return ss, fmt.Errorf("rl step %d: %w", step, err)
		}
		ss.Metrics["replay_nll"] = nll
		ss.Metrics["replay_tokens"] = float64(ntok)
		g.Loss += o.ReplayWeight * nll
	}
	if o.GoldUnsolved > 0 {
		nll, n, err := t.goldStep(ro)
		if err != nil {
			return ss, fmt.Errorf("rl step %d: gold of unsolved prompts: %w", step, err)
		}
		ss.Metrics["gold_prompts"] = float64(n)
		ss.Metrics["gold_nll"] = nll
		g.Loss += o.GoldUnsolved * nll
	}
	if t.vs != nil {
		t.updateValue(step)
	}
	ss.Loss = g.Loss
	for k, v := range g.Stats {
		ss.Metrics[o.Algo+"_"+k] = v
	}
	ss.Metrics[MetricUpdateS] = time.Since(start).Seconds()
	return ss, nil
}

// backward adds g's gradient into the policy (and PPO's value head),
// micro-batch by micro-batch: the last span's activations are still in
// the scorer from scoreChunks, the others are forwarded again (the same
// pass on the same weights, so the same values the loss was computed
// from) just before their Backward. Gradients accumulate; the order of
// the spans is fixed, so a step is reproducible.
func (b *rlBase) backward(g loss.Grad, seqs []policy.Sequence, spans []span) error {
	last := len(spans) - 1
	for k := range spans {
		s := spans[last] // the last span first, then the others in order
		if k > 0 {
			s = spans[k-1]
			var err error
			if b.vs != nil {
				_, err = b.vs.LogProbs(seqs[s.lo:s.hi])
			} else {
				_, err = b.sc.LogProbs(seqs[s.lo:s.hi])
			}
			if err != nil {
				return fmt.Errorf("forward again sequences %d-%d: %w", s.lo, s.hi-1, err)
			}
		}
		sg := sliceGrad(g, s)
		var err error
		if b.vs != nil {
			err = valueBackward(sg, b.vs)
		} else {
			err = scorerBackward(sg, b.sc)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mismatched scores each sample of ro under the next different prompt of
// the batch (loss.KTOMismatch), under the policy and the reference, for KTO's
// z0; nil, nil when the batch has one prompt.
func (b *rlBase) mismatched(ro *rollout, seqs []policy.Sequence) (pol, ref []float64, err error) {
	promptOf := make([]int, len(ro.Samples))
	for i, s := range ro.Samples {
		promptOf[i] = s.Prompt
	}
	item, ok := loss.KTOMismatch(promptOf)
	if !ok {
		return nil, nil, nil
	}
	mm := mismatchedSeqs(seqs, item, b.pol.Model.Cfg.MaxSeq)
	spans := microBatches(mm, b.o.ScoreBatch)
	pl, err := scoreChunks(b.sc, mm, spans)
	if err != nil {
		return nil, nil, fmt.Errorf("kto mismatched pairs: %w", err)
	}
	rl, err := scoreChunks(b.refSc, mm, spans)
	if err != nil {
		return nil, nil, fmt.Errorf("kto mismatched pairs (reference): %w", err)
	}
	pol, ref = make([]float64, len(mm)), make([]float64, len(mm))
	for i := range mm {
		pol[i], ref[i] = pl.lps[i].Sum, rl.lps[i].Sum
	}
	return pol, ref, nil
}

// mismatchedSeqs puts each completion i of seqs after the prompt of item
// promptItem[i] (loss.KTOMismatch), cut at maxSeq tokens. The K samples of a
// prompt all take the next prompt's, so consecutive pairs repeat one
// prompt: they are marked Shared as the samples are (rlBase.seqs), and
// the LogProbScorer runs that prompt once for them, not K times (the pairs are
// half of a KTO step's scoring otherwise). A pair whose prompt differs
// from its neighbour's is scored alone: the LogProbScorer compares the tokens.
func mismatchedSeqs(seqs []policy.Sequence, promptItem []int, maxSeq int) []policy.Sequence {
	mm := make([]policy.Sequence, len(seqs))
	for i := range seqs {
		pt := seqs[promptItem[i]].Tokens[:seqs[promptItem[i]].PromptLen]
		comp := seqs[i].Tokens[seqs[i].PromptLen:]
		toks := make([]int32, 0, len(pt)+len(comp))
		toks = append(append(toks, pt...), comp...)
		if len(toks) > maxSeq {
			toks = toks[:maxSeq]
		}
		mm[i] = policy.Sequence{Tokens: toks, PromptLen: len(pt)}
		if len(pt) > 1 && len(toks) > len(pt) {
			mm[i].Shared = len(pt) - 1
		}
		if sup := seqs[i].Support; sup != nil {
			// a guided sample is scored under its own supports here too,
			// so that z0 estimates the KL of the distributions the
			// implied rewards compare
			mm[i].Support = sup[:len(toks)-len(pt)]
		}
	}
	return mm
}

// rolloutWriter appends an online run's scored samples to a rollouts
// file (export.Rollout lines, with the step).
type rolloutWriter struct{ path string }

func (w *rolloutWriter) write(pool []RLPrompt, ro *rollout) error {
	return export.AppendRollouts(w.path, rolloutRecords(pool, ro, ro.Step, true))
}
