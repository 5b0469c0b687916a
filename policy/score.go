package policy

import (
	"fmt"
	"slices"

	"github.com/sqlrl/sqlrl/nn"
)

// SeqLogProb is the log-probability of one sequence's completion tokens
// (its end token included) under a model.
type SeqLogProb struct {
	Sum  float64 `json:"sum"`
	Mean float64 `json:"mean"`
	// Tokens is the number of completion tokens scored.
	Tokens int `json:"tokens"`
}

// LogProbScorer computes, for a batch of sequences, the sum and mean of the
// completion tokens' log-probabilities under one model, in one forward pass
// over the packed batch, and can then backpropagate a loss on those values
// into the model's gradients. It is the piece every training loss builds
// on:
//
//	SFT:      loss = -Σ sum / Σ tokens
//	DPO/KTO:  r = β(logp_policy - logp_ref) from two Scorers on one batch
//	ORPO:     log-odds of the mean log-probability
//	RLOO/PPO: advantage-weighted log-probabilities
//
// Use one LogProbScorer for the trained policy and another on a frozen copy
// (nn.Model.Clone) for the reference; a LogProbScorer on a model without gradients
// only scores. A LogProbScorer is not safe for concurrent use.
type LogProbScorer struct {
	Model *nn.Model
	batch nn.Batch
	seqOf []int // target -> sequence
	last  []SeqLogProb
	token []float32
}

// NewLogProbScorer returns a scorer for m.
func NewLogProbScorer(m *nn.Model) *LogProbScorer { return &LogProbScorer{Model: m} }

// LogProbs scores seqs, each completion token under its Support when the
// sequence has one. The activations are kept for one Backward call.
func (s *LogProbScorer) LogProbs(seqs []Sequence) ([]SeqLogProb, error) {
	s.batch.Reset()
	s.seqOf = s.seqOf[:0]
	prefix, prefixToks := -1, []int32(nil)
	masked := false
	for i, q := range seqs {
		if q.PromptLen < 1 || q.PromptLen >= len(q.Tokens) {
			return nil, fmt.Errorf("policy: sequence %d: prompt of %d tokens in a sequence of %d (need a prompt and a completion)", i, q.PromptLen, len(q.Tokens))
		}
		if q.Shared < 0 || q.Shared >= q.PromptLen {
			return nil, fmt.Errorf("policy: sequence %d: %d shared tokens in a prompt of %d", i, q.Shared, q.PromptLen)
		}
		if q.Support != nil && len(q.Support) != len(q.Tokens)-q.PromptLen {
			return nil, fmt.Errorf("policy: sequence %d: %d supports for %d completion tokens", i, len(q.Support), len(q.Tokens)-q.PromptLen)
		}
		before := len(s.batch.Rows)
		if q.Shared > 0 {
			if prefix < 0 || !slices.Equal(prefixToks, q.Tokens[:q.Shared]) {
				prefixToks = q.Tokens[:q.Shared]
				s.batch.AddSeq(prefixToks, len(prefixToks), 0) // nothing scored
				prefix = s.batch.NumSeqs() - 1
			}
			s.batch.AddContinuation(prefix, q.Tokens[q.Shared:], q.PromptLen-1-q.Shared, q.PromptLen)
		} else {
			s.batch.AddPrompted(q.Tokens, q.PromptLen)
		}
		for range len(s.batch.Rows) - before {
			s.seqOf = append(s.seqOf, i)
		}
		if q.Support != nil {
			masked = true
		}
	}
	if masked {
		// one entry per row, nil for the sequences without supports
		for _, q := range seqs {
			if q.Support != nil {
				s.batch.Support = append(s.batch.Support, q.Support...)
			} else {
				for range len(q.Tokens) - q.PromptLen {
					s.batch.Support = append(s.batch.Support, nil)
				}
			}
		}
	}
	lp, err := s.Model.Forward(&s.batch)
	if err != nil {
		return nil, err
	}
	s.token = lp
	out := make([]SeqLogProb, len(seqs))
	for t, v := range lp {
		o := &out[s.seqOf[t]]
		o.Sum += float64(v)
		o.Tokens++
	}
	for i := range out {
		out[i].Mean = out[i].Sum / float64(out[i].Tokens)
	}
	s.last = out
	return out, nil
}

// TokenLogProbs returns the per-token log-probabilities of the last
// LogProbs call, completion by completion (for per-token losses such as
// PPO's); the slices alias the scorer's buffers until the next call.
func (s *LogProbScorer) TokenLogProbs() [][]float32 {
	out := make([][]float32, len(s.last))
	t := 0
	for i, q := range s.last {
		out[i] = s.token[t : t+q.Tokens]
		t += q.Tokens
	}
	return out
}

// Backward adds into the model's gradients the gradient of a loss given
// its derivatives with respect to each sequence's Sum and Mean from the
// last LogProbs call (either may be nil).
func (s *LogProbScorer) Backward(dSum, dMean []float64) error {
	if s.last == nil {
		return fmt.Errorf("policy: Backward without LogProbs")
	}
	n := len(s.last)
	if dSum != nil && len(dSum) != n || dMean != nil && len(dMean) != n {
		return fmt.Errorf("policy: gradients for %d/%d sequences, scored %d", len(dSum), len(dMean), n)
	}
	d := make([]float32, len(s.seqOf))
	for t, i := range s.seqOf {
		var g float64
		if dSum != nil {
			g += dSum[i]
		}
		if dMean != nil {
			g += dMean[i] / float64(s.last[i].Tokens)
		}
		d[t] = float32(g)
	}
	s.last = nil
	return s.Model.Backward(d)
}

// BackwardTokens is Backward with a derivative per completion token
// (aligned with TokenLogProbs).
func (s *LogProbScorer) BackwardTokens(dTok [][]float32) error {
	if s.last == nil {
		return fmt.Errorf("policy: Backward without LogProbs")
	}
	d := make([]float32, 0, len(s.seqOf))
	for i, q := range s.last {
		if i >= len(dTok) || len(dTok[i]) != q.Tokens {
			return fmt.Errorf("policy: token gradients do not match sequence %d", i)
		}
		d = append(d, dTok[i]...)
	}
	s.last = nil
	return s.Model.Backward(d)
}
