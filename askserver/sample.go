package askserver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
)

// SQLSampler is an SQLGenerator that can also sample several SQLs for the
// same question: how many of them return the answer's result is the
// strongest of the answer's confidence signals (package confidence). A
// generator that cannot sample is judged without it.
type SQLSampler interface {
	// Sample returns o.N SQLs for q drawn at o.Temperature; a sample that
	// holds no SQL is "" (it counts as one that did not run).
	Sample(ctx context.Context, q Question, o SampleOptions) ([]string, error)
}

// SampleOptions are what a sampler draws.
type SampleOptions struct {
	N           int
	Temperature float64
	// Seed makes the draw reproducible: the server derives it from the
	// question, so asking again gives the same samples and judgement.
	Seed uint64
}

// sampleTopP is the nucleus the samples are drawn from: the one the
// project's self-consistency vote samples with (`generate -vote`).
const sampleTopP = 0.9

// seedOf is the sampling seed of a question on a database.
func seedOf(q Question) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", q.DB, q.Question, q.Evidence)
	return h.Sum64()
}

// Sample implements SQLSampler: the prompt and guides of Generate, N
// completions decoded together through the batcher (alongside the
// concurrent requests' greedy ones).
func (g *NativeGenerator) Sample(ctx context.Context, q Question, o SampleOptions) ([]string, error) {
	g.mu.Lock()
	pr := g.pr
	g.mu.Unlock()
	fit, err := pr.Fit(ctx, dataset.Example{DBID: q.DB, Question: q.Question, Evidence: q.Evidence}, g.Policy.FitOptions(g.MaxTokens))
	if err != nil {
		return nil, err
	}
	con := policy.FitGuides([]*policy.Fitted{fit}, g.Policy.Info.SQLWords)
	outs, _, err := g.batcher.Generate(ctx, []string{fit.Text}, policy.SampleOptions{N: o.N, Temperature: o.Temperature, TopP: sampleTopP,
		Seed: o.Seed, MaxTokens: fit.MaxTokens, Constrain: con})
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, errors.New("the policy returned no samples")
	}
	sqls := make([]string, len(outs[0]))
	for i, c := range outs[0] {
		sqls[i] = c.Text
	}
	return sqls, nil
}

// Sample implements SQLSampler with one chat request asking for o.N
// choices (`n`); a server that returns fewer gives fewer samples.
func (g *OpenAIGenerator) Sample(ctx context.Context, q Question, o SampleOptions) ([]string, error) {
	msgs, err := g.sampleMessages(q)
	if err != nil {
		return nil, err
	}
	seed := int64(o.Seed >> 1)
	resp, err := g.Client.ChatCompletion(ctx, openai.ChatRequest{Messages: msgs, Temperature: o.Temperature, MaxTokens: g.Client.MaxTokens,
		Sampling: openai.Sampling{N: o.N, TopP: sampleTopP, Seed: &seed}})
	if err != nil {
		return nil, err
	}
	sqls := make([]string, 0, len(resp.Choices))
	for _, c := range resp.Choices {
		sqls = append(sqls, reward.ExtractSQL(c.Message.Content))
	}
	return sqls, nil
}

// sampleMessages is the chat Generate sends for q.
func (g *OpenAIGenerator) sampleMessages(q Question) ([]openai.Message, error) {
	if q.Prompt != nil {
		var msgs []openai.Message
		for _, m := range q.Prompt.Messages() {
			msgs = append(msgs, openai.Message{Role: m.Role, Content: m.Content})
		}
		return msgs, nil
	}
	if q.Schema == nil {
		return nil, fmt.Errorf("no schema for %s", q.DB)
	}
	f := policy.Format{Kind: policy.FormatCompact, Types: true}
	return []openai.Message{
		{Role: "system", Content: f.Instruction(q.Dialect)},
		{Role: "user", Content: f.Compact(q.Schema, q.Question, q.Evidence)},
	}, nil
}
