package train

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// tinyPolicy returns an untrained policy whose context is maxSeq tokens,
// with a tokenizer trained on d's training prompts and SQL as Run trains
// one: dev evaluation's fitting depends on the context and the tokenizer,
// not on what the weights learnt.
func tinyPolicy(t *testing.T, d *Data, maxSeq int) *policy.Policy {
	t.Helper()
	ctx := context.Background()
	var corpus []string
	for i := range d.Train {
		p, c, err := d.render(ctx, &d.Train[i], nil, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, p, c)
	}
	p := policytest.New(t, policytest.Options{Corpus: corpus, Vocab: 400, Preset: "custom",
		Config: nn.Config{Dim: 32, Layers: 1, Heads: 2, Hidden: 64, MaxSeq: maxSeq}, Format: d.Format, Seed: 1})
	p.Info.SQLWords = d.SQLWords
	return p
}

// fakeGen records what dev evaluation decodes: the prompts, and each
// prompt's constraint (nil when unguided).
type fakeGen struct {
	prompts []string
	cons    []policy.Constraint
	max     int
}

func (g *fakeGen) Generate(_ context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	g.prompts, g.max = prompts, o.MaxTokens
	out := make([][]policy.Completion, len(prompts))
	for k := range prompts {
		var c policy.Constraint
		if o.Constrain != nil {
			c = o.Constrain(k)
		}
		g.cons = append(g.cons, c)
		out[k] = []policy.Completion{{Text: "SELECT 1", Finish: "stop"}}
	}
	return out, policy.Stats{}, nil
}

// TestEvalDevFitsPrompts runs dev evaluation under contexts that hold
// every full prompt, only some, and none. It must decode what sqlrl
// generate decodes: the full prompt whenever it fits, else one pruned to
// fit with its completion budget, guided by the tables the prompt shows
// (a pruned table cannot follow FROM); and score a question that cannot fit
// as wrong and count it, never failing the evaluation.
func TestEvalDevFitsPrompts(t *testing.T) {
	d := loadTiny(t)
	ctx := context.Background()
	const n = 12
	d.Dev = d.Dev[:n]
	exs := devExamples(d.Dev)
	probe := tinyPolicy(t, d, 1<<16)
	full := make([]string, n)
	lens := make([]int, n)
	for i := range exs {
		p, err := d.DevPrompter.Prompt(ctx, exs[i])
		if err != nil {
			t.Fatal(err)
		}
		full[i], lens[i] = p, len(probe.Tok.Encode(p))
	}
	sorted := slices.Sorted(slices.Values(lens))
	longest, median := sorted[n-1], sorted[n/2]
	if longest == sorted[0] {
		t.Fatalf("all %d dev prompts have %d tokens: the tight case would prune all or none", n, longest)
	}
	room := DevMaxTokens + policy.DefaultFitMargin
	for _, c := range []struct {
		name   string
		maxSeq int
		// prompts of at most fullUpTo tokens must be shown whole
		fullUpTo   int
		wantFailed int
		somePruned bool
	}{
		{"roomy", longest + room, longest, 0, false},
		{"tight", median + room, median, 0, true},
		// shorter than any completion budget allowed (DefaultMinTokens)
		{"hopeless", policy.DefaultMinTokens, 0, n, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := tinyPolicy(t, d, c.maxSeq)
			for _, guide := range []bool{true, false} {
				g := &fakeGen{}
				fb, preds, err := devPredict(ctx, g, p.FitOptions(DevMaxTokens), d.DevPrompter, exs, devDecode{guide: guide, words: p.Info.SQLWords})
				if err != nil {
					t.Fatalf("guide %v: %v", guide, err)
				}
				if fb.Failed != c.wantFailed {
					t.Errorf("guide %v: %d questions failed to fit, want %d", guide, fb.Failed, c.wantFailed)
				}
				if got := fb.Pruned + fb.Bare + fb.Shortened; (got > 0) != c.somePruned {
					t.Errorf("guide %v: %d prompts pruned, %d bare, %d shortened; want some: %v", guide, fb.Pruned, fb.Bare, fb.Shortened, c.somePruned)
				}
				if len(g.prompts) != len(fb.OK) || len(fb.OK)+fb.Failed != n {
					t.Fatalf("guide %v: decoded %d prompts, %d fitted, %d failed of %d", guide, len(g.prompts), len(fb.OK), fb.Failed, n)
				}
				if len(fb.OK) > 0 && g.max != DevMaxTokens {
					t.Errorf("guide %v: decoded with max tokens %d, want %d", guide, g.max, DevMaxTokens)
				}
				for i, f := range fb.Fits {
					if f == nil {
						if !errors.Is(fb.Errs[i], policy.ErrNoFit) {
							t.Errorf("question %d: %v, want ErrNoFit", i, fb.Errs[i])
						}
						if preds[i].SQL != "" {
							t.Errorf("question %d did not fit but predicts %q", i, preds[i].SQL)
						}
					}
				}
				for k, i := range fb.OK {
					f, text := fb.Fits[i], g.prompts[k]
					if text != f.Text || preds[i].SQL != "SELECT 1" {
						t.Errorf("question %d: decoded another prompt than its fitted one, or its prediction %q is not the decode", i, preds[i].SQL)
					}
					if lens[i] <= c.fullUpTo && text != full[i] {
						t.Errorf("question %d: %d-token prompt fits a %d context but was changed", i, lens[i], c.maxSeq)
					}
					if tok := len(p.Tok.Encode(text)); tok+f.MaxTokens+policy.DefaultFitMargin > c.maxSeq {
						t.Errorf("question %d: %d prompt + %d completion tokens overflow the %d context", i, tok, f.MaxTokens, c.maxSeq)
					}
					if !guide {
						if g.cons[k] != nil {
							t.Errorf("question %d: constrained without -guide", i)
						}
						continue
					}
					for name := range f.Tables {
						if g.cons[k] == nil || !g.cons[k].Allow("SELECT * FROM "+name, true) {
							t.Errorf("question %d: the guide refuses table %s, which the prompt shows", i, name)
						}
					}
					for _, name := range f.Pruned {
						if g.cons[k] != nil && g.cons[k].Allow("SELECT * FROM "+name, true) {
							t.Errorf("question %d: the guide admits table %s, which the prompt does not show", i, name)
						}
					}
				}
			}
			// the real thing: decoded by the model and scored
			ev, err := EvalDev(ctx, p, d, 0, 1, true)
			if err != nil {
				t.Fatal(err)
			}
			fb, err := d.DevPrompter.FitAll(ctx, exs, p.FitOptions(DevMaxTokens))
			if err != nil {
				t.Fatal(err)
			}
			if ev.N != n || ev.Failed != fb.Failed || ev.Pruned != fb.Pruned || ev.Bare != fb.Bare || ev.Shortened != fb.Shortened {
				t.Errorf("eval %+v, fitting %d failed %d pruned %d bare %d shortened", ev, fb.Failed, fb.Pruned, fb.Bare, fb.Shortened)
			}
			if c.wantFailed == n && ev.EX != 0 {
				t.Errorf("EX %v with no question fitting", ev.EX)
			}
		})
	}
}

func devExamples(exs []Example) []dataset.Example {
	out := make([]dataset.Example, len(exs))
	for i := range exs {
		out[i] = exs[i].Example
	}
	return out
}

// voteGen answers every prompt greedily with a syntax error and samples
// "SELECT 2", "SELECT 1", "SELECT 1": a vote must answer "SELECT 1".
type voteGen struct{ sampled policy.SampleOptions }

func (g *voteGen) Generate(_ context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	out := make([][]policy.Completion, len(prompts))
	for k := range prompts {
		if o.Temperature == 0 {
			out[k] = []policy.Completion{{Text: "SELECT FROM", Finish: "stop"}}
			continue
		}
		g.sampled = o
		for i := range o.N {
			out[k] = append(out[k], policy.Completion{Text: []string{"SELECT 2", "SELECT 1", "SELECT 1"}[i%3], Finish: "stop"})
		}
	}
	return out, policy.Stats{}, nil
}

// TestDevPredictVotes checks that a dev evaluation by vote draws the
// samples it is told to, executes them with the greedy decode and answers
// with the largest group, keeping the samples as candidates; and that
// without a vote the greedy decode stands.
func TestDevPredictVotes(t *testing.T) {
	d := loadTiny(t)
	ctx := context.Background()
	d.Dev = d.Dev[:4]
	exs := devExamples(d.Dev)
	p := tinyPolicy(t, d, 1<<12)
	vote := consensus.Sampling{Samples: 3, Temperature: 0.7, TopP: 0.9}
	for _, tc := range []struct {
		vote consensus.Sampling
		want string
		cand int
	}{{consensus.Sampling{}, "SELECT FROM", 0}, {vote, "SELECT 1", 3}} {
		g := &voteGen{}
		dd := devDecode{guide: true, words: p.Info.SQLWords, vote: tc.vote, seed: 5, eng: d.DevEngine}
		fb, preds, err := devPredict(ctx, g, p.FitOptions(DevMaxTokens), d.DevPrompter, exs, dd)
		if err != nil {
			t.Fatal(err)
		}
		if len(fb.OK) != len(exs) {
			t.Fatalf("%d of %d prompts fitted", len(fb.OK), len(exs))
		}
		for i, pr := range preds {
			if pr.SQL != tc.want || len(pr.Candidates) != tc.cand {
				t.Errorf("%s: question %d answers %q with %d candidates, want %q with %d", tc.vote, i, pr.SQL, len(pr.Candidates), tc.want, tc.cand)
			}
		}
		if s := g.sampled; tc.vote.On() && (s.N != 3 || s.Temperature != 0.7 || s.TopP != 0.9) {
			t.Errorf("sampled %+v, want the vote's 3 at T 0.7, top-p 0.9", s)
		}
	}
	if err := (consensus.Sampling{Samples: 2}).Check(); err == nil {
		t.Error("a vote at temperature 0 passed Check")
	}
}

// TestEvalSummaryLevels: Summary names the difficulties that have
// questions; a file without BIRD's difficulties (the scorer still counts
// each level, at 0) shows none rather than "simple 0.0% (0)".
func TestEvalSummaryLevels(t *testing.T) {
	for _, c := range []struct {
		counts map[string]int
		want   string
	}{
		{map[string]int{"simple": 2, "moderate": 1, "challenging": 1}, "EX 50.0% on 4 [simple 50.0% (2), moderate 100.0% (1), challenging 0.0% (1)] in 1.0s"},
		{map[string]int{"simple": 0, "moderate": 0, "challenging": 0}, "EX 50.0% on 4 [] in 1.0s"},
		{map[string]int{"simple": 4, "challenging": 0}, "EX 50.0% on 4 [simple 50.0% (4)] in 1.0s"},
	} {
		e := &Eval{N: 4, EX: 0.5, Seconds: 1, Counts: c.counts, Levels: map[string]float64{"simple": 0.5, "moderate": 1}}
		if got := e.Summary(); got != c.want {
			t.Errorf("counts %v: Summary %q, want %q", c.counts, got, c.want)
		}
	}
}
