package loss

import (
	"fmt"
	"math"
)

// PenalizeKL returns rewards less coef times each sample's log-ratio to
// the reference, R_i - coef (logπ(y_i) - logπ_ref(y_i)) on sequence sums:
// the KL-to-reference shaping RLOO optionally puts in the reward. It is
// computed from the log-probs at sampling time and is data, not part of
// the gradient.
func PenalizeKL(rewards, pol, ref []float64, coef float64) ([]float64, error) {
	if err := checkLens("kl penalty", len(rewards), len(pol), len(ref)); err != nil {
		return nil, err
	}
	out := make([]float64, len(rewards))
	for i, r := range rewards {
		out[i] = r - coef*(pol[i]-ref[i])
	}
	return out, nil
}

// RLOOAdvantages are REINFORCE leave-one-out advantages (Ahmadian et al.
// 2024, "Back to Basics: Revisiting REINFORCE Style Optimization for
// Learning from Human Feedback in LLMs"): the batch is consecutive groups
// of k samples of one prompt, and each sample's baseline is the mean
// reward of the other k-1,
//
//	A_i = R_i - mean_{j≠i} R_j = k/(k-1) (R_i - mean_j R_j),
//
// an unbiased baseline (it does not depend on y_i) that needs no value
// head.
func RLOOAdvantages(rewards []float64, k int) ([]float64, error) {
	if err := checkGroups("rloo", len(rewards), k); err != nil {
		return nil, err
	}
	out := make([]float64, len(rewards))
	for g := 0; g < len(rewards); g += k {
		var sum float64
		for _, r := range rewards[g : g+k] {
			sum += r
		}
		for i := g; i < g+k; i++ {
			out[i] = rewards[i] - (sum-rewards[i])/float64(k-1)
		}
	}
	return out, nil
}

// RLOO is the REINFORCE loss with given advantages (RLOOAdvantages):
//
//	L = -(1/N) Σ_i A_i logπ(y_i|x_i),   dL/dSum_i = -A_i / N
//
// over the N sequences of the batch, on the sequence SUM of token
// log-probs: REINFORCE's gradient is A ∇log π(y), and log π(y) is the sum;
// a per-token mean would rescale each sample's step by 1/length, favouring
// short wrong answers over long ones (a bias, not a variance reduction).
// The update is on-policy (no ratio): sum holds the policy's Sum per
// sequence as just scored.
func RLOO(sum, adv []float64) (Grad, error) {
	n := len(sum)
	if err := checkLens("rloo", n, len(adv)); err != nil {
		return Grad{}, err
	}
	if n == 0 {
		return Grad{}, fmt.Errorf("rloo: empty batch")
	}
	g := Grad{DSum: make([]float64, n)}
	var absA float64
	for i := range sum {
		g.Loss -= adv[i] * sum[i] / float64(n)
		g.DSum[i] = -adv[i] / float64(n)
		absA += math.Abs(adv[i])
	}
	g.Stats = map[string]float64{"adv_abs": absA / float64(n), "logp": Mean(sum)}
	return g, nil
}

// GRPOAdvantages are group-normalised advantages (Shao et al. 2024,
// "DeepSeekMath", Group Relative Policy Optimization): the batch is
// consecutive groups of k samples of one prompt and
//
//	A_i = (R_i - mean_g R) / (std_g R + eps)
//
// with the sample standard deviation (k-1 in the denominator, as TRL's
// torch.std); eps <= 0 means TRL's 1e-4. A group whose rewards are all
// equal gets zero advantages: it carries no signal.
func GRPOAdvantages(rewards []float64, k int, eps float64) ([]float64, error) {
	if err := checkGroups("grpo", len(rewards), k); err != nil {
		return nil, err
	}
	if eps <= 0 {
		eps = 1e-4
	}
	out := make([]float64, len(rewards))
	for g := 0; g < len(rewards); g += k {
		grp := rewards[g : g+k]
		mean := Mean(grp)
		var ss float64
		for _, r := range grp {
			ss += (r - mean) * (r - mean)
		}
		std := math.Sqrt(ss / float64(k-1))
		for i, r := range grp {
			out[g+i] = (r - mean) / (std + eps)
		}
	}
	return out, nil
}

// GRPOConfig holds GRPO's hyper-parameters.
type GRPOConfig struct {
	// ClipEps bounds the ratio to [1-ClipEps, 1+ClipEps] (default 0.2).
	ClipEps float64
	// Beta weighs the KL penalty to the reference (0: none, and ref may be
	// nil; the paper used 0.04).
	Beta float64
}

// clipSurrogate is PPO's clipped objective at one token, as a loss:
//
//	ρ = exp(new - old),  ℓ = -min(ρ A, clip(ρ, 1-ε, 1+ε) A)
//
// and dℓ/d new: -ρ A where the unclipped term is the min, 0 where the
// clipped one is (A > 0 and ρ > 1+ε, or A < 0 and ρ < 1-ε).
func clipSurrogate(newLp, oldLp, adv, eps float64) (loss, dNew float64, clipped bool) {
	rho := math.Exp(newLp - oldLp)
	if adv > 0 && rho > 1+eps || adv < 0 && rho < 1-eps {
		return -min(max(rho, 1-eps), 1+eps) * adv, 0, true
	}
	return -rho * adv, -rho * adv, false
}

// k3 is Schulman's k3 estimator of KL(π || π_ref) at one token sampled
// from π, and its derivative with respect to newLp:
//
//	x = refLp - newLp,  k3 = e^x - x - 1 >= 0,  dk3/d newLp = 1 - e^x
func k3(newLp, refLp float64) (kl, dNew float64) {
	x := refLp - newLp
	return math.Exp(x) - x - 1, 1 - math.Exp(x)
}

// GRPO is GRPO's per-token loss (Shao et al. 2024): PPO's clipped
// ratio without a value head, each token of sample i taking its
// sequence's advantage adv[i] (GRPOAdvantages), plus β times the k3
// estimator of KL(π || π_ref) (Schulman 2020), unbiased and always >= 0:
//
//	k3_t = π_ref/π - log(π_ref/π) - 1 = e^(ref-new) - (ref-new) - 1
//	ℓ_t  = -min(ρ_t A_i, clip(ρ_t, 1-ε, 1+ε) A_i) + β k3_t
//	L    = (1/N) Σ_i (1/T_i) Σ_t ℓ_t
//
// Normalisation: each sequence's tokens are averaged, then sequences over
// the batch (the paper's), so a long completion weighs as much as a short
// one. newLp are the policy's per-token log-probs (TokenLogProbs), oldLp
// the sampling policy's (nil: on-policy, old = new, so ρ = 1), refLp the
// reference's (nil only with Beta = 0).
func GRPO(cfg GRPOConfig, newLp, oldLp, refLp [][]float64, adv []float64) (Grad, error) {
	if cfg.ClipEps <= 0 {
		cfg.ClipEps = 0.2
	}
	n := len(newLp)
	if err := checkLens("grpo", n, len(adv)); err != nil {
		return Grad{}, err
	}
	if oldLp == nil {
		oldLp = newLp
	}
	if refLp == nil && cfg.Beta != 0 {
		return Grad{}, fmt.Errorf("grpo: a KL penalty without reference log-probs")
	}
	if err := checkTokens("grpo", newLp, oldLp); err != nil {
		return Grad{}, err
	}
	if refLp != nil {
		if err := checkTokens("grpo", newLp, refLp); err != nil {
			return Grad{}, err
		}
	}
	if n == 0 {
		return Grad{}, fmt.Errorf("grpo: empty batch")
	}
	g := Grad{DTok: make([][]float64, n)}
	var kl, clip, toks, surr float64
	for i, row := range newLp {
		if len(row) == 0 {
			return Grad{}, fmt.Errorf("grpo: sequence %d has no tokens", i)
		}
		w := 1 / (float64(n) * float64(len(row)))
		g.DTok[i] = make([]float64, len(row))
		for t, lp := range row {
			l, d, c := clipSurrogate(lp, oldLp[i][t], adv[i], cfg.ClipEps)
			surr += l * w
			if c {
				clip++
			}
			if refLp != nil {
				k, dk := k3(lp, refLp[i][t])
				l += cfg.Beta * k
				d += cfg.Beta * dk
				kl += k * w
			}
			g.Loss += l * w
			g.DTok[i][t] = d * w
			toks++
		}
	}
	g.Stats = map[string]float64{"surrogate": surr, "kl": kl, "clipfrac": clip / toks}
	return g, nil
}

func checkTokens(what string, a, b [][]float64) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s: inputs of %d and %d sequences", what, len(a), len(b))
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return fmt.Errorf("%s: sequence %d: %d and %d tokens", what, i, len(a[i]), len(b[i]))
		}
	}
	return nil
}
