package policy

import (
	"math"
	"math/rand/v2"
	"slices"
)

// picker chooses tokens under a Constraint.
type picker struct {
	pieces []string // each token's bytes; "" for special tokens
	eot    int32
	banned []bool // specials other than the end token
	seen   []bool
}

func newPicker(p *Policy, V int) *picker {
	k := &picker{pieces: make([]string, V), eot: p.Tok.EOT(), banned: make([]bool, V), seen: make([]bool, V)}
	for i := 0; i < V; i++ {
		if p.Tok.IsSpecial(int32(i)) {
			k.banned[i] = int32(i) != k.eot
			continue
		}
		k.pieces[i] = string(p.Tok.Piece(int32(i)))
	}
	return k
}

func (k *picker) allow(c Constraint, tok int) bool {
	if k.banned[tok] {
		return false
	}
	return c.Allow(k.pieces[tok], int32(tok) == k.eot)
}

// pick is sample restricted to the tokens c accepts: the most likely one
// when temperature is 0, else a draw from softmax(z/temperature) over the
// accepted tokens, within the top-p nucleus of their mass. When c accepts
// nothing the unconstrained choice is made; when it accepts only tokens
// of negligible probability, the likeliest of them. The log-probability returned is
// under the unconstrained softmax(z).
func (k *picker) pick(z []float32, c Constraint, temperature, topP float64, r *rand.Rand, probs []float32, idx []int) (int32, float64) {
	mx := z[0]
	for _, v := range z[1:] {
		if v > mx {
			mx = v
		}
	}
	var lse float64
	for _, v := range z {
		lse += math.Exp(float64(v - mx))
	}
	lse = math.Log(lse) + float64(mx)
	if temperature == 0 {
		clear(k.seen)
		for range z {
			best := -1
			for i, v := range z {
				if !k.seen[i] && (best < 0 || v > z[best]) {
					best = i
				}
			}
			if k.allow(c, best) {
				return int32(best), float64(z[best]) - lse
			}
			k.seen[best] = true
		}
		return sample(z, 0, 1, r, probs, idx)
	}
	inv := 1 / temperature
	var sum float64
	for i, v := range z {
		e := math.Exp(float64(v-mx) * inv)
		probs[i] = float32(e)
		sum += e
	}
	thr := float32(sum * 1e-6)
	cand := idx[:0]
	for i := range probs {
		if probs[i] >= thr {
			cand = append(cand, i)
		}
	}
	slices.SortFunc(cand, func(a, b int) int {
		switch {
		case probs[a] > probs[b]:
			return -1
		case probs[a] < probs[b]:
			return 1
		}
		return a - b
	})
	// Walk down the candidates keeping the accepted ones until their mass
	// reaches top-p of all the accepted mass there could be.
	var kept []int
	var acc, checked float64
	for _, t := range cand {
		if acc > 0 && acc >= topP*(acc+sum-checked) {
			break
		}
		checked += float64(probs[t])
		if k.allow(c, t) {
			kept = append(kept, t)
			acc += float64(probs[t])
		}
	}
	if len(kept) == 0 {
		// what the constraint accepts is below the candidates' threshold:
		// take the likeliest of it
		return k.pick(z, c, 0, 1, r, probs, idx)
	}
	u := r.Float64() * acc
	for _, t := range kept {
		u -= float64(probs[t])
		if u <= 0 {
			return int32(t), float64(z[t]) - lse
		}
	}
	t := kept[len(kept)-1]
	return int32(t), float64(z[t]) - lse
}
