package loss

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestKTOByHand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      KTOConfig
		pol, ref []float64
		des      []bool
		mmP, mmR []float64
		loss, z0 float64
		dSum     []float64
	}{
		{
			// r = [2, 0, -5]; mismatched log-ratios 1, 3: z0 = 2.
			// 0: desirable, β(r-z0) = 0, σ = .5, loss .5, d = -.1·.5·.5/3 = -.008333333
			// 1: desirable, β(r-z0) = -.2, σ = .4501660, loss .5498340,
			//    d = -.1·.4501660·.5498340/3 = -.008250552
			// 2: undesirable, β(z0-r) = .7, σ = .6681878, loss .3318122,
			//    d = +.1·.6681878·.3318122/3 = .007390429
			// L = (.5 + .5498340 + .3318122)/3 = .4605487
			name: "defaults", pol: []float64{-10, -12, -20}, ref: []float64{-12, -12, -15},
			des: []bool{true, true, false}, mmP: []float64{-30, -25}, mmR: []float64{-31, -28},
			loss: 0.4605487, z0: 2, dSum: []float64{-0.008333333, -0.008250552, 0.007390429},
		},
		{
			// r = [0, -2]; mismatched log-ratio -1 clamps z0 to 0; β .5, λ_D 2.
			// 0: desirable, σ(0) = .5, loss 2·.5 = 1, d = -2·.5·.5·.5/2 = -.125
			// 1: undesirable, β(z0-r) = 1, σ = .7310586, loss .2689414,
			//    d = .5·.7310586·.2689414/2 = .04915298
			// L = (1 + .2689414)/2 = .6344707
			name: "clamped, weighted", cfg: KTOConfig{Beta: 0.5, LambdaD: 2},
			pol: []float64{-5, -6}, ref: []float64{-5, -4}, des: []bool{true, false},
			mmP: []float64{-10}, mmR: []float64{-9},
			loss: 0.6344707, z0: 0, dSum: []float64{-0.125, 0.04915298},
		},
		{
			// no mismatched pair: z0 = 0; r = 0: loss .5, d = -.1·.25 = -.025
			name: "no mismatched", pol: []float64{-3}, ref: []float64{-3}, des: []bool{true},
			loss: 0.5, dSum: []float64{-0.025},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := KTO(tc.cfg, tc.pol, tc.ref, tc.des, tc.mmP, tc.mmR)
			if err != nil {
				t.Fatal(err)
			}
			if !near(g.Loss, tc.loss, 1e-6) {
				t.Errorf("loss %.9g, want %.9g", g.Loss, tc.loss)
			}
			if !near(g.Stats["z0"], tc.z0, 1e-12) {
				t.Errorf("z0 %g, want %g", g.Stats["z0"], tc.z0)
			}
			nearAll(t, "DSum", g.DSum, tc.dSum, 1e-6)
		})
	}
}

func TestKTOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 6
	pol, ref := uniform(r, n, -30, -5), uniform(r, n, -30, -5)
	mmP, mmR := uniform(r, 4, -30, -5), uniform(r, 4, -40, -10) // z0 > 0
	des := []bool{true, false, false, true, false, false}
	cfg := KTOConfig{Beta: 0.2, LambdaD: 1.5}
	g, err := KTO(cfg, pol, ref, des, mmP, mmR)
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats["z0"] <= 0 {
		t.Fatalf("z0 = %g: the test wants an unclamped reference point", g.Stats["z0"])
	}
	loss := func() float64 {
		g, _ := KTO(cfg, pol, ref, des, mmP, mmR)
		return g.Loss
	}
	checkFD(t, "kto", loss, ptrs(pol), g.DSum)
}

func TestKTOErrors(t *testing.T) {
	if _, err := KTO(KTOConfig{}, []float64{1}, []float64{1, 2}, []bool{true}, nil, nil); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := KTO(KTOConfig{}, nil, nil, nil, nil, nil); err == nil {
		t.Error("empty batch accepted")
	}
}

func TestKTOLambdas(t *testing.T) {
	for _, tc := range []struct {
		nD, nU int
		lD, lU float64
	}{
		{1, 10, 10, 1}, // 1:10 as in the paper: λ_D = 10, ratio 1
		{10, 10, 1, 1}, // balanced
		{4, 3, 1, 1},   // ratio 4/3: inside the range
		{2, 1, 1, 1.5}, // ratio 2: λ_U = 3·2/4 = 1.5, ratio 2/1.5 = 4/3
		{0, 5, 1, 1},   // nothing to balance
		{5, 0, 1, 1},
	} {
		lD, lU := KTOLambdas(tc.nD, tc.nU)
		if !near(lD, tc.lD, 1e-12) || !near(lU, tc.lU, 1e-12) {
			t.Errorf("KTOLambdas(%d, %d) = %g, %g, want %g, %g", tc.nD, tc.nU, lD, lU, tc.lD, tc.lU)
		}
	}
	for nD := 1; nD <= 30; nD++ {
		for nU := 1; nU <= 30; nU++ {
			lD, lU := KTOLambdas(nD, nU)
			ratio := lD * float64(nD) / (lU * float64(nU))
			if ratio < 1-1e-12 || ratio > 4.0/3+1e-12 || min(lD, lU) != 1 {
				t.Fatalf("KTOLambdas(%d, %d) = %g, %g: ratio %g", nD, nU, lD, lU, ratio)
			}
		}
	}
}

func TestKTOLabels(t *testing.T) {
	got := KTOLabels([]float64{1, 0.1, 0, -1, 0.5}, 0.5)
	if want := []bool{true, false, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}

func TestKTOMismatch(t *testing.T) {
	for _, tc := range []struct {
		prompts []int
		want    []int
		ok      bool
	}{
		{[]int{0, 0, 1, 1, 2}, []int{2, 2, 4, 4, 0}, true},
		{[]int{0, 1, 0}, []int{1, 2, 1}, true},
		{[]int{3, 3}, nil, false},
		{nil, nil, false},
	} {
		got, ok := KTOMismatch(tc.prompts)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("KTOMismatch(%v) = %v, %v, want %v, %v", tc.prompts, got, ok, tc.want, tc.ok)
		}
		for i, j := range got {
			if tc.prompts[i] == tc.prompts[j] {
				t.Errorf("KTOMismatch(%v): item %d paired with its own prompt", tc.prompts, i)
			}
		}
	}
}
