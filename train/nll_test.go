package train

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestAddNLL: the term and its gradient by hand on three samples, two
// desirable, and a finite-difference check of d loss / d mean; no
// desirable sample or weight 0 leaves the loss as it was.
func TestAddNLL(t *testing.T) {
	mean := []float64{-0.5, -2, -1}
	keep := []bool{true, false, true}
	g := LossGrad{Loss: 1, DSum: []float64{0.1, 0.2, 0.3}}
	if err := AddNLL(&g, mean, keep, 0.5); err != nil {
		t.Fatal(err)
	}
	// nll = (0.5 + 1)/2 = 0.75; loss = 1 + 0.5·0.75
	if math.Abs(g.Loss-1.375) > 1e-12 || math.Abs(g.Stats["nll"]-0.75) > 1e-12 {
		t.Errorf("loss %v, nll %v; want 1.375, 0.75", g.Loss, g.Stats["nll"])
	}
	want := []float64{-0.25, 0, -0.25}
	for i := range want {
		if math.Abs(g.DMean[i]-want[i]) > 1e-12 {
			t.Errorf("dMean[%d] = %v, want %v", i, g.DMean[i], want[i])
		}
	}
	if g.DSum[2] != 0.3 {
		t.Error("the preference loss's own gradient was changed")
	}
	loss := func(m []float64) float64 {
		h := LossGrad{}
		if err := AddNLL(&h, m, keep, 0.5); err != nil {
			t.Fatal(err)
		}
		return h.Loss
	}
	const eps = 1e-6
	for i := range mean {
		p, q := append([]float64(nil), mean...), append([]float64(nil), mean...)
		p[i] += eps
		q[i] -= eps
		if fd := (loss(p) - loss(q)) / (2 * eps); math.Abs(fd-g.DMean[i]) > 1e-6 {
			t.Errorf("dMean[%d]: analytic %v, finite difference %v", i, g.DMean[i], fd)
		}
	}
	for _, c := range []struct {
		keep []bool
		w    float64
	}{{[]bool{false, false, false}, 1}, {keep, 0}} {
		h := LossGrad{Loss: 2}
		if err := AddNLL(&h, mean, c.keep, c.w); err != nil || h.Loss != 2 || h.DMean != nil {
			t.Errorf("keep %v, w %v: loss %v, dMean %v, %v; want unchanged", c.keep, c.w, h.Loss, h.DMean, err)
		}
	}
	if err := AddNLL(&LossGrad{}, mean, keep[:2], 1); err == nil {
		t.Error("mismatched lengths accepted")
	}
}

// TestRLSFTWeight: online KTO with the NLL term adds, at the first step
// (same samples, same weights), exactly w times the desirable samples'
// mean NLL to the loss, and its log says so; other algorithms refuse it.
func TestRLSFTWeight(t *testing.T) {
	d := rlData(t)
	src := rlStack(t)
	step1 := func(w float64) LogLine {
		o := rlOptions(t, AlgoKTO, t.TempDir(), src)
		o.Steps, o.SFTWeight = 1, w
		o.KTOThreshold = -10 // every sample desirable, so the term has samples
		if _, err := RL(context.Background(), d, o); err != nil {
			t.Fatal(err)
		}
		return readLogLines(t, o.Out)[0]
	}
	base, with := step1(0), step1(2)
	nll, ok := with.Metrics["kto_nll"]
	if !ok || !(nll > 0) {
		t.Fatalf("metrics %v: want a positive kto_nll", with.Metrics)
	}
	if _, ok := base.Metrics["kto_nll"]; ok {
		t.Error("kto_nll logged without the term")
	}
	if got, want := with.Loss-base.Loss, 2*nll; math.Abs(got-want) > 1e-9*(1+want) {
		t.Errorf("loss with the term - without = %v, want 2 x nll = %v", got, want)
	}
	o := rlOptions(t, AlgoDPO, t.TempDir(), src)
	o.SFTWeight = 1
	if _, err := RL(context.Background(), d, o); err == nil || !strings.Contains(err.Error(), "kto only") {
		t.Errorf("DPO with an SFT weight: %v, want a refusal", err)
	}
}
