package nn

// Shared prefixes. Online RL samples K completions of every prompt, and
// the decoding step's attention reads every cached key and value of every
// sequence: with a copy of the prompt per sample, K copies of the same
// rows go through the memory bus at every token, and a profile found that
// read to be most of a sampling step (docs/history.md, "One step at the
// flywheel's settings, and the sampler against PyTorch"). CopySlot
// therefore lets the copy read the prompt's rows where they are: slot dst
// keeps only the positions it adds itself, and a decoding step attends the
// K queries of a prompt together, each prefix row read once for all of
// them (attendShared).
//
// The bookkeeping keeps sharing one level deep: a slot reads its first
// plen positions from root (root < 0: all its rows are its own). A root
// never rewrites those rows while it lives (new tokens go after them);
// before a root is reset or overwritten (detach), its sharers take a copy
// of the prefix, so no slot ever reads rows that changed under it.

// shareSlots is Cache.share for new caches: false only in tests and
// benchmarks that check or measure against the copying cache.
var shareSlots = true

// unlink makes slot s stop reading another slot's rows (its rows are
// about to be dropped or rewritten whole).
func (c *Cache) unlink(s int) {
	if r := c.root[s]; r >= 0 {
		c.sharers[r]--
		c.root[s] = -1
	}
}

// detach prepares slot s for losing its rows (Reset, or the target of a
// CopySlot): it stops sharing, and the slots sharing its prefix move to
// one of them, the one sharing the longest prefix, which takes a copy of
// that prefix so that the others can read it there.
func (c *Cache) detach(s int) {
	c.unlink(s)
	if c.sharers[s] == 0 {
		return
	}
	heir := -1
	for t, r := range c.root {
		if r == s && (heir < 0 || c.plen[t] > c.plen[heir]) {
			heir = t
		}
	}
	c.copyRows(heir, s, 0, c.plen[heir])
	c.root[heir] = -1
	for t, r := range c.root {
		if r == s {
			c.root[t] = heir
			c.sharers[heir]++
		}
	}
	c.sharers[s] = 0
}

// materialize gives a sharing slot its own copy of its prefix: a prefill
// of several tokens attends over contiguous rows.
func (c *Cache) materialize(s int) {
	if r := c.root[s]; r >= 0 {
		c.copyRows(s, r, 0, c.plen[s])
		c.unlink(s)
	}
}

// copyRows copies the key and value rows of positions [from, to) of slot
// src to slot dst in every layer.
func (c *Cache) copyRows(dst, src, from, to int) {
	if to <= from {
		return
	}
	d := c.m.Cfg.Dim
	a, b := (dst*c.maxT+from)*d, (src*c.maxT+from)*d
	n := (to - from) * d
	for l := range c.k {
		copy(c.k[l][a:a+n], c.k[l][b:b+n])
		copy(c.v[l][a:a+n], c.v[l][b:b+n])
	}
}

// attnGroup is one attention task family of a decoding step: the rows
// (indices into Append's slots) that attend together, and the prefix
// they share (root < 0: one row alone over its own rows).
type attnGroup struct {
	rows       []int
	root, plen int
}

// groups sorts the rows of one Append into attention groups: every
// decoding row that shares a prefix joins the group of its root and
// prefix length; a root joins the first group of its sharers (its own
// rows hold the prefix, so the group's root and plen hold for it too);
// every other row attends alone over its own rows. A sharing slot that
// appends several tokens gets its own copy of its prefix first.
func (c *Cache) groups(slots []int, toks [][]int32) []attnGroup {
	var out []attnGroup
	byKey := map[[2]int]int{}
	var roots []int
	for i, s := range slots {
		switch {
		case len(toks[i]) != 1:
			c.materialize(s)
			out = append(out, attnGroup{rows: []int{i}, root: -1})
		case c.root[s] >= 0:
			key := [2]int{c.root[s], c.plen[s]}
			g, ok := byKey[key]
			if !ok {
				g = len(out)
				byKey[key] = g
				out = append(out, attnGroup{root: key[0], plen: key[1]})
			}
			out[g].rows = append(out[g].rows, i)
		case c.sharers[s] > 0:
			roots = append(roots, i)
		default:
			out = append(out, attnGroup{rows: []int{i}, root: -1})
		}
	}
	for _, i := range roots {
		g := -1
		for j := range out {
			if out[j].root == slots[i] {
				g = j
				break
			}
		}
		if g < 0 {
			out = append(out, attnGroup{rows: []int{i}, root: -1})
			continue
		}
		out[g].rows = append(out[g].rows, i)
	}
	return out
}

// attendShared is attention for g single queries (query i at q[qo[i]:],
// output at out[oo[i]:]) that share their first plen cached positions
// (keys and values at k[po:] and v[po:], rows at stride ld) and then
// each have ns[i] rows of their own (at k[so[i]:] and v[so[i]:]). Each
// prefix row is read once for all g queries. Each query's arithmetic is
// attendOne's over its prefix and own rows in order, so the result is
// the copying cache's. sc is scratch of g x (plen + max ns) floats.
func attendShared(out []float32, oo []int, q []float32, qo []int, k, v []float32, po, plen int, so, ns []int, ld, dh int, sc []float32, scale float32) {
	if attendSharedKernel != nil {
		attendSharedKernel(out, oo, q, qo, k, v, po, plen, so, ns, ld, dh, sc, scale)
		return
	}
	g := len(qo)
	w := plen
	for _, n := range ns {
		w = max(w, plen+n)
	}
	for j := 0; j < plen; j++ {
		kr := k[po+j*ld : po+j*ld+dh]
		for i := 0; i < g; i++ {
			sc[i*w+j] = dot32(q[qo[i]:qo[i]+dh], kr) * scale
		}
	}
	for i := 0; i < g; i++ {
		row := sc[i*w : i*w+plen+ns[i]]
		for j := 0; j < ns[i]; j++ {
			row[plen+j] = dot32(q[qo[i]:qo[i]+dh], k[so[i]+j*ld:so[i]+j*ld+dh]) * scale
		}
		mx := row[0]
		for _, s := range row {
			mx = max(mx, s)
		}
		var sum float32
		for j, s := range row {
			e := expf(s - mx)
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
		clear(out[oo[i] : oo[i]+dh])
	}
	for j := 0; j < plen; j++ {
		vr := v[po+j*ld : po+j*ld+dh]
		for i := 0; i < g; i++ {
			axpy32(out[oo[i]:oo[i]+dh], sc[i*w+j], vr)
		}
	}
	for i := 0; i < g; i++ {
		o := out[oo[i] : oo[i]+dh]
		for j := 0; j < ns[i]; j++ {
			axpy32(o, sc[i*w+plen+j], v[so[i]+j*ld:so[i]+j*ld+dh])
		}
	}
}

func axpy32(y []float32, a float32, x []float32) {
	for i, v := range x {
		y[i] += a * v
	}
}

// attendGroup runs attention head h of a decoding group on worker wk:
// every row's query over the group's shared prefix (read once) and its
// slot's own rows after it.
func (c *Cache) attendGroup(wk int, g *attnGroup, slots, starts []int, kc, vc []float32, h int, scale float32) {
	d, dh := c.m.Cfg.Dim, c.m.Cfg.headDim()
	n := len(g.rows)
	c.offs[wk] = growInts(c.offs[wk], 4*n)
	oo, qo, so, ns := c.offs[wk][:n], c.offs[wk][n:2*n], c.offs[wk][2*n:3*n], c.offs[wk][3*n:4*n]
	w := g.plen
	for j, i := range g.rows {
		s := slots[i]
		r := starts[i] // its one new token's row
		oo[j], qo[j] = r*d+h*dh, r*3*d+h*dh
		so[j] = (s*c.maxT+g.plen)*d + h*dh
		ns[j] = c.lens[s] + 1 - g.plen
		w = max(w, g.plen+ns[j])
	}
	c.sc[wk] = grow(c.sc[wk], n*w)
	attendShared(c.y, oo, c.qkv, qo, kc, vc, g.root*c.maxT*d+h*dh, g.plen, so, ns, d, dh, c.sc[wk], scale)
}

func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
