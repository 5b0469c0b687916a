package askserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// OpenAIGenerator writes SQL with a chat model behind an OpenAI-compatible
// server, prompted with package prompt's chat form (what `data prepare`
// trains on) for SQLite databases and a compact one-line-per-table schema
// for PostgreSQL ones. The SQL is taken out of the answer as the reward's
// extractor does (fences, reasoning, prose).
//
// The prompt is fitted to the model: where the server says its context
// (max_model_len on GET /models) and counts tokens (POST /tokenize, as
// vLLM and `sqlrl serve-model` do), tables are pruned until the prompt's
// real count plus max_tokens fits the context and PromptTokens. Where it
// says nothing (OpenAI itself), PromptTokens is the budget, counted with
// estimateTokens, which errs high. A request the server still refuses for
// its length is sent once more with half the budget.
//
// A server that says it serves a native policy trained on compact prompts
// (`sqlrl serve-model`: sqlrl_prompt on GET /models) gets that policy's
// own prompt (policy.Prompter, over Databases), as one user message, which
// its chat route reads as exactly that text: a native checkpoint does not
// know the CREATE TABLE prompt.
type OpenAIGenerator struct {
	Client *llmclient.Client
	// Label names the model in answers; default the client's model id.
	Label string
	// PromptTokens caps the prompt; default DefaultPromptTokens.
	PromptTokens int
	// Databases and DescriptionDir (db's database_description/ folder)
	// read schemas for a native policy's prompts; nil Databases: the chat
	// prompt always.
	Databases      sqlexec.Engine
	DescriptionDir func(db string) string

	mu     sync.Mutex
	probed bool // the server was asked for its context
	maxLen int  // the model's context, 0 when the server does not say
	format *policy.Format
	native *policy.Prompter // the served policy's prompter, when format is set
	counts int              // POST /tokenize: 0 not tried, 1 answers, -1 does not
}

// fitMargin tokens of the context are left free besides the prompt and
// max_tokens (a chat template's closing tokens, the end token).
const fitMargin = 4

// maxFitRounds bounds the rounds of pruning and counting one ask takes.
const maxFitRounds = 5

// Name implements SQLGenerator.
func (g *OpenAIGenerator) Name() string {
	if g.Label != "" {
		return "openai:" + g.Label
	}
	return "openai:" + g.Client.Model
}

// Generate implements SQLGenerator.
func (g *OpenAIGenerator) Generate(ctx context.Context, q Question) (string, error) {
	var sql string
	err := g.chat(ctx, q, func(msgs []openai.Message) (err error) {
		sql, err = g.send(ctx, msgs)
		return err
	})
	return sql, err
}

// chat fits q's messages to the model and calls send with them; when the
// server still refuses them for their length (it counts otherwise than
// the estimate), once more at half the budget. Generate and Sample send
// the same messages.
func (g *OpenAIGenerator) chat(ctx context.Context, q Question, send func([]openai.Message) error) error {
	limit := g.PromptTokens
	if limit <= 0 {
		limit = DefaultPromptTokens
	}
	maxTokens := g.Client.MaxTokens
	if maxTokens <= 0 {
		maxTokens = llmclient.DefaultMaxTokens
	}
	n, native := g.probe(ctx)
	if n > 0 {
		if limit = min(limit, n-maxTokens-fitMargin); limit < 1 {
			return fmt.Errorf("the model's context is %d tokens: no room for a prompt with max_tokens %d (lower generator.max_tokens)", n, maxTokens)
		}
	}
	r := renderer{q: q, native: native, maxTokens: maxTokens}
	msgs, budget, err := g.fit(ctx, r, limit)
	if err != nil {
		return err
	}
	err = send(msgs)
	if errors.Is(err, llmclient.ErrContextLength) && budget > 1 {
		if msgs, err = r.render(ctx, budget/2); err != nil {
			return err
		}
		err = send(msgs)
	}
	return err
}

// Reload forgets the schemas the native policy's prompter has read.
func (g *OpenAIGenerator) Reload() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.format == nil {
		return nil
	}
	pr, err := policy.NewPrompterDirs(g.Databases, g.DescriptionDir, *g.format)
	if err != nil {
		return err
	}
	g.native = pr
	return nil
}

func (g *OpenAIGenerator) send(ctx context.Context, msgs []openai.Message) (string, error) {
	var sql string
	_, err := g.Client.Chat(ctx, msgs, func(text string) error {
		sql = reward.ExtractSQL(text)
		if sql == "" {
			return errors.New("the model's answer holds no SQL")
		}
		return nil
	})
	return sql, err
}

// probe asks the server once for the model's context and prompt format
// (GET /models): n is 0 when it does not say, native the served policy's
// prompter when it is a native policy trained on compact prompts. A server
// that cannot be reached now is asked again next time.
func (g *OpenAIGenerator) probe(ctx context.Context) (n int, native *policy.Prompter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.probed {
		card, err := g.Client.Card(ctx)
		switch {
		case err == nil:
			g.probed, g.maxLen = true, card.MaxModelLen
			var f policy.Format
			if len(card.SQLRLPrompt) > 0 && g.Databases != nil && json.Unmarshal(card.SQLRLPrompt, &f) == nil && f.Kind == policy.FormatCompact {
				if pr, err := policy.NewPrompterDirs(g.Databases, g.DescriptionDir, f); err == nil {
					g.format, g.native = &f, pr
				}
			}
		case errors.Is(err, llmclient.ErrPermanent):
			g.probed = true
		}
	}
	return g.maxLen, g.native
}

// fit writes q's messages within limit tokens: counted by the server
// where it tokenizes, the budget of the estimate shrunk by the ratio of
// the real count until they fit; estimated otherwise. budget is the
// estimate's budget the messages were written with.
func (g *OpenAIGenerator) fit(ctx context.Context, r renderer, limit int) (msgs []openai.Message, budget int, err error) {
	budget = limit
	for round := 0; ; round++ {
		if msgs, err = r.render(ctx, budget); err != nil {
			return nil, 0, err
		}
		n, ok := g.count(ctx, msgs)
		if !ok || n >= 0 && n <= limit {
			return msgs, budget, nil
		}
		next := budget / 2 // n < 0: the server would not even count it
		if n > 0 {
			next = min(budget-1, int(float64(budget)*float64(limit)/float64(n)*0.95))
		}
		if round+1 == maxFitRounds || next < 1 {
			return nil, 0, fmt.Errorf("%w: the prompt costs %d tokens with the fewest tables it can show (-1: more than the server counts); the limit is %d (the model's context less max_tokens, or prompt_tokens)", policy.ErrNoFit, n, limit)
		}
		budget = next
	}
}

// count asks the server what msgs cost; ok is false when it cannot say
// (no tokenize route, remembered; or not now). n is -1 when the server
// refuses to count a prompt longer than the context (as some do).
func (g *OpenAIGenerator) count(ctx context.Context, msgs []openai.Message) (int, bool) {
	g.mu.Lock()
	c := g.counts
	g.mu.Unlock()
	if c < 0 {
		return 0, false
	}
	r, err := g.Client.CountTokens(ctx, msgs)
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err == nil:
		g.counts = 1
		if g.maxLen == 0 && r.MaxModelLen > 0 {
			g.maxLen = r.MaxModelLen // used from the next ask on
		}
		return r.Count, true
	case errors.Is(err, llmclient.ErrContextLength):
		g.counts = 1
		return -1, true
	case errors.Is(err, llmclient.ErrPermanent) && g.counts == 0:
		g.counts = -1 // a server that has never counted does not (OpenAI, llama.cpp's other shape)
	}
	return 0, false
}

// renderer writes one question's messages.
type renderer struct {
	q         Question
	native    *policy.Prompter // the served policy's, or nil
	maxTokens int
}

// render writes the messages within budget tokens as estimateTokens
// counts them: the served native policy's own prompt as the user message,
// or package prompt's chat prompt (SQLite), or a compact schema
// (PostgreSQL).
func (r renderer) render(ctx context.Context, budget int) ([]openai.Message, error) {
	q := r.q
	if r.native != nil {
		ex := dataset.Example{DBID: q.DB, Question: q.Question, Evidence: q.Evidence}
		o := policy.FitOptions{Context: budget + policy.DefaultFitMargin + r.maxTokens, MaxTokens: r.maxTokens, MinTokens: r.maxTokens, Counter: estimateTokens{}}
		fit, err := r.native.Fit(ctx, ex, o)
		if err != nil {
			return nil, err
		}
		return []openai.Message{{Role: "user", Content: fit.Text}}, nil
	}
	var out []openai.Message
	if q.Build != nil {
		p, err := q.Build(ctx, budget)
		if err != nil {
			return nil, err
		}
		for _, m := range p.Messages() {
			out = append(out, openai.Message{Role: m.Role, Content: m.Content})
		}
		return out, nil
	}
	if q.Prompt != nil {
		for _, m := range q.Prompt.Messages() {
			out = append(out, openai.Message{Role: m.Role, Content: m.Content})
		}
		return out, nil
	}
	if q.Schema == nil {
		return nil, fmt.Errorf("no schema for %s", q.DB)
	}
	f := policy.Format{Kind: policy.FormatCompact, Types: true}
	sys := f.Instruction(q.Dialect)
	in := prompt.Input{DBID: q.DB, Question: q.Question, Evidence: q.Evidence}
	ft := prompt.Fit(q.Schema, in, max(1, budget-estimateTokens{}.Count(sys)), estimateTokens{}, func(ts []*prompt.Table) string {
		return f.Compact(&prompt.Schema{DBID: q.Schema.DBID, Tables: ts}, q.Question, q.Evidence)
	})
	return []openai.Message{{Role: "system", Content: sys}, {Role: "user", Content: ft.Text}}, nil
}

// estimateTokens counts a prompt's tokens for a server that cannot say:
// package prompt's estimate (high for the vocabularies of current chat
// models), and at least one token per 3 bytes, so that a smaller
// vocabulary, which splits schemas and SQL finer, is not under-counted as
// far.
type estimateTokens struct{}

// Count implements prompt.TokenCounter.
func (estimateTokens) Count(s string) int { return max(prompt.Approx{}.Count(s), (len(s)+2)/3) }
