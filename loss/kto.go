package loss

import "fmt"

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

// KTO is the Kahneman-Tversky Optimization loss (Ethayarajh et al.
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
func KTO(cfg KTOConfig, pol, ref []float64, desirable []bool, mmPol, mmRef []float64) (Grad, error) {
	cfg = cfg.withDefaults()
	n := len(pol)
	if err := checkLens("kto", n, len(ref), len(desirable)); err != nil {
		return Grad{}, err
	}
	if err := checkLens("kto mismatched pairs", len(mmPol), len(mmRef)); err != nil {
		return Grad{}, err
	}
	if n == 0 {
		return Grad{}, fmt.Errorf("kto: empty batch")
	}
	var kl float64
	for j := range mmPol {
		kl += mmPol[j] - mmRef[j]
	}
	if len(mmPol) > 0 {
		kl /= float64(len(mmPol))
	}
	z0 := max(0, kl)
	g := Grad{DSum: make([]float64, n)}
	var nD, nU, rD, rU float64
	for i := range pol {
		r := pol[i] - ref[i]
		if desirable[i] {
			s := sigmoid(cfg.Beta * (r - z0))
			g.Loss += cfg.LambdaD * (1 - s)
			g.DSum[i] = -cfg.LambdaD * cfg.Beta * s * (1 - s) / float64(n)
			nD++
			rD += r
		} else {
			s := sigmoid(cfg.Beta * (z0 - r))
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
// (online Text2SQL samples are mostly wrong). The minority class is
// up-weighted, the majority keeps weight 1, as in the paper's 1:10
// experiments (λ_D in [10, 13.33] with λ_U = 1); the weight moves
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
