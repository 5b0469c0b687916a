package train

import (
	"context"
	"math"
	"strings"
	"testing"
)

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
