package train

import (
	"math/rand/v2"
	"testing"
)

func TestPenalizeKL(t *testing.T) {
	// 1 - .1·(-2 - -3) = .9; 0 - .1·0 = 0
	got, err := PenalizeKL([]float64{1, 0}, []float64{-2, -3}, []float64{-3, -3}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	rlNearAll(t, "rewards", got, []float64{0.9, 0}, 1e-12)
}

func TestRLOOAdvantages(t *testing.T) {
	// group [1, 0, .5]: A_0 = 1 - (0+.5)/2 = .75, A_1 = 0 - 1.5/2 = -.75,
	// A_2 = .5 - 1/2 = 0; group [0, 0, 0]: all 0.
	got, err := RLOOAdvantages([]float64{1, 0, 0.5, 0, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	rlNearAll(t, "adv", got, []float64{0.75, -0.75, 0, 0, 0, 0}, 1e-12)
	if _, err := RLOOAdvantages([]float64{1, 0, 0.5}, 2); err == nil {
		t.Error("3 samples in groups of 2 accepted")
	}
}

func TestRLOOLossByHand(t *testing.T) {
	// L = -(.75·-2 + -.75·-4 + 0·-3)/3 = -(−1.5 + 3)/3 = -.5
	// dL/dSum_i = -A_i/3 = [-.25, .25, 0]
	g, err := RLOOLoss([]float64{-2, -4, -3}, []float64{0.75, -0.75, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !rlNear(g.Loss, -0.5, 1e-12) {
		t.Errorf("loss %g, want -.5", g.Loss)
	}
	rlNearAll(t, "DSum", g.DSum, []float64{-0.25, 0.25, 0}, 1e-12)
	if g.DMean != nil || g.DTok != nil {
		t.Error("RLOO's gradient is on the Sum only")
	}
}

func TestRLOOLossFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	sum := rlRand(r, 6, -30, -2)
	adv, err := RLOOAdvantages(rlRand(r, 6, -1, 1), 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := RLOOLoss(sum, adv)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		g, _ := RLOOLoss(sum, adv)
		return g.Loss
	}
	rlCheckFD(t, "rloo", loss, rlPtrs(sum), g.DSum)
}

func TestGRPOAdvantages(t *testing.T) {
	// group [1, 0, 0, 0]: mean .25, squares .5625 + 3·.0625 = .75,
	// sample std sqrt(.75/3) = .5: A = .75/.5001 = 1.4997001,
	// -.25/.5001 = -.49990002; group [1, 1, 1, 1]: 0.
	got, err := GRPOAdvantages([]float64{1, 0, 0, 0, 1, 1, 1, 1}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.4997001, -0.49990002, -0.49990002, -0.49990002, 0, 0, 0, 0}
	rlNearAll(t, "adv", got, want, 1e-7)
}

func TestGRPOLossByHand(t *testing.T) {
	// β .1, ε .2. Sequence 0, A = 1, ρ = 1 (old = new):
	//   tok 0: ℓ = -1, ref = new: k3 = 0; d = -1
	//   tok 1: ℓ = -1 + .1 k3, ref-new = .5: k3 = e^.5 - .5 - 1 = .1487213;
	//          ℓ = -.9851279, d = -1 + .1(1 - e^.5) = -1.0648721
	// Sequence 1, A = .5: ρ = e^.5 = 1.6487 > 1.2 with A > 0: clipped,
	//   ℓ = -1.2·.5 = -.6, d = 0; ref = new: k3 = 0.
	// L = ½[(-1 - .9851279)/2 + (-.6)/1] = -.7962820
	// DTok: weights 1/(2·2) and 1/(2·1): [-.25, -.2662180], [0]
	g, err := GRPOLoss(GRPOConfig{Beta: 0.1},
		[][]float64{{-1, -2}, {-0.5}},
		[][]float64{{-1, -2}, {-1}},
		[][]float64{{-1, -1.5}, {-0.5}},
		[]float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !rlNear(g.Loss, -0.7962820, 1e-6) {
		t.Errorf("loss %.9g, want -.7962820", g.Loss)
	}
	rlNearAll(t, "DTok[0]", g.DTok[0], []float64{-0.25, -0.2662180}, 1e-6)
	rlNearAll(t, "DTok[1]", g.DTok[1], []float64{0}, 1e-12)
	if !rlNear(g.Stats["kl"], 0.25*0.1487213, 1e-6) || !rlNear(g.Stats["clipfrac"], 1.0/3, 1e-12) {
		t.Errorf("stats %v", g.Stats)
	}

	// on-policy, no KL: ρ = 1, L = -mean_i A_i, d = -A_i/(N T_i)
	g, err = GRPOLoss(GRPOConfig{}, [][]float64{{-1, -2}, {-0.5}}, nil, nil, []float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !rlNear(g.Loss, -0.75, 1e-12) {
		t.Errorf("on-policy loss %g, want -.75", g.Loss)
	}
	rlNearAll(t, "on-policy DTok[0]", g.DTok[0], []float64{-0.25, -0.25}, 1e-12)
	rlNearAll(t, "on-policy DTok[1]", g.DTok[1], []float64{-0.25}, 1e-12)
}

func TestGRPOLossFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var newLp, oldLp, refLp [][]float64
	for _, T := range []int{2, 4, 1, 3} {
		o := rlRand(r, T, -4, -0.1)
		nw := make([]float64, T)
		for t := range nw {
			nw[t] = o[t] + 0.8*(r.Float64()-0.5)
		}
		oldLp, newLp = append(oldLp, o), append(newLp, nw)
		refLp = append(refLp, rlRand(r, T, -4, -0.1))
	}
	adv, err := GRPOAdvantages([]float64{1, 0, 0.1, 1}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := GRPOConfig{Beta: 0.04, ClipEps: 0.1}
	g, err := GRPOLoss(cfg, newLp, oldLp, refLp, adv)
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats["clipfrac"] == 0 {
		t.Fatal("no token clipped: the check misses the clipped branch")
	}
	loss := func() float64 {
		g, _ := GRPOLoss(cfg, newLp, oldLp, refLp, adv)
		return g.Loss
	}
	var xs []*float64
	var grads []float64
	for i := range newLp {
		xs = append(xs, rlPtrs(newLp[i])...)
		grads = append(grads, g.DTok[i]...)
	}
	rlCheckFD(t, "grpo", loss, xs, grads)
}

func TestGRPOLossErrors(t *testing.T) {
	one := [][]float64{{-1}}
	if _, err := GRPOLoss(GRPOConfig{Beta: 0.1}, one, nil, nil, []float64{1}); err == nil {
		t.Error("a KL penalty without reference log-probs accepted")
	}
	if _, err := GRPOLoss(GRPOConfig{}, [][]float64{{}}, nil, nil, []float64{1}); err == nil {
		t.Error("an empty sequence accepted")
	}
	if _, err := GRPOLoss(GRPOConfig{}, one, nil, nil, []float64{1, 2}); err == nil {
		t.Error("advantages of another batch accepted")
	}
}
