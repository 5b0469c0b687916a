package loss

import (
	"fmt"
	"math"
)

// PPOConfig holds PPO's hyper-parameters; zero values take the defaults.
type PPOConfig struct {
	// Gamma discounts later rewards (default 1: a completion is one
	// episode with its reward at the end) and Lambda is GAE's bias /
	// variance trade-off (default 0.95).
	Gamma, Lambda float64
	// ClipEps bounds the policy ratio to [1-ClipEps, 1+ClipEps] (default
	// 0.2).
	ClipEps float64
	// KLCoef weighs the per-token KL penalty to the reference in the
	// reward (0: none, and ref may be nil).
	KLCoef float64
	// ValueCoef weighs the value loss (default 0.1). ValueClip bounds how
	// far the new value may move from the rollout's value before the loss
	// stops pulling it (default 0.2; negative: an unclipped value loss).
	ValueCoef, ValueClip float64
	// EntropyCoef weighs an entropy bonus (default 0: none).
	EntropyCoef float64
	// Whiten normalises the advantages over the batch's tokens to mean 0
	// and standard deviation 1 (detached), as most PPO trainers do.
	Whiten bool
}

func (c PPOConfig) withDefaults() PPOConfig {
	if c.Gamma == 0 {
		c.Gamma = 1
	}
	if c.Lambda == 0 {
		c.Lambda = 0.95
	}
	if c.ClipEps <= 0 {
		c.ClipEps = 0.2
	}
	if c.ValueCoef == 0 {
		c.ValueCoef = 0.1
	}
	if c.ValueClip == 0 {
		c.ValueClip = 0.2
	}
	return c
}

// PPORewards are one completion's per-token rewards as in InstructGPT
// (Ouyang et al. 2022): a KL penalty to the reference at every token and
// the sequence's reward on its last token,
//
//	r_t = -klCoef (logπ_old(y_t) - logπ_ref(y_t)) + [t = T-1] reward
//
// from the sampling policy's log-probs: the reward is data, fixed for all
// the PPO epochs over a rollout, not part of the gradient. ref may be nil
// when klCoef is 0.
func PPORewards(oldLp, refLp []float64, reward, klCoef float64) []float64 {
	r := make([]float64, len(oldLp))
	if klCoef != 0 {
		for t := range r {
			r[t] = -klCoef * (oldLp[t] - refLp[t])
		}
	}
	if len(r) > 0 {
		r[len(r)-1] += reward
	}
	return r
}

// GAE is Generalized Advantage Estimation (Schulman et al. 2016,
// "High-Dimensional Continuous Control Using Generalized Advantage
// Estimation") over one completion, the episode ending after its last
// token (V_T = 0):
//
//	δ_t = r_t + γ V_{t+1} - V_t
//	A_t = δ_t + γλ A_{t+1},   R_t = A_t + V_t   (the value target)
func GAE(rewards, values []float64, gamma, lambda float64) (adv, ret []float64) {
	T := len(rewards)
	adv, ret = make([]float64, T), make([]float64, T)
	var next, nextV float64
	for t := T - 1; t >= 0; t-- {
		delta := rewards[t] + gamma*nextV - values[t]
		next = delta + gamma*lambda*next
		adv[t] = next
		ret[t] = next + values[t]
		nextV = values[t]
	}
	return adv, ret
}

// PPO is Proximal Policy Optimization's loss (Schulman et al. 2017,
// "Proximal Policy Optimization Algorithms") for a language model, with
// a value head and GAE advantages:
//
//	r_t, A_t, R_t        PPORewards then GAE on the rollout's values
//	ρ_t   = exp(logπ(y_t) - logπ_old(y_t))
//	ℓπ_t  = -min(ρ_t A_t, clip(ρ_t, 1-ε, 1+ε) A_t)
//	ℓV_t  = ½ max((V_t - R_t)², (V_old,t + clip(V_t - V_old,t, ±c) - R_t)²)
//	ℓH_t  = -ρ_t logπ(y_t)       (entropy estimate, see below)
//	L     = mean_t ℓπ_t + ValueCoef mean_t ℓV_t - EntropyCoef mean_t ℓH_t
//
// Means are over all completion tokens of the batch (each token is a
// timestep). The value loss is CLIPPED (PPO2 / TRL / OpenRLHF) unless
// ValueClip < 0. The LogProbScorer gives only the sampled token's log-prob, not the
// full distribution, so the entropy is the sampled estimate -ρ log π
// whose gradient, -ρ(log π + 1), is unbiased for the entropy's.
//
// newLp are the policy's per-token log-probs (TokenLogProbs), oldLp the
// sampling policy's, refLp the reference's (nil when KLCoef = 0), values the
// value head's outputs now and oldValues at rollout time (for GAE and the
// value clip), rewards one scalar per sequence. DTok is d L / d newLp,
// DValue d L / d values.
func PPO(cfg PPOConfig, newLp, oldLp, refLp, values, oldValues [][]float64, rewards []float64) (Grad, error) {
	cfg = cfg.withDefaults()
	n := len(newLp)
	if err := checkLens("ppo", n, len(rewards)); err != nil {
		return Grad{}, err
	}
	for _, in := range [][][]float64{oldLp, values, oldValues} {
		if err := checkTokens("ppo", newLp, in); err != nil {
			return Grad{}, err
		}
	}
	if cfg.KLCoef != 0 {
		if err := checkTokens("ppo", newLp, refLp); err != nil {
			return Grad{}, err
		}
	}
	adv, ret := make([][]float64, n), make([][]float64, n)
	var ntok, klRef float64
	for i := range newLp {
		var ref []float64
		if refLp != nil {
			ref = refLp[i]
			for t := range ref {
				klRef += oldLp[i][t] - ref[t]
			}
		}
		r := PPORewards(oldLp[i], ref, rewards[i], cfg.KLCoef)
		adv[i], ret[i] = GAE(r, oldValues[i], cfg.Gamma, cfg.Lambda)
		ntok += float64(len(r))
	}
	if ntok == 0 {
		return Grad{}, fmt.Errorf("ppo: no tokens")
	}
	var advMean, advSq float64
	for _, a := range adv {
		for _, x := range a {
			advMean += x
		}
	}
	advMean /= ntok
	for _, a := range adv {
		for _, x := range a {
			advSq += (x - advMean) * (x - advMean)
		}
	}
	advStd := math.Sqrt(advSq / ntok)
	if cfg.Whiten {
		for _, a := range adv {
			for t := range a {
				a[t] = (a[t] - advMean) / (advStd + 1e-8)
			}
		}
	}
	g := Grad{DTok: make([][]float64, n), DValue: make([][]float64, n)}
	var pol, val, ent, clip, akl, retSum float64
	for i, row := range newLp {
		g.DTok[i] = make([]float64, len(row))
		g.DValue[i] = make([]float64, len(row))
		for t, lp := range row {
			l, d, c := clipSurrogate(lp, oldLp[i][t], adv[i][t], cfg.ClipEps)
			pol += l
			if c {
				clip++
			}
			logRho := lp - oldLp[i][t]
			rho := math.Exp(logRho)
			akl += rho - 1 - logRho
			ent += -rho * lp
			d += cfg.EntropyCoef * rho * (lp + 1) // d(-c·(-ρ lp))

			v, vo, R := values[i][t], oldValues[i][t], ret[i][t]
			u := (v - R) * (v - R)
			dv := v - R
			if cfg.ValueClip > 0 {
				vc := vo + min(max(v-vo, -cfg.ValueClip), cfg.ValueClip)
				if cl := (vc - R) * (vc - R); cl > u {
					u, dv = cl, 0
				}
			}
			val += u / 2
			retSum += R
			g.DTok[i][t] = d / ntok
			g.DValue[i][t] = cfg.ValueCoef * dv / ntok
		}
	}
	pol, val, ent = pol/ntok, val/ntok, ent/ntok
	g.Loss = pol + cfg.ValueCoef*val - cfg.EntropyCoef*ent
	g.Stats = map[string]float64{
		"policy_loss": pol, "value_loss": val, "entropy": ent,
		"clipfrac": clip / ntok, "approx_kl": akl / ntok, "kl_ref": klRef / ntok,
		"adv_mean": advMean, "adv_std": advStd, "return": retSum / ntok,
	}
	return g, nil
}
