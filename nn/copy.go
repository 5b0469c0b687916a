package nn

import (
	"math"
	"slices"
)

// The pointer head (Config.Copy). For a scored row r at position t of its
// sequence, with final state h (after the last norm):
//
//	q = h·wcq, k_j = h_j·wck for positions j <= t
//	β₁, β₂ = wbeta·[h,1]; m_j = [x_{j-1} = x_t]; m2_j = m_j·[x_{j-2} = x_{t-1}]
//	α = softmax_j(q·k_j/√dc + β₁·m_j + β₂·m2_j)
//	g = sigmoid(wgate·[h,1])
//	P(y) = g·softmax(h·wteᵀ)(y) + (1-g)·Σ_{j<=t, x_j=y} α_j
//
// and the scored log-probability is log P(target); with a support S
// (Batch.Support), log P(target) - log Z, where the mass on S,
//
//	Z = g·Σ_{u∈S} softmax(h·wteᵀ)(u) + (1-g)·Σ_{j<=t, x_j∈S} α_j,
//
// is the same mixture with the set S in place of the single target.

// copyState holds the pointer head's activations for one batch.
type copyState struct {
	kc, qc       []float32 // [n, dc], [P, dc]
	att          []float32 // per sequence: [rows of the sequence, T]
	attOff       []int
	seqRows      []int // scored rows of sequence s: [seqRows[s], seqRows[s+1])
	rowPos       []int32
	gate, pv, pc []float32
	pcS          []float64 // the pointer's mass on the row's support
	beta, beta2  []float32
	mix          []float64
}

// matchBonus adds the continuation bonuses to the pointer scores row[:lim]
// of the position t of toks: beta where the token before j equals toks[t],
// beta2 more where the two tokens before j equal toks[t-1], toks[t].
func matchBonus(row []float32, toks []int32, lim, t int, beta, beta2 float32) {
	for j := 1; j < lim; j++ {
		switch matchOrder(toks, t, j) {
		case 2:
			row[j] += beta2
			fallthrough
		case 1:
			row[j] += beta
		}
	}
}

// matchOrder returns 0, 1 or 2: how many of the bonuses of position t
// apply at j.
func matchOrder(toks []int32, t, j int) int {
	if j < 1 || toks[j-1] != toks[t] {
		return 0
	}
	if j >= 2 && t >= 1 && toks[j-2] == toks[t-1] {
		return 2
	}
	return 1
}

// copyLim is how many positions row position t of a sequence may point to.
func copyLim(t, limit int) int {
	if limit > 0 && limit < t+1 {
		return limit
	}
	return t + 1
}

func (m *Model) copyForward(b *Batch, ws *workspace) {
	c, w := m.Cfg, m.w
	cs := &ws.copy
	n, p, d, dc, V := ws.n, ws.nsel, c.Dim, c.copyDim(), c.Vocab
	cs.kc, cs.qc = grow(cs.kc, n*dc), grow(cs.qc, p*dc)
	Sgemm(false, false, n, dc, d, 1, ws.hf, d, w.wck, dc, 0, cs.kc, dc)
	Sgemm(false, false, p, dc, d, 1, ws.hsel, d, w.wcq, dc, 0, cs.qc, dc)
	nseq := b.NumSeqs()
	// rows are grouped by sequence in order (checkBatch)
	cs.seqRows = cs.seqRows[:0]
	if cap(cs.rowPos) < p {
		cs.rowPos = make([]int32, p)
	}
	cs.rowPos = cs.rowPos[:p]
	r := 0
	for s := 0; s < nseq; s++ {
		cs.seqRows = append(cs.seqRows, r)
		for r < p && int(b.Rows[r]) < b.Starts[s+1] {
			cs.rowPos[r] = int32(int(b.Rows[r]) - b.Starts[s] + b.prefixLen(s))
			r++
		}
	}
	cs.seqRows = append(cs.seqRows, r)
	cs.attOff = cs.attOff[:0]
	tot := 0
	for s := 0; s < nseq; s++ {
		cs.attOff = append(cs.attOff, tot)
		tot += (cs.seqRows[s+1] - cs.seqRows[s]) * (b.Starts[s+1] - b.Starts[s] + b.prefixLen(s))
	}
	cs.att = grow(cs.att, tot)
	cs.gate, cs.pv, cs.pc = grow(cs.gate, p), grow(cs.pv, p), grow(cs.pc, p)
	cs.beta, cs.beta2 = grow(cs.beta, p), grow(cs.beta2, p)
	masked := len(b.Support) > 0
	if masked {
		cs.pcS = grow64(cs.pcS, p)
	}
	for r := 0; r < p; r++ {
		h := ws.hsel[r*d : r*d+d]
		cs.beta[r] = dot32(w.wbeta[:d], h) + w.wbeta[d]
		cs.beta2[r] = dot32(w.wbeta[d+1:2*d+1], h) + w.wbeta[2*d+1]
	}
	if cap(cs.mix) < p {
		cs.mix = make([]float64, p)
	}
	cs.mix = cs.mix[:p]
	scale := float32(1 / math.Sqrt(float64(dc)))
	parallelTasks(nseq, func(_, s int) {
		r0, r1 := cs.seqRows[s], cs.seqRows[s+1]
		if r0 == r1 {
			return
		}
		st, tp := b.Starts[s], b.prefixLen(s)
		T := b.Starts[s+1] - st + tp
		a := cs.att[cs.attOff[s] : cs.attOff[s]+(r1-r0)*T]
		if tp > 0 {
			Sgemm(false, true, r1-r0, tp, dc, scale, cs.qc[r0*dc:], dc, cs.kc[b.Starts[b.prefixOf(s)]*dc:], dc, 0, a, T)
		}
		Sgemm(false, true, r1-r0, T-tp, dc, scale, cs.qc[r0*dc:], dc, cs.kc[st*dc:], dc, 0, a[tp:], T)
		toks := seqTokens(b, s)
		limit := b.copyLimit(s)
		var in []bool
		for r := r0; r < r1; r++ {
			row := a[(r-r0)*T : (r-r0+1)*T]
			t := int(cs.rowPos[r])
			lim := copyLim(t, limit)
			matchBonus(row, toks, lim, t, cs.beta[r], cs.beta2[r])
			softmaxPrefix(row, lim)
			y := b.Targets[r]
			var pc float32
			for j, x := range toks[:lim] {
				if x == y {
					pc += row[j]
				}
			}
			cs.pc[r] = pc
			if sup := b.supportOf(r); sup != nil {
				in = markSupport(in, V, sup, true)
				var pcS float64
				for j, x := range toks[:lim] {
					if in[x] {
						pcS += float64(row[j])
					}
				}
				cs.pcS[r] = pcS
				markSupport(in, V, sup, false)
			}
		}
	})
	for r := 0; r < p; r++ {
		h := ws.hsel[r*d : r*d+d]
		g := sigmoid(dot32(w.wgate[:d], h) + w.wgate[d])
		pv := ws.probs[r*V+int(b.Targets[r])]
		cs.gate[r], cs.pv[r] = g, pv
		mix := float64(g)*float64(pv) + float64(1-g)*float64(cs.pc[r])
		cs.mix[r] = mix
		ws.logp[r] = float32(math.Log(max(mix, 1e-30)))
		if b.supportOf(r) != nil {
			ws.zS[r] = float64(g)*ws.pvS[r] + float64(1-g)*cs.pcS[r]
			ws.logp[r] = float32(math.Log(max(mix, 1e-30)) - math.Log(max(ws.zS[r], 1e-30)))
		}
	}
}

// markSupport sets (or clears) in[u] for the tokens of sup, allocating in
// for a vocabulary of V on first use, and returns it.
func markSupport(in []bool, V int, sup []int32, on bool) []bool {
	if in == nil {
		in = make([]bool, V)
	}
	for _, u := range sup {
		in[u] = on
	}
	return in
}

// softmaxPrefix turns row[:lim] into probabilities and zeroes the rest.
func softmaxPrefix(row []float32, lim int) { softmaxCausal(row, 1, len(row), lim-1) }

// seqTokens returns sequence s's tokens, its prefix's included.
func seqTokens(b *Batch, s int) []int32 {
	own := b.Tokens[b.Starts[s]:b.Starts[s+1]]
	j := b.prefixOf(s)
	if j < 0 {
		return own
	}
	return append(slices.Clip(b.Tokens[b.Starts[j]:b.Starts[j+1]]), own...)
}

func sigmoid(x float32) float32 { return 1 / (1 + expf(-x)) }

func dot32(a, b []float32) float32 {
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// copyBackward turns the gradients of the mixture's log-probabilities
// (dlogp) into those of the head's log-softmax (written to dvocab), adds the
// pointer head's parameter gradients, and returns through dhsel (added)
// and dhfCopy (written, [n, d]) the gradients of the final states.
func (m *Model) copyBackward(b *Batch, ws *workspace, dlogp, dvocab []float32) {
	c, w, g := m.Cfg, m.w, m.g
	cs := &ws.copy
	n, p, d, dc := ws.n, ws.nsel, c.Dim, c.copyDim()
	scale := float32(1 / math.Sqrt(float64(dc)))
	dpc := make([]float32, p)
	dgl := make([]float32, p)
	masked := len(b.Support) > 0
	var dpcS []float32 // d/d(the pointer's mass on the support)
	if masked {
		dpcS = make([]float32, p)
	}
	for r := 0; r < p; r++ {
		if masked {
			ws.dmask[r] = 0
		}
		if cs.mix[r] < 1e-30 {
			dvocab[r] = 0
			continue
		}
		cr := float64(dlogp[r]) / cs.mix[r]
		gr := float64(cs.gate[r])
		dvocab[r] = float32(cr * gr * float64(cs.pv[r])) // times (onehot - p) in the head
		dpc[r] = float32(cr * (1 - gr))
		dgl[r] = float32(cr * (float64(cs.pv[r]) - float64(cs.pc[r])) * gr * (1 - gr))
		if masked && b.Support[r] != nil && ws.zS[r] >= 1e-30 {
			// -log Z, Z = g·pvS + (1-g)·pcS
			cz := -float64(dlogp[r]) / ws.zS[r]
			ws.dmask[r] = float32(cz * gr)
			dpcS[r] = float32(cz * (1 - gr))
			dgl[r] += float32(cz * (ws.pvS[r] - cs.pcS[r]) * gr * (1 - gr))
		}
	}
	// gate: wgate·[h,1]
	for r := 0; r < p; r++ {
		h := ws.hsel[r*d : r*d+d]
		gw := g.wgate[:d]
		for j, v := range h {
			gw[j] += dgl[r] * v
		}
		g.wgate[d] += dgl[r]
	}
	// attention scores: dS = scale * α ⊙ dpc (1[x=y] - pc)
	dbeta, dbeta2 := make([]float32, p), make([]float32, p)
	datt := make([]float32, len(cs.att))
	dqc := make([]float32, p*dc)
	dkc := make([]float32, n*dc)
	// one task per group: a prefix's key gradients are added to by each
	// sequence continuing it, in order
	parallelTasks(len(ws.groups), func(_, gi int) {
		for _, s := range ws.groups[gi] {
			copyBackwardSeq(b, cs, s, dpc, dpcS, dbeta, dbeta2, datt, dqc, dkc, scale, dc, c.Vocab)
		}
	})
	Sgemm(true, false, d, dc, p, 1, ws.hsel, d, dqc, dc, 1, g.wcq, dc)
	Sgemm(true, false, d, dc, n, 1, ws.hf, d, dkc, dc, 1, g.wck, dc)
	for r := 0; r < p; r++ {
		h := ws.hsel[r*d : r*d+d]
		gb, gb2 := g.wbeta[:d], g.wbeta[d+1:2*d+1]
		for j, v := range h {
			gb[j] += dbeta[r] * v
			gb2[j] += dbeta2[r] * v
		}
		g.wbeta[d] += dbeta[r]
		g.wbeta[2*d+1] += dbeta2[r]
	}
	Sgemm(false, true, p, d, dc, 1, dqc, dc, w.wcq, dc, 0, ws.dhselCopy, d)
	for r := 0; r < p; r++ {
		row := ws.dhselCopy[r*d : r*d+d]
		for j := range row {
			row[j] += dgl[r]*w.wgate[j] + dbeta[r]*w.wbeta[j] + dbeta2[r]*w.wbeta[d+1+j]
		}
	}
	Sgemm(false, true, n, d, dc, 1, dkc, dc, w.wck, dc, 0, ws.dhfCopy, d)
}

// copyBackwardSeq is copyBackward's attention part for the scored rows of
// sequence s; dpcS (nil without supports) is the gradient of each row's
// pointer mass on its support.
func copyBackwardSeq(b *Batch, cs *copyState, s int, dpc, dpcS, dbeta, dbeta2, datt, dqc, dkc []float32, scale float32, dc, V int) {
	r0, r1 := cs.seqRows[s], cs.seqRows[s+1]
	if r0 == r1 {
		return
	}
	st, tp := b.Starts[s], b.prefixLen(s)
	T := b.Starts[s+1] - st + tp
	a := cs.att[cs.attOff[s] : cs.attOff[s]+(r1-r0)*T]
	da := datt[cs.attOff[s] : cs.attOff[s]+(r1-r0)*T]
	toks := seqTokens(b, s)
	limit := b.copyLimit(s)
	var in []bool
	for r := r0; r < r1; r++ {
		row, drow := a[(r-r0)*T:(r-r0+1)*T], da[(r-r0)*T:(r-r0+1)*T]
		t := int(cs.rowPos[r])
		lim := copyLim(t, limit)
		y, pc, k := b.Targets[r], cs.pc[r], dpc[r]
		var sup []int32
		var kS, pcS float32
		if dpcS != nil && dpcS[r] != 0 {
			sup, kS, pcS = b.Support[r], dpcS[r], float32(cs.pcS[r])
			in = markSupport(in, V, sup, true)
		}
		var db, db2 float32
		for j := 0; j < lim; j++ {
			ind := -pc
			if toks[j] == y {
				ind++
			}
			ds := k * row[j] * ind // d/d(score)
			if sup != nil {
				indS := -pcS
				if in[toks[j]] {
					indS++
				}
				ds += kS * row[j] * indS
			}
			switch matchOrder(toks, t, j) {
			case 2:
				db2 += ds
				fallthrough
			case 1:
				db += ds
			}
			drow[j] = ds * scale // d/d(q·k)
		}
		dbeta[r], dbeta2[r] = db, db2
		if sup != nil {
			markSupport(in, V, sup, false)
		}
	}

	var beta float32
	if tp > 0 {
		ps := b.Starts[b.prefixOf(s)]
		Sgemm(false, false, r1-r0, dc, tp, 1, da, T, cs.kc[ps*dc:], dc, 0, dqc[r0*dc:], dc)
		Sgemm(true, false, tp, dc, r1-r0, 1, da, T, cs.qc[r0*dc:], dc, 1, dkc[ps*dc:], dc)
		beta = 1
	}
	Sgemm(false, false, r1-r0, dc, T-tp, 1, da[tp:], T, cs.kc[st*dc:], dc, beta, dqc[r0*dc:], dc)
	Sgemm(true, false, T-tp, dc, r1-r0, 1, da[tp:], T, cs.qc[r0*dc:], dc, 0, dkc[st*dc:], dc)
}
