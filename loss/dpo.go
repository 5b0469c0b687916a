package loss

import "fmt"

// Pair indexes a preference pair into a scored batch: Chosen is preferred
// over Rejected.
type Pair struct{ Chosen, Rejected int }

// DPO is the Direct Preference Optimization loss (Rafailov et al. 2023,
// "Direct Preference Optimization: Your Language Model is Secretly a Reward
// Model"):
//
//	r(y)  = logπ(y|x) - logπ_ref(y|x)                    (sequence sums)
//	L_p   = -log σ(β (r(y_c) - r(y_r)))
//	L     = mean over pairs
//	dL/dr(y_c) = -β σ(-β Δ) / P,  dL/dr(y_r) = +β σ(-β Δ) / P
//
// pol and ref are the Sums of the scored batch, pairs index into it (a
// sequence may appear in several pairs; its DSum accumulates). beta <= 0
// means the usual 0.1.
func DPO(beta float64, pol, ref []float64, pairs []Pair) (Grad, error) {
	if beta <= 0 {
		beta = 0.1
	}
	n := len(pol)
	if err := checkLens("dpo", n, len(ref)); err != nil {
		return Grad{}, err
	}
	if err := checkPairs("dpo", n, pairs); err != nil {
		return Grad{}, err
	}
	g := Grad{DSum: make([]float64, n)}
	P := float64(len(pairs))
	var acc, margin, rc, rr float64
	for _, p := range pairs {
		c := pol[p.Chosen] - ref[p.Chosen]
		r := pol[p.Rejected] - ref[p.Rejected]
		d := beta * (c - r)
		g.Loss -= logSigmoid(d)
		w := beta * sigmoid(-d) / P
		g.DSum[p.Chosen] -= w
		g.DSum[p.Rejected] += w
		if d > 0 {
			acc++
		}
		margin += d
		rc += beta * c
		rr += beta * r
	}
	g.Loss /= P
	g.Stats = map[string]float64{
		"pairs": P, "accuracy": acc / P, "margin": margin / P,
		"reward_chosen": rc / P, "reward_rejected": rr / P,
	}
	return g, nil
}

func checkPairs(what string, n int, pairs []Pair) error {
	if len(pairs) == 0 {
		return fmt.Errorf("%s: no pairs", what)
	}
	for k, p := range pairs {
		if p.Chosen < 0 || p.Chosen >= n || p.Rejected < 0 || p.Rejected >= n || p.Chosen == p.Rejected {
			return fmt.Errorf("%s: pair %d (%d, %d) out of a batch of %d", what, k, p.Chosen, p.Rejected, n)
		}
	}
	return nil
}

// DPOPairs forms one pair per prompt from its scored samples: the batch is
// consecutive groups of samples of one prompt each, sizes their lengths
// (groups may differ in size), rewards their scores; the pair is the best
// against the worst sample of the group (the first one on ties), as online
// DPO does. A group whose samples all score the same carries no preference
// and gives no pair, nor does a group of one.
func DPOPairs(rewards []float64, sizes []int) ([]Pair, error) {
	var out []Pair
	g := 0
	for _, n := range sizes {
		if n < 0 || g+n > len(rewards) {
			return nil, fmt.Errorf("dpo pairs: groups of %v are not %d samples", sizes, len(rewards))
		}
		best, worst := g, g
		for i := g + 1; i < g+n; i++ {
			if rewards[i] > rewards[best] {
				best = i
			}
			if rewards[i] < rewards[worst] {
				worst = i
			}
		}
		if n > 0 && rewards[best] > rewards[worst] {
			out = append(out, Pair{Chosen: best, Rejected: worst})
		}
		g += n
	}
	if g != len(rewards) {
		return nil, fmt.Errorf("dpo pairs: groups of %v are not %d samples", sizes, len(rewards))
	}
	return out, nil
}

func checkGroups(what string, n, k int) error {
	if k < 2 || n%k != 0 {
		return fmt.Errorf("%s: %d samples are not groups of %d (need k >= 2)", what, n, k)
	}
	return nil
}
