package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// rlNear compares a float with a tolerance relative to its magnitude (at
// least 1).
func rlNear(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func rlNearAll(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !rlNear(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.9g, want %.9g", name, i, got[i], want[i])
		}
	}
}

// rlCheckFD compares analytic derivatives with central differences of
// loss() with respect to each *x in xs; h is scaled to each input, so the
// difference's error is O(h²) + rounding (about 1e-16/h).
func rlCheckFD(t *testing.T, name string, loss func() float64, xs []*float64, grads []float64) {
	t.Helper()
	for k, x := range xs {
		old := *x
		h := 1e-5 * math.Max(1, math.Abs(old))
		*x = old + h
		lp := loss()
		*x = old - h
		lm := loss()
		*x = old
		num := (lp - lm) / (2 * h)
		if !rlNear(grads[k], num, 1e-6) {
			t.Errorf("%s: input %d: analytic %.9g, finite difference %.9g", name, k, grads[k], num)
		}
	}
}

func rlPtrs(xs []float64) []*float64 {
	out := make([]*float64, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

func rlRand(r *rand.Rand, n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float64()
	}
	return out
}

func TestKTOLossByHand(t *testing.T) {
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
			g, err := KTOLoss(tc.cfg, tc.pol, tc.ref, tc.des, tc.mmP, tc.mmR)
			if err != nil {
				t.Fatal(err)
			}
			if !rlNear(g.Loss, tc.loss, 1e-6) {
				t.Errorf("loss %.9g, want %.9g", g.Loss, tc.loss)
			}
			if !rlNear(g.Stats["z0"], tc.z0, 1e-12) {
				t.Errorf("z0 %g, want %g", g.Stats["z0"], tc.z0)
			}
			rlNearAll(t, "DSum", g.DSum, tc.dSum, 1e-6)
		})
	}
}

func TestKTOLossFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 6
	pol, ref := rlRand(r, n, -30, -5), rlRand(r, n, -30, -5)
	mmP, mmR := rlRand(r, 4, -30, -5), rlRand(r, 4, -40, -10) // z0 > 0
	des := []bool{true, false, false, true, false, false}
	cfg := KTOConfig{Beta: 0.2, LambdaD: 1.5}
	g, err := KTOLoss(cfg, pol, ref, des, mmP, mmR)
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats["z0"] <= 0 {
		t.Fatalf("z0 = %g: the test wants an unclamped reference point", g.Stats["z0"])
	}
	loss := func() float64 {
		g, _ := KTOLoss(cfg, pol, ref, des, mmP, mmR)
		return g.Loss
	}
	rlCheckFD(t, "kto", loss, rlPtrs(pol), g.DSum)
}

func TestKTOLossErrors(t *testing.T) {
	if _, err := KTOLoss(KTOConfig{}, []float64{1}, []float64{1, 2}, []bool{true}, nil, nil); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := KTOLoss(KTOConfig{}, nil, nil, nil, nil, nil); err == nil {
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
		if !rlNear(lD, tc.lD, 1e-12) || !rlNear(lU, tc.lU, 1e-12) {
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

func TestTokenGradsFold(t *testing.T) {
	// DTok + DSum + DMean/len: [1+10+4/2, 2+10+4/2], [3+20+6/1]
	g := LossGrad{DTok: [][]float64{{1, 2}, {3}}, DSum: []float64{10, 20}, DMean: []float64{4, 6}}
	got := g.TokenGrads()
	want := [][]float32{{13, 14}, {29}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("sequence %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestTokenConversions(t *testing.T) {
	x := [][]float32{{-1.5, 0.25}, {}, {3}}
	back := Float32Tokens(Float64Tokens(x))
	for i := range x {
		if !slices.Equal(back[i], x[i]) {
			t.Errorf("sequence %d: %v, want %v", i, back[i], x[i])
		}
	}
	if Float64Tokens(nil) != nil || Float32Tokens(nil) != nil {
		t.Error("nil must stay nil: it means no derivative")
	}
}

// TestMismatchedSeqsShared: KTO's mismatched pairs put each sample after
// the next prompt, the same one for the K samples of a prompt, so each
// group is marked as sharing that prompt (run once by the Scorer); the
// pairs score the same log-probabilities as when every pair runs its
// prompt alone.
func TestMismatchedSeqsShared(t *testing.T) {
	pol := loadPolicy(t, rlInit(t))
	const prompts, k = 3, 4
	r := rand.New(rand.NewPCG(5, 5))
	V := int32(pol.Model.Cfg.Vocab)
	var seqs []policy.Sequence
	var promptOf []int
	for p := range prompts {
		pt := make([]int32, 20+p)
		for i := range pt {
			pt[i] = r.Int32N(V)
		}
		for range k {
			toks := append([]int32(nil), pt...)
			for range 3 + r.IntN(5) {
				toks = append(toks, r.Int32N(V))
			}
			seqs = append(seqs, policy.Sequence{Tokens: toks, PromptLen: len(pt), Shared: len(pt) - 1})
			promptOf = append(promptOf, p)
		}
	}
	item, ok := KTOMismatch(promptOf)
	if !ok {
		t.Fatal("no mismatched pairs")
	}
	mm := mismatchedSeqs(seqs, item, pol.Model.Cfg.MaxSeq)
	for i, q := range mm {
		next := seqs[((i/k+1)%prompts)*k]
		if !slices.Equal(q.Tokens[:q.PromptLen], next.Tokens[:next.PromptLen]) ||
			!slices.Equal(q.Tokens[q.PromptLen:], seqs[i].Tokens[seqs[i].PromptLen:]) {
			t.Fatalf("pair %d: not sample %d after prompt %d", i, i, (i/k+1)%prompts)
		}
		if q.Shared != q.PromptLen-1 {
			t.Errorf("pair %d: %d shared tokens, want %d", i, q.Shared, q.PromptLen-1)
		}
	}
	spans := microBatches(mm, 8)
	shared, err := scoreChunks(policy.NewScorer(pol.Model), mm, spans)
	if err != nil {
		t.Fatal(err)
	}
	alone := slices.Clone(mm)
	for i := range alone {
		alone[i].Shared = 0
	}
	want, err := scoreChunks(policy.NewScorer(pol.Model), alone, spans)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mm {
		g, w := shared.lps[i].Sum, want.lps[i].Sum
		// float32 sums over the prompt's positions, another order
		if math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
			t.Errorf("pair %d: log-prob %v shared, %v alone", i, g, w)
		}
	}
}
