// Package loss holds the training losses of sqlrl's preference and RL
// objectives as pure functions of log-probabilities, rewards and values:
// KTO, DPO, ORPO, REINFORCE leave-one-out, GRPO (with the k3 KL
// estimator), PPO (with GAE), and the NLL term RPO adds. Each returns its
// value and its derivatives (Grad) with respect to the log-probabilities
// a scorer reports, so it is tested by hand and against finite
// differences without a model; package train samples, scores and hands
// the derivatives back to the model.
package loss

import (
	"fmt"
	"math"
)

// Grad is what every loss of this package returns: the loss value, its
// derivative with respect to the policy's log-probabilities as a scorer
// reports them (per sequence Sum or Mean, or per token; policy.LogProbScorer),
// and diagnostics. Package train hands the derivatives back to the scorer
// that produced the log-probabilities.
type Grad struct {
	Loss float64
	// DSum[i] and DMean[i] are d Loss / d Sum and d Mean of sequence i
	// (nil when the loss does not use them).
	DSum, DMean []float64
	// DTok[i][t] is d Loss / d (log-prob of token t of sequence i).
	DTok [][]float64
	// DValue[i][t] is d Loss / d (value head output at token t of sequence
	// i); PPO only.
	DValue [][]float64
	// Stats are diagnostics for the training log (means over the batch).
	Stats map[string]float64
}

// Float64Tokens copies per-token values from a LogProbScorer (TokenLogProbs,
// TokenValues: float32, aliasing its buffers) into the float64 the losses
// take, so that a loss's sums of many small terms keep their digits.
func Float64Tokens(x [][]float32) [][]float64 {
	if x == nil {
		return nil
	}
	out := make([][]float64, len(x))
	for i, row := range x {
		out[i] = make([]float64, len(row))
		for t, v := range row {
			out[i][t] = float64(v)
		}
	}
	return out
}

// Float32Tokens is the converse of Float64Tokens, for derivatives going
// back to a LogProbScorer.
func Float32Tokens(x [][]float64) [][]float32 {
	if x == nil {
		return nil
	}
	out := make([][]float32, len(x))
	for i, row := range x {
		out[i] = make([]float32, len(row))
		for t, v := range row {
			out[i][t] = float32(v)
		}
	}
	return out
}

// TokenGrads is DTok with DSum and DMean folded in (a sequence's Sum moves
// with each of its tokens' log-probs, its Mean with 1/len of each), in
// float32 as policy.LogProbScorer.BackwardTokens takes them.
func (g *Grad) TokenGrads() [][]float32 {
	out := make([][]float32, len(g.DTok))
	for i, row := range g.DTok {
		var extra float64
		if g.DSum != nil {
			extra += g.DSum[i]
		}
		if g.DMean != nil && len(row) > 0 {
			extra += g.DMean[i] / float64(len(row))
		}
		out[i] = make([]float32, len(row))
		for t, d := range row {
			out[i][t] = float32(d + extra)
		}
	}
	return out
}

// sigmoid is 1/(1+e^-x), without overflow for large |x|.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// logSigmoid is log(sigmoid(x)) = -softplus(-x), exact for large |x|.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

func checkLens(what string, n int, lens ...int) error {
	for _, l := range lens {
		if l != n {
			return fmt.Errorf("%s: inputs of %d and %d sequences", what, n, l)
		}
	}
	return nil
}

// Mean is the mean of xs (0 when empty), for the losses' diagnostics.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
