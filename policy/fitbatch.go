package policy

import (
	"context"

	"github.com/sqlrl/sqlrl/dataset"
)

// FitBatch is a batch of questions' prompts fitted to a model's context
// (Prompter.FitAll). It is the one fitting path of everything that decodes
// benchmark questions (sqlrl generate, training's dev evaluation), so that
// a question gets the same prompt and guide wherever it is decoded, and a
// run's dev EX is the one generate would give.
type FitBatch struct {
	// Fits[i] is question i's fitted prompt; nil when it failed.
	Fits []*Fitted
	// Errs[i] says why question i has no prompt (wrapping ErrNoFit when it
	// cannot fit the context); nil when it has one. The caller scores such a
	// question as wrong and goes on, rather than losing the whole batch.
	Errs []error
	// OK are the indexes of the questions with a prompt, in order: what
	// is decoded.
	OK []int
	// Pruned, Bare and Shortened count the fitted prompts that lost
	// tables, column comments, or part of their completion budget; Failed
	// counts the questions without a prompt. Reported so that a figure
	// says how much of it was decoded from less than the full schema.
	Pruned, Bare, Shortened, Failed int
}

// FitAll fits every question of exs to o (Fit), in order. A question that
// fails is recorded in Errs and the others go on; the only error returned
// is ctx's, when it ends.
func (p *Prompter) FitAll(ctx context.Context, exs []dataset.Example, o FitOptions) (*FitBatch, error) {
	want := o.withDefaults().MaxTokens
	b := &FitBatch{Fits: make([]*Fitted, len(exs)), Errs: make([]error, len(exs))}
	for i, ex := range exs {
		f, err := p.Fit(ctx, ex, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			b.Errs[i] = err
			b.Failed++
			continue
		}
		b.Fits[i] = f
		b.OK = append(b.OK, i)
		if len(f.Pruned) > 0 {
			b.Pruned++
		}
		if f.Bare {
			b.Bare++
		}
		if f.MaxTokens < want {
			b.Shortened++
		}
	}
	return b, nil
}

// Prompts returns the prompt texts of the questions idx (indexes into the
// batch, all with a prompt: a subset of OK).
func (b *FitBatch) Prompts(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = b.Fits[i].Text
	}
	return out
}

// Guides returns FitGuides of the batch, indexed like the batch's
// questions: question i's SQL is kept to the schema its prompt shows.
func (b *FitBatch) Guides(words []string) func(int) Constraint {
	return FitGuides(b.Fits, words)
}

// GuidesFor returns the guides of the questions idx (a subset of OK),
// indexed as Generate indexes prompts: 0 for idx[0], and so on.
func (b *FitBatch) GuidesFor(idx []int, words []string) func(int) Constraint {
	g := b.Guides(words)
	return func(k int) Constraint { return g(idx[k]) }
}
