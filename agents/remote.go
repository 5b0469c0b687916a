package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/policy"
)

// Remote is a policy.Generator over an OpenAI-compatible server (vLLM,
// llama.cpp, Ollama, `sqlrl serve-model`), so that any agent of the
// pipeline can run on a model this repository did not train. Timeouts,
// retries with backoff and the bound on requests in flight are the
// Client's (package llmclient), shared with the LLM judge.
//
// Each prompt of a Generate call is one request (more when the server
// returns fewer choices than asked: see Generate), sent concurrently with
// the others up to the Client's MaxConcurrent.
type Remote struct {
	// Client talks to the server; its Model names the model, its
	// sampling fields (Temperature, MaxTokens, Stop) are not used: the
	// SampleOptions of each call are.
	Client *llmclient.Client
	// Chat sends each prompt as one user message to /chat/completions,
	// for chat models whose server applies their template (vLLM and
	// Ollama chat models). Otherwise the prompt goes as is to
	// /completions, which is what the native prompts (already templated
	// text) need and what `sqlrl serve-model` answers.
	Chat bool
	// System, in chat mode, is sent as a system message before the
	// prompt when set.
	System string
	// LogProbs asks the server for the sampled tokens' log-probabilities
	// (logprobs: 1 in completions mode, logprobs: true in chat mode) and
	// sums them into Completion.LogProb. Off by default because not every
	// server supports it and some refuse the field; off, LogProb is 0.
	// What is summed is what the server reports: vLLM reports the model's
	// own distribution by default, as the native policy does, but a server
	// may report the distribution after temperature.
	LogProbs bool
	// Extra fields are added to every request: a server's extensions,
	// such as {"guide": false} for `sqlrl serve-model` or vLLM's
	// guided decoding fields.
	Extra map[string]any
}

// maxInt64 is the largest seed OpenAI's API takes.
const maxInt64 = math.MaxInt64

// Generate writes o.N completions of each prompt.
//
// Options map to the request: N to n, Temperature, TopP (0 is not sent:
// the server's default, all tokens), MaxTokens (default 256, as the
// native policy), Stop, Seed. Seed is always sent, since the native
// policy's Seed 0 is a seed too: prompt 0's first request carries o.Seed
// itself (so a one-prompt call is the same request a local call's
// sampling is compared with), the others seeds derived from (Seed, prompt,
// request), so that prompts and follow-up requests do not share a random
// stream. Seeds above 2^63-1 lose their top bit (OpenAI's API takes a
// signed integer).
//
// At temperature 0 one completion is asked for and copied N times: greedy
// decoding has one answer, and older vLLM refuse n > 1 when greedy.
//
// A server that returns fewer choices than asked (llama.cpp and Ollama
// ignore n) is asked again for the rest, with a derived seed, until N are
// in: the pipeline's K candidates should not depend on which server runs
// the planner. A request that returns no choices is an error.
//
// o.Constrain is ignored: a constraint is Go code that reads each token as
// it is decoded, which a remote server cannot run (a server's own guided
// decoding, if any, goes in Extra). o.Batch is ignored: the server
// batches. o.Beams > 1 is an error: the OpenAI API has no beam search.
//
// One prompt's failure fails the call, with the error that stopped it
// naming its prompt's index (parallel.For); the other requests are
// cancelled.
func (r *Remote) Generate(ctx context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	if r.Client == nil {
		return nil, policy.Stats{}, errors.New("remote generator has no client")
	}
	if o.Beams > 1 {
		return nil, policy.Stats{}, fmt.Errorf("remote generator: beam search (beams %d) is not in the OpenAI API", o.Beams)
	}
	// Every prompt's request goes out at once (workers: len(prompts)): the
	// server batches, and a call's prompts are already a bounded chunk.
	outs := make([][]policy.Completion, len(prompts))
	stats := make([]policy.Stats, len(prompts))
	err := parallel.For(ctx, len(prompts), len(prompts), func(ctx context.Context, i int) error {
		var err error
		outs[i], stats[i], err = r.one(ctx, i, prompts[i], o)
		if err != nil {
			return fmt.Errorf("remote %s, prompt %d of %d: %w", r.mode(), i, len(prompts), err)
		}
		return nil
	})
	if err != nil {
		return nil, policy.Stats{}, err
	}
	var st policy.Stats
	for _, s := range stats {
		st.PromptTokens += s.PromptTokens
		st.CompletionTokens += s.CompletionTokens
	}
	return outs, st, nil
}

func (r *Remote) mode() string {
	if r.Chat {
		return "chat"
	}
	return "completions"
}

// one writes the completions of prompt i.
func (r *Remote) one(ctx context.Context, i int, prompt string, o policy.SampleOptions) ([]policy.Completion, policy.Stats, error) {
	n := max(o.N, 1)
	ask := n
	if o.Temperature == 0 {
		ask = 1
	}
	var (
		got []policy.Completion
		st  policy.Stats
	)
	for round := 0; len(got) < ask; round++ {
		if round >= ask { // each round brings at least one choice; a guard all the same
			return nil, st, fmt.Errorf("%d of %d completions after %d requests", len(got), ask, round)
		}
		cs, s, err := r.request(ctx, prompt, o, ask-len(got), seedFor(o.Seed, i, round))
		st.PromptTokens += s.PromptTokens
		st.CompletionTokens += s.CompletionTokens
		if err != nil {
			if round > 0 {
				err = fmt.Errorf("request %d (the server had returned %d of %d completions): %w", round+1, len(got), ask, err)
			}
			return nil, st, err
		}
		got = append(got, cs[:min(len(cs), ask-len(got))]...)
	}
	for len(got) < n { // greedy: copies of the one answer
		got = append(got, got[0])
	}
	return got, st, nil
}

// request sends one request for k completions of prompt.
func (r *Remote) request(ctx context.Context, prompt string, o policy.SampleOptions, k int, seed int64) ([]policy.Completion, policy.Stats, error) {
	maxTokens := o.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 256
	}
	sampling := openai.Sampling{N: k, Seed: &seed}
	if o.TopP > 0 {
		sampling.TopP = o.TopP
	}
	var (
		out []policy.Completion
		st  policy.Stats
	)
	usage := func(u *openai.Usage) {
		if u != nil {
			st = policy.Stats{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		}
	}
	if r.Chat {
		var msgs []openai.Message
		if r.System != "" {
			msgs = append(msgs, openai.Message{Role: "system", Content: r.System})
		}
		msgs = append(msgs, openai.Message{Role: "user", Content: prompt})
		resp, err := r.Client.ChatCompletion(ctx, openai.ChatRequest{Messages: msgs, Temperature: o.Temperature,
			MaxTokens: maxTokens, Stop: o.Stop, Sampling: sampling, Logprobs: r.LogProbs, Extra: r.Extra})
		if err != nil {
			return nil, st, err
		}
		usage(resp.Usage)
		slices.SortStableFunc(resp.Choices, func(a, b openai.ChatChoice) int { return cmp.Compare(a.Index, b.Index) })
		for _, c := range resp.Choices {
			lp := 0.0
			if r.LogProbs && c.Logprobs != nil {
				for _, t := range c.Logprobs.Content {
					lp += t.Logprob
				}
			}
			out = append(out, policy.Completion{Text: c.Message.Content, LogProb: lp, Finish: c.FinishReason})
		}
		return out, st, nil
	}
	req := openai.CompletionRequest{Prompt: prompt, Temperature: o.Temperature, MaxTokens: maxTokens,
		Stop: o.Stop, Sampling: sampling, Extra: r.Extra}
	if r.LogProbs {
		one := 1
		req.Logprobs = &one
	}
	resp, err := r.Client.Complete(ctx, req)
	if err != nil {
		return nil, st, err
	}
	usage(resp.Usage)
	slices.SortStableFunc(resp.Choices, func(a, b openai.CompletionChoice) int { return cmp.Compare(a.Index, b.Index) })
	for _, c := range resp.Choices {
		lp := 0.0
		if r.LogProbs && c.Logprobs != nil {
			for _, t := range c.Logprobs.TokenLogprobs {
				if t != nil {
					lp += *t
				}
			}
		}
		out = append(out, policy.Completion{Text: c.Text, LogProb: lp, Finish: c.FinishReason})
	}
	return out, st, nil
}

// seedFor is the seed of request round of prompt i: seed itself for
// prompt 0's first request, otherwise a mix of the three (splitmix64), so
// that streams differ; kept within OpenAI's signed 64-bit seeds.
func seedFor(seed uint64, i, round int) int64 {
	if i != 0 || round != 0 {
		seed = splitmix(seed ^ splitmix(uint64(i)<<32|uint64(round)))
	}
	return int64(seed & maxInt64)
}

// splitmix is SplitMix64's output function: a bijection of uint64 that
// spreads nearby inputs far apart.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
