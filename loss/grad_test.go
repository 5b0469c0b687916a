package loss

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// near compares a float with a tolerance relative to its magnitude (at
// least 1).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func nearAll(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.9g, want %.9g", name, i, got[i], want[i])
		}
	}
}

// checkFD compares analytic derivatives with central differences of
// loss() with respect to each *x in xs; h is scaled to each input, so the
// difference's error is O(h²) + rounding (about 1e-16/h).
func checkFD(t *testing.T, name string, loss func() float64, xs []*float64, grads []float64) {
	t.Helper()
	for k, x := range xs {
		old := *x
		h := 1e-5 * math.Max(1, math.Abs(old))
		*x = old + h
		lp := loss()
		*x = old - h
		lm := loss()
		*x = old
		num := (lp - lm) / (2 * h)
		if !near(grads[k], num, 1e-6) {
			t.Errorf("%s: input %d: analytic %.9g, finite difference %.9g", name, k, grads[k], num)
		}
	}
}

func ptrs(xs []float64) []*float64 {
	out := make([]*float64, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

func uniform(r *rand.Rand, n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float64()
	}
	return out
}

func TestTokenGradsFold(t *testing.T) {
	// DTok + DSum + DMean/len: [1+10+4/2, 2+10+4/2], [3+20+6/1]
	g := Grad{DTok: [][]float64{{1, 2}, {3}}, DSum: []float64{10, 20}, DMean: []float64{4, 6}}
	got := g.TokenGrads()
	want := [][]float32{{13, 14}, {29}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("sequence %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestTokenConversions(t *testing.T) {
	x := [][]float32{{-1.5, 0.25}, {}, {3}}
	back := Float32Tokens(Float64Tokens(x))
	for i := range x {
		if !slices.Equal(back[i], x[i]) {
			t.Errorf("sequence %d: %v, want %v", i, back[i], x[i])
		}
	}
	if Float64Tokens(nil) != nil || Float32Tokens(nil) != nil {
		t.Error("nil must stay nil: it means no derivative")
	}
}

// TestSigmoids: the logistic helpers stay finite and exact far out, where
// the naive formulas overflow or round to log(0).
func TestSigmoids(t *testing.T) {
	for _, tc := range []struct {
		x, sig, logSig float64
	}{
		{0, 0.5, -math.Ln2},
		{2, 0.88079708, -0.12692801},
		{-2, 0.11920292, -2.12692801},
		{800, 1, 0},
		{-800, 0, -800},
	} {
		if s := sigmoid(tc.x); !near(s, tc.sig, 1e-8) {
			t.Errorf("sigmoid(%g) = %.9g, want %.9g", tc.x, s, tc.sig)
		}
		if l := logSigmoid(tc.x); !near(l, tc.logSig, 1e-8) {
			t.Errorf("logSigmoid(%g) = %.9g, want %.9g", tc.x, l, tc.logSig)
		}
	}
}
