package train

import (
	"fmt"
	"math"

	"github.com/sqlrl/sqlrl/policy"
)

// LossGrad is what every preference / RL loss of this package returns: the
// loss value, its derivative with respect to the policy's log-probabilities
// as policy.Scorer reports them (per sequence Sum or Mean, or per token),
// and diagnostics. The losses are pure functions of log-probabilities and
// rewards, so they are tested by hand and by finite differences without a
// model; Backward hands the derivatives to the Scorer that produced the
// log-probabilities.
type LossGrad struct {
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

// Backward adds the loss's gradient into the model behind s, which must
// hold the LogProbs call whose values the loss was computed from. Per-token
// and per-sequence derivatives are folded into one per-token derivative
// when both are present. DValue is not the Scorer's and is left to the
// caller's value head.
func (g *LossGrad) Backward(s *policy.Scorer) error {
	if g.DTok == nil {
		return s.Backward(g.DSum, g.DMean)
	}
	return s.BackwardTokens(g.TokenGrads())
}

// BackwardValue is Backward for PPO on a policy.ValueScorer: the
// log-prob derivatives (TokenGrads) and DValue go back in one pass.
func (g *LossGrad) BackwardValue(v *policy.ValueScorer) error {
	var dLogp [][]float32
	if g.DTok != nil {
		dLogp = g.TokenGrads()
	}
	return v.BackwardTokens(dLogp, Float32Tokens(g.DValue))
}

// Float64Tokens copies per-token values from a Scorer (TokenLogProbs,
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
// back to a Scorer.
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
// float32 as policy.Scorer.BackwardTokens takes them.
func (g *LossGrad) TokenGrads() [][]float32 {
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

// rlSigmoid is 1/(1+e^-x), without overflow for large |x|.
func rlSigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// rlLogSigmoid is log(sigmoid(x)) = -softplus(-x), exact for large |x|.
func rlLogSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

func rlCheckLens(what string, n int, lens ...int) error {
	for _, l := range lens {
		if l != n {
			return fmt.Errorf("%s: inputs of %d and %d sequences", what, n, l)
		}
	}
	return nil
}

// KTOConfig holds the KTO hyper-parameters.
type KTOConfig struct {
	// Beta scales the implied reward (default 0.1, the paper's).
	Beta float64
	// LambdaD and LambdaU weight desirable and undesirable examples
	// (default 1 each; KTOLambdas picks them for imbalanced data).
	LambdaD, LambdaU float64
}

func (c KTOConfig) withDefaults() KTOConfig {
	if c.Beta == 0 {
		c.Beta = 0.1
	}
	if c.LambdaD == 0 {
		c.LambdaD = 1
	}
	if c.LambdaU == 0 {
		c.LambdaU = 1
	}
	return c
}

// KTOLoss is the Kahneman-Tversky Optimization loss (Ethayarajh et al.
// 2024, "KTO: Model Alignment as Prospect Theoretic Optimization"). It
// needs only a desirable / undesirable label per completion, not pairs,
// which is why the OKTO recipe uses it on imbalanced online samples:
//
//	r_i = logπ(y_i|x_i) - logπ_ref(y_i|x_i)           (sequence sums)
//	z0  = max(0, mean_j [logπ(y_j|x_k(j)) - logπ_ref(y_j|x_k(j))])
//	      over mismatched pairs (completion j scored under another prompt),
//	      detached: no gradient flows through it
//	L_i = λ_D (1 - σ(β(r_i - z0)))   desirable
//	L_i = λ_U (1 - σ(β(z0 - r_i)))   undesirable
//	L   = mean_i L_i
//
// pol and ref are the policy's and reference's Sum per sequence of the
// scored batch, desirable their labels; mmPol and mmRef the Sums of the
// mismatched pairs (any number; none gives z0 = 0). The result's DSum is
// aligned with pol; the mismatched pairs get no gradient.
func KTOLoss(cfg KTOConfig, pol, ref []float64, desirable []bool, mmPol, mmRef []float64) (LossGrad, error) {
	cfg = cfg.withDefaults()
	n := len(pol)
	if err := rlCheckLens("kto", n, len(ref), len(desirable)); err != nil {
		return LossGrad{}, err
	}
	if err := rlCheckLens("kto mismatched pairs", len(mmPol), len(mmRef)); err != nil {
		return LossGrad{}, err
	}
	if n == 0 {
		return LossGrad{}, fmt.Errorf("kto: empty batch")
	}
	var kl float64
	for j := range mmPol {
		kl += mmPol[j] - mmRef[j]
	}
	if len(mmPol) > 0 {
		kl /= float64(len(mmPol))
	}
	z0 := max(0, kl)
	g := LossGrad{DSum: make([]float64, n)}
	var nD, nU, rD, rU float64
	for i := range pol {
		r := pol[i] - ref[i]
		if desirable[i] {
			s := rlSigmoid(cfg.Beta * (r - z0))
			g.Loss += cfg.LambdaD * (1 - s)
			g.DSum[i] = -cfg.LambdaD * cfg.Beta * s * (1 - s) / float64(n)
			nD++
			rD += r
		} else {
			s := rlSigmoid(cfg.Beta * (z0 - r))
			g.Loss += cfg.LambdaU * (1 - s)
			g.DSum[i] = cfg.LambdaU * cfg.Beta * s * (1 - s) / float64(n)
			nU++
			rU += r
		}
	}
	g.Loss /= float64(n)
	g.Stats = map[string]float64{"kl": kl, "z0": z0, "desirable": nD, "undesirable": nU}
	if nD > 0 {
		g.Stats["reward_desirable"] = cfg.Beta * rD / nD
	}
	if nU > 0 {
		g.Stats["reward_undesirable"] = cfg.Beta * rU / nU
	}
	return g, nil
}

// KTOLambdas returns λ_D and λ_U for nD desirable and nU undesirable
// examples so that λ_D nD / (λ_U nU) lies in [1, 4/3], the range the KTO
// paper recommends: without it the majority class dominates the gradient
// (online Text2SQL samples run about 10 wrong to 1 right). The minority
// class is up-weighted, the majority keeps weight 1, as in the paper's
// 1:10 experiments (λ_D in [10, 13.33] with λ_U = 1); the weight moves
// only as far as the nearest end of the range. With a class missing there
// is nothing to balance and both are 1.
func KTOLambdas(nD, nU int) (lambdaD, lambdaU float64) {
	if nD <= 0 || nU <= 0 {
		return 1, 1
	}
	ratio := float64(nD) / float64(nU)
	switch {
	case ratio < 1:
		return 1 / ratio, 1
	case ratio > 4.0/3:
		return 1, 3 * ratio / 4
	}
	return 1, 1
}

// KTOLabels turns K scored samples into KTO labels: desirable iff the
// reward is at least threshold (0.5 makes only a result match desirable
// under 1/0, 1/0.1/0 and 1/0/-1 rewards alike).
func KTOLabels(rewards []float64, threshold float64) []bool {
	out := make([]bool, len(rewards))
	for i, r := range rewards {
		out[i] = r >= threshold
	}
	return out
}

// KTOMismatch pairs each completion with another prompt for KTO's KL
// estimate z0: promptOf[i] is the prompt of batch item i, and the result's
// entry i is the index of the next item (cyclically) whose prompt differs,
// whose prompt completion i is then scored under. Shifting by one, as TRL
// does, would pair most of a group of K samples with their own prompt; the
// next different prompt never does. ok is false when the whole batch has
// one prompt, where no mismatched pair exists.
func KTOMismatch(promptOf []int) (promptItem []int, ok bool) {
	n := len(promptOf)
	out := make([]int, n)
	for i := range n {
		out[i] = -1
		for s := 1; s < n; s++ {
			j := (i + s) % n
			if promptOf[j] != promptOf[i] {
				out[i] = j
				break
			}
		}
		if out[i] < 0 {
			return nil, false
		}
	}
	return out, n > 0
}
