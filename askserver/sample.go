package askserver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/sqlrl/sqlrl/consensus"

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
// project's self-consistency votes sample with.
const sampleTopP = consensus.TopP

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
	cs, err := g.decode(ctx, q, sampleOptions(o))
	if err != nil {
		return nil, err
	}
	return texts(cs), nil
}

// GenerateSampled implements generateSampler: the greedy answer and the
// samples of one fitted prompt, decoded at the same time.
func (g *NativeGenerator) GenerateSampled(ctx context.Context, q Question, o SampleOptions) (string, []string, error) {
	fit, err := g.fit(ctx, q)
	if err != nil {
		return "", nil, err
	}
	var samples []policy.Completion
	var serr error
	var wg sync.WaitGroup
	wg.Go(func() { samples, serr = g.decodeFitted(ctx, fit, sampleOptions(o)) })
	greedy, err := g.decodeFitted(ctx, fit, policy.SampleOptions{N: 1})
	wg.Wait()
	switch {
	case err != nil:
		return "", nil, err
	case len(greedy) != 1:
		return "", nil, errors.New("the policy returned no completion")
	case serr != nil:
		return greedy[0].Text, nil, fmt.Errorf("%w: %w", errSampling, serr)
	}
	return greedy[0].Text, texts(samples), nil
}

// generateSampler draws a question's answer and its samples together; a
// sampling failure that leaves the answer whole is an error wrapping
// errSampling, returned with the answer.
type generateSampler interface {
	GenerateSampled(ctx context.Context, q Question, o SampleOptions) (string, []string, error)
}

// errSampling marks a GenerateSampled error that left the answer whole.
var errSampling = errors.New("sampling failed")

// apart is a generator's Generate and Sample run side by side, for
// generators that prompt each on its own (an OpenAI-compatible one).
type apart struct {
	gen     SQLGenerator
	sampler SQLSampler
}

// GenerateSampled implements generateSampler.
func (a apart) GenerateSampled(ctx context.Context, q Question, o SampleOptions) (string, []string, error) {
	var samples []string
	var serr error
	var wg sync.WaitGroup
	wg.Go(func() { samples, serr = a.sampler.Sample(ctx, q, o) })
	sql, err := a.gen.Generate(ctx, q)
	wg.Wait()
	switch {
	case err != nil:
		return "", nil, err
	case serr != nil:
		return sql, nil, fmt.Errorf("%w: %w", errSampling, serr)
	}
	return sql, samples, nil
}

func sampleOptions(o SampleOptions) policy.SampleOptions {
	return policy.SampleOptions{N: o.N, Temperature: o.Temperature, TopP: sampleTopP, Seed: o.Seed}
}

func texts(cs []policy.Completion) []string {
	sqls := make([]string, len(cs))
	for i, c := range cs {
		sqls[i] = c.Text
	}
	return sqls
}

// Sample implements SQLSampler with one chat request asking for o.N
// choices (`n`), of the messages Generate sends; a server that returns
// fewer gives fewer samples.
func (g *OpenAIGenerator) Sample(ctx context.Context, q Question, o SampleOptions) ([]string, error) {
	seed := int64(o.Seed >> 1)
	var sqls []string
	err := g.chat(ctx, q, func(msgs []openai.Message) error {
		resp, err := g.Client.ChatCompletion(ctx, openai.ChatRequest{Messages: msgs, Temperature: o.Temperature, MaxTokens: g.Client.MaxTokens,
			Sampling: openai.Sampling{N: o.N, TopP: sampleTopP, Seed: &seed}})
		if err != nil {
			return err
		}
		sqls = make([]string, 0, len(resp.Choices))
		for _, c := range resp.Choices {
			sqls = append(sqls, reward.ExtractSQL(c.Message.Content))
		}
		return nil
	})
	return sqls, err
}
