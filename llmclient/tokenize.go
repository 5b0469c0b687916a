package llmclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/sqlrl/sqlrl/openai"
)

// TokenizeRequest is vLLM's POST /tokenize body for chat messages (its
// TokenizeChatRequest): the messages are rendered as a chat request would
// render them, with the assistant's cue when AddGenerationPrompt is set,
// so that Count is the prompt_tokens of that chat request.
type TokenizeRequest struct {
	Model               string           `json:"model,omitempty"`
	Messages            []openai.Message `json:"messages,omitempty"`
	Prompt              string           `json:"prompt,omitempty"`
	AddGenerationPrompt bool             `json:"add_generation_prompt,omitempty"`
}

// TokenizeResponse is vLLM's answer to POST /tokenize.
type TokenizeResponse struct {
	Count       int     `json:"count"`
	MaxModelLen int     `json:"max_model_len"`
	Tokens      []int32 `json:"tokens"`
	// TokenStrs is sent only when asked for (return_token_strs).
	TokenStrs []string `json:"token_strs,omitempty"`
}

// ErrNoTokenize is wrapped by CountTokens' error when the server has no
// tokenize route (OpenAI itself): it cannot say what a prompt costs.
var ErrNoTokenize = errors.New("the server does not tokenize (no /tokenize)")

// root is the server's address without the API's /v1, where vLLM serves
// /tokenize.
func (c *Client) root() string {
	return strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
}

// CountTokens asks the server what msgs cost as the prompt of a chat
// request, and the model's context (vLLM's POST /tokenize, which `sqlrl
// serve-model` answers too). A server without the route is ErrNoTokenize.
// A caller that cannot count falls back to an estimate.
func (c *Client) CountTokens(ctx context.Context, msgs []openai.Message) (*TokenizeResponse, error) {
	body, err := json.Marshal(TokenizeRequest{Model: c.Model, Messages: msgs, AddGenerationPrompt: true})
	if err != nil {
		return nil, fmt.Errorf("encode tokenize request: %w", err)
	}
	var out TokenizeResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		return c.do(ctx, http.MethodPost, c.root()+"/tokenize", body, "tokenize answer", &out)
	})
	var se *StatusError
	if errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusMethodNotAllowed) {
		return nil, fmt.Errorf("%w: %w", ErrNoTokenize, err)
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ModelCard is what GET {BaseURL}/models says of one model beyond its
// id: vLLM's max_model_len (0 when the server does not say, as OpenAI
// itself) and `sqlrl serve-model`'s sqlrl_prompt (the policy's prompt
// format, policy.Format's JSON; nil from other servers).
type ModelCard struct {
	ID          string          `json:"id"`
	MaxModelLen int             `json:"max_model_len"`
	SQLRLPrompt json.RawMessage `json:"sqlrl_prompt"`
}

// Card returns the card of the client's model from GET {BaseURL}/models
// (the only one listed, for a server of one model that answers to any
// name, as serve-model does); a card with only the id when none is listed.
func (c *Client) Card(ctx context.Context) (*ModelCard, error) {
	var out struct {
		Data []ModelCard `json:"data"`
	}
	err := c.retry(ctx, func(ctx context.Context) error {
		return c.do(ctx, http.MethodGet, c.url("/models"), nil, "model list", &out)
	})
	if err != nil {
		return nil, err
	}
	for _, m := range out.Data {
		if m.ID == c.Model {
			return &m, nil
		}
	}
	if len(out.Data) == 1 {
		return &out.Data[0], nil
	}
	return &ModelCard{ID: c.Model}, nil
}
