package loss

import "testing"

// TestAddNLL: the term and its gradient by hand on three samples, two
// desirable, and a finite-difference check of d loss / d mean; no
// desirable sample or weight 0 leaves the loss as it was.
func TestAddNLL(t *testing.T) {
	mean := []float64{-0.5, -2, -1}
	keep := []bool{true, false, true}
	g := Grad{Loss: 1, DSum: []float64{0.1, 0.2, 0.3}}
	if err := AddNLL(&g, mean, keep, 0.5); err != nil {
		t.Fatal(err)
	}
	// nll = (0.5 + 1)/2 = 0.75; loss = 1 + 0.5·0.75
	if !near(g.Loss, 1.375, 1e-12) || !near(g.Stats["nll"], 0.75, 1e-12) {
		t.Errorf("loss %v, nll %v; want 1.375, 0.75", g.Loss, g.Stats["nll"])
	}
	nearAll(t, "DMean", g.DMean, []float64{-0.25, 0, -0.25}, 1e-12)
	if g.DSum[2] != 0.3 {
		t.Error("the preference loss's own gradient was changed")
	}
	m := append([]float64(nil), mean...)
	loss := func() float64 {
		h := Grad{}
		if err := AddNLL(&h, m, keep, 0.5); err != nil {
			t.Fatal(err)
		}
		return h.Loss
	}
	checkFD(t, "nll", loss, ptrs(m), g.DMean)
	for _, c := range []struct {
		keep []bool
		w    float64
	}{{[]bool{false, false, false}, 1}, {keep, 0}} {
		h := Grad{Loss: 2}
		if err := AddNLL(&h, mean, c.keep, c.w); err != nil || h.Loss != 2 || h.DMean != nil {
			t.Errorf("keep %v, w %v: loss %v, dMean %v, %v; want unchanged", c.keep, c.w, h.Loss, h.DMean, err)
		}
	}
	if err := AddNLL(&Grad{}, mean, keep[:2], 1); err == nil {
		t.Error("mismatched lengths accepted")
	}
}
