package policy

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/internal/numtest"
	"github.com/sqlrl/sqlrl/nn"
)

func testValueSeqs(p *Policy) []Sequence {
	return []Sequence{
		p.Sequence(texts[0], texts[1]),
		p.Sequence(texts[0], texts[2]),
		p.Sequence("question: x\nSQL: ", texts[1]),
	}
}

func testHead(t *testing.T, dim int) *nn.ValueHead {
	t.Helper()
	h, err := nn.NewValueHead(dim, 1)
	if err != nil {
		t.Fatal(err)
	}
	h.EnableGrads()
	return h
}

// valueLoss is half the mean squared error of the values against target,
// and its derivative with respect to each value.
func valueLoss(values, target [][]float32) (float64, [][]float32) {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	var loss float64
	d := make([][]float32, len(values))
	for i, v := range values {
		d[i] = make([]float32, len(v))
		for t := range v {
			e := float64(v[t] - target[i][t])
			loss += 0.5 * e * e / float64(n)
			d[i][t] = float32(e / float64(n))
		}
	}
	return loss, d
}

// TestValueHeadLearns trains the head alone (a frozen trunk without
// gradients) toward fixed per-token targets: the value loss falls, the
// values stay aligned with the log-probabilities, and the same head on the
// same sequences gives bitwise the same values.
func TestValueHeadLearns(t *testing.T) {
	p := testPolicy(t)
	seqs := testValueSeqs(p)
	head := testHead(t, p.Model.Cfg.Dim)
	vs := NewValueScorer(p.Model, head)
	opt := head.NewAdamW(0)
	// targets: a ramp over each completion, offset by sequence, so that
	// no constant fits them
	var target [][]float32
	first := true
	var loss0, loss float64
	for step := range 60 {
		lps, err := vs.LogProbs(seqs)
		if err != nil {
			t.Fatal(err)
		}
		values, tokLp := vs.TokenValues(), vs.TokenLogProbs()
		if first {
			first = false
			for i, v := range values {
				if len(v) != len(tokLp[i]) || len(v) != lps[i].Tokens {
					t.Fatalf("sequence %d: %d values for %d log-probabilities (%d tokens)", i, len(v), len(tokLp[i]), lps[i].Tokens)
				}
				tg := make([]float32, len(v))
				for k := range tg {
					tg[k] = float32(i) - 1 + float32(k)/float32(len(tg))
				}
				target = append(target, tg)
			}
		}
		var d [][]float32
		loss, d = valueLoss(values, target)
		if step == 0 {
			loss0 = loss
		}
		head.ZeroGrads()
		if err := vs.BackwardTokens(nil, d); err != nil {
			t.Fatal(err)
		}
		opt.Update(head.Params, head.Grads, 0.05)
	}
	t.Logf("value loss %.4f -> %.4f in 60 steps", loss0, loss)
	if !(loss < loss0/4) {
		t.Errorf("value loss %.4f -> %.4f: training the head did not reduce it fourfold", loss0, loss)
	}
	// deterministic: a second scorer on the same head and model
	if _, err := vs.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	a := cloneRows(vs.TokenValues())
	other := NewValueScorer(p.Model, head)
	if _, err := other.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	if b := cloneRows(other.TokenValues()); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("values differ between two runs: %v vs %v", a, b)
	}
}

func cloneRows(v [][]float32) [][]float32 {
	out := make([][]float32, len(v))
	for i := range v {
		out[i] = slices.Clone(v[i])
	}
	return out
}

// TestValueScorerAligned checks that each token's value is the one of its
// own state: a sequence scored alone, in a batch with others, or with its
// prompt's prefix shared gets the same values (up to the rounding of
// other gemm shapes).
func TestValueScorerAligned(t *testing.T) {
	p := testPolicy(t)
	seqs := testValueSeqs(p)
	head := testHead(t, p.Model.Cfg.Dim)
	vs := NewValueScorer(p.Model, head)
	if _, err := vs.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	batched := cloneRows(vs.TokenValues())
	// the bound: the trunk's reductions and the head's dot product, on
	// the largest Σ_j |w_j h_j| + |b| of the batch
	h, err := p.Model.Hidden()
	if err != nil {
		t.Fatal(err)
	}
	c, d := p.Model.Cfg, p.Model.Cfg.Dim
	mag := 0.0
	for r := 0; r < len(h)/d; r++ {
		m := math.Abs(float64(head.Params[d]))
		for j := range d {
			m += math.Abs(float64(head.Params[j] * h[r*d+j]))
		}
		mag = math.Max(mag, m)
	}
	tol := numtest.Tol(c.Layers*c.Hidden+d+1, mag)
	shared := slices.Clone(seqs)
	shared[0].Shared, shared[1].Shared = 9, 9
	cases := []struct {
		name string
		seqs []Sequence
		idx  []int // index in seqs of each sequence
	}{
		{"first alone", seqs[0:1], []int{0}},
		{"second alone", seqs[1:2], []int{1}},
		{"third alone", seqs[2:3], []int{2}},
		{"reversed", []Sequence{seqs[2], seqs[1], seqs[0]}, []int{2, 1, 0}},
		{"shared prefix", shared, []int{0, 1, 2}},
	}
	worst := 0.0
	for _, cs := range cases {
		if _, err := vs.LogProbs(cs.seqs); err != nil {
			t.Fatal(err)
		}
		for k, got := range vs.TokenValues() {
			want := batched[cs.idx[k]]
			if len(got) != len(want) {
				t.Errorf("%s: sequence %d has %d values, want %d", cs.name, cs.idx[k], len(got), len(want))
				continue
			}
			for i := range got {
				diff := math.Abs(float64(got[i] - want[i]))
				worst = math.Max(worst, diff/tol)
				if diff > tol {
					t.Errorf("%s: sequence %d token %d: value %v, batched %v (tolerance %.2g)", cs.name, cs.idx[k], i, got[i], want[i], tol)
				}
			}
		}
	}
	t.Logf("worst difference %.3g of its tolerance", worst)
	// the values vary along a completion: each token reads its own state
	if v := batched[0]; slices.Min(v) == slices.Max(v) {
		t.Errorf("every token of a completion has the value %v", v[0])
	}
}

// TestValueScorerBackward checks how BackwardTokens routes the value
// derivative: with Trunk it reaches the model in the same pass as the
// log-probability derivative (their sum), without it the model gets the
// log-probability's alone and a critic-only update never runs the model's
// Backward (the model may have no gradients).
func TestValueScorerBackward(t *testing.T) {
	p := testPolicy(t)
	for i := range p.Model.Params {
		p.Model.Params[i] *= 3.0 / 8 // TestScorerBackward's scale: gradients not saturated
	}
	seqs := testValueSeqs(p)
	head := testHead(t, p.Model.Cfg.Dim)
	vs := NewValueScorer(p.Model, head)
	// a critic-only update on a model without gradients
	if _, err := vs.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	_, dv := valueLoss(vs.TokenValues(), constRows(vs.TokenValues(), 1))
	if err := vs.BackwardTokens(nil, dv); err != nil {
		t.Fatalf("critic-only update on a frozen trunk: %v", err)
	}
	if nn.GradNorm(head.Grads) == 0 {
		t.Errorf("the head got no gradient")
	}
	if err := vs.BackwardTokens(nil, dv); err == nil {
		t.Errorf("a second BackwardTokens for one LogProbs was accepted")
	}

	p.Model.EnableGrads()
	run := func(trunk, withLp, withV bool) []float32 {
		t.Helper()
		vs.Trunk = trunk
		p.Model.ZeroGrads()
		if _, err := vs.LogProbs(seqs); err != nil {
			t.Fatal(err)
		}
		var dl, dval [][]float32
		if withLp {
			dl = constRows(vs.TokenLogProbs(), -0.1)
		}
		if withV {
			_, dval = valueLoss(vs.TokenValues(), constRows(vs.TokenValues(), 1))
		}
		if err := vs.BackwardTokens(dl, dval); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(p.Model.Grads)
	}
	lpOnly := run(true, true, false)
	valOnly := run(true, false, true)
	both := run(true, true, true)
	if nn.GradNorm(valOnly) == 0 {
		t.Errorf("with Trunk the value loss did not reach the model")
	}
	if frozen := run(false, true, true); !slices.Equal(frozen, lpOnly) {
		t.Errorf("without Trunk the value loss changed the model's gradients")
	}
	tokens := 0
	for _, s := range seqs {
		tokens += len(s.Tokens)
	}
	c := p.Model.Cfg
	for _, ts := range c.Tensors() {
		lo, hi := ts.Off, ts.Off+ts.Size()
		mag := 0.0
		for _, g := range both[lo:hi] {
			mag = math.Max(mag, math.Abs(float64(g)))
		}
		tol := numtest.Tol(c.Layers*c.Hidden+2+tokens, mag)
		for i := lo; i < hi; i++ {
			if diff := math.Abs(float64(both[i] - lpOnly[i] - valOnly[i])); diff > tol {
				t.Errorf("%s[%d]: one pass %v, the two alone %v + %v (tolerance %.2g)", ts.Name, i-lo, both[i], lpOnly[i], valOnly[i], tol)
				break
			}
		}
	}
	// mismatched derivatives change nothing
	if _, err := vs.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(head.Grads)
	if err := vs.BackwardTokens(constRows(vs.TokenLogProbs(), 1), [][]float32{{1}}); err == nil {
		t.Errorf("value derivatives of the wrong shape accepted")
	}
	if !slices.Equal(before, head.Grads) {
		t.Errorf("a rejected BackwardTokens changed the head's gradients")
	}
}

func constRows(like [][]float32, v float32) [][]float32 {
	out := make([][]float32, len(like))
	for i := range like {
		out[i] = make([]float32, len(like[i]))
		for k := range out[i] {
			out[i][k] = v
		}
	}
	return out
}

// TestValueHeadCheckpoint saves a head and its optimizer next to a
// checkpoint and reads them back, through the run directory's "latest".
func TestValueHeadCheckpoint(t *testing.T) {
	p := testPolicy(t)
	run := t.TempDir()
	dir := filepath.Join(run, "step-000001")
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, FileLatest), []byte("step-000001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := p.Model.Cfg.Dim
	if _, err := LoadValueHead(run, d); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkpoint without a value head: %v, want os.ErrNotExist", err)
	}
	head := testHead(t, d)
	opt := head.NewAdamW(0.1)
	for i := range head.Grads {
		head.Grads[i] = float32(i) - 3
	}
	opt.Update(head.Params, head.Grads, 0.01)
	if err := SaveValueHead(dir, head, opt); err != nil {
		t.Fatal(err)
	}
	got, err := LoadValueHead(run, d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Params, head.Params) {
		t.Errorf("reloaded head differs")
	}
	opt2 := got.NewAdamW(0.1)
	if err := LoadValueOptimizer(run, opt2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opt2.M, opt.M) || !slices.Equal(opt2.V, opt.V) {
		t.Errorf("reloaded optimizer moments differ")
	}
	if _, err := LoadValueHead(dir, d+1); err == nil {
		t.Errorf("a head of width %d loaded for a model of width %d", d, d+1)
	}
}
