package loss

import "math"

// orpoMaxMean caps a mean log-probability below 0: at m = 0 the odds
// p/(1-p) are infinite. Past the cap (p > 1 - 1e-6) the odds term has no
// gradient, as with a clamp in PyTorch.
const orpoMaxMean = -1e-6

// log1mExp is log(1 - e^m) for m < 0, accurate at both ends (Mächler
// 2012): log(-expm1(m)) near 0, log1p(-e^m) far from it.
func log1mExp(m float64) float64 {
	if m > -math.Ln2 {
		return math.Log(-math.Expm1(m))
	}
	return math.Log1p(-math.Exp(m))
}

// orpoLogOdds is log(p/(1-p)) for p = e^m, m capped at orpoMaxMean, and its
// derivative with respect to m: 1/(1-p) = -1/expm1(m), 0 past the cap.
func orpoLogOdds(m float64) (lo, dlo float64) {
	if m > orpoMaxMean {
		return orpoMaxMean - log1mExp(orpoMaxMean), 0
	}
	return m - log1mExp(m), -1 / math.Expm1(m)
}

// ORPO is the Odds-Ratio Preference Optimization loss (Hong et al.
// 2024, "ORPO: Monolithic Preference Optimization without Reference
// Model"): supervised NLL on the chosen completion plus a log odds-ratio
// penalty, with no reference model, which is why MATS trains its agents
// with it:
//
//	p(y)    = exp(mean token log-prob of y)          (LogProbScorer's Mean)
//	lo(y)   = log(p/(1-p)) = m - log(1 - e^m)
//	L_p     = -m(y_c) + λ (-log σ(lo(y_c) - lo(y_r)))
//	L       = mean over pairs
//	dL/dm_c = (-1 - λ σ(-Δ) / (1-p_c)) / P,  dL/dm_r = λ σ(-Δ) / (1-p_r) / P
//
// log(1-p) is computed as log(-expm1(m)), exact near p = 1. mean holds the
// policy's Mean per sequence of the scored batch; pairs index into it. The
// NLL is the per-token mean of the chosen completion, as in the paper.
// lambda <= 0 means the paper's 0.1.
func ORPO(lambda float64, mean []float64, pairs []Pair) (Grad, error) {
	if lambda <= 0 {
		lambda = 0.1
	}
	n := len(mean)
	if err := checkPairs("orpo", n, pairs); err != nil {
		return Grad{}, err
	}
	g := Grad{DMean: make([]float64, n)}
	P := float64(len(pairs))
	var nll, ratio, acc float64
	for _, p := range pairs {
		mc, mr := mean[p.Chosen], mean[p.Rejected]
		loC, dC := orpoLogOdds(mc)
		loR, dR := orpoLogOdds(mr)
		d := loC - loR
		or := -logSigmoid(d)
		g.Loss += -mc + lambda*or
		w := lambda * sigmoid(-d) / P
		g.DMean[p.Chosen] += -1/P - w*dC
		g.DMean[p.Rejected] += w * dR
		nll -= mc
		ratio += d
		if d > 0 {
			acc++
		}
	}
	g.Loss /= P
	g.Stats = map[string]float64{"pairs": P, "nll": nll / P, "log_odds_ratio": ratio / P, "accuracy": acc / P}
	return g, nil
}
