package loss

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDPOByHand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pol, ref []float64
		pairs    []Pair
		loss     float64
		dSum     []float64
	}{
		{
			// r = [2, -2, 1, -2], β = .1
			// pair (0,1): βΔ = .4, -log σ(.4) = log(1+e^-.4) = .5130153,
			//   w = β σ(-.4)/2 = .1·.4013123/2 = .02006562
			// pair (2,3): βΔ = .3, -log σ(.3) = .5543552,
			//   w = .1·.4255575/2 = .02127787
			// L = (.5130153 + .5543552)/2 = .5336852
			name: "two pairs", pol: []float64{-10, -14, -9, -12}, ref: []float64{-12, -12, -10, -10},
			pairs: []Pair{{0, 1}, {2, 3}}, loss: 0.5336852,
			dSum: []float64{-0.02006562, 0.02006562, -0.02127787, 0.02127787},
		},
		{
			// one chosen against two rejected, all r = 0: each pair
			// log 2 = .6931472, w = .1·.5/2 = .025; the chosen gets both.
			name: "shared chosen", pol: []float64{-5, -6, -7}, ref: []float64{-5, -6, -7},
			pairs: []Pair{{0, 1}, {0, 2}}, loss: 0.6931472,
			dSum: []float64{-0.05, 0.025, 0.025},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := DPO(0, tc.pol, tc.ref, tc.pairs)
			if err != nil {
				t.Fatal(err)
			}
			if !near(g.Loss, tc.loss, 1e-6) {
				t.Errorf("loss %.9g, want %.9g", g.Loss, tc.loss)
			}
			nearAll(t, "DSum", g.DSum, tc.dSum, 1e-6)
		})
	}
}

func TestDPOFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pol, ref := uniform(r, 5, -40, -5), uniform(r, 5, -40, -5)
	pairs := []Pair{{0, 1}, {2, 3}, {4, 1}, {2, 0}}
	g, err := DPO(0.3, pol, ref, pairs)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		g, _ := DPO(0.3, pol, ref, pairs)
		return g.Loss
	}
	checkFD(t, "dpo", loss, ptrs(pol), g.DSum)
}

func TestDPOErrors(t *testing.T) {
	for _, pairs := range [][]Pair{nil, {{0, 0}}, {{0, 2}}, {{-1, 1}}} {
		if _, err := DPO(0, []float64{1, 2}, []float64{1, 2}, pairs); err == nil {
			t.Errorf("pairs %v accepted", pairs)
		}
	}
}

func TestDPOPairs(t *testing.T) {
	tests := []struct {
		name    string
		rewards []float64
		sizes   []int
		want    []Pair
	}{
		// group 0: best 1 (item 0), worst 0 (item 1, first of the worst);
		// group 1: all equal, no pair; group 2: best 1 (item 7, first), worst -1.
		{"groups of 3", []float64{1, 0, 0.1, 0, 0, 0, -1, 1, 1}, []int{3, 3, 3}, []Pair{{0, 1}, {7, 6}}},
		// a group of one, then groups of 2 and 4
		{"sizes differ", []float64{5, 0, 1, 2, 2, 3, 0}, []int{1, 2, 4}, []Pair{{2, 1}, {5, 6}}},
		{"empty group", []float64{0, 1}, []int{0, 2}, []Pair{{1, 0}}},
	}
	for _, tc := range tests {
		got, err := DPOPairs(tc.rewards, tc.sizes)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: pairs %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, sizes := range [][]int{{2}, {4}, {1, 1}, {-1, 4}} {
		if _, err := DPOPairs([]float64{1, 0, 0}, sizes); err == nil {
			t.Errorf("groups %v accepted for 3 samples", sizes)
		}
	}
}
