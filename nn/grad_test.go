package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/numtest"
)

// checkGrad compares analytic[i] with the central difference of loss in
// x[i], for every i (or a sample of 200 when x is longer).
func checkGrad(t *testing.T, name string, x []float32, analytic []float32, loss func() float64) {
	t.Helper()
	const eps = 1e-2
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > 200 {
		r := rand.New(rand.NewPCG(7, uint64(len(x))))
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:200]
	}
	worst := 0.0
	for _, i := range idx {
		old := x[i]
		x[i] = old + eps
		lp := loss()
		x[i] = old - eps
		lm := loss()
		x[i] = old
		num := (lp - lm) / (2 * eps)
		a := float64(analytic[i])
		err := math.Abs(num-a) / (math.Max(math.Abs(num), math.Abs(a)) + 1e-2)
		worst = math.Max(worst, err)
		if err > 2e-2 {
			t.Errorf("%s: grad[%d] analytic %.6g numeric %.6g", name, i, a, num)
		}
	}
	t.Logf("%s: %d coordinates, worst relative error %.2g", name, len(idx), worst)
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestGradRMSNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n, d := 5, 12
	x, w, c := randSlice(r, n*d), randSlice(r, d), randSlice(r, n*d)
	out, rstd := make([]float32, n*d), make([]float32, n)
	loss := func() float64 { rmsnormForward(out, rstd, x, w, n, d); return dot64(out, c) }
	loss()
	dx, dw := make([]float32, n*d), make([]float32, d)
	rmsnormBackward(dx, dw, c, x, w, rstd, n, d, false)
	checkGrad(t, "rmsnorm/x", x, dx, loss)
	checkGrad(t, "rmsnorm/w", w, dw, loss)
}

func TestGradGELU(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	u, c := randSlice(r, 40), randSlice(r, 40)
	out, th := make([]float32, 40), make([]float32, 40)
	loss := func() float64 { geluForward(out, th, u); return dot64(out, c) }
	loss()
	du := make([]float32, 40)
	geluBackward(du, c, u, th)
	checkGrad(t, "gelu", u, du, loss)
}

func TestGradRoPE(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	cfg := Config{Vocab: 5, Dim: 8, Layers: 1, Heads: 2, Hidden: 4, MaxSeq: 16}
	m, _ := New(cfg, 1)
	n, d := 6, 8
	pos := []int32{0, 1, 2, 7, 3, 15}
	x, c := randSlice(r, n*3*d), randSlice(r, n*3*d)
	buf := make([]float32, n*3*d)
	loss := func() float64 {
		copy(buf, x)
		ropeApply(buf, pos, n, d, 2, m.cos, m.sin, 1)
		return dot64(buf, c)
	}
	dx := append([]float32(nil), c...)
	ropeApply(dx, pos, n, d, 2, m.cos, m.sin, -1)
	checkGrad(t, "rope", x, dx, loss)
}

func TestGradAttention(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 4))
	T, dh, qs := 7, 4, 12
	qkv, c := randSlice(r, T*qs), randSlice(r, T*dh)
	p, out := make([]float32, T*T), make([]float32, T*dh)
	scale := float32(0.5)
	loss := func() float64 {
		attentionForward(p, out, dh, qkv, qkv[dh:], qkv[2*dh:], nil, nil, qs, qs, T, 0, dh, scale)
		return dot64(out, c)
	}
	loss()
	dqkv := make([]float32, T*qs)
	attentionBackward(dqkv, dqkv[dh:], dqkv[2*dh:], nil, nil, c, dh, p, qkv, qkv[dh:], qkv[2*dh:], nil, nil, qs, qs, T, 0, dh, scale, make([]float32, T*T))
	checkGrad(t, "attention/qkv", qkv, dqkv, loss)
}

// TestGradAttentionPrefix checks attention after a shared prefix: the
// gradients of the sequence's and of the prefix's rows.
func TestGradAttentionPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 14))
	T, tp, dh, qs := 5, 4, 4, 12
	qkv, pre, c := randSlice(r, T*qs), randSlice(r, tp*qs), randSlice(r, T*dh)
	p, out := make([]float32, T*(tp+T)), make([]float32, T*dh)
	scale := float32(0.5)
	loss := func() float64 {
		attentionForward(p, out, dh, qkv, qkv[dh:], qkv[2*dh:], pre[dh:], pre[2*dh:], qs, qs, T, tp, dh, scale)
		return dot64(out, c)
	}
	loss()
	dqkv, dpre := make([]float32, T*qs), make([]float32, tp*qs)
	attentionBackward(dqkv, dqkv[dh:], dqkv[2*dh:], dpre[dh:], dpre[2*dh:], c, dh, p, qkv, qkv[dh:], qkv[2*dh:], pre[dh:], pre[2*dh:], qs, qs, T, tp, dh, scale, make([]float32, T*(tp+T)))
	checkGrad(t, "attention-prefix/qkv", qkv, dqkv, loss)
	checkGrad(t, "attention-prefix/prefix", pre, dpre, loss)
}

func TestGradSoftmaxLogp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 5))
	z := randSlice(r, 9)
	buf := make([]float32, 9)
	loss := func() float64 { copy(buf, z); return float64(softmaxRow(buf, 3)) }
	loss()
	g := make([]float32, 9)
	for j := range g {
		g[j] = -buf[j]
	}
	g[3]++
	checkGrad(t, "logsoftmax", z, g, loss)
}

// tinyTestModel is a model small enough for finite differences on every
// parameter tensor, with weights large enough for non-trivial gradients.
func tinyTestModel(t *testing.T, seed uint64) *Model { return tinyModel(t, seed, true) }

// tinyModel is tinyTestModel with or without the pointer head.
func tinyModel(t *testing.T, seed uint64, withCopy bool) *Model {
	cfg := Config{Vocab: 13, Dim: 8, Layers: 2, Heads: 2, Hidden: 12, MaxSeq: 16, PrevToken: true, Copy: withCopy, CopyDim: 6}
	m, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 9))
	for i := range m.Params {
		m.Params[i] = float32(r.NormFloat64() * 0.5)
	}
	m.EnableGrads()
	return m
}

func testBatch() *Batch {
	b := &Batch{}
	b.Add([]int32{1, 5, 7, 2, 9}, 1)
	b.Add([]int32{3, 3, 12, 0, 4, 8, 6}, 0)
	b.Add([]int32{11, 10}, 0)
	b.Add([]int32{4, 6, 4, 6, 4, 2, 6, 4, 6, 2, 6, 4}, 1)   // repeats: the pointer head has something to copy
	b.AddPrompted([]int32{4, 6, 2, 6, 4, 6, 2, 4, 6, 2}, 5) // copying from a 5-token prompt only
	return b
}

// TestGradModel checks every parameter's gradient by finite differences,
// with whole rows and with rows restricted to a support (Batch.Support),
// the latter with and without the pointer head.
func TestGradModel(t *testing.T) {
	for _, be := range []Backend{Go, BLAS} {
		if be == BLAS && !BLASAvailable() {
			continue
		}
		for _, tc := range []struct {
			name              string
			withCopy, support bool
		}{{"whole", true, false}, {"support", true, true}, {"support-nocopy", false, true}} {
			t.Run(string(be)+"/"+tc.name, func(t *testing.T) {
				defer SetBackend(CurrentBackend())
				SetBackend(be)
				m := tinyModel(t, 3, tc.withCopy)
				b := testBatch()
				if tc.support {
					b = supportBatch(m.Cfg.Vocab)
				}
				r := rand.New(rand.NewPCG(2, 2))
				c := randSlice(r, len(b.Rows))
				loss := func() float64 {
					lp, err := m.Forward(b)
					if err != nil {
						t.Fatal(err)
					}
					return dot64(lp, c)
				}
				loss()
				if err := m.Backward(c); err != nil {
					t.Fatal(err)
				}
				for _, ts := range m.Cfg.Tensors() {
					checkGrad(t, ts.Name, m.Params[ts.Off:ts.Off+ts.Size()], m.Grads[ts.Off:ts.Off+ts.Size()], loss)
				}
			})
		}
	}
}

// TestPrefixMatchesUnshared checks that sequences continuing a shared
// prefix get exactly what they get written out whole: the same
// log-probabilities, and the same gradients, for every parameter. With the
// finite-difference checks of the unshared model this covers the shared
// path's backward pass too.
func TestPrefixMatchesUnshared(t *testing.T) {
	for _, be := range []Backend{Go, BLAS} {
		if be == BLAS && !BLASAvailable() {
			continue
		}
		t.Run(string(be), func(t *testing.T) {
			defer SetBackend(CurrentBackend())
			SetBackend(be)
			pre := []int32{4, 6, 2, 6, 4, 9}
			s1 := []int32{6, 2, 4, 6, 2, 6, 4}
			s2 := []int32{2, 6, 4, 1}
			s3 := []int32{3, 3, 12, 0, 4, 8}
			shared := &Batch{}
			shared.Add([]int32{11, 10, 5}, 0) // an unrelated sequence first
			shared.AddSeq(pre, len(pre), 0)   // the prefix: nothing scored
			shared.AddContinuation(1, s1, 1, len(pre)+3)
			shared.AddSeq(s3, 1, 0) // unrelated, between continuations
			shared.AddContinuation(1, s2, 0, 0)
			whole := &Batch{}
			whole.Add([]int32{11, 10, 5}, 0)
			whole.AddSeq(append(slices.Clone(pre), s1...), len(pre)+1, len(pre)+3)
			whole.AddSeq(s3, 1, 0)
			whole.AddSeq(append(slices.Clone(pre), s2...), len(pre), 0)
			if len(shared.Rows) != len(whole.Rows) {
				t.Fatalf("%d vs %d scored rows", len(shared.Rows), len(whole.Rows))
			}
			m := tinyTestModel(t, 5)
			c := randSlice(rand.New(rand.NewPCG(3, 3)), len(whole.Rows))
			run := func(b *Batch) ([]float32, []float32) {
				m.ZeroGrads()
				lp, err := m.Forward(b)
				if err != nil {
					t.Fatal(err)
				}
				lp = slices.Clone(lp)
				if err := m.Backward(c); err != nil {
					t.Fatal(err)
				}
				return lp, slices.Clone(m.Grads)
			}
			lpS, gS := run(shared)
			lpW, gW := run(whole)
			// the two paths add the same terms in other orders (the
			// prefix's keys are a separate gemm): equal up to rounding
			worst := 0.0
			for i := range lpS {
				tol := lpTol(m.Cfg, 1, float64(lpW[i]))
				worst = math.Max(worst, math.Abs(float64(lpS[i]-lpW[i]))/tol)
				if math.Abs(float64(lpS[i]-lpW[i])) > tol {
					t.Errorf("log-prob %d: shared %v, whole %v", i, lpS[i], lpW[i])
				}
			}
			for _, ts := range m.Cfg.Tensors() {
				tol := gradTol(m.Cfg, len(whole.Tokens), gW[ts.Off:ts.Off+ts.Size()])
				for i := ts.Off; i < ts.Off+ts.Size(); i++ {
					worst = math.Max(worst, math.Abs(float64(gS[i]-gW[i]))/tol)
					if math.Abs(float64(gS[i]-gW[i])) > tol {
						t.Errorf("%s[%d]: gradient shared %v, whole %v (tolerance %.2g)", ts.Name, i-ts.Off, gS[i], gW[i], tol)
						break
					}
				}
			}
			t.Logf("worst difference %.3g of its tolerance", worst)
		})
	}
}

// lpTol is the difference allowed between two computations of a sum of
// tokens log-probabilities (sum) by different paths: numtest.Tol with n the
// widest float32 reduction behind a log-probability, the feed-forward
// width through every layer plus the vocabulary and pointer heads, and
// magnitude tokens + |sum|, since a log-softmax's rounding error is
// absolute on logits of order 1 and grows with |log p|.
func lpTol(c Config, tokens int, sum float64) float64 {
	return numtest.Tol(c.Layers*c.Hidden+2, float64(tokens)+math.Abs(sum))
}

// gradTol is the difference allowed in the elements of one gradient tensor
// (want, from one path) computed by another path on a batch of tokens
// tokens: numtest.Tol with n = lpTol's plus the tokens (a weight's gradient
// is a sum over every position) and the tensor's largest |gradient| as
// magnitude, since a near-zero element is a sum of larger terms that cancel.
func gradTol[F float32 | float64](c Config, tokens int, want []F) float64 {
	mag := 0.0
	for _, v := range want {
		mag = math.Max(mag, math.Abs(float64(v)))
	}
	return numtest.Tol(c.Layers*c.Hidden+2+tokens, mag)
}

// supportBatch is testBatch with a support on most rows: the target and a
// few other tokens (some of them in the prompt, so that the pointer head's
// mass on the support is not just its mass on the target); every fourth
// row is left whole.
func supportBatch(V int) *Batch {
	b := testBatch()
	r := rand.New(rand.NewPCG(4, 4))
	b.Support = make([][]int32, len(b.Rows))
	for i, y := range b.Targets {
		if i%4 == 3 {
			continue
		}
		sup := []int32{y}
		for _, u := range r.Perm(V)[:2+i%5] {
			if int32(u) != y {
				sup = append(sup, int32(u))
			}
		}
		r.Shuffle(len(sup), func(a, c int) { sup[a], sup[c] = sup[c], sup[a] })
		b.Support[i] = sup
	}
	return b
}

// TestSupportNormalises checks what a support means: over the tokens of a
// row's support, the masked probabilities sum to 1, each the whole
// distribution's probability divided by its mass on the support, and a
// support of the whole vocabulary changes nothing.
func TestSupportNormalises(t *testing.T) {
	m := tinyTestModel(t, 5)
	V := m.Cfg.Vocab
	seq := []int32{4, 6, 2, 6, 4, 6, 2, 4, 6, 2}
	const pl = 5 // score the row predicting seq[pl]
	whole := func(target int32) float64 {
		b := &Batch{}
		s := slices.Clone(seq[:pl+1])
		s[pl] = target
		b.AddPrompted(s, pl)
		lp, err := m.Forward(b)
		if err != nil {
			t.Fatal(err)
		}
		return float64(lp[0])
	}
	masked := func(target int32, sup []int32) float64 {
		b := &Batch{}
		s := slices.Clone(seq[:pl+1])
		s[pl] = target
		b.AddPrompted(s, pl)
		b.Support = [][]int32{sup}
		lp, err := m.Forward(b)
		if err != nil {
			t.Fatal(err)
		}
		return float64(lp[0])
	}
	sup := []int32{6, 2, 9, 11} // 6 and 2 are in the prompt: the pointer's mass counts
	var mass, sum float64
	for _, u := range sup {
		mass += math.Exp(whole(u))
	}
	for _, u := range sup {
		q := masked(u, sup)
		sum += math.Exp(q)
		if want := whole(u) - math.Log(mass); math.Abs(q-want) > 1e-5 {
			t.Errorf("token %d: masked log-prob %.7f, want %.7f", u, q, want)
		}
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("masked probabilities over the support sum to %.7f", sum)
	}
	all := make([]int32, V)
	for i := range all {
		all[i] = int32(i)
	}
	if q, w := masked(6, all), whole(6); math.Abs(q-w) > 1e-5 {
		t.Errorf("support of the whole vocabulary: %.7f, unmasked %.7f", q, w)
	}
}

func TestSupportErrors(t *testing.T) {
	m := tinyTestModel(t, 5)
	for _, tc := range []struct {
		name string
		sup  [][]int32
		want string
	}{
		{"count", [][]int32{{6}, {6}}, "2 supports for 1 scored rows"},
		{"no target", [][]int32{{2, 9}}, "lacks its target 6"},
		{"repeated", [][]int32{{6, 2, 2}}, "repeated"},
		{"out of range", [][]int32{{6, 13}}, "out of vocabulary"},
	} {
		b := &Batch{}
		b.AddPrompted([]int32{4, 6, 2, 6}, 3)
		b.Support = tc.sup
		if _, err := m.Forward(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
