package policy

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqlrl/sqlrl/nn"
)

type beam struct {
	slot  int
	toks  []int32
	score float64 // sum of log-probabilities so far
	con   Constraint
}

type beamGroup struct {
	prompt int
	slots  []int
	live   []*beam
	done   []Completion
	over   bool
}

type beamCand struct {
	parent *beam
	tok    int32
	score  float64
}

// beamSearch decodes o.Beams beams per prompt, o.Batch/o.Beams prompts at a
// time, each prompt on its own o.Beams cache slots. Beams compete on their
// summed log-probability; a group stops when o.Beams completions have
// finished, and those are ranked by their mean log-probability per token.
// A beam ends only when the end token is its most likely next token (as
// greedy decoding ends): a small model gives the end token some
// probability after every complete clause, and beams that take it would
// win on score while dropping the rest of the query.
func (p *Policy) beamSearch(ctx context.Context, enc [][]int32, o SampleOptions, st *Stats) ([][]Completion, error) {
	m := p.Model
	V, W := m.Cfg.Vocab, o.Beams
	maxT := m.Cfg.MaxSeq
	P := max(1, o.Batch/W)
	cache := m.NewCache(P*W, maxT)
	logits := make([]float32, P*W*V)
	last := make([]float32, P*W*V)
	pk := newPicker(p, V)
	eot := p.Tok.EOT()
	out := make([][]Completion, len(enc))
	for lo := 0; lo < len(enc); lo += P {
		hi := min(lo+P, len(enc))
		var groups []*beamGroup
		var slots []int
		var toks [][]int32
		for i := lo; i < hi; i++ {
			g := &beamGroup{prompt: i}
			for k := 0; k < W; k++ {
				g.slots = append(g.slots, (i-lo)*W+k)
			}
			cache.Reset(g.slots[0])
			b := &beam{slot: g.slots[0]}
			if o.Constrain != nil {
				b.con = o.Constrain(i)
				if _, ok := b.con.(CloneConstraint); !ok && b.con != nil {
					return nil, fmt.Errorf("policy: beam search needs constraints that can be cloned (CloneConstraint)")
				}
			}
			g.live = []*beam{b}
			groups = append(groups, g)
			slots = append(slots, g.slots[0])
			toks = append(toks, enc[i])
		}
		if err := cache.Append(slots, toks, logits); err != nil {
			return nil, err
		}
		for k, s := range slots {
			copy(last[s*V:(s+1)*V], logits[k*V:(k+1)*V])
		}
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			slots, toks = slots[:0], toks[:0]
			for _, g := range groups {
				if g.over {
					continue
				}
				p.beamStep(g, W, V, o.MaxTokens, maxT, cache, last, pk, eot, st)
				for _, b := range g.live {
					slots = append(slots, b.slot)
					toks = append(toks, b.toks[len(b.toks)-1:])
				}
			}
			if len(slots) == 0 {
				break
			}
			if err := cache.Append(slots, toks, logits); err != nil {
				return nil, err
			}
			for k, s := range slots {
				copy(last[s*V:(s+1)*V], logits[k*V:(k+1)*V])
			}
		}
		for _, g := range groups {
			slices.SortStableFunc(g.done, func(a, b Completion) int {
				na, nb := meanLogProb(a), meanLogProb(b)
				switch {
				case na > nb:
					return -1
				case na < nb:
					return 1
				}
				return 0
			})
			out[g.prompt] = g.done[:min(o.N, len(g.done))]
		}
	}
	return out, nil
}

// beamStep extends group g's live beams by one token each (or finishes
// them), keeping the W best, and copies cache slots so that each new beam
// sits on a slot holding its parent's keys and values.
func (p *Policy) beamStep(g *beamGroup, W, V, maxTok, maxT int, cache *nn.Cache, last []float32, pk *picker, eot int32, st *Stats) {
	var cands []beamCand
	for _, b := range g.live {
		z := last[b.slot*V : (b.slot+1)*V]
		lse := logSumExp(z)
		// the W most likely tokens the constraint accepts; a beam ends only
		// where greedy decoding would
		for i, t := range pk.ranked(z, b.con, W, 4*W+64) {
			if int32(t) == eot && i > 0 {
				continue
			}
			cands = append(cands, beamCand{parent: b, tok: int32(t), score: b.score + float64(z[t]) - lse})
		}
	}
	slices.SortStableFunc(cands, func(a, b beamCand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	var next []beamCand
	for _, c := range cands {
		if c.tok == eot {
			if len(g.done) < W {
				g.done = append(g.done, Completion{Text: p.Tok.Decode(c.parent.toks), Tokens: slices.Clone(c.parent.toks), LogProb: c.score, Finish: "stop"})
				st.CompletionTokens += len(c.parent.toks)
			}
			continue
		}
		if len(next) < W {
			next = append(next, c)
		}
	}
	if len(next) == 0 || len(g.done) >= W {
		g.over, g.live = true, nil
		if len(g.done) == 0 { // nothing finished: the best unfinished beam
			for _, c := range next[:min(1, len(next))] {
				t := append(slices.Clone(c.parent.toks), c.tok)
				g.done = append(g.done, Completion{Text: p.Tok.Decode(t), Tokens: t, LogProb: c.score, Finish: "length"})
			}
		}
		return
	}
	// slots: a parent's first child keeps its slot; other children take
	// the slots no first child keeps, copied from their parent
	keep := map[*beam]bool{}
	used := map[int]bool{}
	for _, c := range next {
		if !keep[c.parent] {
			keep[c.parent] = true
			used[c.parent.slot] = true
		}
	}
	var free []int
	for _, s := range g.slots {
		if !used[s] {
			free = append(free, s)
		}
	}
	first := map[*beam]bool{}
	var live []*beam
	// clones and copies before any parent's constraint or slot moves on
	for _, c := range next {
		nb := &beam{toks: append(slices.Clone(c.parent.toks), c.tok), score: c.score}
		if !first[c.parent] {
			first[c.parent] = true
			nb.slot = c.parent.slot
			nb.con = c.parent.con // advanced below, after the clones
		} else {
			nb.slot, free = free[0], free[1:]
			cache.CopySlot(nb.slot, c.parent.slot)
			if c.parent.con != nil {
				nb.con = c.parent.con.(CloneConstraint).Clone()
			}
		}
		live = append(live, nb)
	}
	for i, nb := range live {
		if nb.con != nil {
			nb.con.Advance(pk.piece(next[i].tok))
		}
	}
	// beams that reach the token limit finish there
	g.live = g.live[:0]
	for _, nb := range live {
		if len(nb.toks) >= maxTok || cache.Len(nb.slot)+1 >= maxT {
			g.done = append(g.done, Completion{Text: p.Tok.Decode(nb.toks), Tokens: nb.toks, LogProb: nb.score, Finish: "length"})
			st.CompletionTokens += len(nb.toks)
			continue
		}
		g.live = append(g.live, nb)
	}
	if len(g.live) == 0 {
		g.over = true
	}
}

// meanLogProb is a completion's log-probability per token, its end token
// included.
func meanLogProb(c Completion) float64 {
	n := len(c.Tokens)
	if c.Finish == "stop" {
		n++
	}
	return c.LogProb / float64(max(n, 1))
}
