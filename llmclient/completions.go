package llmclient

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
)

// Sampling are the request fields that ask a server for several samples,
// reproducibly, from part of the distribution. They are sent only when
// set, so that a server that lacks one (llama.cpp and Ollama ignore n)
// still answers.
type Sampling struct {
	// N is the number of choices asked for; a server may return fewer.
	N int `json:"n,omitempty"`
	// TopP is nucleus sampling's mass.
	TopP float64 `json:"top_p,omitempty"`
	// Seed makes the server's sampling reproducible where it supports
	// that. OpenAI's API takes a signed 64-bit integer (vLLM refuses
	// larger ones), hence int64.
	Seed *int64 `json:"seed,omitempty"`
}

// CompletionRequest is the part of OpenAI's completions request
// (/v1/completions: a raw prompt, no chat template) that the client sends.
type CompletionRequest struct {
	Model       string   `json:"model"`
	Prompt      string   `json:"prompt"`
	Temperature float64  `json:"temperature"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Sampling
	// Logprobs asks for the log-probabilities of the sampled tokens and
	// of that many alternatives at each position (choices[].logprobs).
	Logprobs *int `json:"logprobs,omitempty"`
	// Extra holds further request fields: a server's extensions (`sqlrl
	// serve-model`'s "guide", vLLM's "guided_regex"). A field the request
	// already sets is not overridden: the typed fields say what the caller
	// asked for.
	Extra map[string]any `json:"-"`
}

// Usage is the token count a server reports for a request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// CompletionResponse is the part of a completions answer that the client
// reads.
type CompletionResponse struct {
	Choices []CompletionChoice `json:"choices"`
	// Usage is nil when the server does not report it.
	Usage *Usage `json:"usage"`
}

// CompletionChoice is one completion of a completions answer.
type CompletionChoice struct {
	Index        int    `json:"index"`
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"`
	// Logprobs is nil unless asked for (and supported).
	Logprobs *CompletionLogprobs `json:"logprobs"`
}

// CompletionLogprobs are a completion's tokens and their
// log-probabilities, as OpenAI's completions API returns them (parallel
// lists). An entry of TokenLogprobs is null for a token without one (the
// first prompt token when the prompt is echoed).
type CompletionLogprobs struct {
	Tokens        []string   `json:"tokens"`
	TokenLogprobs []*float64 `json:"token_logprobs"`
}

// ChatResponse is the part of a chat completions answer that the client
// reads.
type ChatResponse struct {
	Choices []ChatChoice `json:"choices"`
	// Usage is nil when the server does not report it.
	Usage *Usage `json:"usage"`
}

// ChatChoice is one answer of a chat completions answer.
type ChatChoice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
	// Logprobs is nil unless asked for (and supported).
	Logprobs *ChatLogprobs `json:"logprobs"`
}

// ChatLogprobs are an answer's tokens with their log-probabilities.
type ChatLogprobs struct {
	Content []TokenLogprob `json:"content"`
}

// TokenLogprob is one token of an answer and its log-probability.
type TokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Complete sends a completions request to {BaseURL}/completions and
// returns the whole answer, with the client's timeouts, retries and bound
// on requests in flight (as Chat). An empty Model is the client's. An
// answer with no choices counts as a failed attempt: a server that returns
// nothing has not answered. Sampling and length options are the request's,
// not the client's.
func (c *Client) Complete(ctx context.Context, req CompletionRequest) (*CompletionResponse, error) {
	if req.Model == "" {
		req.Model = c.Model
	}
	body, err := encodeRequest(req, req.Extra)
	if err != nil {
		return nil, fmt.Errorf("encode completions request: %w", err)
	}
	var out *CompletionResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		var r CompletionResponse
		if err := c.post(ctx, "/completions", body, "completion", &r); err != nil {
			return err
		}
		if len(r.Choices) == 0 {
			return fmt.Errorf("%s: answer has no choices", c.url("/completions"))
		}
		out = &r
		return nil
	})
	return out, err
}

// ChatCompletion sends a chat completions request to
// {BaseURL}/chat/completions and returns the whole answer (all choices,
// their finish reasons and log-probabilities, the usage), as Complete
// does for completions. Chat is the shortcut for one answer's text.
func (c *Client) ChatCompletion(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	if req.Model == "" {
		req.Model = c.Model
	}
	body, err := encodeRequest(req, req.Extra)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	var out *ChatResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		var r ChatResponse
		if err := c.post(ctx, "/chat/completions", body, "chat completion", &r); err != nil {
			return err
		}
		if len(r.Choices) == 0 {
			return fmt.Errorf("%s: answer has no choices", c.url("/chat/completions"))
		}
		out = &r
		return nil
	})
	return out, err
}

// encodeRequest marshals req with extra's fields added where req does not
// set them.
func encodeRequest(req any, extra map[string]any) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil || len(extra) == 0 {
		return body, err
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, err
	}
	merged := maps.Clone(extra)
	for k, v := range set {
		merged[k] = v
	}
	return json.Marshal(merged)
}
