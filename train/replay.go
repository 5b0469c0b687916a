package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/policy"
)

// replay is RLOptions.Replay: at every RL step, a batch of the SFT share's
// examples, renamed as SFT renamed them (ExtraLosses.ReplayAs), whose
// completion NLL (the SFT loss, times ReplayWeight) is added to the RL
// loss. It is InstructGPT's PPO-ptx (Ouyang et al. 2022, eq. 2: the
// pretraining log-likelihood mixed into the RL objective) with SFT's data
// as the "pretraining" mix.
//
// Why: RL's prompts show the holdout databases under their own names, so
// the policy is rewarded for writing those names and for the value and
// column habits of those databases; SFT's renaming had taught it to read
// the names off the prompt instead. On the bundled benchmark KTO lifts
// unseen questions of its own databases and leaves dev's renamed databases
// where they were, with new errors there of a literal put in the wrong
// column (docs/history.md, "Where online KTO's gain is"). Replaying
// renamed SFT examples keeps the reading-the-schema skill under the
// gradient that RL would otherwise let drift.
type replay struct {
	rn *renamer
	// share of the examples renamed (1: all, 0 or less: none) and each
	// name's (or word's) probability in a renamed one: SFT's settings.
	share, each float64
	fit         *Fitter
}

// newReplay is the replay of d's SFT share for the policy p, renamed as
// as says SFT renamed (nil: the recipe's SFT, every example, each name
// at DefaultRenameEach), or an error when the data has no SFT share to
// replay.
func newReplay(d *Data, p *policy.Policy, as *SFTRenaming) (*replay, error) {
	if len(d.Train) == 0 {
		return nil, errors.New("train: replay needs the SFT share's examples (a benchmark's train split); these RL prompts come without it")
	}
	var sft SFTRenaming
	if as != nil {
		sft = *as
	}
	sft = sft.withDefaults()
	mode, err := renameModeFor(sft.RenameText, sft.RenameFamilies)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &replay{rn: d.trainRenamer(mode), share: sft.Rename, each: sft.RenameEach, fit: completionFitter(p)}, nil
}

// ReplayAs is ExtraLosses.ReplayAs for RL from an SFT run renamed as s
// says: nil where s is the recipe's (every example, each name at
// DefaultRenameEach, train's defaults), which replay follows unset, so
// that those runs' settings stay as they were.
func (s SFTRenaming) ReplayAs() *SFTRenaming {
	if s.withDefaults() == (SFTRenaming{}).withDefaults() {
		return nil
	}
	return &s
}

// ReplayAsOf is ExtraLosses.ReplayAs for RL from init (a run directory
// or a checkpoint in one): the renaming of the SFT run that made it, read
// from the run's SettingsFile; from an RL run, that run's own ReplayAs
// (RL after RL replays the first SFT's data). found is false where init
// has no settings (a checkpoint copied out of its run, a shipped base
// model): replay then follows the recipe's SFT.
func ReplayAsOf(init string) (as *SFTRenaming, found bool, err error) {
	ck, err := policy.Resolve(init)
	if err != nil {
		return nil, false, fmt.Errorf("replay: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(ck), SettingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("replay: the renaming of %s: %w", init, err)
	}
	var s struct {
		Algorithm   *json.RawMessage `json:"algorithm"` // present in RL runs' settings only
		Renaming    SFTRenaming      `json:"renaming"`
		ExtraLosses ExtraLosses      `json:"extra_losses"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, false, fmt.Errorf("replay: the renaming of %s: %s: %w", init, filepath.Join(filepath.Dir(ck), SettingsFile), err)
	}
	if s.Algorithm != nil {
		return s.ExtraLosses.ReplayAs, true, nil
	}
	return s.Renaming.ReplayAs(), true, nil
}

// replayStep adds the gradient of ReplayWeight times the mean token NLL
// of step's replayed examples into the policy, and returns that NLL and
// the tokens scored. The examples and their renaming are drawn from
// generators seeded by (Seed, step), so a resumed run replays what the
// killed one would have.
func (b *rlBase) replayStep(ctx context.Context, step int64) (float64, int, error) {
	seqs, err := b.replaySeqs(ctx, step)
	if err != nil || len(seqs) == 0 {
		return 0, 0, err
	}
	return completionStep(b.sc, seqs, b.o.ReplayWeight)
}

// replaySeqs are step's replayed examples, rendered and tokenized; those
// longer than the context are left out.
func (b *rlBase) replaySeqs(ctx context.Context, step int64) ([]policy.Sequence, error) {
	o := &b.o
	rng := newStepRand(o.Seed^0x7265706c6179, step)
	idx := rng.Perm(len(b.d.Train))[:min(o.Replay, len(b.d.Train))]
	var seqs []policy.Sequence
	for k, i := range idx {
		ex := &b.d.Train[i]
		pr, c, err := b.replayExample(ctx, ex, step, k)
		if err != nil {
			return nil, fmt.Errorf("replay question %d: %w", ex.QuestionID, err)
		}
		seqs = b.appendFitting(seqs, pr, c)
	}
	return seqs, nil
}

// replayExample renders ex, step's k-th replayed example, renamed as SFT
// renames its examples, from a generator seeded by (Seed, step, k). With
// every example renamed (the recipe) no draw decides it, so the stream is
// the one replay used before it followed SFT's settings.
func (b *rlBase) replayExample(ctx context.Context, ex *Example, step int64, k int) (string, string, error) {
	er := rand.New(rand.NewPCG(b.o.Seed^uint64(step)*0x9e3779b97f4a7c15, 0x7270<<32|uint64(k)))
	var rng *rand.Rand
	p := 0.0
	if b.rp.share >= 1 || b.rp.share > 0 && er.Float64() < b.rp.share {
		rng, p = er, b.rp.each
	}
	return b.d.renderFit(ctx, ex, b.rp.rn, p, rng, b.rp.fit)
}

// appendFitting appends the sequence of prompt and completion to seqs
// unless it is longer than the model's context, the rule for every SFT
// example an RL step adds (replayed or gold).
func (b *rlBase) appendFitting(seqs []policy.Sequence, prompt, completion string) []policy.Sequence {
	if s := b.pol.Sequence(prompt, completion); len(s.Tokens) <= b.pol.Model.Cfg.MaxSeq {
		seqs = append(seqs, s)
	}
	return seqs
}

// goldStep adds the gradient of GoldUnsolved times the mean token NLL of
// ro's gold answers (RLOptions.GoldUnsolved) into the policy, and returns
// that NLL and the number of golds scored; a gold that does not fit the
// context with its prompt is left out.
func (b *rlBase) goldStep(ro *rollout) (float64, int, error) {
	var seqs []policy.Sequence
	for _, g := range ro.Golds {
		seqs = b.appendFitting(seqs, g.Text, g.SQL)
	}
	if len(seqs) == 0 {
		return 0, 0, nil
	}
	nll, _, err := completionStep(b.sc, seqs, b.o.GoldUnsolved)
	return nll, len(seqs), err
}
