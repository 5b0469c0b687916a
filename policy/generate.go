package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// SampleOptions configure Generate.
type SampleOptions struct {
	// N is the number of completions per prompt (default 1).
	N int
	// Temperature 0 is greedy decoding.
	Temperature float64
	// TopP keeps the smallest set of tokens whose probability reaches it
	// (nucleus sampling); 0 or 1 keeps all.
	TopP float64
	// MaxTokens bounds each completion (default 256).
	MaxTokens int
	// Stop strings end a completion (not included in it), as the end token
	// does.
	Stop []string
	// Seed makes sampling reproducible: completion j of prompt i draws
	// from its own generator seeded by (Seed, i, j), whatever the batching.
	Seed uint64
	// Batch is the number of sequences decoded together (default 32).
	Batch int
	// Constrain, when set, gives each completion of prompt i its own
	// constraint (nil: none): decoding then takes the most likely token the
	// constraint accepts, and samples from the accepted part of the
	// distribution (renormalised, top-p applied to it). Reported
	// log-probabilities stay the model's own.
	Constrain func(prompt int) Constraint
	// Beams > 1 decodes by beam search (temperature 0 only): the Beams
	// most likely continuations are kept at each step, and the N most
	// likely finished completions are returned. Under a constraint it finds
	// what greedy decoding misses when the model's first choice is refused
	// and its second leads nowhere. Constraints must then implement
	// CloneConstraint.
	Beams int
}

// A CloneConstraint is a Constraint that can be copied, as beam search
// needs to follow several continuations of one text.
type CloneConstraint interface {
	Constraint
	Clone() Constraint
}

// A Constraint restricts what a completion may say, such as SQL that names
// only one database's tables and columns (sqlparse.Guide). Pieces are the
// tokens' bytes.
type Constraint interface {
	// Allow reports whether piece may come next; with end, whether the
	// completion may end right after it.
	Allow(piece string, end bool) bool
	// Advance commits a piece that Allow accepted.
	Advance(piece string)
}

// Completion is one sampled completion.
type Completion struct {
	Text   string  `json:"text"`
	Tokens []int32 `json:"-"`
	// LogProb is the sum of the sampled tokens' log-probabilities under
	// the model (temperature 1), end token included when emitted.
	LogProb float64 `json:"logprob"`
	// Finish is "stop" (end token or stop string) or "length".
	Finish string `json:"finish_reason"`
}

// Stats counts a Generate call's work.
type Stats struct {
	PromptTokens, CompletionTokens int
}

type job struct {
	prompt, sample int
	rng            *rand.Rand
	out            []int32
	logp           float64
	slot           int
	con            Constraint
}

// Generate samples o.N completions for each prompt, decoding up to o.Batch
// sequences at once with a key/value cache: prompts are prefilled together
// in one pass (once per prompt; its samples copy the cache), then every
// active sequence advances one token per pass, and a finished sequence's
// slot is refilled from the queue at once.
func (p *Policy) Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
	var st Stats
	if o.N <= 0 {
		o.N = 1
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 256
	}
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.TopP <= 0 || o.TopP > 1 {
		o.TopP = 1
	}
	if o.Temperature < 0 {
		return nil, st, errors.New("policy: negative temperature")
	}
	m := p.Model
	V := m.Cfg.Vocab
	maxT := m.Cfg.MaxSeq
	enc := make([][]int32, len(prompts))
	for i, s := range prompts {
		enc[i] = p.Tok.Encode(s)
		if len(enc[i]) == 0 {
			enc[i] = []int32{p.Tok.EOT()}
		}
		if len(enc[i])+1 > maxT {
			return nil, st, fmt.Errorf("policy: prompt %d has %d tokens; the model's context is %d", i, len(enc[i]), maxT)
		}
		st.PromptTokens += len(enc[i])
	}
	if o.Beams > 1 {
		if o.Temperature != 0 {
			return nil, st, errors.New("policy: beam search is for temperature 0")
		}
		if o.N > o.Beams {
			return nil, st, fmt.Errorf("policy: %d completions from %d beams", o.N, o.Beams)
		}
		out, err := p.beamSearch(ctx, enc, o, &st)
		return out, st, err
	}
	out := make([][]Completion, len(prompts))
	for i := range out {
		out[i] = make([]Completion, o.N)
	}
	var queue []*job
	for i := range prompts {
		for j := 0; j < o.N; j++ {
			jb := &job{prompt: i, sample: j, rng: rand.New(rand.NewPCG(o.Seed^0x9e3779b97f4a7c15, uint64(i)<<20|uint64(j)))}
			if o.Constrain != nil {
				jb.con = o.Constrain(i)
			}
			queue = append(queue, jb)
		}
	}
	B := min(o.Batch, len(queue))
	if B == 0 {
		return out, st, nil
	}
	cache := m.NewCache(B, maxT)
	logits := make([]float32, B*V)
	active := make([]*job, B) // by slot
	free := make([]int, 0, B)
	for s := B - 1; s >= 0; s-- {
		free = append(free, s)
	}
	last := make([]float32, B*V) // logits after each slot's last token
	probs := make([]float32, V)
	idx := make([]int, V)
	var pk *picker
	if o.Constrain != nil {
		pk = newPicker(p, V)
	}
	for len(queue) > 0 || len(free) < B {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		// admit: one prefill per prompt, copies for its other samples
		if len(queue) > 0 && len(free) > 0 {
			var slots []int
			var toks [][]int32
			var groups [][]*job
			for len(queue) > 0 && len(free) > 0 {
				j := queue[0]
				if n := len(groups); n > 0 && groups[n-1][0].prompt == j.prompt {
					groups[n-1] = append(groups[n-1], j)
				} else {
					groups = append(groups, []*job{j})
					toks = append(toks, enc[j.prompt])
				}
				queue = queue[1:]
				j.slot = free[len(free)-1]
				free = free[:len(free)-1]
				active[j.slot] = j
				cache.Reset(j.slot)
			}
			for _, g := range groups {
				slots = append(slots, g[0].slot)
			}
			if err := cache.Append(slots, toks, logits); err != nil {
				return nil, st, err
			}
			for gi, g := range groups {
				for _, j := range g {
					cache.CopySlot(j.slot, g[0].slot)
					copy(last[j.slot*V:(j.slot+1)*V], logits[gi*V:(gi+1)*V])
				}
			}
		}
		// sample one token for every active sequence
		var slots []int
		var toks [][]int32
		for s, j := range active {
			if j == nil {
				continue
			}
			z := last[s*V : (s+1)*V]
			var tok int32
			var lp float64
			if j.con != nil {
				tok, lp = pk.pick(z, j.con, o.Temperature, o.TopP, j.rng, probs, idx)
				if tok != p.Tok.EOT() {
					j.con.Advance(pk.pieces[tok])
				}
			} else {
				tok, lp = sample(z, o.Temperature, o.TopP, j.rng, probs, idx)
			}
			j.logp += lp
			done, finish := false, ""
			if tok == p.Tok.EOT() {
				done, finish = true, "stop"
			} else {
				j.out = append(j.out, tok)
				if len(o.Stop) > 0 {
					if text, hit := cutStop(p.Tok.Decode(j.out), o.Stop); hit {
						out[j.prompt][j.sample] = Completion{Text: text, Tokens: j.out, LogProb: j.logp, Finish: "stop"}
						done = true
					}
				}
				if !done && (len(j.out) >= o.MaxTokens || cache.Len(s)+1 >= maxT) {
					done, finish = true, "length"
				}
			}
			if done {
				if finish != "" {
					out[j.prompt][j.sample] = Completion{Text: p.Tok.Decode(j.out), Tokens: j.out, LogProb: j.logp, Finish: finish}
				}
				st.CompletionTokens += len(j.out)
				active[s] = nil
				free = append(free, s)
				continue
			}
			slots = append(slots, s)
			toks = append(toks, []int32{tok})
		}
		if len(slots) > 0 {
			if err := cache.Append(slots, toks, logits); err != nil {
				return nil, st, err
			}
			for i, s := range slots {
				copy(last[s*V:(s+1)*V], logits[i*V:(i+1)*V])
			}
		}
		slices.Sort(free)
		slices.Reverse(free)
	}
	return out, st, nil
}

// cutStop returns text up to the first stop string, and whether one was
// found.
func cutStop(text string, stop []string) (string, bool) {
	cut := -1
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text, false
	}
	return text[:cut], true
}

// sample draws a token from logits z: greedy when temperature is 0, else
// from softmax(z/temperature) restricted to the top-p nucleus. It returns
// the token and its log-probability under softmax(z).
func sample(z []float32, temperature, topP float64, r *rand.Rand, probs []float32, idx []int) (int32, float64) {
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
		best := 0
		for i, v := range z {
			if v > z[best] {
				best = i
			}
		}
		return int32(best), float64(z[best]) - lse
	}
	inv := 1 / temperature
	var sum float64
	for i, v := range z {
		e := math.Exp(float64(v-mx) * inv)
		probs[i] = float32(e)
		sum += e
	}
	n := len(z)
	if topP < 1 {
		for i := range idx {
			idx[i] = i
		}
		// keep candidates above a tiny threshold, sorted by probability
		thr := float32(sum * 1e-6)
		k := 0
		for i := range probs {
			if probs[i] >= thr {
				idx[k] = i
				k++
			}
		}
		cand := idx[:k]
		slices.SortFunc(cand, func(a, b int) int {
			switch {
			case probs[a] > probs[b]:
				return -1
			case probs[a] < probs[b]:
				return 1
			}
			return a - b
		})
		var cum float64
		cut := len(cand)
		for i, c := range cand {
			cum += float64(probs[c])
			if cum >= topP*sum {
				cut = i + 1
				break
			}
		}
		cand = cand[:cut]
		var tot float64
		for _, c := range cand {
			tot += float64(probs[c])
		}
		u := r.Float64() * tot
		for _, c := range cand {
			u -= float64(probs[c])
			if u <= 0 {
				return int32(c), float64(z[c]) - lse
			}
		}
		c := cand[len(cand)-1]
		return int32(c), float64(z[c]) - lse
	}
	u := r.Float64() * sum
	for i := 0; i < n; i++ {
		u -= float64(probs[i])
		if u <= 0 {
			return int32(i), float64(z[i]) - lse
		}
	}
	return int32(n - 1), float64(z[n-1]) - lse
}
