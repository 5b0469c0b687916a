package llmclient

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/sqlrl/sqlrl/openai"
)

// Complete sends a completions request to {BaseURL}/completions and
// returns the whole answer, with the client's timeouts, retries and bound
// on requests in flight (as Chat). An empty Model is the client's. An
// answer with no choices counts as a failed attempt: a server that returns
// nothing has not answered. Sampling and length options are the request's,
// not the client's.
func (c *Client) Complete(ctx context.Context, req openai.CompletionRequest) (*openai.CompletionResponse, error) {
	if req.Model == "" {
		req.Model = c.Model
	}
	body, err := encodeRequest(req, req.Extra)
	if err != nil {
		return nil, fmt.Errorf("encode completions request: %w", err)
	}
	var out *openai.CompletionResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		var r openai.CompletionResponse
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
func (c *Client) ChatCompletion(ctx context.Context, req openai.ChatRequest) (*openai.ChatResponse, error) {
	if req.Model == "" {
		req.Model = c.Model
	}
	body, err := encodeRequest(req, req.Extra)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	var out *openai.ChatResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		var r openai.ChatResponse
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
