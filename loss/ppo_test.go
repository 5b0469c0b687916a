package loss

import (
	"math/rand/v2"
	"testing"
)

func TestPPORewardsAndGAEByHand(t *testing.T) {
	// KL coef .1; old - ref = [.5, 0]: r = [-.05, 0 + 1]
	r := PPORewards([]float64{-1, -2}, []float64{-1.5, -2}, 1, 0.1)
	nearAll(t, "rewards", r, []float64{-0.05, 1}, 1e-12)
	// γ 1, λ .5, V = [.5, .8]:
	// t=1: δ = 1 + 0 - .8 = .2, A = .2, R = 1
	// t=0: δ = -.05 + .8 - .5 = .25, A = .25 + .5·.2 = .35, R = .85
	adv, ret := GAE(r, []float64{0.5, 0.8}, 1, 0.5)
	nearAll(t, "adv", adv, []float64{0.35, 0.2}, 1e-12)
	nearAll(t, "ret", ret, []float64{0.85, 1}, 1e-12)
	// γ .5, λ 1, rewards [0, 0, 1], V = 0: A = [.25, .5, 1]
	adv, _ = GAE([]float64{0, 0, 1}, []float64{0, 0, 0}, 0.5, 1)
	nearAll(t, "discounted adv", adv, []float64{0.25, 0.5, 1}, 1e-12)
}

func TestPPOByHand(t *testing.T) {
	// Sequence 0: advantages [.35, .2], returns [.85, 1] (as above).
	//   tok 0: ρ = e^.1 = 1.105171, unclipped: ℓ = -.3868098, d = -.3868098
	//   tok 1: ρ = e^-.5 = .6065307, A > 0 so not clipped: ℓ = d = -.1213061
	//   values [.6, 1.2], old [.5, .8]:
	//   tok 0: (.6-.85)² = .0625, inside the clip, ℓV = .03125, dV = -.25
	//   tok 1: (1.2-1)² = .04; clipped V = 1.0 gives 0 < .04, ℓV = .02, dV = .2
	// Sequence 1: one token, reward -1, V_old 0, no KL: A = R = -1.
	//   ρ = e^-.5 < .8 with A < 0: clipped, ℓ = -(.8·-1) = .8, d = 0
	//   value -.5: (−.5+1)² = .25; clipped V = -.2 gives .64 > .25: ℓV = .32, dV = 0
	// 3 tokens: policy (-.3868098 - .1213061 + .8)/3 = .09729468
	//           value (.03125 + .02 + .32)/3 = .12375
	// L = .09729468 + .1·.12375 = .1096697
	g, err := PPO(PPOConfig{Lambda: 0.5, KLCoef: 0.1},
		[][]float64{{-0.9, -2.5}, {-1.5}},
		[][]float64{{-1, -2}, {-1}},
		[][]float64{{-1.5, -2}, {-1}},
		[][]float64{{0.6, 1.2}, {-0.5}},
		[][]float64{{0.5, 0.8}, {0}},
		[]float64{1, -1})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Loss, 0.1096697, 1e-6) {
		t.Errorf("loss %.9g, want .1096697", g.Loss)
	}
	nearAll(t, "DTok[0]", g.DTok[0], []float64{-0.3868098 / 3, -0.1213061 / 3}, 1e-6)
	nearAll(t, "DTok[1]", g.DTok[1], []float64{0}, 1e-12)
	nearAll(t, "DValue[0]", g.DValue[0], []float64{0.1 * -0.25 / 3, 0.1 * 0.2 / 3}, 1e-9)
	nearAll(t, "DValue[1]", g.DValue[1], []float64{0}, 1e-12)
	if !near(g.Stats["clipfrac"], 1.0/3, 1e-12) {
		t.Errorf("clipfrac %g, want 1/3", g.Stats["clipfrac"])
	}
	if !near(g.Stats["value_loss"], 0.12375, 1e-9) {
		t.Errorf("value loss %g, want .12375", g.Stats["value_loss"])
	}

	// Unclipped value loss: sequence 1's token pulls again, dV = .1·(-.5+1)/3.
	g, err = PPO(PPOConfig{Lambda: 0.5, KLCoef: 0.1, ValueClip: -1},
		[][]float64{{-0.9, -2.5}, {-1.5}}, [][]float64{{-1, -2}, {-1}}, [][]float64{{-1.5, -2}, {-1}},
		[][]float64{{0.6, 1.2}, {-0.5}}, [][]float64{{0.5, 0.8}, {0}}, []float64{1, -1})
	if err != nil {
		t.Fatal(err)
	}
	nearAll(t, "unclipped DValue[1]", g.DValue[1], []float64{0.1 * 0.5 / 3}, 1e-9)
}

func TestPPOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lens := []int{3, 1, 5}
	var newLp, oldLp, refLp, vals, oldVals [][]float64
	for _, T := range lens {
		o := uniform(r, T, -4, -0.1)
		nw := make([]float64, T)
		for t := range nw {
			nw[t] = o[t] + 0.8*(r.Float64()-0.5) // ratios in e^±.4: some clipped
		}
		oldLp, newLp = append(oldLp, o), append(newLp, nw)
		refLp = append(refLp, uniform(r, T, -4, -0.1))
		oldVals = append(oldVals, uniform(r, T, -1, 1))
		vals = append(vals, uniform(r, T, -1, 1))
	}
	rewards := []float64{1, -1, 0.1}
	for _, cfg := range []PPOConfig{
		{KLCoef: 0.05, ClipEps: 0.1, EntropyCoef: 0.01},
		{KLCoef: 0.05, ClipEps: 0.1, Whiten: true, ValueClip: -1, Gamma: 0.9},
	} {
		g, err := PPO(cfg, newLp, oldLp, refLp, vals, oldVals, rewards)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			g, _ := PPO(cfg, newLp, oldLp, refLp, vals, oldVals, rewards)
			return g.Loss
		}
		var xs []*float64
		var grads []float64
		for i := range newLp {
			xs = append(xs, ptrs(newLp[i])...)
			grads = append(grads, g.DTok[i]...)
		}
		for i := range vals {
			xs = append(xs, ptrs(vals[i])...)
			grads = append(grads, g.DValue[i]...)
		}
		checkFD(t, "ppo", loss, xs, grads)
		if cfg.EntropyCoef != 0 && g.Stats["clipfrac"] == 0 {
			t.Errorf("no token clipped: the check misses the clipped branch")
		}
	}
}

func TestPPOErrors(t *testing.T) {
	one := [][]float64{{-1}}
	if _, err := PPO(PPOConfig{}, one, [][]float64{{-1, -2}}, nil, one, one, []float64{1}); err == nil {
		t.Error("token counts that differ accepted")
	}
	if _, err := PPO(PPOConfig{KLCoef: 0.1}, one, one, nil, one, one, []float64{1}); err == nil {
		t.Error("a KL penalty without reference log-probs accepted")
	}
}
