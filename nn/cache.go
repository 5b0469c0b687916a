package nn

import (
	"fmt"
	"math"
)

// Cache runs a model incrementally with a key/value cache for up to Slots
// sequences at once: Append feeds each chosen slot some new tokens (a whole
// prompt at once, which is the batched prefill, or one sampled token) and
// returns the next-token logits of each. It only reads the model's
// parameters; several caches may share a model, each used by one goroutine.
type Cache struct {
	m            *Model
	slots, maxT  int
	k, v         [][]float32 // per layer: [slot][pos][dim]
	lens         []int
	lastTok      []int32   // last token of each slot (PrevToken)
	kc           []float32 // pointer-head keys: [slot][pos][copyDim]
	tok          []int32   // tokens: [slot][pos]
	copyLimit    []int     // per slot: the prompt (first Append) the pointer copies from
	x, h, qkv, y []float32
	u, hl        []float32
	pos          []int32
	rowSlot      []int
	sc           [][]float32
	// Shared prefixes (cache_share.go): slot s reads its first plen[s]
	// positions from slot root[s] (-1: none); sharers counts the slots
	// reading a root's rows.
	root, plen, sharers []int
	share               bool // CopySlot shares (shareSlots when made)
	// per-group offsets for attendShared, by worker
	offs [][]int
}

// NewCache returns a cache for slots sequences of up to maxT tokens
// (capped at the model's MaxSeq).
func (m *Model) NewCache(slots, maxT int) *Cache {
	if maxT <= 0 || maxT > m.Cfg.MaxSeq {
		maxT = m.Cfg.MaxSeq
	}
	c := &Cache{m: m, slots: slots, maxT: maxT, lens: make([]int, slots), lastTok: make([]int32, slots),
		root: make([]int, slots), plen: make([]int, slots), sharers: make([]int, slots), share: shareSlots}
	for s := range c.root {
		c.root[s] = -1
	}
	d := m.Cfg.Dim
	c.k, c.v = make([][]float32, m.Cfg.Layers), make([][]float32, m.Cfg.Layers)
	for l := range c.k {
		c.k[l] = make([]float32, slots*maxT*d)
		c.v[l] = make([]float32, slots*maxT*d)
	}
	c.sc, c.offs = make([][]float32, workers), make([][]int, workers)
	if m.Cfg.Copy {
		c.kc = make([]float32, slots*maxT*m.Cfg.copyDim())
		c.tok = make([]int32, slots*maxT)
		c.copyLimit = make([]int, slots)
	}
	return c
}

// Slots is the number of sequences the cache holds.
func (c *Cache) Slots() int { return c.slots }

// MaxLen is the most tokens a slot holds.
func (c *Cache) MaxLen() int { return c.maxT }

// Len is the number of tokens in slot s.
func (c *Cache) Len(s int) int { return c.lens[s] }

// Reset empties slot s.
func (c *Cache) Reset(s int) {
	c.detach(s)
	c.lens[s] = 0
}

// CopySlot makes slot dst a copy of slot src (a prompt prefilled once and
// sampled K times). The copy reads src's rows rather than duplicating
// them (cache_share.go): the two then decode at the cost of one prefix.
func (c *Cache) CopySlot(dst, src int) {
	if dst == src {
		return
	}
	c.detach(dst)
	if c.share && c.lens[src] > 0 {
		root, pl := src, c.lens[src]
		if c.root[src] >= 0 { // one level deep: src's own root
			root, pl = c.root[src], c.plen[src]
		}
		c.copyRows(dst, src, pl, c.lens[src])
		c.root[dst], c.plen[dst] = root, pl
		c.sharers[root]++
	} else {
		c.copyRows(dst, src, 0, c.lens[src])
	}
	if c.kc != nil {
		dc := c.m.Cfg.copyDim()
		k := c.lens[src]
		copy(c.kc[dst*c.maxT*dc:dst*c.maxT*dc+k*dc], c.kc[src*c.maxT*dc:src*c.maxT*dc+k*dc])
		copy(c.tok[dst*c.maxT:dst*c.maxT+k], c.tok[src*c.maxT:src*c.maxT+k])
		c.copyLimit[dst] = c.copyLimit[src]
	}
	c.lens[dst] = c.lens[src]
	c.lastTok[dst] = c.lastTok[src]
}

// Append adds toks[i] to slot slots[i] for each i and writes the logits
// after each slot's last new token into logits[i*Vocab:(i+1)*Vocab].
// The first Append to an empty slot is its prompt: with a pointer head,
// that is what the slot copies from (as Batch.AddPrompted trains).
func (c *Cache) Append(slots []int, toks [][]int32, logits []float32) error {
	m := c.m
	cfg, w := m.Cfg, m.w
	d, f, H, dh, V := cfg.Dim, cfg.Hidden, cfg.Heads, cfg.headDim(), cfg.Vocab
	if len(slots) != len(toks) || len(logits) < len(slots)*V {
		return fmt.Errorf("nn: cache append: %d slots, %d token lists, %d logits", len(slots), len(toks), len(logits))
	}
	n := 0
	starts := make([]int, len(slots)+1)
	seen := map[int]bool{}
	for i, s := range slots {
		if s < 0 || s >= c.slots || seen[s] {
			return fmt.Errorf("nn: cache append: bad or repeated slot %d", s)
		}
		seen[s] = true
		if len(toks[i]) == 0 {
			return fmt.Errorf("nn: cache append: no tokens for slot %d", s)
		}
		if c.lens[s]+len(toks[i]) > c.maxT {
			return fmt.Errorf("nn: cache append: slot %d would hold %d tokens (max %d)", s, c.lens[s]+len(toks[i]), c.maxT)
		}
		for _, t := range toks[i] {
			if t < 0 || int(t) >= V {
				return fmt.Errorf("nn: token %d out of vocabulary %d", t, V)
			}
		}
		starts[i] = n
		n += len(toks[i])
	}
	starts[len(slots)] = n
	c.x, c.h, c.qkv, c.y = grow(c.x, n*d), grow(c.h, n*d), grow(c.qkv, n*3*d), grow(c.y, n*d)
	c.u, c.hl = grow(c.u, n*f), grow(c.hl, len(slots)*d)
	if cap(c.pos) < n {
		c.pos = make([]int32, n)
	}
	c.pos = c.pos[:n]
	for i, s := range slots {
		for j, t := range toks[i] {
			r := starts[i] + j
			c.pos[r] = int32(c.lens[s] + j)
			copy(c.x[r*d:r*d+d], w.wte[int(t)*d:int(t)*d+d])
			if w.wprev != nil && c.pos[r] > 0 {
				p := c.lastTok[s]
				if j > 0 {
					p = toks[i][j-1]
				}
				addTo(c.x[r*d:r*d+d], w.wprev[int(p)*d:int(p)*d+d])
			}
		}
	}
	scale := float32(1 / math.Sqrt(float64(dh)))
	rs := make([]float32, n)
	groups := c.groups(slots, toks)
	for l := 0; l < cfg.Layers; l++ {
		lw := &w.layers[l]
		kc, vc := c.k[l], c.v[l]
		rmsnormForward(c.h, rs, c.x, lw.ln1, n, d)
		Sgemm(false, false, n, 3*d, d, 1, c.h, d, lw.wqkv, 3*d, 0, c.qkv, 3*d)
		ropeApply(c.qkv, c.pos, n, d, H, m.cos, m.sin, 1)
		for i, s := range slots {
			for j := range toks[i] {
				r := starts[i] + j
				p := c.lens[s] + j
				copy(kc[(s*c.maxT+p)*d:(s*c.maxT+p+1)*d], c.qkv[r*3*d+d:r*3*d+2*d])
				copy(vc[(s*c.maxT+p)*d:(s*c.maxT+p+1)*d], c.qkv[r*3*d+2*d:r*3*d+3*d])
			}
		}
		parallelTasks(len(groups)*H, func(wk, task int) {
			g, h := &groups[task/H], task%H
			if g.root >= 0 {
				c.attendGroup(wk, g, slots, starts, kc, vc, h, scale)
				return
			}
			i := g.rows[0]
			s, nt := slots[i], len(toks[i])
			off := c.lens[s]
			tot := off + nt
			c.sc[wk] = grow(c.sc[wk], nt*tot)
			sc := c.sc[wk]
			q := c.qkv[starts[i]*3*d+h*dh:]
			kb := kc[s*c.maxT*d+h*dh:]
			vb := vc[s*c.maxT*d+h*dh:]
			if nt == 1 {
				attendOne(c.y[starts[i]*d+h*dh:starts[i]*d+h*dh+dh], q[:dh], kb, vb, d, tot, sc, scale)
				return
			}
			Sgemm(false, true, nt, tot, dh, scale, q, 3*d, kb, d, 0, sc, tot)
			softmaxCausal(sc, nt, tot, off)
			Sgemm(false, false, nt, dh, tot, 1, sc, tot, vb, d, 0, c.y[starts[i]*d+h*dh:], d)
		})
		// x += y wo ; x += gelu(rmsnorm(x) w1) w2
		Sgemm(false, false, n, d, d, 1, c.y, d, lw.wo, d, 1, c.x, d)
		rmsnormForward(c.h, rs, c.x, lw.ln2, n, d)
		Sgemm(false, false, n, f, d, 1, c.h, d, lw.w1, f, 0, c.u, f)
		geluForward(c.u, nil, c.u)
		Sgemm(false, false, n, d, f, 1, c.u, f, lw.w2, d, 1, c.x, d)
	}
	// final norm on every new row (the pointer head keys them all)
	rmsnormForward(c.h, rs, c.x, w.lnf, n, d)
	for i := range slots {
		r := starts[i+1] - 1
		copy(c.hl[i*d:i*d+d], c.h[r*d:r*d+d])
	}
	Sgemm(false, true, len(slots), V, d, 1, c.hl, d, w.wte, d, 0, logits, V)
	if cfg.Copy {
		c.copyLogits(slots, toks, starts, logits)
	}
	for i, s := range slots {
		c.lens[s] += len(toks[i])
		c.lastTok[s] = toks[i][len(toks[i])-1]
	}
	return nil
}

// attendOne is attention for a single query over tot cached keys (rows at
// stride ld): the decoding step, where a gemm call costs more than the
// arithmetic. Without the C kernel it is attendShared's loop for one
// query with no shared prefix.
func attendOne(out, q, k, v []float32, ld, tot int, sc []float32, scale float32) {
	if attendOneKernel != nil {
		attendOneKernel(out, q, k, v, ld, tot, sc, scale)
		return
	}
	zero := []int{0}
	attendShared(out, zero, q, zero, k, v, 0, 0, zero, []int{tot}, ld, len(q), sc, scale)
}

// copyLogits stores the new rows' pointer keys and tokens, and replaces
// each slot's logits by the log-probabilities of the head and pointer
// mixture (the same distribution Forward scores).
func (c *Cache) copyLogits(slots []int, toks [][]int32, starts []int, logits []float32) {
	m := c.m
	cfg, w := m.Cfg, m.w
	d, dc, V := cfg.Dim, cfg.copyDim(), cfg.Vocab
	n := starts[len(slots)]
	kn := make([]float32, n*dc)
	Sgemm(false, false, n, dc, d, 1, c.h, d, w.wck, dc, 0, kn, dc)
	for i, s := range slots {
		if c.lens[s] == 0 {
			c.copyLimit[s] = len(toks[i])
		}
		for j, t := range toks[i] {
			p := c.lens[s] + j
			copy(c.kc[(s*c.maxT+p)*dc:(s*c.maxT+p+1)*dc], kn[(starts[i]+j)*dc:(starts[i]+j+1)*dc])
			c.tok[s*c.maxT+p] = t
		}
	}
	q := make([]float32, len(slots)*dc)
	Sgemm(false, false, len(slots), dc, d, 1, c.hl, d, w.wcq, dc, 0, q, dc)
	scale := float32(1 / math.Sqrt(float64(dc)))
	parallelTasks(len(slots), func(wk, i int) {
		s := slots[i]
		tot := c.lens[s] + len(toks[i])
		lim := copyLim(tot-1, c.copyLimit[s])
		c.sc[wk] = grow(c.sc[wk], max(tot, V))
		a := c.sc[wk][:lim]
		qi := q[i*dc : i*dc+dc]
		keys := c.kc[s*c.maxT*dc:]
		for j := range a {
			a[j] = dot32(qi, keys[j*dc:j*dc+dc]) * scale
		}
		h := c.hl[i*d : i*d+d]
		tk := c.tok[s*c.maxT : s*c.maxT+tot]
		matchBonus(a, tk, lim, tot-1, dot32(w.wbeta[:d], h)+w.wbeta[d], dot32(w.wbeta[d+1:2*d+1], h)+w.wbeta[2*d+1])
		softmaxPrefix(a, lim)
		g := sigmoid(dot32(w.wgate[:d], h) + w.wgate[d])
		z := logits[i*V : i*V+V]
		softmaxRow(z, 0) // probabilities in place
		for j := range z {
			z[j] *= g
		}
		for j, al := range a {
			z[tk[j]] += (1 - g) * al
		}
		for j, v := range z {
			z[j] = float32(math.Log(float64(max(v, 1e-30))))
		}
	})
}
