package policy

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/internal/numtest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/tokenizer"
)

var texts = []string{
	"customer: customer_id integer key, first_name text\nquestion: How many customers?\nSQL: ",
	"SELECT COUNT(*) FROM customer",
	"SELECT first_name FROM customer WHERE customer_id = 7",
}

func testPolicy(t testing.TB) *Policy {
	t.Helper()
	return testPolicyDim(t, 16)
}

// testPolicyDim is testPolicy with a model of width dim.
func testPolicyDim(t testing.TB, dim int) *Policy {
	t.Helper()
	var corpus []string
	for range 10 {
		corpus = append(corpus, texts...)
	}
	tok, err := tokenizer.Train(corpus, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Vocab: tok.VocabSize(), Dim: dim, Layers: 2, Heads: 2, Hidden: 32, MaxSeq: 96, PrevToken: true, Copy: true}
	p, err := New(tok, "", cfg, Format{Kind: FormatCompact}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// larger weights than the initialisation, so distributions are peaked
	for i := range p.Model.Params {
		p.Model.Params[i] *= 8
	}
	return p
}

func TestCheckpointReloadsIdentically(t *testing.T) {
	p := testPolicy(t)
	dir := filepath.Join(t.TempDir(), "ck")
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
	q, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	seqs := []Sequence{p.Sequence(texts[0], texts[1]), p.Sequence(texts[0], texts[2])}
	a, err := NewLogProbScorer(p.Model).LogProbs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewLogProbScorer(q.Model).LogProbs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Errorf("log-probs differ after reload: %v vs %v", a, b)
	}
	if q.Info.Prompt != p.Info.Prompt || q.Tok.VocabSize() != p.Tok.VocabSize() {
		t.Error("format or tokenizer lost")
	}
}

// TestGenerateConsistent checks that sampling with the cache and scoring
// with a full forward pass agree on the completions' log-probabilities,
// and that batching does not change seeded samples.
func TestGenerateConsistent(t *testing.T) {
	p := testPolicy(t)
	ctx := context.Background()
	prompts := []string{texts[0], "question: x\nSQL: ", texts[0] + "SELECT"}
	o := SampleOptions{N: 3, Temperature: 1, TopP: 0.9, MaxTokens: 12, Seed: 5, Batch: 4}
	outs, st, err := p.Generate(ctx, prompts, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.CompletionTokens == 0 {
		t.Fatal("nothing generated")
	}
	o.Batch = 1
	outs1, _, err := p.Generate(ctx, prompts, o)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewLogProbScorer(p.Model)
	for i := range prompts {
		for j, c := range outs[i] {
			if c.Text != outs1[i][j].Text {
				t.Errorf("prompt %d sample %d: batch 4 %q, batch 1 %q", i, j, c.Text, outs1[i][j].Text)
			}
			checkLogProb(t, p, sc, prompts[i], c)
		}
	}
	// greedy: temperature 0 gives the argmax path, the same for every sample
	g, _, err := p.Generate(ctx, prompts[:1], SampleOptions{N: 2, MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if g[0][0].Text != g[0][1].Text {
		t.Error("greedy samples differ")
	}
	// stop strings cut the text
	s, _, err := p.Generate(ctx, prompts[:1], SampleOptions{MaxTokens: 30, Temperature: 1, Seed: 3, Stop: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := s[0][0]; c.Finish == "stop" && len(c.Text) > 0 && c.Text[len(c.Text)-1] == 'e' {
		t.Errorf("stop string kept: %q", c.Text)
	}
}

// TestScorerBackward checks the gradient of a sequence-level loss (a
// DPO-like -log sigmoid of a difference of sums and a mean term) through
// LogProbs/Backward against finite differences.
func TestScorerBackward(t *testing.T) {
	p := testPolicy(t)
	for i := range p.Model.Params {
		p.Model.Params[i] /= 8
		p.Model.Params[i] *= 3
	}
	p.Model.EnableGrads()
	seqs := []Sequence{p.Sequence(texts[0], texts[1]), p.Sequence(texts[0], texts[2])}
	sc := NewLogProbScorer(p.Model)
	loss := func() (float64, []SeqLogProb) {
		lp, err := sc.LogProbs(seqs)
		if err != nil {
			t.Fatal(err)
		}
		z := 0.5 * (lp[0].Sum - lp[1].Sum)
		return -math.Log(1/(1+math.Exp(-z))) + 0.3*lp[1].Mean, lp
	}
	_, lp := loss()
	z := 0.5 * (lp[0].Sum - lp[1].Sum)
	g := -(1 - 1/(1+math.Exp(-z))) * 0.5
	p.Model.ZeroGrads()
	if err := sc.Backward([]float64{g, -g}, []float64{0, 0.3}); err != nil {
		t.Fatal(err)
	}
	const eps = 1e-2
	worst := 0.0
	for k := 0; k < len(p.Model.Params); k += 37 {
		old := p.Model.Params[k]
		p.Model.Params[k] = old + eps
		lp1, _ := loss()
		p.Model.Params[k] = old - eps
		lm1, _ := loss()
		p.Model.Params[k] = old
		num := (lp1 - lm1) / (2 * eps)
		a := float64(p.Model.Grads[k])
		e := math.Abs(num-a) / (math.Max(math.Abs(num), math.Abs(a)) + 1e-2)
		worst = math.Max(worst, e)
		if e > 3e-2 {
			t.Errorf("param %d: analytic %g numeric %g", k, a, num)
		}
	}
	t.Logf("worst relative error %.2g", worst)
	// a frozen reference copy scores without gradients, independently
	ref := NewLogProbScorer(p.Model.Clone())
	r1, err := ref.LogProbs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	p.Model.Params[0] += 1
	r2, _ := ref.LogProbs(seqs)
	if !slices.Equal(r1, r2) {
		t.Error("reference changed with the policy")
	}
}

func TestChatPrompt(t *testing.T) {
	f := Format{Kind: FormatCompact}
	for _, c := range []struct{ in, want string }{
		{"t: a\nquestion: q", "t: a\nquestion: q\nSQL: "},
		{"t: a\nquestion: q\nSQL: ", "t: a\nquestion: q\nSQL: "},
		{"t: a\nquestion: q\nSQL:", "t: a\nquestion: q\nSQL: "},
	} {
		if got := f.ChatPrompt(nil); got != CompactCue {
			t.Errorf("empty chat prompt %q", got)
		}
		msgs := []prompt.Message{{Role: "user", Content: c.in}}
		if got := f.ChatPrompt(msgs); got != c.want {
			t.Errorf("ChatPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Sequences that share a prefix score as they do written out whole.
func TestScorerShared(t *testing.T) {
	p := testPolicy(t)
	var seqs []Sequence
	for _, c := range texts[1:] {
		seqs = append(seqs, p.Sequence(texts[0], c))
	}
	seqs = append(seqs, p.Sequence("question: x\nSQL: ", texts[1]))
	whole, err := NewLogProbScorer(p.Model).LogProbs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	shared := slices.Clone(seqs)
	shared[0].Shared, shared[1].Shared = 9, 9
	sc := NewLogProbScorer(p.Model)
	got, err := sc.LogProbs(shared)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(seqs[0].Tokens) + len(seqs[1].Tokens) + len(seqs[2].Tokens) - 9; len(sc.batch.Tokens) != n {
		t.Errorf("packed %d tokens, want %d (the prefix once)", len(sc.batch.Tokens), n)
	}
	// the shared prefix's keys go through other gemms: equal up to rounding
	worst := 0.0
	for i := range got {
		worst = math.Max(worst, math.Abs(got[i].Sum-whole[i].Sum)/lpTol(p.Model.Cfg, whole[i]))
		if math.Abs(got[i].Sum-whole[i].Sum) > lpTol(p.Model.Cfg, whole[i]) || got[i].Tokens != whole[i].Tokens {
			t.Errorf("sequence %d: shared %+v, whole %+v (tolerance %.2g)", i, got[i], whole[i], lpTol(p.Model.Cfg, whole[i]))
		}
	}
	t.Logf("worst difference %.3g of its tolerance", worst)
	shared[0].Shared = shared[0].PromptLen
	if _, err := NewLogProbScorer(p.Model).LogProbs(shared); err == nil {
		t.Error("a shared prefix covering the whole prompt was accepted")
	}
}

// Beam search returns distinct completions, best first, whose reported
// log-probabilities are the model's.
func TestBeamSearch(t *testing.T) {
	p := testPolicy(t)
	ctx := context.Background()
	prompts := []string{texts[0], "question: x\nSQL: "}
	beams, _, err := p.Generate(ctx, prompts, SampleOptions{Beams: 4, N: 3, MaxTokens: 12, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	sc := NewLogProbScorer(p.Model)
	for i, cs := range beams {
		if len(cs) != 3 {
			t.Fatalf("prompt %d: %d completions", i, len(cs))
		}
		seen := map[string]bool{}
		for j, c := range cs {
			if seen[c.Text] {
				t.Errorf("prompt %d: %q twice", i, c.Text)
			}
			seen[c.Text] = true
			if j > 0 && meanLogProb(c) > meanLogProb(cs[j-1]) {
				t.Errorf("prompt %d: not best first", i)
			}
			checkLogProb(t, p, sc, prompts[i], c)
		}
	}
	if _, _, err := p.Generate(ctx, prompts, SampleOptions{Beams: 2, Temperature: 1}); err == nil {
		t.Error("beam search with a temperature was accepted")
	}
}

// Requests decoded together by a Batcher, from concurrent callers, get
// exactly what Generate gives each alone; a cancelled request fails
// without disturbing the others.
func TestBatcher(t *testing.T) {
	p := testPolicy(t)
	b := p.NewBatcher(5)
	defer b.Close()
	ctx := context.Background()
	reqs := []struct {
		prompts []string
		o       SampleOptions
	}{
		{[]string{texts[0], "question: x\nSQL: "}, SampleOptions{N: 3, Temperature: 1, TopP: 0.9, MaxTokens: 10, Seed: 1}},
		{[]string{texts[0]}, SampleOptions{MaxTokens: 7}},
		{[]string{"question: y\nSQL: "}, SampleOptions{N: 4, Temperature: 0.7, MaxTokens: 12, Seed: 9, Stop: []string{"e"}}},
		{[]string{texts[0] + "SELECT"}, SampleOptions{N: 2, Temperature: 1, MaxTokens: 9, Seed: 4,
			Constrain: func(int) Constraint { return &exactly{want: " first_name"} }}},
	}
	var wg sync.WaitGroup
	got := make([][][]Completion, len(reqs))
	errs := make([]error, len(reqs))
	for rep := 0; rep < 3; rep++ {
		for i, r := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _, errs[i] = b.Generate(ctx, r.prompts, r.o)
			}()
		}
		cctx, cancel := context.WithCancel(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := b.Generate(cctx, []string{texts[0]}, SampleOptions{N: 8, Temperature: 1, MaxTokens: 60}); err == nil {
				t.Error("a cancelled request succeeded")
			}
		}()
		cancel()
		wg.Wait()
		for i, r := range reqs {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			want, _, err := p.Generate(ctx, r.prompts, r.o)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want {
				for j := range want[k] {
					if got[i][k][j].Text != want[k][j].Text || got[i][k][j].Finish != want[k][j].Finish {
						t.Errorf("request %d prompt %d sample %d: batched %q, alone %q", i, k, j, got[i][k][j].Text, want[k][j].Text)
					}
				}
			}
		}
	}
}

// checkLogProb checks that a completion's reported log-probability is the
// scorer's, end token included when it stopped there.
func checkLogProb(t *testing.T, p *Policy, sc *LogProbScorer, prompt string, c Completion) {
	t.Helper()
	pt := p.Tok.Encode(prompt)
	seq := Sequence{Tokens: append(slices.Clone(pt), c.Tokens...), PromptLen: len(pt)}
	if c.Finish == "stop" {
		seq.Tokens = append(seq.Tokens, p.Tok.EOT())
	}
	if len(seq.Tokens) == seq.PromptLen {
		return
	}
	lp, err := sc.LogProbs([]Sequence{seq})
	if err != nil {
		t.Fatal(err)
	}
	// the sampler's cache runs single-query attention and gemms of other
	// shapes: equal up to rounding
	if tol := lpTol(p.Model.Cfg, lp[0]); math.Abs(lp[0].Sum-c.LogProb) > tol {
		t.Errorf("%q: reported log-prob %v, scorer %v (tolerance %.2g)", c.Text, c.LogProb, lp[0].Sum, tol)
	}
}

// lpTol is the difference allowed between two computations of a
// sequence's log-probability by different paths (shared or whole prompt,
// cache or full forward pass, another gemm kernel): numtest.Tol with n the
// widest float32 reduction behind one token's log-probability (the
// feed-forward width through every layer, plus the vocabulary and pointer
// heads) and magnitude tokens + |sum|, since a log-softmax's rounding
// error is absolute on logits of order 1 and grows with |log p|.
// (OPENBLAS_CORETYPE=Zen moved a sum of -287 by 1.9e-4, 0.08 of this.)
func lpTol(c nn.Config, lp SeqLogProb) float64 {
	return numtest.Tol(c.Layers*c.Hidden+2, float64(lp.Tokens)+math.Abs(lp.Sum))
}

// scriptConstraint lets decoding write exactly the pieces of a
// tokenized text, one token each, and then only end.
type scriptConstraint struct {
	pieces []string
	at     int
}

func (c *scriptConstraint) Allow(piece string, end bool) bool {
	if end {
		return c.at == len(c.pieces)
	}
	return c.at < len(c.pieces) && piece == c.pieces[c.at]
}

func (c *scriptConstraint) Advance(string) { c.at++ }

// TestCompletionBudget: greedy decoding held to a text's own tokens
// stops, with that text, under exactly CompletionBudget of it; one token
// short of it, the text is written whole and cut before its end token.
func TestCompletionBudget(t *testing.T) {
	ctx := context.Background()
	p := testPolicy(t)
	for _, text := range []string{"SELECT first_name FROM customer", "SELECT COUNT(*) FROM customer", "x"} {
		toks := p.Tok.Encode(text)
		n := CompletionBudget(p.Tok, text)
		if n != len(toks)+1 {
			t.Fatalf("%q: budget %d for %d tokens", text, n, len(toks))
		}
		for _, tc := range []struct {
			budget int
			finish string
		}{{n, "stop"}, {n - 1, "length"}} {
			script := func(int) Constraint {
				c := &scriptConstraint{}
				for _, tk := range toks {
					c.pieces = append(c.pieces, p.Tok.Decode([]int32{tk}))
				}
				return c
			}
			got, _, err := p.Generate(ctx, []string{"question: x\nSQL: "}, SampleOptions{MaxTokens: tc.budget, Constrain: script})
			if err != nil {
				t.Fatal(err)
			}
			// one short, every token of the text is drawn, the end is not
			if g := got[0][0]; g.Finish != tc.finish || g.Text != text {
				t.Errorf("%q at budget %d: %q (%s), want it (%s)", text, tc.budget, g.Text, g.Finish, tc.finish)
			}
		}
	}
}
