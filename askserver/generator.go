package askserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Question is what an SQLGenerator is asked: a user's question on one
// database, with the schema read from it. The question and evidence are
// data for the prompt; the SQL the generator returns is the only SQL that
// runs.
type Question struct {
	DB       string
	Question string
	Evidence string
	Dialect  prompt.Dialect
	// Schema is the database's schema as last read (start or reload).
	Schema *prompt.Schema
	// Prompt is the chat prompt package prompt writes for the question
	// (SQLite databases: it names SQLite's dialect; nil for PostgreSQL).
	Prompt *prompt.Prompt
	// Build writes Prompt again within budget tokens (as the server's
	// estimate counts them; the tables least relevant to the question are
	// pruned): a generator fitting the prompt to its model. Nil where
	// Prompt is.
	Build func(ctx context.Context, budget int) (*prompt.Prompt, error)
}

// SQLGenerator writes the SQL that answers a question: the native policy, a
// model behind an OpenAI-compatible server, or a test's fake.
type SQLGenerator interface {
	Generate(ctx context.Context, q Question) (string, error)
	// Name is recorded with each answer, so that feedback on one model is
	// not taken as feedback on another.
	Name() string
}

// NativeGenerator writes SQL with the native policy: prompts in the checkpoint's
// format fitted to its context (policy.Prompter.Fit), decoding guided by
// the tables the prompt shows (policy.FitGuides), and concurrent requests
// decoded together (policy.Batcher). It reads schemas through its own
// prompter over eng, which Reload replaces.
type NativeGenerator struct {
	Policy    *policy.Policy
	MaxTokens int
	Label     string

	eng     sqlexec.Engine
	descDir func(db string) string
	batcher *policy.Batcher
	mu      sync.Mutex
	pr      *policy.Prompter
}

// NewNativeGenerator returns the native generator over eng (whose database names
// are the server's), decoding up to slots sequences at once. descDir(db)
// names the folder holding db's database_description/ (nil: none): a model
// trained with column descriptions in its prompts must be served with them.
func NewNativeGenerator(pol *policy.Policy, eng sqlexec.Engine, descDir func(db string) string, label string, slots, maxTokens int) (*NativeGenerator, error) {
	g := &NativeGenerator{Policy: pol, MaxTokens: maxTokens, Label: label, eng: eng, descDir: descDir}
	pr, err := g.prompter()
	if err != nil {
		return nil, err
	}
	g.pr, g.batcher = pr, pol.NewBatcher(slots)
	return g, nil
}

func (g *NativeGenerator) prompter() (*policy.Prompter, error) {
	if g.descDir == nil {
		return policy.NewPrompter(g.eng, "", g.Policy.Info.Prompt)
	}
	return policy.NewPrompterDirs(g.eng, g.descDir, g.Policy.Info.Prompt)
}

// checkNativeDatabases refuses, at start, PostgreSQL databases that pol
// cannot prompt for: a checkpoint in the text format writes package
// prompt's CREATE TABLE prompt in SQLite's dialect. The compact format is
// written from the schema package prompt's catalog reads from pg_catalog.
func checkNativeDatabases(pol *policy.Policy, r *router) error {
	if pol.Info.Prompt.Kind == policy.FormatCompact {
		return nil
	}
	var pg []string
	for _, name := range sortedKeys(r.dbs) {
		if r.dbs[name].kind == "postgres" {
			pg = append(pg, name)
		}
	}
	if len(pg) == 0 {
		return nil
	}
	return fmt.Errorf("databases %s are PostgreSQL, and this checkpoint's prompts (format %q) are written from SQLite schemas only: serve them with a checkpoint in the compact format (sqlrl train sft) or an \"openai\" generator, or copy them to SQLite",
		strings.Join(pg, ", "), pol.Info.Prompt.Kind)
}

// Name implements SQLGenerator.
func (g *NativeGenerator) Name() string { return "native:" + g.Label }

// Reload forgets the schemas read so far.
func (g *NativeGenerator) Reload() error {
	pr, err := g.prompter()
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.pr = pr
	g.mu.Unlock()
	return nil
}

// Close stops the batcher.
func (g *NativeGenerator) Close() { g.batcher.Close() }

// Generate implements SQLGenerator.
func (g *NativeGenerator) Generate(ctx context.Context, q Question) (string, error) {
	cs, err := g.decode(ctx, q, policy.SampleOptions{N: 1})
	if err != nil {
		return "", err
	}
	if len(cs) != 1 {
		return "", errors.New("the policy returned no completion")
	}
	return cs[0].Text, nil
}

// decode fits q's prompt in the checkpoint's format and decodes o.N
// completions of it, guided by the tables the prompt shows, in the shared
// batch (o's MaxTokens and Constrain are the fit's).
func (g *NativeGenerator) decode(ctx context.Context, q Question, o policy.SampleOptions) ([]policy.Completion, error) {
	fit, err := g.fit(ctx, q)
	if err != nil {
		return nil, err
	}
	return g.decodeFitted(ctx, fit, o)
}

// fit fits q's prompt in the checkpoint's format.
func (g *NativeGenerator) fit(ctx context.Context, q Question) (*policy.Fitted, error) {
	g.mu.Lock()
	pr := g.pr
	g.mu.Unlock()
	// The prompter's catalog reads each database in its dialect (the
	// router says which), with the values and descriptions the format asks.
	ex := dataset.Example{DBID: q.DB, Question: q.Question, Evidence: q.Evidence}
	return pr.Fit(ctx, ex, g.Policy.FitOptions(g.MaxTokens))
}

// decodeFitted decodes o.N completions of a fitted prompt in the shared
// batch.
func (g *NativeGenerator) decodeFitted(ctx context.Context, fit *policy.Fitted, o policy.SampleOptions) ([]policy.Completion, error) {
	o.MaxTokens, o.Constrain = fit.MaxTokens, policy.FitGuides([]*policy.Fitted{fit}, g.Policy.Info.SQLWords)
	outs, _, err := g.batcher.Generate(ctx, []string{fit.Text}, o)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, errors.New("the policy returned no completions")
	}
	return outs[0], nil
}
