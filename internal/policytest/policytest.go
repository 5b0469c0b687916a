// Package policytest builds the tiny untrained policies that the tests of
// packages above policy need (servers, trainers, the command), so that a
// change to how a policy is made is made once. Package policy's own tests
// keep their copy of Peaked: they cannot import a package that imports
// policy.
package policytest

import (
	"testing"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// Options shape a test policy.
type Options struct {
	// Corpus trains the tokenizer, to Vocab tokens.
	Corpus []string
	Vocab  int
	// Preset is recorded in the policy's Info ("" or "custom").
	Preset string
	// Config is the model's shape; its Vocab is the tokenizer's.
	Config nn.Config
	Format policy.Format
	// Seed of the random weights.
	Seed uint64
}

// New returns a policy with random weights and a tokenizer trained on
// o.Corpus; it fails the test on an error.
func New(t testing.TB, o Options) *policy.Policy {
	t.Helper()
	tok, err := tokenizer.Train(o.Corpus, tokenizer.TrainOptions{VocabSize: o.Vocab})
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.Config
	cfg.Vocab = tok.VocabSize()
	p, err := policy.New(tok, o.Preset, cfg, o.Format, o.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Texts are Peaked's corpus; Texts[0] is a compact prompt.
var Texts = []string{
	"customer: customer_id integer key, first_name text\nquestion: How many customers?\nSQL: ",
	"SELECT COUNT(*) FROM customer",
	"SELECT first_name FROM customer WHERE customer_id = 7",
}

// Peaked is package policy's test policy (d16 L2, compact prompts, a
// tokenizer of 300 tokens on Texts) with its weights scaled by 8, so that
// sampling distributions are peaked enough for the schema guide to
// matter.
func Peaked(t testing.TB) *policy.Policy {
	t.Helper()
	var corpus []string
	for range 10 {
		corpus = append(corpus, Texts...)
	}
	p := New(t, Options{Corpus: corpus, Vocab: 300, Seed: 1, Format: policy.Format{Kind: policy.FormatCompact},
		Config: nn.Config{Dim: 16, Layers: 2, Heads: 2, Hidden: 32, MaxSeq: 96, PrevToken: true, Copy: true}})
	for i := range p.Model.Params {
		p.Model.Params[i] *= 8
	}
	return p
}
