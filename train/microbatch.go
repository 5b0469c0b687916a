package train

import (
	"slices"

	"github.com/sqlrl/sqlrl/loss"
	"github.com/sqlrl/sqlrl/policy"
)

// DefaultScoreBatch is RLOptions.ScoreBatch's default: sequences per
// forward pass when RL scores a step's samples.
//
// nn keeps, for the Backward that may follow, every layer's activations
// and each head's T x T attention matrix for the whole batch it was given,
// in a workspace sized for the largest batch it has seen; the policy and
// the frozen reference each have one. The small preset's steps (8 prompts
// x 4 samples of ~480 tokens, and KTO's 32 mismatched pairs, which then
// shared no prefix; mismatchedSeqs now shares each group's) scored in one
// pass peaked at 4.0 GB RSS in 20 steps and 5.7 GB in 100; eight
// sequences a pass (two prompts' samples, which still share their
// prompt's pass) peaked at 1.5 GB in the same 20 steps, and
// the workspaces no longer grow with the longest batch a run meets. The
// price is one more forward pass of the policy on all but the last
// micro-batch (update's backward).
const DefaultScoreBatch = 8

// span is a micro-batch: the sequences [lo, hi) of a step's batch.
type span struct{ lo, hi int }

// microBatches cuts seqs into consecutive spans of at most size sequences
// (all of them in one span when size < 1). A group of sequences that
// share a prompt prefix (Sequence.Shared, consecutive, as rlBase.seqs
// builds them) is kept in one span when it fits in one, so that its
// prefix still runs once; a group larger than size is cut, each part
// running the prefix again.
func microBatches(seqs []policy.Sequence, size int) []span {
	if size < 1 || len(seqs) <= size {
		return []span{{0, len(seqs)}}
	}
	var out []span
	lo := 0
	for g := 0; g < len(seqs); {
		e := g + 1
		for e < len(seqs) && sharesPrefix(seqs[e-1], seqs[e]) {
			e++
		}
		// the group [g, e): close the current span if it does not fit
		if e-lo > size && g > lo {
			out = append(out, span{lo, g})
			lo = g
		}
		for e-lo > size {
			out = append(out, span{lo, lo + size})
			lo += size
		}
		g = e
	}
	return append(out, span{lo, len(seqs)})
}

// sharesPrefix says whether b continues a's prompt prefix (the LogProbScorer
// runs such a prefix once for consecutive sequences).
func sharesPrefix(a, b policy.Sequence) bool {
	return a.Shared > 0 && a.Shared == b.Shared && slices.Equal(a.Tokens[:a.Shared], b.Tokens[:b.Shared])
}

// tokenScorer is what scoreChunks needs of a policy.LogProbScorer or a
// policy.ValueScorer.
type tokenScorer interface {
	LogProbs(seqs []policy.Sequence) ([]policy.SeqLogProb, error)
	TokenLogProbs() [][]float32
}

// scored is a batch scored micro-batch by micro-batch: the per-sequence
// log-probs and the per-token ones (and values, for a ValueScorer) copied
// out of the scorer's buffers.
type scored struct {
	lps    []policy.SeqLogProb
	tok    [][]float64
	values [][]float64
}

// scoreChunks scores seqs with sc, the spans one forward pass each, in
// order: the last span's activations are the ones the scorer keeps (its
// Backward applies to them). Each sequence's values are those of a
// forward pass over its span alone; nn computes a sequence independently
// of the others in its batch, so they differ from one pass over the whole
// batch by float rounding only (matrix products blocked by another shape).
func scoreChunks(sc tokenScorer, seqs []policy.Sequence, spans []span) (*scored, error) {
	out := &scored{lps: make([]policy.SeqLogProb, 0, len(seqs)), tok: make([][]float64, 0, len(seqs))}
	vs, _ := sc.(*policy.ValueScorer)
	for _, s := range spans {
		lps, err := sc.LogProbs(seqs[s.lo:s.hi])
		if err != nil {
			return nil, err
		}
		out.lps = append(out.lps, lps...)
		out.tok = append(out.tok, loss.Float64Tokens(sc.TokenLogProbs())...)
		if vs != nil {
			out.values = append(out.values, loss.Float64Tokens(vs.TokenValues())...)
		}
	}
	return out, nil
}

// sliceGrad is g restricted to the sequences [lo, hi), for the Backward
// of that micro-batch. Stats stay with the whole batch's g.
func sliceGrad(g loss.Grad, s span) loss.Grad {
	out := loss.Grad{Loss: g.Loss}
	if g.DSum != nil {
		out.DSum = g.DSum[s.lo:s.hi]
	}
	if g.DMean != nil {
		out.DMean = g.DMean[s.lo:s.hi]
	}
	if g.DTok != nil {
		out.DTok = g.DTok[s.lo:s.hi]
	}
	if g.DValue != nil {
		out.DValue = g.DValue[s.lo:s.hi]
	}
	return out
}

// scorerBackward adds g's gradient into the model behind s, which must
// hold the LogProbs call whose values the loss was computed from.
// Per-token and per-sequence derivatives are folded into one per-token
// derivative when both are present. DValue is not the LogProbScorer's and is
// left to the caller's value head.
func scorerBackward(g loss.Grad, s *policy.LogProbScorer) error {
	if g.DTok == nil {
		return s.Backward(g.DSum, g.DMean)
	}
	return s.BackwardTokens(g.TokenGrads())
}

// valueBackward is scorerBackward for PPO on a policy.ValueScorer: the
// log-prob derivatives (TokenGrads) and DValue go back in one pass.
func valueBackward(g loss.Grad, v *policy.ValueScorer) error {
	var dLogp [][]float32
	if g.DTok != nil {
		dLogp = g.TokenGrads()
	}
	return v.BackwardTokens(dLogp, loss.Float32Tokens(g.DValue))
}
