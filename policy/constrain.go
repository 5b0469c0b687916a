package policy

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DecodeVersion numbers what greedy, guided decoding writes for a given
// checkpoint: the picker's rules and the schema guide's grammar
// (sqlparse.Guide). Bump it with any change that makes a checkpoint write
// different SQL, so that evaluations cached under an older version
// (experiment's runs, keyed by their config) are redone rather than
// compared with new ones: version 1 is the guide of bfe2f08; version 2
// refuses a comma in a WHERE or HAVING condition outside parentheses and
// the start of a comment ("--", "/*"); version 3 wants '(' after IN.
const DecodeVersion = 3

// picker chooses the next token from logits, under a Constraint or none.
// It is the one sampler of Generate, beam search and the Batcher.
type picker struct {
	p      *Policy
	eot    int32
	pieces []string // each token's bytes, "" for specials: filled on first constrained use
	banned []bool   // specials other than the end token
	seen   []bool
	// record asks pick for support and logQ (SampleOptions.Supports);
	// decoding that does not train leaves them unset.
	record bool
	// support is the last pick's support when the constraint refused a
	// token the sampler would otherwise have drawn from (nil: none
	// refused, or no constraint), and logQ the picked token's
	// log-probability at temperature 1 renormalised over it: what
	// nn.Batch.Support scores.
	support []int32
	logQ    float64
}

func newPicker(p *Policy, V int) *picker {
	return &picker{p: p, eot: p.Tok.EOT(), seen: make([]bool, V)}
}

// piece returns token tok's bytes.
func (k *picker) piece(tok int32) string {
	if k.pieces == nil {
		V := len(k.seen)
		k.pieces, k.banned = make([]string, V), make([]bool, V)
		for i := 0; i < V; i++ {
			if k.p.Tok.IsSpecial(int32(i)) {
				k.banned[i] = int32(i) != k.eot
				continue
			}
			k.pieces[i] = string(k.p.Tok.Piece(int32(i)))
		}
	}
	return k.pieces[tok]
}

// allow reports whether c (nil: no constraint) accepts token tok next.
func (k *picker) allow(c Constraint, tok int) bool {
	if c == nil {
		return true
	}
	pc := k.piece(int32(tok))
	return !k.banned[tok] && c.Allow(pc, int32(tok) == k.eot)
}

// logSumExp returns log Σ exp(z).
func logSumExp(z []float32) float64 {
	mx := slices.Max(z)
	var s float64
	for _, v := range z {
		s += math.Exp(float64(v - mx))
	}
	return math.Log(s) + float64(mx)
}

// ranked returns up to n tokens that c accepts, most likely first, looking
// at no more than tries tokens in order of their logits.
func (k *picker) ranked(z []float32, c Constraint, n, tries int) []int {
	clear(k.seen)
	var out []int
	for ; len(out) < n && tries > 0; tries-- {
		best := -1
		for i, v := range z {
			if !k.seen[i] && (best < 0 || v > z[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		k.seen[best] = true
		if k.allow(c, best) {
			out = append(out, best)
		}
	}
	return out
}

// pick draws the next token: the most likely one c accepts (c nil: any)
// when temperature is 0, else a draw from softmax(z/temperature) over the
// accepted tokens, within the top-p nucleus of their mass. When c accepts
// nothing the unconstrained choice is made; when it accepts only tokens of
// negligible probability, the likeliest of them. The log-probability
// returned is under the unconstrained softmax(z); with k.record, k.support
// and k.logQ describe the distribution the token was drawn from (a greedy
// pick is its own support).
func (k *picker) pick(z []float32, c Constraint, temperature, topP float64, r *rand.Rand, probs []float32, idx []int) (int32, float64) {
	lse := logSumExp(z)
	k.support, k.logQ = nil, 0
	if temperature == 0 {
		t := k.ranked(z, c, 1, len(z))
		if len(t) == 0 {
			t = k.ranked(z, nil, 1, 1)
		}
		if k.record {
			k.support = []int32{int32(t[0])}
		}
		return int32(t[0]), float64(z[t[0]]) - lse
	}
	mx := slices.Max(z)
	inv := 1 / temperature
	var sum float64
	for i, v := range z {
		e := math.Exp(float64(v-mx) * inv)
		probs[i] = float32(e)
		sum += e
	}
	if c == nil && topP >= 1 { // the whole distribution: no sorting
		u := r.Float64() * sum
		for i := range z {
			u -= float64(probs[i])
			if u <= 0 {
				k.logQ = float64(z[i]) - lse
				return int32(i), k.logQ
			}
		}
		k.logQ = float64(z[len(z)-1]) - lse
		return int32(len(z) - 1), k.logQ
	}
	// candidates above a tiny threshold, most likely first
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
	refused := false
	for _, t := range cand {
		if acc > 0 && acc >= topP*(acc+sum-checked) {
			break
		}
		checked += float64(probs[t])
		if k.allow(c, t) {
			kept = append(kept, t)
			acc += float64(probs[t])
		} else {
			refused = true
		}
	}
	if len(kept) == 0 {
		// what the constraint accepts is below the candidates' threshold:
		// take the likeliest of it
		return k.pick(z, c, 0, 1, r, probs, idx)
	}
	u := r.Float64() * acc
	pick := kept[len(kept)-1]
	for _, t := range kept {
		u -= float64(probs[t])
		if u <= 0 {
			pick = t
			break
		}
	}
	// Unless something was refused (or cut by top-p), the draw was from
	// the whole distribution but for tokens under 1e-6 of it: no support.
	k.logQ = float64(z[pick]) - lse
	if k.record && (refused || len(kept) < len(cand)) {
		k.support = make([]int32, len(kept))
		var mass float64 // of the support at temperature 1
		for i, t := range kept {
			k.support[i] = int32(t)
			mass += math.Exp(float64(z[t] - mx))
		}
		k.logQ = float64(z[pick]-mx) - math.Log(mass)
	}
	return int32(pick), float64(z[pick]) - lse
}
