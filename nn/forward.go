package nn

import (
	"fmt"
	"math"
)

// Batch is a set of token sequences packed end to end (no padding) and the
// positions to score: row Rows[i] of the packed sequence predicts token
// Targets[i]. For supervised fine-tuning the rows are the completion's
// positions; for full language modelling, every position but each
// sequence's last.
type Batch struct {
	Tokens []int32
	// Starts has one entry per sequence plus a final len(Tokens): sequence
	// i is Tokens[Starts[i]:Starts[i+1]].
	Starts  []int
	Rows    []int32
	Targets []int32
	// CopyLimit, when set (one entry per sequence), bounds what the
	// pointer head may copy: positions [0, CopyLimit[i]) of sequence i,
	// its prompt; 0 means every earlier position. For a sequence that
	// continues a prefix, positions count the prefix's tokens.
	CopyLimit []int
	// Prefix, when set (one entry per sequence), lets sequences share a
	// prompt: sequence i with Prefix[i] = j >= 0 continues sequence j as if
	// j's tokens came before its own. Its positions follow j's, its
	// attention and pointer head see j's tokens, and j is computed once
	// for every sequence that continues it, which is what makes many
	// questions on one schema, or K samples of one prompt, cheap. j must
	// come earlier and continue nothing itself; -1 means none.
	Prefix []int
	// Support, when set (one entry per scored row), restricts row i's
	// distribution to the distinct tokens Support[i], renormalised: the
	// row scores log P(target) - log Σ_{u ∈ Support[i]} P(u). That is the
	// log-probability under a sampler that only draws from those tokens,
	// as schema-guided sampling does (the tokens the guide allowed), so a
	// loss on guided samples gets the distribution that drew them. A nil
	// entry is the whole vocabulary. The target must be in its support.
	Support [][]int32
}

// NumSeqs is the number of sequences in b.
func (b *Batch) NumSeqs() int { return len(b.Starts) - 1 }

// Add appends a sequence and scores positions [from, len(tokens)-1): each
// predicts the next token. from = prompt length - 1 scores a completion.
func (b *Batch) Add(tokens []int32, from int) {
	if len(b.Starts) == 0 {
		b.Starts = append(b.Starts, 0)
	}
	base := len(b.Tokens)
	b.Tokens = append(b.Tokens, tokens...)
	b.Starts = append(b.Starts, len(b.Tokens))
	for i := max(from, 0); i < len(tokens)-1; i++ {
		b.Rows = append(b.Rows, int32(base+i))
		b.Targets = append(b.Targets, tokens[i+1])
	}
}

// AddPrompted appends a prompt and completion (tokens, the first
// promptLen of which are the prompt), scoring the completion, with the
// pointer head copying from the prompt only.
func (b *Batch) AddPrompted(tokens []int32, promptLen int) {
	b.AddSeq(tokens, promptLen-1, promptLen)
}

// AddSeq is Add with the sequence's pointer-head copy limit (0: none).
func (b *Batch) AddSeq(tokens []int32, from, copyLimit int) {
	for len(b.CopyLimit) < b.NumSeqs() {
		b.CopyLimit = append(b.CopyLimit, 0)
	}
	b.Add(tokens, from)
	b.CopyLimit = append(b.CopyLimit, copyLimit)
}

// AddContinuation appends a sequence that continues sequence prefix
// (see Prefix), scoring its own positions [from, len(tokens)-1), with the
// pointer head copying from the first copyLimit positions of prefix and
// sequence together (0: no limit).
func (b *Batch) AddContinuation(prefix int, tokens []int32, from, copyLimit int) {
	for len(b.Prefix) < b.NumSeqs() {
		b.Prefix = append(b.Prefix, -1)
	}
	b.AddSeq(tokens, from, copyLimit)
	b.Prefix = append(b.Prefix, prefix)
}

// prefixOf returns the sequence s continues, or -1.
func (b *Batch) prefixOf(s int) int {
	if s < len(b.Prefix) {
		return b.Prefix[s]
	}
	return -1
}

// prefixLen returns how many tokens precede sequence s's own.
func (b *Batch) prefixLen(s int) int {
	if j := b.prefixOf(s); j >= 0 {
		return b.Starts[j+1] - b.Starts[j]
	}
	return 0
}

// Reset empties b, keeping its storage.
func (b *Batch) Reset() {
	b.Tokens, b.Starts, b.Rows, b.Targets = b.Tokens[:0], b.Starts[:0], b.Rows[:0], b.Targets[:0]
	b.CopyLimit, b.Prefix, b.Support = b.CopyLimit[:0], b.Prefix[:0], b.Support[:0]
}

// copyLimit returns the copy limit of sequence s (0: none).
func (b *Batch) copyLimit(s int) int {
	if s < len(b.CopyLimit) {
		return b.CopyLimit[s]
	}
	return 0
}

func (m *Model) checkBatch(b *Batch) error {
	n := len(b.Tokens)
	if len(b.Starts) < 2 || b.Starts[0] != 0 || b.Starts[len(b.Starts)-1] != n {
		return fmt.Errorf("nn: batch starts %v do not cover %d tokens", b.Starts, n)
	}
	if len(b.Prefix) > b.NumSeqs() {
		return fmt.Errorf("nn: %d prefixes for %d sequences", len(b.Prefix), b.NumSeqs())
	}
	for i := 1; i < len(b.Starts); i++ {
		s := i - 1
		if j := b.prefixOf(s); j >= s || j < -1 || j >= 0 && b.prefixOf(j) >= 0 {
			return fmt.Errorf("nn: sequence %d continues sequence %d, which is not an earlier sequence without a prefix", s, j)
		}
		t := b.Starts[i] - b.Starts[i-1] + b.prefixLen(s)
		if t < 1 || t > m.Cfg.MaxSeq {
			return fmt.Errorf("nn: sequence %d has %d tokens (max %d)", s, t, m.Cfg.MaxSeq)
		}
	}
	for _, t := range b.Tokens {
		if t < 0 || int(t) >= m.Cfg.Vocab {
			return fmt.Errorf("nn: token %d out of vocabulary %d", t, m.Cfg.Vocab)
		}
	}
	if len(b.Rows) != len(b.Targets) {
		return fmt.Errorf("nn: %d rows for %d targets", len(b.Rows), len(b.Targets))
	}
	if m.Cfg.Copy {
		for i := 1; i < len(b.Rows); i++ {
			if b.Rows[i] <= b.Rows[i-1] {
				return fmt.Errorf("nn: the pointer head needs scored rows in increasing order")
			}
		}
	}
	for i, r := range b.Rows {
		if r < 0 || int(r) >= n || b.Targets[i] < 0 || int(b.Targets[i]) >= m.Cfg.Vocab {
			return fmt.Errorf("nn: scored row %d (target %d) out of range", r, b.Targets[i])
		}
	}
	return m.checkSupport(b)
}

// checkSupport checks b.Support: one entry per row, each of distinct
// tokens of the vocabulary that include the row's target.
func (m *Model) checkSupport(b *Batch) error {
	if len(b.Support) == 0 {
		return nil
	}
	if len(b.Support) != len(b.Rows) {
		return fmt.Errorf("nn: %d supports for %d scored rows", len(b.Support), len(b.Rows))
	}
	in := make([]bool, m.Cfg.Vocab)
	for i, sup := range b.Support {
		if sup == nil {
			continue
		}
		hasTarget := false
		for _, u := range sup {
			if u < 0 || int(u) >= m.Cfg.Vocab || in[u] {
				for _, v := range sup {
					if v >= 0 && int(v) < m.Cfg.Vocab {
						in[v] = false
					}
				}
				return fmt.Errorf("nn: support of scored row %d: token %d out of vocabulary %d or repeated", i, u, m.Cfg.Vocab)
			}
			in[u] = true
			hasTarget = hasTarget || u == b.Targets[i]
		}
		for _, u := range sup {
			in[u] = false
		}
		if !hasTarget {
			return fmt.Errorf("nn: support of scored row %d (%d tokens) lacks its target %d", i, len(sup), b.Targets[i])
		}
	}
	return nil
}

// supportOf returns row i's support, nil for the whole vocabulary.
func (b *Batch) supportOf(i int) []int32 {
	if i < len(b.Support) {
		return b.Support[i]
	}
	return nil
}

type layerAct struct {
	x, h1, qkv, y, mid, h2, u, g, th []float32
	rs1, rs2                         []float32
	att                              []float32
}

// workspace holds the activations a backward pass needs and its scratch.
type workspace struct {
	batch   *Batch
	n, nsel int
	pos     []int32
	prev    []int32 // the token before each position, -1 for none
	groups  [][]int // a sequence without prefix, then those continuing it
	attOff  []int
	layers  []layerAct
	xf, hf  []float32
	rsf     []float32
	hsel    []float32
	probs   []float32
	logp    []float32
	// Batch.Support: per row, the vocabulary head's mass on the support
	// and the masked row's normaliser (that mass without a pointer head)
	pvS, zS []float64
	dmask   []float32 // d(loss)/d(vocabulary mass on the support), per row
	// backward scratch
	dres, dh, dqkv, dy, du, dg, dhsel []float32
	dp                                [][]float32
	// pointer head
	copy               copyState
	dhselCopy, dhfCopy []float32
	dvocab             []float32
	// dL/dhsel staged by another head reading the hidden states (the value
	// head, value.go: AddHiddenGrad), added by the next Backward
	dhselAux   []float32
	auxPending bool
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n, n+n/4)
	}
	return s[:n]
}

func (m *Model) workspace(b *Batch) *workspace {
	if m.ws == nil {
		m.ws = &workspace{layers: make([]layerAct, m.Cfg.Layers)}
	}
	ws := m.ws
	c := m.Cfg
	n, d, f := len(b.Tokens), c.Dim, c.Hidden
	ws.batch, ws.n, ws.nsel = b, n, len(b.Rows)
	ws.auxPending = false // a staged hidden gradient belongs to the previous Forward
	if cap(ws.pos) < n {
		ws.pos = make([]int32, n, n+n/4)
	}
	ws.pos = ws.pos[:n]
	if cap(ws.prev) < n {
		ws.prev = make([]int32, n, n+n/4)
	}
	ws.prev = ws.prev[:n]
	ws.attOff = ws.attOff[:0]
	ws.groups = ws.groups[:0]
	group := make([]int, b.NumSeqs())
	att := 0
	for s := 0; s < b.NumSeqs(); s++ {
		st, t, tp := b.Starts[s], b.Starts[s+1]-b.Starts[s], b.prefixLen(s)
		for j := 0; j < t; j++ {
			ws.pos[st+j] = int32(tp + j)
			ws.prev[st+j] = -1
			if j > 0 {
				ws.prev[st+j] = b.Tokens[st+j-1]
			} else if tp > 0 {
				ws.prev[st] = b.Tokens[b.Starts[b.prefixOf(s)+1]-1]
			}
		}
		ws.attOff = append(ws.attOff, att)
		att += c.Heads * t * (tp + t)
		if pj := b.prefixOf(s); pj >= 0 {
			ws.groups[group[pj]] = append(ws.groups[group[pj]], s)
		} else {
			group[s] = len(ws.groups)
			ws.groups = append(ws.groups, []int{s})
		}
	}
	for l := range ws.layers {
		a := &ws.layers[l]
		a.x, a.h1, a.qkv, a.y = grow(a.x, n*d), grow(a.h1, n*d), grow(a.qkv, n*3*d), grow(a.y, n*d)
		a.mid, a.h2, a.u, a.g, a.th = grow(a.mid, n*d), grow(a.h2, n*d), grow(a.u, n*f), grow(a.g, n*f), grow(a.th, n*f)
		a.rs1, a.rs2, a.att = grow(a.rs1, n), grow(a.rs2, n), grow(a.att, att)
	}
	ws.xf, ws.hf, ws.rsf = grow(ws.xf, n*d), grow(ws.hf, n*d), grow(ws.rsf, n)
	p := len(b.Rows)
	ws.hsel, ws.probs, ws.logp = grow(ws.hsel, p*d), grow(ws.probs, p*c.Vocab), grow(ws.logp, p)
	return ws
}

// Forward runs the model on b and returns the log-probability of each
// target (aligned with b.Rows). The activations stay in the model for one
// Backward call; the returned slice is reused by the next Forward.
func (m *Model) Forward(b *Batch) ([]float32, error) {
	if err := m.checkBatch(b); err != nil {
		return nil, err
	}
	ws := m.workspace(b)
	c, w := m.Cfg, m.w
	n, d, f, H, dh := ws.n, c.Dim, c.Hidden, c.Heads, c.headDim()
	scale := float32(1 / math.Sqrt(float64(dh)))
	x0 := ws.layers[0].x
	for i, t := range b.Tokens {
		copy(x0[i*d:i*d+d], w.wte[int(t)*d:int(t)*d+d])
		if p := int(ws.prev[i]); w.wprev != nil && p >= 0 {
			addTo(x0[i*d:i*d+d], w.wprev[p*d:p*d+d])
		}
	}
	nseq := b.NumSeqs()
	for l := 0; l < c.Layers; l++ {
		a, lw := &ws.layers[l], &w.layers[l]
		rmsnormForward(a.h1, a.rs1, a.x, lw.ln1, n, d)
		Sgemm(false, false, n, 3*d, d, 1, a.h1, d, lw.wqkv, 3*d, 0, a.qkv, 3*d)
		ropeApply(a.qkv, ws.pos, n, d, H, m.cos, m.sin, 1)
		parallelTasks(nseq*H, func(_, task int) {
			s, h := task/H, task%H
			st, t, tp := b.Starts[s], b.Starts[s+1]-b.Starts[s], b.prefixLen(s)
			base := st*3*d + h*dh
			var kp, vp []float32
			if tp > 0 {
				pb := b.Starts[b.prefixOf(s)]*3*d + h*dh
				kp, vp = a.qkv[pb+d:], a.qkv[pb+2*d:]
			}
			attentionForward(a.att[ws.attOff[s]+h*t*(tp+t):], a.y[st*d+h*dh:], d,
				a.qkv[base:], a.qkv[base+d:], a.qkv[base+2*d:], kp, vp, 3*d, 3*d, t, tp, dh, scale)
		})
		copy(a.mid, a.x)
		Sgemm(false, false, n, d, d, 1, a.y, d, lw.wo, d, 1, a.mid, d)
		rmsnormForward(a.h2, a.rs2, a.mid, lw.ln2, n, d)
		Sgemm(false, false, n, f, d, 1, a.h2, d, lw.w1, f, 0, a.u, f)
		geluForward(a.g, a.th, a.u)
		next := ws.xf
		if l+1 < c.Layers {
			next = ws.layers[l+1].x
		}
		copy(next, a.mid)
		Sgemm(false, false, n, d, f, 1, a.g, f, lw.w2, d, 1, next, d)
	}
	rmsnormForward(ws.hf, ws.rsf, ws.xf, w.lnf, n, d)
	p, V := ws.nsel, c.Vocab
	for i, r := range b.Rows {
		copy(ws.hsel[i*d:i*d+d], ws.hf[int(r)*d:int(r)*d+d])
	}
	Sgemm(false, true, p, V, d, 1, ws.hsel, d, w.wte, d, 0, ws.probs, V)
	parallelFor(p, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			ws.logp[i] = softmaxRow(ws.probs[i*V:i*V+V], int(b.Targets[i]))
		}
	})
	if len(b.Support) > 0 {
		ws.pvS, ws.zS = grow64(ws.pvS, p), grow64(ws.zS, p)
		for i := range p {
			ws.pvS[i] = 0
			for _, u := range b.Support[i] {
				ws.pvS[i] += float64(ws.probs[i*V+int(u)])
			}
			ws.zS[i] = ws.pvS[i]
		}
	}
	if c.Copy {
		m.copyForward(b, ws)
	} else if len(b.Support) > 0 {
		for i := range p {
			if b.Support[i] != nil {
				ws.logp[i] -= float32(math.Log(max(ws.zS[i], 1e-30)))
			}
		}
	}
	return ws.logp, nil
}

func grow64(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

// softmaxRow turns logits into probabilities in place and returns the
// log-probability of target.
func softmaxRow(z []float32, target int) float32 {
	if softmaxLogpKernel != nil {
		return softmaxLogpKernel(z, target)
	}
	mx := z[0]
	for _, v := range z[1:] {
		if v > mx {
			mx = v
		}
	}
	var sum float64
	zt := z[target]
	for j, v := range z {
		e := expf(v - mx)
		z[j] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for j := range z {
		z[j] *= inv
	}
	return zt - mx - float32(math.Log(sum))
}

// Backward adds into Grads the gradient of a loss whose derivative with
// respect to each target's log-probability (as returned by the last
// Forward) is dlogp. SFT's mean token NLL over P targets is dlogp = -1/P
// everywhere; sequence-level losses (DPO, KTO, PPO) put d(loss)/d(logp of
// the sequence) on each of its targets. A gradient with respect to the
// hidden states staged by AddHiddenGrad (the value head's) is added in
// the same pass.
func (m *Model) Backward(dlogp []float32) error {
	ws := m.ws
	if ws == nil || ws.batch == nil {
		return fmt.Errorf("nn: Backward without Forward")
	}
	if m.Grads == nil {
		return fmt.Errorf("nn: Backward on a model without gradients (EnableGrads)")
	}
	if len(dlogp) != ws.nsel {
		return fmt.Errorf("nn: %d gradients for %d targets", len(dlogp), ws.nsel)
	}
	b := ws.batch
	c, w, g := m.Cfg, m.w, m.g
	n, d, f, H, dh, V, p := ws.n, c.Dim, c.Hidden, c.Heads, c.headDim(), c.Vocab, ws.nsel
	scale := float32(1 / math.Sqrt(float64(dh)))
	ws.dres, ws.dh, ws.dy = grow(ws.dres, n*d), grow(ws.dh, n*d), grow(ws.dy, n*d)
	ws.dqkv, ws.du, ws.dg, ws.dhsel = grow(ws.dqkv, n*3*d), grow(ws.du, n*f), grow(ws.dg, n*f), grow(ws.dhsel, p*d)

	masked := len(b.Support) > 0
	if masked {
		ws.dmask = grow(ws.dmask, p)
	}
	if c.Copy {
		ws.dvocab = grow(ws.dvocab, p)
		ws.dhselCopy, ws.dhfCopy = grow(ws.dhselCopy, p*d), grow(ws.dhfCopy, n*d)
		m.copyBackward(b, ws, dlogp, ws.dvocab)
		dlogp = ws.dvocab
	} else if masked {
		// the row's -log Σ_S p: d/d(Σ_S p) = -dlogp / Σ_S p
		for i := range p {
			ws.dmask[i] = 0
			if b.Support[i] != nil {
				ws.dmask[i] = float32(-float64(dlogp[i]) / max(ws.zS[i], 1e-30))
			}
		}
	}
	// Head: dz = dlogp * (onehot - softmax), in place over the
	// probabilities; a support's mass Σ_S p adds dmask * (p 1_S - Σ_S p p).
	dz := ws.probs
	parallelFor(p, func(_, lo, hi int) {
		var saved []float32
		for i := lo; i < hi; i++ {
			row := dz[i*V : i*V+V]
			gi := dlogp[i]
			var sup []int32
			var dm float32
			if masked {
				sup, dm = b.Support[i], ws.dmask[i]
			}
			if sup == nil || dm == 0 {
				for j := range row {
					row[j] *= -gi
				}
				row[b.Targets[i]] += gi
				continue
			}
			saved = saved[:0]
			for _, u := range sup {
				saved = append(saved, row[u])
			}
			a := -gi - dm*float32(ws.pvS[i])
			for j := range row {
				row[j] *= a
			}
			row[b.Targets[i]] += gi
			for k, u := range sup {
				row[u] += dm * saved[k]
			}
		}
	})
	Sgemm(false, false, p, d, V, 1, dz, V, w.wte, d, 0, ws.dhsel, d)
	Sgemm(true, false, V, d, p, 1, dz, V, ws.hsel, d, 1, g.wte, d)
	dhf := ws.dh
	clear(dhf)
	if c.Copy {
		copy(dhf, ws.dhfCopy)
		addTo(ws.dhsel, ws.dhselCopy)
	}
	if ws.auxPending { // another head's gradient (AddHiddenGrad)
		addTo(ws.dhsel, ws.dhselAux[:p*d])
		ws.auxPending = false
	}
	for i, r := range b.Rows {
		row := dhf[int(r)*d : int(r)*d+d]
		for j, v := range ws.dhsel[i*d : i*d+d] {
			row[j] += v
		}
	}
	dres := ws.dres
	rmsnormBackward(dres, g.lnf, dhf, ws.xf, w.lnf, ws.rsf, n, d, false)
	if len(ws.dp) < workers {
		ws.dp = make([][]float32, workers)
	}
	for l := c.Layers - 1; l >= 0; l-- {
		a, lw, lg := &ws.layers[l], &w.layers[l], &g.layers[l]
		// x_{l+1} = mid + gelu(h2 w1) w2
		Sgemm(false, true, n, f, d, 1, dres, d, lw.w2, d, 0, ws.dg, f)
		Sgemm(true, false, f, d, n, 1, a.g, f, dres, d, 1, lg.w2, d)
		geluBackward(ws.du, ws.dg, a.u, a.th)
		Sgemm(false, true, n, d, f, 1, ws.du, f, lw.w1, f, 0, ws.dh, d)
		Sgemm(true, false, d, f, n, 1, a.h2, d, ws.du, f, 1, lg.w1, f)
		rmsnormBackward(dres, lg.ln2, ws.dh, a.mid, lw.ln2, a.rs2, n, d, true)
		// mid = x + attn(h1) wo
		Sgemm(false, true, n, d, d, 1, dres, d, lw.wo, d, 0, ws.dy, d)
		Sgemm(true, false, d, d, n, 1, a.y, d, dres, d, 1, lg.wo, d)
		// one task per group and head: a prefix's key and value gradients
		// are written by its own pass, then added to by its continuations,
		// in order, so the sums do not depend on scheduling
		parallelTasks(len(ws.groups)*H, func(wk, task int) {
			gi, h := task/H, task%H
			for _, s := range ws.groups[gi] {
				st, t, tp := b.Starts[s], b.Starts[s+1]-b.Starts[s], b.prefixLen(s)
				ws.dp[wk] = grow(ws.dp[wk], t*(tp+t))
				base := st*3*d + h*dh
				var kp, vp, dkp, dvp []float32
				if tp > 0 {
					pb := b.Starts[b.prefixOf(s)]*3*d + h*dh
					kp, vp, dkp, dvp = a.qkv[pb+d:], a.qkv[pb+2*d:], ws.dqkv[pb+d:], ws.dqkv[pb+2*d:]
				}
				attentionBackward(ws.dqkv[base:], ws.dqkv[base+d:], ws.dqkv[base+2*d:], dkp, dvp, ws.dy[st*d+h*dh:], d,
					a.att[ws.attOff[s]+h*t*(tp+t):], a.qkv[base:], a.qkv[base+d:], a.qkv[base+2*d:], kp, vp, 3*d, 3*d, t, tp, dh, scale, ws.dp[wk])
			}
		})
		ropeApply(ws.dqkv, ws.pos, n, d, H, m.cos, m.sin, -1)
		Sgemm(false, true, n, d, 3*d, 1, ws.dqkv, 3*d, lw.wqkv, 3*d, 0, ws.dh, d)
		Sgemm(true, false, d, 3*d, n, 1, a.h1, d, ws.dqkv, 3*d, 1, lg.wqkv, 3*d)
		rmsnormBackward(dres, lg.ln1, ws.dh, a.x, lw.ln1, a.rs1, n, d, true)
	}
	for i, t := range b.Tokens {
		addTo(g.wte[int(t)*d:int(t)*d+d], dres[i*d:i*d+d])
		if p := int(ws.prev[i]); g.wprev != nil && p >= 0 {
			addTo(g.wprev[p*d:p*d+d], dres[i*d:i*d+d])
		}
	}
	ws.batch = nil
	return nil
}

func addTo(dst, src []float32) {
	for j, v := range src {
		dst[j] += v
	}
}
