package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/internal/numtest"
)

// backends runs f under each gemm backend this build has: the pure-Go
// gemm always, OpenBLAS when it is loaded (not under -tags noblas).
func backends(t *testing.T, f func(t *testing.T)) {
	for _, be := range []Backend{Go, BLAS} {
		if be == BLAS && !BLASAvailable() {
			continue
		}
		t.Run(string(be), func(t *testing.T) {
			defer SetBackend(CurrentBackend())
			SetBackend(be)
			f(t)
		})
	}
}

// testValueHead is a head with weights large enough for non-trivial
// gradients into the trunk.
func testValueHead(t *testing.T, dim int, seed uint64) *ValueHead {
	t.Helper()
	v, err := NewValueHead(dim, seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 11))
	for i := range v.Params {
		v.Params[i] = float32(r.NormFloat64() * 0.5)
	}
	v.EnableGrads()
	return v
}

// TestGradValueLayer checks the head's kernels against finite differences:
// weights, bias and the hidden states.
func TestGradValueLayer(t *testing.T) {
	backends(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 20))
		p, d := 7, 12
		h, params, c := randSlice(r, p*d), randSlice(r, d+1), randSlice(r, p)
		out := make([]float32, p)
		loss := func() float64 { valueForward(out, h, params, p, d); return dot64(out, c) }
		loss()
		dh, grads := make([]float32, p*d), make([]float32, d+1)
		valueBackward(dh, grads, c, h, params, p, d)
		checkGrad(t, "value/h", h, dh, loss)
		checkGrad(t, "value/params", params, grads, loss)
		// without dh only the parameters' gradients are computed, the same
		grads2 := make([]float32, d+1)
		valueBackward(nil, grads2, c, h, params, p, d)
		if !slices.Equal(grads, grads2) {
			t.Errorf("parameter gradients depend on whether dh is computed: %v vs %v", grads, grads2)
		}
	})
}

// TestGradValueTrunk checks, by finite differences on every tensor of the
// model and of the head, the value loss's gradient L = c·V through the
// head and the shared trunk, backpropagated by the model's Backward with
// dlogp = 0. The log-probability path is TestGradModel's, and that one
// Backward carries both is TestValueStagingAddsUp's: checking their sum by
// finite differences here would compare a small difference of two large
// gradients, which the central difference's truncation error swamps.
func TestGradValueTrunk(t *testing.T) {
	backends(t, func(t *testing.T) {
		m := tinyTestModel(t, 3)
		v := testValueHead(t, m.Cfg.Dim, 4)
		b := testBatch()
		c := randSlice(rand.New(rand.NewPCG(2, 21)), len(b.Rows))
		loss := func() float64 {
			if _, err := m.Forward(b); err != nil {
				t.Fatal(err)
			}
			vals, err := v.Forward(m)
			if err != nil {
				t.Fatal(err)
			}
			return dot64(vals, c)
		}
		loss()
		if err := v.Backward(c, true); err != nil {
			t.Fatal(err)
		}
		if err := m.Backward(make([]float32, len(b.Rows))); err != nil {
			t.Fatal(err)
		}
		for _, ts := range m.Cfg.Tensors() {
			checkGrad(t, ts.Name, m.Params[ts.Off:ts.Off+ts.Size()], m.Grads[ts.Off:ts.Off+ts.Size()], loss)
		}
		for _, ts := range v.Tensors() {
			checkGrad(t, ts.Name, v.Params[ts.Off:ts.Off+ts.Size()], v.Grads[ts.Off:ts.Off+ts.Size()], loss)
		}
	})
}

// TestValueStagingAddsUp checks the staging contract: the trunk gradient
// of one Backward with a staged value gradient is the sum of the
// log-probability's alone and the value's alone (dlogp = 0), staged
// gradients of several head Backward calls add up, a frozen-trunk Backward
// leaves the model untouched, and a Forward drops a gradient staged for
// the previous one.
func TestValueStagingAddsUp(t *testing.T) {
	backends(t, func(t *testing.T) {
		m := tinyTestModel(t, 5)
		v := testValueHead(t, m.Cfg.Dim, 6)
		b := testBatch()
		r := rand.New(rand.NewPCG(3, 22))
		p := len(b.Rows)
		c1, c2a, c2b := randSlice(r, p), randSlice(r, p), randSlice(r, p)
		c2 := make([]float32, p)
		for i := range c2 {
			c2[i] = c2a[i] + c2b[i]
		}
		zero := make([]float32, p)
		// run does one Forward, the head's Backward for each of dvs (into
		// the trunk when trunk), the model's Backward with dlogp, and
		// returns the model's gradients.
		run := func(dlogp []float32, trunk bool, dvs ...[]float32) []float32 {
			t.Helper()
			m.ZeroGrads()
			if _, err := m.Forward(b); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Forward(m); err != nil {
				t.Fatal(err)
			}
			for _, dv := range dvs {
				if err := v.Backward(dv, trunk); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Backward(dlogp); err != nil {
				t.Fatal(err)
			}
			return slices.Clone(m.Grads)
		}
		both := run(c1, true, c2)
		lpOnly := run(c1, false)
		valOnly := run(zero, true, c2)
		twice := run(c1, true, c2a, c2b)
		frozen := run(c1, false, c2)
		if !slices.Equal(frozen, lpOnly) {
			t.Errorf("a value Backward without trunk changed the model's gradients")
		}
		worst := 0.0
		for _, ts := range m.Cfg.Tensors() {
			lo, hi := ts.Off, ts.Off+ts.Size()
			tol := gradTol(m.Cfg, len(b.Tokens), both[lo:hi])
			bad := 0
			for i := lo; i < hi && bad < 3; i++ {
				sum := lpOnly[i] + valOnly[i]
				for _, c := range []struct {
					name      string
					got, want float32
				}{{"one Backward vs the two alone", both[i], sum}, {"two staged vs one", twice[i], both[i]}} {
					diff := math.Abs(float64(c.got - c.want))
					worst = math.Max(worst, diff/tol)
					if diff > tol {
						bad++
						t.Errorf("%s[%d]: %s: %v vs %v (tolerance %.2g)", ts.Name, i-lo, c.name, c.got, c.want, tol)
					}
				}
			}
		}
		t.Logf("worst difference %.3g of its tolerance", worst)
		// a gradient staged and not used does not leak into the next Forward
		if _, err := m.Forward(b); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Forward(m); err != nil {
			t.Fatal(err)
		}
		if err := v.Backward(c2, true); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(run(c1, false), lpOnly) {
			t.Errorf("a gradient staged for an earlier Forward reached a later Backward")
		}
	})
}

// TestValueBackendsAgree compares the values of the pure-Go gemm and
// OpenBLAS within numtest's bound: one dot product of Dim terms plus the
// bias, on the same hidden states.
func TestValueBackendsAgree(t *testing.T) {
	if !BLASAvailable() {
		t.Skip("OpenBLAS not loaded")
	}
	defer SetBackend(CurrentBackend())
	m := tinyTestModel(t, 7)
	v := testValueHead(t, m.Cfg.Dim, 8)
	b := testBatch()
	values := func(be Backend) []float32 {
		SetBackend(be)
		if _, err := m.Forward(b); err != nil {
			t.Fatal(err)
		}
		out, err := v.Forward(m)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(out)
	}
	goV, blasV := values(Go), values(BLAS)
	// the hidden states themselves differ by the trunk's rounding: the
	// bound is lpTol's reductions, magnitude Σ|w_j h_j| + |b| per value
	h := v.h
	d := m.Cfg.Dim
	for i := range goV {
		mag := math.Abs(float64(v.Params[d]))
		for j := range d {
			mag += math.Abs(float64(v.Params[j] * h[i*d+j]))
		}
		if tol := numtest.Tol(m.Cfg.Layers*m.Cfg.Hidden+d+1, mag); math.Abs(float64(goV[i]-blasV[i])) > tol {
			t.Errorf("value %d: Go %v, BLAS %v (tolerance %.2g)", i, goV[i], blasV[i], tol)
		}
	}
}

// TestValueDeterministic checks that the same head on the same batch
// gives bitwise the same values (training relies on it for exact resume).
func TestValueDeterministic(t *testing.T) {
	m := tinyTestModel(t, 9)
	v := testValueHead(t, m.Cfg.Dim, 10)
	b := testBatch()
	var runs [][]float32
	for range 2 {
		if _, err := m.Forward(b); err != nil {
			t.Fatal(err)
		}
		out, err := v.Forward(m)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, slices.Clone(out))
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Errorf("values differ between two runs: %v vs %v", runs[0], runs[1])
	}
}

func TestValueHeadSaveLoad(t *testing.T) {
	v := testValueHead(t, 8, 12)
	path := filepath.Join(t.TempDir(), "value.bin")
	if err := v.Save(path); err != nil {
		t.Fatal(err)
	}
	w, err := LoadValueHead(path, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Params, w.Params) {
		t.Errorf("reloaded parameters differ")
	}
	if _, err := LoadValueHead(path, 9); err == nil {
		t.Errorf("a head of width 8 loaded as width 9")
	}
	if _, err := LoadValueHead(filepath.Join(t.TempDir(), "none.bin"), 8); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
}

func TestValueErrors(t *testing.T) {
	m := tinyTestModel(t, 13)
	v := testValueHead(t, m.Cfg.Dim, 14)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"Hidden before Forward", func() error { _, err := m.Hidden(); return err }()},
		{"head Forward before Forward", func() error { _, err := v.Forward(m); return err }()},
		{"head Backward before Forward", v.Backward([]float32{1}, false)},
		{"head of another width", func() error { _, err := testValueHead(t, m.Cfg.Dim+1, 1).Forward(m); return err }()},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	b := testBatch()
	if _, err := m.Forward(b); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Forward(m); err != nil {
		t.Fatal(err)
	}
	if err := v.Backward(make([]float32, len(b.Rows)+1), false); err == nil {
		t.Errorf("value gradients of the wrong length accepted")
	}
	if err := m.AddHiddenGrad(make([]float32, 3)); err == nil {
		t.Errorf("a hidden gradient of the wrong length accepted")
	}
	frozen := tinyTestModel(t, 13)
	frozen.Grads = nil
	if _, err := frozen.Forward(b); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Forward(frozen); err != nil {
		t.Fatal(err)
	}
	if err := v.Backward(make([]float32, len(b.Rows)), true); err == nil {
		t.Errorf("a trunk gradient staged on a model without gradients")
	}
	if err := v.Backward(make([]float32, len(b.Rows)), false); err != nil {
		t.Errorf("frozen trunk: %v", err)
	}
}
