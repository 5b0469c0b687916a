package policy

import (
	"fmt"
	"path/filepath"

	"github.com/sqlrl/sqlrl/nn"
)

// Files of a value head inside a checkpoint directory, written next to
// model.bin by a PPO trainer (SaveValueHead): a checkpoint without them is
// a policy without a critic, which every other command ignores.
const (
	FileValue          = "value.bin"
	FileValueOptimizer = "value_optimizer.bin"
)

// ValueScorer is a LogProbScorer with a value head (PPO's critic) on the same
// forward pass: LogProbs scores the completions and computes, for each
// completion token, the value of the state in which it was chosen
// (TokenValues, aligned with TokenLogProbs), and BackwardTokens
// backpropagates per-token derivatives of the policy loss and of the value
// loss in one pass through the model.
//
// With Trunk the value loss also trains the shared transformer; without it
// only the head learns from it (the trunk then needs no gradients for the
// value loss alone). A ValueScorer is not safe for concurrent use.
type ValueScorer struct {
	Scorer *LogProbScorer
	Head   *nn.ValueHead
	Trunk  bool
	values []float32
}

// NewValueScorer returns a value scorer for m and head.
func NewValueScorer(m *nn.Model, head *nn.ValueHead) *ValueScorer {
	return &ValueScorer{Scorer: NewLogProbScorer(m), Head: head}
}

// LogProbs scores seqs as LogProbScorer.LogProbs does and computes their values.
// The activations are kept for one BackwardTokens call.
func (v *ValueScorer) LogProbs(seqs []Sequence) ([]SeqLogProb, error) {
	out, err := v.Scorer.LogProbs(seqs)
	if err != nil {
		return nil, err
	}
	v.values, err = v.Head.Forward(v.Scorer.Model)
	if err != nil {
		v.Scorer.last = nil
		return nil, fmt.Errorf("policy: values: %w", err)
	}
	return out, nil
}

// TokenLogProbs is LogProbScorer.TokenLogProbs.
func (v *ValueScorer) TokenLogProbs() [][]float32 { return v.Scorer.TokenLogProbs() }

// TokenValues returns the value of each completion token's state from the
// last LogProbs call, completion by completion, aligned with
// TokenLogProbs: entry t is V(s_t), s_t being the prompt and the
// completion's tokens before token t. The slices alias the scorer's
// buffers until the next call.
func (v *ValueScorer) TokenValues() [][]float32 {
	out := make([][]float32, len(v.Scorer.last))
	t := 0
	for i, q := range v.Scorer.last {
		out[i] = v.values[t : t+q.Tokens]
		t += q.Tokens
	}
	return out
}

// BackwardTokens adds into the gradients the gradient of a loss given its
// derivatives with respect to each completion token's log-probability
// (dLogp) and value (dValue), both aligned with TokenLogProbs; either may
// be nil. The value derivative reaches the head and, with Trunk, the
// model, in the same backward pass as the log-probability derivative.
// The model's Backward runs only when there is something to carry into
// it, so a critic-only update on a frozen trunk needs no model gradients.
func (v *ValueScorer) BackwardTokens(dLogp, dValue [][]float32) error {
	s := v.Scorer
	if s.last == nil {
		return fmt.Errorf("policy: Backward without LogProbs")
	}
	// check both before changing any gradient
	for _, d := range []struct {
		name string
		g    [][]float32
	}{{"log-probability", dLogp}, {"value", dValue}} {
		if d.g == nil {
			continue
		}
		for i, q := range s.last {
			if i >= len(d.g) || len(d.g[i]) != q.Tokens {
				return fmt.Errorf("policy: %s gradients do not match sequence %d", d.name, i)
			}
		}
	}
	if dValue != nil {
		flat := make([]float32, 0, len(s.seqOf))
		for i := range s.last {
			flat = append(flat, dValue[i]...)
		}
		if err := v.Head.Backward(flat, v.Trunk); err != nil {
			return fmt.Errorf("policy: value backward: %w", err)
		}
	}
	if dLogp == nil && (dValue == nil || !v.Trunk) {
		s.last = nil
		return nil
	}
	if dLogp == nil {
		dLogp = make([][]float32, len(s.last))
		for i, q := range s.last {
			dLogp[i] = make([]float32, q.Tokens)
		}
	}
	return s.BackwardTokens(dLogp)
}

// SaveValueHead writes a value head into a checkpoint directory (next to
// model.bin) and, when opt is not nil, its optimizer's moments (M then V,
// as optimizer.bin holds the model's; the step count belongs in the
// trainer's state, as the model's does).
func SaveValueHead(dir string, head *nn.ValueHead, opt *nn.AdamW) error {
	path := filepath.Join(dir, FileValue)
	if err := head.Save(path); err != nil {
		return fmt.Errorf("save value head %s: %w", path, err)
	}
	if opt == nil {
		return nil
	}
	path = filepath.Join(dir, FileValueOptimizer)
	if err := nn.SaveFloats(path, append(append([]float32(nil), opt.M...), opt.V...)); err != nil {
		return fmt.Errorf("save value optimizer %s: %w", path, err)
	}
	return nil
}

// LoadValueHead reads the value head of the checkpoint dir names (a
// checkpoint or a run directory, as Load takes) for a model of width dim.
// A checkpoint without one gives an error that matches os.ErrNotExist
// (errors.Is), on which a trainer starts a fresh head.
func LoadValueHead(dir string, dim int) (*nn.ValueHead, error) {
	dir, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	return nn.LoadValueHead(filepath.Join(dir, FileValue), dim)
}

// LoadValueOptimizer fills opt (from the head's NewAdamW) with the moments
// SaveValueHead wrote into the checkpoint dir names.
func LoadValueOptimizer(dir string, opt *nn.AdamW) error {
	dir, err := Resolve(dir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, FileValueOptimizer)
	n := len(opt.M)
	mv, err := nn.LoadFloats(path, 2*n)
	if err != nil {
		return fmt.Errorf("load value optimizer: %w", err)
	}
	copy(opt.M, mv[:n])
	copy(opt.V, mv[n:])
	return nil
}
