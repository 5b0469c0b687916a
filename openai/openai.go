// Package openai holds the wire types of OpenAI's completions
// (/v1/completions) and chat completions (/v1/chat/completions) API, the
// one definition shared by sqlrl's client (llmclient), its model server
// (modelserver) and the test fakes (internal/fakeopenai): requests as a
// client sends them, requests as a server reads them (a field not sent is
// nil, a prompt or stop is a string or a list), answers, usage and errors.
// It has no behaviour beyond encoding: no HTTP, no retries.
package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Message is one chat message: of a request, and the assistant's in an
// answer.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

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
// (/v1/completions: a raw prompt, no chat template) that a client sends.
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
	// asked for. The client merges them in (llmclient).
	Extra map[string]any `json:"-"`
}

// ChatRequest is the part of OpenAI's chat completions request that a
// client sends.
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
	// Sampling is sent by callers that want several samples; unset fields
	// are not sent.
	Sampling
	// Logprobs asks for the sampled tokens' log-probabilities
	// (choices[].logprobs.content[].logprob).
	Logprobs bool `json:"logprobs,omitempty"`
	// Extra holds further request fields (a server's extensions); see
	// CompletionRequest.Extra.
	Extra map[string]any `json:"-"`
}

// Usage is the token count a server reports for a request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// CompletionResponse is a completions answer, and (without usage) one
// event of a streamed one.
type CompletionResponse struct {
	ID      string             `json:"id,omitempty"`
	Object  string             `json:"object,omitempty"`
	Created int64              `json:"created,omitempty"`
	Model   string             `json:"model,omitempty"`
	Choices []CompletionChoice `json:"choices"`
	// Usage is nil when the server does not report it.
	Usage *Usage `json:"usage,omitempty"`
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

// ChatResponse is a chat completions answer.
type ChatResponse struct {
	ID      string       `json:"id,omitempty"`
	Object  string       `json:"object,omitempty"`
	Created int64        `json:"created,omitempty"`
	Model   string       `json:"model,omitempty"`
	Choices []ChatChoice `json:"choices"`
	// Usage is nil when the server does not report it.
	Usage *Usage `json:"usage,omitempty"`
}

// ChatChoice is one answer of a chat completions answer.
type ChatChoice struct {
	Index        int           `json:"index"`
	Message      AnswerMessage `json:"message"`
	FinishReason string        `json:"finish_reason"`
	// Logprobs is nil unless asked for (and supported).
	Logprobs *ChatLogprobs `json:"logprobs"`
}

// AnswerMessage is the assistant's message in a chat answer: a Message
// with OpenAI's refusal (null when the model did not refuse).
type AnswerMessage struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Refusal *string `json:"refusal"`
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

// ChatChunk is one event of a streamed chat answer.
type ChatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
}

// ChunkChoice is one answer's part in a ChatChunk: its first event has
// the role, then the content, then the finish reason alone.
type ChunkChoice struct {
	Index        int           `json:"index"`
	Delta        Delta         `json:"delta"`
	FinishReason *string       `json:"finish_reason"`
	Logprobs     *ChatLogprobs `json:"logprobs"`
}

// Delta is what a ChatChunk adds to an answer.
type Delta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// Error is an error as OpenAI's API writes it, which its clients parse
// into their exceptions.
type Error struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// ErrorResponse is the body of a failed request.
type ErrorResponse struct {
	Error Error `json:"error"`
}

// NewError is the body of a request failed with HTTP status code: a
// server_error for a 5xx, an invalid_request_error otherwise.
func NewError(code int, msg string) ErrorResponse {
	typ := "invalid_request_error"
	if code >= http.StatusInternalServerError {
		typ = "server_error"
	}
	return ErrorResponse{Error: Error{Message: msg, Type: typ}}
}

// StringList reads a JSON string or list of strings (a request's prompt
// or stop).
type StringList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*l = many
	return nil
}

// Params are the request fields both endpoints share, as a server reads
// them: a field the client did not send is nil, so the server's default
// applies.
type Params struct {
	Model               string     `json:"model"`
	N                   *int       `json:"n"`
	Temperature         *float64   `json:"temperature"`
	TopP                *float64   `json:"top_p"`
	MaxTokens           *int       `json:"max_tokens"`
	MaxCompletionTokens *int       `json:"max_completion_tokens"`
	Stop                StringList `json:"stop"`
	// Seed is read unsigned, as the native policy's seeds are: a
	// negative one is refused.
	Seed *uint64 `json:"seed"`
	// Logprobs is a number in completions, true in chat; null or absent
	// when not asked for.
	Logprobs json.RawMessage `json:"logprobs"`
	Stream   bool            `json:"stream"`
}

// WantLogprobs reports whether the request asks for log-probabilities (a
// number, 0 included, in completions; true in chat).
func (p Params) WantLogprobs() bool {
	lp := string(p.Logprobs)
	return lp != "" && lp != "null" && lp != "false"
}

// CompletionParams is a completions request as a server reads it.
type CompletionParams struct {
	Params
	Prompt StringList `json:"prompt"`
}

// ChatParams is a chat completions request as a server reads it.
type ChatParams struct {
	Params
	Messages []InputMessage `json:"messages"`
}

// InputMessage is a chat message as a server reads it: its content is a
// string or a list of parts, of which the text ones count (Text).
type InputMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Text is the message's content: the string, or its text parts joined.
func (m InputMessage) Text() (string, error) {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", errors.New("message content must be a string or a list of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
