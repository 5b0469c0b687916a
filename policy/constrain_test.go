package policy

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// exactly accepts one text and nothing else.
type exactly struct{ want, got string }

func (e *exactly) Allow(piece string, end bool) bool {
	s := e.got + piece
	if end {
		return s == e.want
	}
	return strings.HasPrefix(e.want, s)
}
func (e *exactly) Advance(piece string) { e.got += piece }
func (e *exactly) Clone() Constraint    { c := *e; return &c }

// A constraint that admits one text forces it, greedy or sampled, whatever
// the model prefers.
func TestGenerateConstrained(t *testing.T) {
	p := testPolicy(t)
	want := []string{"SELECT first_name FROM customer WHERE customer_id = 42", "SELECT 'é'"}
	for _, o := range []SampleOptions{{Temperature: 0, N: 3}, {Temperature: 1, N: 3}, {Beams: 4, N: 1}} {
		temp := o.Temperature
		o.TopP, o.MaxTokens, o.Seed = 0.9, 80, 2
		o.Constrain = func(i int) Constraint { return &exactly{want: want[i]} }
		outs, _, err := p.Generate(context.Background(), []string{texts[0], texts[0]}, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, cs := range outs {
			for _, c := range cs {
				if c.Text != want[i] || c.Finish != "stop" {
					t.Errorf("temperature %v: got %q (%s), want %q", temp, c.Text, c.Finish, want[i])
				}
			}
		}
	}
}

// Every gold query of the BIRD sample must be writable under its
// database's guide, byte by byte, and may end where it ends.
func TestGuidesAcceptGolds(t *testing.T) {
	b, err := dataset.Load("../datasets/bird-dev-sample", "dev")
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	defer eng.Close()
	pr, err := NewPrompter(eng, b.DBRoot, Format{Kind: FormatCompact})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Examples) < 100 {
		t.Fatalf("%d examples in the sample", len(b.Examples))
	}
	words, err := pr.SQLWords(context.Background(), b.Examples)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) < 20 || !slices.Contains(words, "select") || slices.Contains(words, "t1") {
		t.Fatalf("SQL words of the sample: %v", words)
	}
	for _, ws := range [][]string{nil, words} {
		checkGuides(t, pr, b.Examples, ws)
	}
}

func checkGuides(t *testing.T, pr *Prompter, exs []dataset.Example, words []string) {
	g, err := pr.Guides(context.Background(), exs, words)
	if err != nil {
		t.Fatal(err)
	}
	for i, ex := range exs {
		c := g(i)
		sql := ex.SQL
		for k := 0; k < len(sql); k++ {
			if !c.Allow(sql[k:k+1], false) {
				t.Errorf("question %d: refused at byte %d (%q|%q)", ex.QuestionID, k, sql[:k], sql[k:])
				break
			}
			c.Advance(sql[k : k+1])
		}
		if !c.Allow("", true) {
			t.Errorf("question %d: may not end: %s", ex.QuestionID, sql)
		}
		// a misspelt name is refused
		if bad := strings.Replace(sql, "SELECT ", "SELECT nosuchcolumn, ", 1); bad != sql && g(i).Allow(bad, true) {
			t.Errorf("question %d: accepted %s", ex.QuestionID, bad)
		}
	}
}

// Every gold query of a generated benchmark (the tiny preset: train and
// dev, whose names are all renamed) is writable under the guide held to
// the train split's SQL words.
func TestGuidesAcceptBenchGolds(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a benchmark")
	}
	dir := filepath.Join(t.TempDir(), "bench")
	if _, err := bench.Generate(context.Background(), bench.Options{Preset: "tiny", Seed: 1, Out: dir}); err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, split := range []string{"train", "dev"} {
		b, err := dataset.Load(dir, split)
		if err != nil {
			t.Fatal(err)
		}
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
		defer eng.Close()
		pr, err := NewPrompter(eng, b.DBRoot, Format{Kind: FormatCompact})
		if err != nil {
			t.Fatal(err)
		}
		if words == nil {
			if words, err = pr.SQLWords(context.Background(), b.Examples); err != nil {
				t.Fatal(err)
			}
		}
		checkGuides(t, pr, b.Examples, words)
	}
}

// refuseOdd refuses every token whose piece has an odd length.
type refuseOdd struct{}

func (refuseOdd) Allow(piece string, end bool) bool { return len(piece)%2 == 0 }
func (refuseOdd) Advance(string)                    {}

// A constrained draw reports the tokens it drew from (every accepted token
// above the candidates' threshold) and the drawn token's log-probability
// renormalised over them; an unconstrained one reports no support and the
// model's own log-probability.
func TestPickSupport(t *testing.T) {
	p := testPolicy(t)
	V := p.Model.Cfg.Vocab
	k := newPicker(p, V)
	k.record = true
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float32, V)
	for i := range z {
		z[i] = float32(r.NormFloat64() * 3)
	}
	lse := logSumExp(z)
	probs, idx := make([]float32, V), make([]int, V)
	for range 20 {
		tok, lp := k.pick(z, refuseOdd{}, 1, 1, r, probs, idx)
		if want := float64(z[tok]) - lse; math.Abs(lp-want) > 1e-9 {
			t.Fatalf("log-prob %v, want the model's %v", lp, want)
		}
		var mass float64
		in := map[int32]bool{}
		for _, u := range k.support {
			in[u] = true
			mass += math.Exp(float64(z[u]) - lse)
		}
		for u := range V {
			want := k.allow(refuseOdd{}, u) && math.Exp(float64(z[u])-lse) >= 1e-6*1.0001
			if want && !in[int32(u)] || in[int32(u)] && !k.allow(refuseOdd{}, u) {
				t.Fatalf("token %d (piece %q, p %.3g): in the support %v, accepted %v", u, k.piece(int32(u)), math.Exp(float64(z[u])-lse), in[int32(u)], k.allow(refuseOdd{}, u))
			}
		}
		if !in[tok] {
			t.Fatalf("drew %d outside its support", tok)
		}
		if want := float64(z[tok]) - lse - math.Log(mass); math.Abs(k.logQ-want) > 1e-5 {
			t.Fatalf("renormalised log-prob %v, want %v", k.logQ, want)
		}
	}
	if _, _ = k.pick(z, nil, 1, 1, r, probs, idx); k.support != nil {
		t.Errorf("unconstrained draw: support of %d tokens", len(k.support))
	}
	// decoding that does not train records nothing
	k.record = false
	if _, _ = k.pick(z, refuseOdd{}, 1, 1, r, probs, idx); k.support != nil {
		t.Errorf("a draw not recorded: support of %d tokens", len(k.support))
	}
	// a tempered draw's logQ is still at temperature 1 over its support
	k.record = true
	tok, _ := k.pick(z, refuseOdd{}, 0.7, 1, r, probs, idx)
	var mass float64
	for _, u := range k.support {
		mass += math.Exp(float64(z[u]) - lse)
	}
	if want := float64(z[tok]) - lse - math.Log(mass); math.Abs(k.logQ-want) > 1e-5 {
		t.Errorf("temperature 0.7: logQ %v, want %v at temperature 1", k.logQ, want)
	}
}
