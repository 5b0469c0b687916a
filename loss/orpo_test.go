package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestORPOByHand(t *testing.T) {
	// chosen p = .5 (m = log .5): odds 1, lo 0; rejected p = .2: odds .25,
	// lo = log .25; Δ = log 4, so -log σ(Δ) = log(1 + 1/4) = .2231436 and
	// σ(-Δ) = .25/1.25 = .2; λ = .1:
	// L = -log .5 + .1·.2231436 = .6931472 + .02231436 = .7154615
	// dL/dm_c = -1 - λ σ(-Δ)/(1-p_c) = -1 - .1·.2·2 = -1.04
	// dL/dm_r = λ σ(-Δ)/(1-p_r) = .1·.2·1.25 = .025
	g, err := ORPO(0, []float64{math.Log(0.5), math.Log(0.2)}, []Pair{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Loss, 0.7154615, 1e-6) {
		t.Errorf("loss %.9g, want .7154615", g.Loss)
	}
	nearAll(t, "DMean", g.DMean, []float64{-1.04, 0.025}, 1e-9)

	// two pairs sharing the rejected: P = 2 halves each pair's terms.
	g2, err := ORPO(0, []float64{math.Log(0.5), math.Log(0.2), math.Log(0.5)}, []Pair{{0, 1}, {2, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g2.Loss, 0.7154615, 1e-6) {
		t.Errorf("two pairs: loss %.9g, want .7154615", g2.Loss)
	}
	nearAll(t, "two pairs: DMean", g2.DMean, []float64{-0.52, 0.025, -0.52}, 1e-9)
}

func TestORPONearCertain(t *testing.T) {
	// m = -1e-12: p is 1 to 12 digits, odds infinite without the cap;
	// capped, the odds term has no gradient and the chosen's is the NLL's
	// alone, -1.
	g, err := ORPO(0.1, []float64{-1e-12, -2}, []Pair{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(g.Loss) || math.IsInf(g.Loss, 0) {
		t.Fatalf("loss %g", g.Loss)
	}
	if g.DMean[0] != -1 {
		t.Errorf("DMean[0] = %g, want -1", g.DMean[0])
	}
	// m = -2e-6: 1 - e^m computed as 1 - exp(m) keeps only about 10
	// digits (an error near 5e-11 in lo); log(-expm1(m)) keeps them all.
	// 1 - e^m = -m - m²/2 - m³/6 = 2e-6 - 2e-12 + 1.3333333e-18.
	lo, dlo := orpoLogOdds(-2e-6)
	if want := -2e-6 - math.Log(2e-6-2e-12+1.3333333e-18); !near(lo, want, 1e-14) {
		t.Errorf("lo(-2e-6) = %.17g, want %.17g", lo, want)
	}
	if want := 1 / (2e-6 - 2e-12); !near(dlo, want, 1e-9) {
		t.Errorf("lo'(-2e-6) = %.9g, want %.9g", dlo, want)
	}
	if naive := -2e-6 - math.Log1p(-math.Exp(-2e-6)); near(naive, lo, 1e-14) {
		t.Logf("the naive form happens to agree here (%.17g)", naive)
	}
}

func TestORPOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mean := uniform(r, 5, -3, -0.01)
	mean[4] = -1e-4 // p close to 1
	pairs := []Pair{{0, 1}, {2, 3}, {4, 1}}
	g, err := ORPO(0.5, mean, pairs)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		g, _ := ORPO(0.5, mean, pairs)
		return g.Loss
	}
	// near p = 1 the scale of h (1e-5 of 1) is too coarse: use the FD on
	// the others and a smaller-step check of item 4 below.
	checkFD(t, "orpo", loss, ptrs(mean)[:4], g.DMean[:4])
	h := 1e-8
	old := mean[4]
	mean[4] = old + h
	lp := loss()
	mean[4] = old - h
	lm := loss()
	mean[4] = old
	if num := (lp - lm) / (2 * h); !near(g.DMean[4], num, 1e-5) {
		t.Errorf("near certain: analytic %.9g, finite difference %.9g", g.DMean[4], num)
	}
}
