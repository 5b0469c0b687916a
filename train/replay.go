package train

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/sqlrl/sqlrl/policy"
)

// replay is RLOptions.Replay: at every RL step, a batch of the SFT share's
// examples, renamed as SFT renames them, whose completion NLL (the SFT
// loss, times ReplayWeight) is added to the RL loss. It is InstructGPT's
// PPO-ptx (Ouyang et al. 2022, eq. 2: the pretraining log-likelihood
// mixed into the RL objective) with SFT's data as the "pretraining" mix.
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
	rn  *renamer
	fit *Fitter
}

// newReplay is the replay of d's SFT share for the policy p, or an error
// when the data has no SFT share to replay or no schemas to rename.
func newReplay(d *Data, p *policy.Policy) (*replay, error) {
	if len(d.Train) == 0 {
		return nil, errors.New("train: replay needs the SFT share's examples (a benchmark's train split); these RL prompts come without it")
	}
	// SFT renames every example (SFTOptions.Rename 1), each name with
	// DefaultRenameEach.
	return &replay{rn: d.trainRenamer(renameByName), fit: completionFitter(p)}, nil
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
		er := rand.New(rand.NewPCG(o.Seed^uint64(step)*0x9e3779b97f4a7c15, 0x7270<<32|uint64(k)))
		pr, c, err := b.d.renderFit(ctx, ex, b.rp.rn, DefaultRenameEach, er, b.rp.fit)
		if err != nil {
			return nil, fmt.Errorf("replay question %d: %w", ex.QuestionID, err)
		}
		seqs = b.appendFitting(seqs, pr, c)
	}
	return seqs, nil
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
