package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// Defaults of FitOptions.
const (
	// DefaultFitMargin tokens of the context are left free besides the
	// prompt and the completion: the end token and the decoder's last
	// position, which Generate cannot use for a completion token.
	DefaultFitMargin = 4
	// DefaultMinTokens is the shortest completion budget a question's
	// max tokens are cut to before the question is given up: fewer than
	// this cannot hold a BIRD query with a join.
	DefaultMinTokens = 64
)

// FitOptions say how much of a model's context a prompt may take.
type FitOptions struct {
	// Context is the model's context in tokens (nn.Config.MaxSeq).
	Context int
	// MaxTokens is the completion budget asked for (default 256).
	MaxTokens int
	// Margin is left free besides (default DefaultFitMargin).
	Margin int
	// MinTokens is the shortest completion budget a prompt may leave as a
	// last resort (default min(MaxTokens, DefaultMinTokens)).
	MinTokens int
	// Counter counts tokens as the model's tokenizer does, so that the
	// budget is exact (TokenizerCounter).
	Counter prompt.TokenCounter
}

// TokenizerCounter counts tokens with a policy's tokenizer, the way
// Generate encodes a prompt.
type TokenizerCounter struct{ Tok *tokenizer.Tokenizer }

// Count implements prompt.TokenCounter.
func (c TokenizerCounter) Count(s string) int { return max(1, len(c.Tok.Encode(s))) }

// FitOptions returns the options that fit prompts into p's context with
// maxTokens left for each completion.
func (p *Policy) FitOptions(maxTokens int) FitOptions {
	return FitOptions{Context: p.Model.Cfg.MaxSeq, MaxTokens: maxTokens, Counter: TokenizerCounter{p.Tok}}
}

func (o FitOptions) withDefaults() FitOptions {
	if o.MaxTokens <= 0 {
		o.MaxTokens = 256
	}
	if o.Margin <= 0 {
		o.Margin = DefaultFitMargin
	}
	if o.MinTokens <= 0 {
		o.MinTokens = min(o.MaxTokens, DefaultMinTokens)
	}
	if o.Counter == nil {
		o.Counter = prompt.Approx{}
	}
	return o
}

// Fitted is one question's prompt fitted to a model's context.
type Fitted struct {
	// Text is the prompt.
	Text string
	// Tokens is Text's cost under FitOptions.Counter.
	Tokens int
	// Tables are the tables the prompt shows, with all their columns: the
	// schema the question's SQL is guided by (FitGuides).
	Tables map[string][]string
	// Pruned names the tables left out, in schema order; Bare is set when
	// the column comments (descriptions, example values) were left out.
	Pruned []string
	Bare   bool
	// MaxTokens is the completion budget left: FitOptions.MaxTokens, or
	// less when the prompt only fits by cutting it (Generate then stops
	// the completion at the end of the context, with finish "length").
	MaxTokens int
}

// ErrNoFit is wrapped by Fit's error when a question's prompt cannot fit
// the context even pruned to its most relevant table without comments.
var ErrNoFit = errors.New("prompt does not fit the model's context")

// Fit writes ex's prompt in the checkpoint's format so that it and a
// completion fit o.Context. It prunes, in this order, stopping at the
// first step that fits:
//
//  1. the least relevant tables (package prompt's pruning: the tables the
//     question and evidence name are kept first, then their join paths);
//  2. the column comments (descriptions and example values), when the
//     tables the question names did not all fit with them, and tables again;
//  3. as a last resort, the completion budget: down to o.MinTokens.
//
// A question whose prompt cannot fit even so gets an error wrapping
// ErrNoFit, as does one whose schema cannot be read (without it); the
// caller records it for that question and goes on.
func (p *Prompter) Fit(ctx context.Context, ex dataset.Example, o FitOptions) (*Fitted, error) {
	s, err := p.cat.Schema(ctx, ex.DBID)
	if err != nil {
		return nil, fmt.Errorf("question %d: %w", ex.QuestionID, err)
	}
	return p.fit(ctx, s, ex, o)
}

func (p *Prompter) fit(ctx context.Context, s *prompt.Schema, ex dataset.Example, o FitOptions) (*Fitted, error) {
	o = o.withDefaults()
	in := prompt.Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence}
	named := prompt.Named(s, in)
	budget := o.Context - o.Margin - o.MaxTokens
	last := o.Context - o.Margin - o.MinTokens
	var best *Fitted
	bestNamed := -1
	for _, bare := range []bool{false, true} {
		if bare && !p.hasComments() {
			break
		}
		f, over, err := p.fitOnce(ctx, s, in, bare, budget, o.Counter)
		if err != nil {
			return nil, fmt.Errorf("question %d: %w", ex.QuestionID, err)
		}
		if over {
			continue
		}
		if k := countNamed(f, named); k > bestNamed {
			best, bestNamed = f, k
		}
		if bestNamed == len(named) {
			break
		}
	}
	if best != nil {
		best.MaxTokens = o.MaxTokens
		return best, nil
	}
	f, over, err := p.fitOnce(ctx, s, in, p.hasComments(), last, o.Counter)
	if err != nil {
		return nil, fmt.Errorf("question %d: %w", ex.QuestionID, err)
	}
	if over {
		return nil, fmt.Errorf("question %d: %w: %d tokens with table %s alone and no column comments, the context is %d and a completion needs at least %d more",
			ex.QuestionID, ErrNoFit, f.Tokens, strings.Join(slices.Sorted(maps.Keys(f.Tables)), ", "), o.Context, o.MinTokens+o.Margin)
	}
	f.MaxTokens = o.Context - o.Margin - f.Tokens
	return f, nil
}

// hasComments reports whether the format shows column comments that a
// bare prompt can leave out.
func (p *Prompter) hasComments() bool {
	return p.Format.Kind == FormatText || p.Format.Descriptions
}

// fitOnce prunes tables to budget with or without comments; over is set
// when the most relevant table alone does not fit.
func (p *Prompter) fitOnce(ctx context.Context, s *prompt.Schema, in prompt.Input, bare bool, budget int, counter prompt.TokenCounter) (*Fitted, bool, error) {
	if budget < 1 {
		budget = 1 // a prompt costs at least one token: nothing fits
	}
	f := &Fitted{Bare: bare, Tables: map[string][]string{}}
	var shown []*prompt.Table
	over := false
	if p.Format.Kind == FormatText {
		b, err := p.fitBuilder(counter)
		if err != nil {
			return nil, false, err
		}
		in.Budget, in.Bare = budget, bare
		pr, err := b.Build(ctx, in)
		if err != nil {
			return nil, false, err
		}
		f.Text, f.Tokens, f.Pruned, over = pr.Plain(), pr.Tokens, pr.Pruned, pr.OverBudget
		for _, name := range pr.Tables() {
			shown = append(shown, s.Table(name))
		}
	} else {
		src := s
		if bare {
			src = s.Bare()
		}
		ft := prompt.Fit(src, in, budget, counter, func(ts []*prompt.Table) string {
			return p.Format.Compact(&prompt.Schema{DBID: s.DBID, Tables: ts}, in.Question, in.Evidence)
		})
		f.Text, f.Tokens, f.Pruned, over, shown = ft.Text, ft.Tokens, ft.Pruned, ft.OverBudget, ft.Tables
	}
	for _, t := range shown {
		if t == nil {
			continue
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		f.Tables[t.Name] = cols
	}
	return f, over, nil
}

// fitBuilder returns the text-format builder that counts with counter.
func (p *Prompter) fitBuilder(counter prompt.TokenCounter) (*prompt.Builder, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fitB != nil && p.fitC == counter {
		return p.fitB, nil
	}
	b, err := prompt.NewBuilder(p.cat, prompt.Options{Counter: counter})
	if err != nil {
		return nil, err
	}
	p.fitB, p.fitC = b, counter
	return b, nil
}

func countNamed(f *Fitted, named []string) int {
	n := 0
	for _, t := range named {
		if _, ok := f.Tables[t]; ok {
			n++
		}
	}
	return n
}

// FitGuides returns a SampleOptions.Constrain that keeps the SQL written
// for fits[i] to the tables and columns its prompt shows and to words
// (sqlparse.Guide; nil words: SQLite's keywords and common functions).
//
// The guide gets the schema the prompt shows, not the database's full
// one. Restricting the SQL to tables the model can see costs nothing: the
// model cannot write a correct query over a table whose columns it was
// never shown, and the pruning keeps the tables the question names. The
// other way round, a guide that admits the pruned tables lets the model
// name tables it never saw (guessed from training names or copied from a
// foreign key's target), which only ever yields a query that fails or
// answers another question. A nil fit (a question that failed) gets no
// constraint.
func FitGuides(fits []*Fitted, words []string) func(int) Constraint {
	return guidesOf(func(i int) (map[string][]string, bool) {
		if fits[i] == nil {
			return nil, false
		}
		return fits[i].Tables, true
	}, len(fits), words)
}

// PromptGuides returns the schema guides of compact prompt texts, their
// tables and columns read back from the text (CompactSchema), with words
// as the SQL vocabulary; a prompt that is not a compact one gets none
// (nil). ok is false when none is. A server given only prompts, and RL
// sampling prompts whose tables it has shuffled, guide this way.
func PromptGuides(prompts []string, words []string) (g func(int) Constraint, ok bool) {
	tables := make([]map[string][]string, len(prompts))
	for i, p := range prompts {
		if ts, isCompact := CompactSchema(p); isCompact {
			tables[i], ok = ts, true
		}
	}
	return guidesOf(func(i int) (map[string][]string, bool) { return tables[i], tables[i] != nil }, len(prompts), words), ok
}

// guidesOf builds one guide per distinct schema of n prompts.
func guidesOf(tablesOf func(int) (map[string][]string, bool), n int, words []string) func(int) Constraint {
	byKey := map[string]*sqlparse.Guide{}
	guides := make([]*sqlparse.Guide, n)
	for i := range n {
		tables, ok := tablesOf(i)
		if !ok {
			continue
		}
		var key strings.Builder // tables and columns: two databases may share table names
		for _, t := range slices.Sorted(maps.Keys(tables)) {
			key.WriteString(t + "\x01" + strings.Join(tables[t], "\x01") + "\x00")
		}
		g, ok := byKey[key.String()]
		if !ok {
			g = sqlparse.NewGuide(tables, words)
			byKey[key.String()] = g
		}
		guides[i] = g
	}
	return func(i int) Constraint {
		if guides[i] == nil {
			return nil
		}
		return guideState{guides[i].Start()}
	}
}
