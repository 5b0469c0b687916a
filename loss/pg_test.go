package loss

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
	nearAll(t, "rewards", got, []float64{0.9, 0}, 1e-12)
}

func TestRLOOAdvantages(t *testing.T) {
	// group [1, 0, .5]: A_0 = 1 - (0+.5)/2 = .75, A_1 = 0 - 1.5/2 = -.75,
	// A_2 = .5 - 1/2 = 0; group [0, 0, 0]: all 0.
	got, err := RLOOAdvantages([]float64{1, 0, 0.5, 0, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	nearAll(t, "adv", got, []float64{0.75, -0.75, 0, 0, 0, 0}, 1e-12)
	if _, err := RLOOAdvantages([]float64{1, 0, 0.5}, 2); err == nil {
		t.Error("3 samples in groups of 2 accepted")
	}
}

func TestRLOOByHand(t *testing.T) {
	// L = -(.75·-2 + -.75·-4 + 0·-3)/3 = -(−1.5 + 3)/3 = -.5
	// dL/dSum_i = -A_i/3 = [-.25, .25, 0]
	g, err := RLOO([]float64{-2, -4, -3}, []float64{0.75, -0.75, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Loss, -0.5, 1e-12) {
		t.Errorf("loss %g, want -.5", g.Loss)
	}
	nearAll(t, "DSum", g.DSum, []float64{-0.25, 0.25, 0}, 1e-12)
	if g.DMean != nil || g.DTok != nil {
		t.Error("RLOO's gradient is on the Sum only")
	}
}

func TestRLOOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	sum := uniform(r, 6, -30, -2)
	adv, err := RLOOAdvantages(uniform(r, 6, -1, 1), 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := RLOO(sum, adv)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		g, _ := RLOO(sum, adv)
		return g.Loss
	}
	checkFD(t, "rloo", loss, ptrs(sum), g.DSum)
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
	nearAll(t, "adv", got, want, 1e-7)
}

func TestGRPOByHand(t *testing.T) {
	// β .1, ε .2. Sequence 0, A = 1, ρ = 1 (old = new):
	//   tok 0: ℓ = -1, ref = new: k3 = 0; d = -1
	//   tok 1: ℓ = -1 + .1 k3, ref-new = .5: k3 = e^.5 - .5 - 1 = .1487213;
	//          ℓ = -.9851279, d = -1 + .1(1 - e^.5) = -1.0648721
	// Sequence 1, A = .5: ρ = e^.5 = 1.6487 > 1.2 with A > 0: clipped,
	//   ℓ = -1.2·.5 = -.6, d = 0; ref = new: k3 = 0.
	// L = ½[(-1 - .9851279)/2 + (-.6)/1] = -.7962820
	// DTok: weights 1/(2·2) and 1/(2·1): [-.25, -.2662180], [0]
	g, err := GRPO(GRPOConfig{Beta: 0.1},
		[][]float64{{-1, -2}, {-0.5}},
		[][]float64{{-1, -2}, {-1}},
		[][]float64{{-1, -1.5}, {-0.5}},
		[]float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Loss, -0.7962820, 1e-6) {
		t.Errorf("loss %.9g, want -.7962820", g.Loss)
	}
	nearAll(t, "DTok[0]", g.DTok[0], []float64{-0.25, -0.2662180}, 1e-6)
	nearAll(t, "DTok[1]", g.DTok[1], []float64{0}, 1e-12)
	if !near(g.Stats["kl"], 0.25*0.1487213, 1e-6) || !near(g.Stats["clipfrac"], 1.0/3, 1e-12) {
		t.Errorf("stats %v", g.Stats)
	}

	// on-policy, no KL: ρ = 1, L = -mean_i A_i, d = -A_i/(N T_i)
	g, err = GRPO(GRPOConfig{}, [][]float64{{-1, -2}, {-0.5}}, nil, nil, []float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Loss, -0.75, 1e-12) {
		t.Errorf("on-policy loss %g, want -.75", g.Loss)
	}
	nearAll(t, "on-policy DTok[0]", g.DTok[0], []float64{-0.25, -0.25}, 1e-12)
	nearAll(t, "on-policy DTok[1]", g.DTok[1], []float64{-0.25}, 1e-12)
}

func TestGRPOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var newLp, oldLp, refLp [][]float64
	for _, T := range []int{2, 4, 1, 3} {
		o := uniform(r, T, -4, -0.1)
		nw := make([]float64, T)
		for t := range nw {
			nw[t] = o[t] + 0.8*(r.Float64()-0.5)
		}
		oldLp, newLp = append(oldLp, o), append(newLp, nw)
		refLp = append(refLp, uniform(r, T, -4, -0.1))
	}
	adv, err := GRPOAdvantages([]float64{1, 0, 0.1, 1}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := GRPOConfig{Beta: 0.04, ClipEps: 0.1}
	g, err := GRPO(cfg, newLp, oldLp, refLp, adv)
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats["clipfrac"] == 0 {
		t.Fatal("no token clipped: the check misses the clipped branch")
	}
	loss := func() float64 {
		g, _ := GRPO(cfg, newLp, oldLp, refLp, adv)
		return g.Loss
	}
	var xs []*float64
	var grads []float64
	for i := range newLp {
		xs = append(xs, ptrs(newLp[i])...)
		grads = append(grads, g.DTok[i]...)
	}
	checkFD(t, "grpo", loss, xs, grads)
}

func TestGRPOErrors(t *testing.T) {
	one := [][]float64{{-1}}
	if _, err := GRPO(GRPOConfig{Beta: 0.1}, one, nil, nil, []float64{1}); err == nil {
		t.Error("a KL penalty without reference log-probs accepted")
	}
	if _, err := GRPO(GRPOConfig{}, [][]float64{{}}, nil, nil, []float64{1}); err == nil {
		t.Error("an empty sequence accepted")
	}
	if _, err := GRPO(GRPOConfig{}, one, nil, nil, []float64{1, 2}); err == nil {
		t.Error("advantages of another batch accepted")
	}
}

// TestTokenTerms checks the per-token terms GRPO and PPO share, forward by
// hand and backward against finite differences (away from the clip's
// kinks, where the loss has no derivative).
func TestTokenTerms(t *testing.T) {
	for _, tc := range []struct {
		name              string
		newLp, oldLp, adv float64
		refLp             float64
		surr, dSurr, kl   float64
		clipped           bool
	}{
		// ρ = 1: ℓ = -A, d = -A; ref = new: k3 = 0
		{name: "on-policy", newLp: -1, oldLp: -1, adv: 0.5, refLp: -1, surr: -0.5, dSurr: -0.5},
		// ρ = e^.5 > 1.2 with A > 0: clipped at 1.2, no gradient;
		// x = ref - new = -.5: k3 = e^-.5 + .5 - 1 = .1065307
		{name: "clipped above", newLp: -0.5, oldLp: -1, adv: 1, refLp: -1, surr: -1.2, kl: 0.10653066, clipped: true},
		// ρ = e^-.5 < .8 with A < 0: clipped at .8
		{name: "clipped below", newLp: -1.5, oldLp: -1, adv: -1, refLp: -1, surr: 0.8, kl: 0.14872127, clipped: true},
		// ρ = e^.1 = 1.1051709 inside the clip: ℓ = d = -ρ A
		{name: "inside", newLp: -0.9, oldLp: -1, adv: 2, refLp: -0.7, surr: -2.2103418, dSurr: -2.2103418, kl: 0.02140276},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, d, c := clipSurrogate(tc.newLp, tc.oldLp, tc.adv, 0.2)
			if !near(l, tc.surr, 1e-7) || !near(d, tc.dSurr, 1e-7) || c != tc.clipped {
				t.Errorf("clipSurrogate = %.9g, %.9g, %v; want %.9g, %.9g, %v", l, d, c, tc.surr, tc.dSurr, tc.clipped)
			}
			kl, dkl := k3(tc.newLp, tc.refLp)
			if !near(kl, tc.kl, 1e-7) {
				t.Errorf("k3 = %.9g, want %.9g", kl, tc.kl)
			}
			x := tc.newLp
			checkFD(t, "clipSurrogate", func() float64 { l, _, _ := clipSurrogate(x, tc.oldLp, tc.adv, 0.2); return l }, []*float64{&x}, []float64{d})
			checkFD(t, "k3", func() float64 { k, _ := k3(x, tc.refLp); return k }, []*float64{&x}, []float64{dkl})
		})
	}
}
