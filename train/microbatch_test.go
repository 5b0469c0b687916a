package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/loss"
	"github.com/sqlrl/sqlrl/policy"
)

func TestMicroBatches(t *testing.T) {
	// seq builds a sequence of a prompt (shared prefix when shared) and
	// one completion token
	seq := func(prompt int32, shared bool) policy.Sequence {
		s := policy.Sequence{Tokens: []int32{prompt, prompt, prompt, 9}, PromptLen: 3}
		if shared {
			s.Shared = 2
		}
		return s
	}
	group := func(prompt int32, k int) []policy.Sequence {
		var out []policy.Sequence
		for range k {
			out = append(out, seq(prompt, k > 1))
		}
		return out
	}
	cat := func(gs ...[]policy.Sequence) []policy.Sequence { return slices.Concat(gs...) }
	for _, c := range []struct {
		name string
		seqs []policy.Sequence
		size int
		want []span
	}{
		{"one pass when it fits", cat(group(1, 4), group(2, 4)), 8, []span{{0, 8}}},
		{"size 0 is one pass", cat(group(1, 4), group(2, 4), group(3, 4)), 0, []span{{0, 12}}},
		{"two prompts a span", cat(group(1, 4), group(2, 4), group(3, 4), group(4, 4), group(5, 4)), 8,
			[]span{{0, 8}, {8, 16}, {16, 20}}},
		{"a group is not split when it fits a fresh span", cat(group(1, 3), group(2, 3), group(3, 3)), 4,
			[]span{{0, 3}, {3, 6}, {6, 9}}},
		{"a group larger than a span is cut", cat(group(1, 2), group(2, 5), group(3, 1)), 2,
			[]span{{0, 2}, {2, 4}, {4, 6}, {6, 8}}},
		{"unshared sequences fill spans", cat(group(1, 1), group(2, 1), group(3, 1), group(4, 1), group(5, 1)), 2,
			[]span{{0, 2}, {2, 4}, {4, 5}}},
		{"equal prompts not marked shared are no group", []policy.Sequence{seq(1, false), seq(1, false), seq(1, false)}, 2,
			[]span{{0, 2}, {2, 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := microBatches(c.seqs, c.size)
			if !slices.Equal(got, c.want) {
				t.Fatalf("spans %v, want %v", got, c.want)
			}
		})
	}
}

// TestScoreBatchKeepsTheMaths: one step's update of every algorithm,
// scored in one pass and in micro-batches (spans that keep a prompt's
// samples together, and spans that cut them), gives the same loss and the
// same gradient (policy and PPO's value head) but for float rounding.
func TestScoreBatchKeepsTheMaths(t *testing.T) {
	d := rlData(t)
	init := rlInit(t)
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	pool = pool[:3]
	const k = 3
	load := func() *policy.Policy {
		p, err := policy.Load(init)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pol, ref := load(), load()
	pol.Model.EnableGrads()
	texts := []string{pool[0].Text, pool[1].Text, pool[2].Text}
	comps, _, err := pol.Generate(context.Background(), texts, policy.SampleOptions{N: k, Temperature: 1, TopP: 1, MaxTokens: 12, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		loss         float64
		grads, hgrad []float32
	}
	run := func(algo string, scoreBatch int) result {
		o := RLOptions{Run: Run{Init: init, Seed: 3}, RLConfig: RLConfig{Algorithm: Algorithm{Algo: algo, Online: true, ScoreBatch: scoreBatch}, Sampling: Sampling{K: k}}}
		o.defaults()
		b := &rlBase{d: d, o: o, pool: pool, ref: ref, logf: t.Logf}
		if err := b.start(pol); err != nil {
			t.Fatal(err)
		}
		ro := &rollout{K: k}
		for i := range comps {
			for j, c := range comps[i] {
				toks := append(slices.Clone(c.Tokens), pol.Tok.EOT())
				// rewards 0, 0.5, 1 within each prompt: every loss has a signal
				ro.Samples = append(ro.Samples, sample{Prompt: i, Tokens: toks, Reward: float64(j%3) / 2, Correct: j%3 == 2})
			}
		}
		if err := b.scoreRef(ro); err != nil {
			t.Fatal(err)
		}
		pol.Model.ZeroGrads()
		ss, err := b.update(context.Background(), 0, ro, true)
		if err != nil {
			t.Fatal(err)
		}
		if ss.NoUpdate {
			t.Fatalf("%s: no update", algo)
		}
		r := result{loss: ss.Loss, grads: slices.Clone(pol.Model.Grads)}
		if b.head != nil {
			r.hgrad = slices.Clone(b.head.Grads)
		}
		return r
	}
	// relDiff is |a - b| / |a| over the vectors
	relDiff := func(a, b []float32) float64 {
		var num, den float64
		for i := range a {
			num += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
			den += float64(a[i]) * float64(a[i])
		}
		return math.Sqrt(num / math.Max(den, 1e-30))
	}
	for _, algo := range Algos {
		t.Run(algo, func(t *testing.T) {
			whole := run(algo, 1000)
			if relDiff(whole.grads, make([]float32, len(whole.grads))) == 0 {
				t.Fatal("no gradient")
			}
			for _, sb := range []int{k, 2, 1} {
				got := run(algo, sb)
				// float32 activations; the loss sums 9 samples' terms
				if tol := 1e-5 * math.Max(1, math.Abs(whole.loss)); math.Abs(got.loss-whole.loss) > tol {
					t.Errorf("score batch %d: loss %v, one pass %v", sb, got.loss, whole.loss)
				}
				if r := relDiff(whole.grads, got.grads); r > 1e-4 {
					t.Errorf("score batch %d: gradient differs from one pass's by %.3g (relative)", sb, r)
				}
				if whole.hgrad != nil {
					if r := relDiff(whole.hgrad, got.hgrad); r > 1e-4 {
						t.Errorf("score batch %d: value head gradient differs by %.3g (relative)", sb, r)
					}
				}
			}
		})
	}
}

// TestMismatchedSeqsShared: KTO's mismatched pairs put each sample after
// the next prompt, the same one for the K samples of a prompt, so each
// group is marked as sharing that prompt (run once by the LogProbScorer); the
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
	item, ok := loss.KTOMismatch(promptOf)
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
	shared, err := scoreChunks(policy.NewLogProbScorer(pol.Model), mm, spans)
	if err != nil {
		t.Fatal(err)
	}
	alone := slices.Clone(mm)
	for i := range alone {
		alone[i].Shared = 0
	}
	want, err := scoreChunks(policy.NewLogProbScorer(pol.Model), alone, spans)
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
