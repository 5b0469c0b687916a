// Package fakeopenai is a scriptable OpenAI-compatible server for tests:
// what a client of /v1/completions and /v1/chat/completions (vLLM,
// llama.cpp, Ollama, `sqlrl serve-model`) must survive, on demand and
// without a model. It answers each choice by a function of the request,
// honours n, stop and max_tokens as a server does, reports usage and (when
// asked) per-token log-probabilities, and can be told to fail a request:
// garbage instead of JSON, HTTP 500, HTTP 400, no choices, or a hang that
// lasts until the client gives up. It records every request, so a test
// can check what was sent and how often.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/openai"
)

// Request is one request as the fake decoded it.
type Request struct {
	// Path is "/v1/completions" or "/v1/chat/completions".
	Path string
	// Prompt is a completions request's prompt; Messages a chat request's.
	Prompt   string
	Messages []openai.Message
	Model    string
	// N is the number of choices asked for (1 when unset).
	N           int
	Temperature *float64
	TopP        *float64
	// MaxTokens is 0 when unset.
	MaxTokens int
	Stop      []string
	Seed      *int64
	// Logprobs is whether log-probabilities were asked for (a number in
	// completions, true in chat).
	Logprobs bool
	// Fields holds every field of the body, for the extensions a typed
	// field does not cover.
	Fields map[string]json.RawMessage
}

// Chat reports whether the request is a chat completions request.
func (q Request) Chat() bool { return q.Path == "/v1/chat/completions" }

// Text is what the request asks about: the prompt of a completions
// request, the last user message of a chat request.
func (q Request) Text() string {
	if !q.Chat() {
		return q.Prompt
	}
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return q.Messages[i].Content
		}
	}
	return ""
}

// Fault is a way for the fake to fail one request.
type Fault int

const (
	// OK answers normally.
	OK Fault = iota
	// Garbage answers 200 with a body that is not JSON.
	Garbage
	// ServerError answers HTTP 500 (a retry may succeed).
	ServerError
	// BadRequest answers HTTP 400 in OpenAI's error shape (a retry
	// cannot succeed).
	BadRequest
	// NoChoices answers 200 with an empty list of choices.
	NoChoices
	// Hang answers nothing until the client gives up (the request's
	// context ends) or the server closes.
	Hang
)

// Always fails every request with f.
func Always(f Fault) func(int, Request) Fault {
	return func(int, Request) Fault { return f }
}

// First fails the first k requests with f and answers the rest.
func First(k int, f Fault) func(int, Request) Fault {
	return func(n int, _ Request) Fault {
		if n <= k {
			return f
		}
		return OK
	}
}

// TokenLogprob is the log-probability the fake reports for each token
// (one token per rune of a choice's text) when asked: a completion's
// LogProb is then TokenLogprob times its rune count.
const TokenLogprob = -0.25

// Options script a Server. The zero value answers "SELECT 1" to
// everything.
type Options struct {
	// Answer is the text of choice j (from 0) of a request, before stop
	// strings and max_tokens cut it; nil answers "SELECT 1".
	Answer func(q Request, j int) string
	// Fault decides how request n (from 1, in arrival order) fails; nil
	// never fails.
	Fault func(n int, q Request) Fault
	// MaxChoices caps the choices of one answer, as a server that
	// ignores n does (llama.cpp, Ollama: 1); 0 answers as many as asked.
	MaxChoices int
	// Delay is waited before answering each request (a slow server); the
	// request's context ends the wait early, with no answer.
	Delay time.Duration
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API root to give a client, e.g. http://127.0.0.1:1234/v1.
	URL string

	opts   Options
	srv    *httptest.Server
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	log    []Request
}

// New starts a fake server; Close stops it.
func New(o Options) *Server {
	s := &Server{opts: o, closed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close ends hanging requests and stops the server.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.srv.Close()
}

// Requests is the number of requests received, failed ones included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// Log returns the requests received, in arrival order.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/completions" && r.URL.Path != "/v1/chat/completions" {
		apiError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	q, err := decode(r.URL.Path, raw)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	s.log = append(s.log, q)
	n := len(s.log)
	s.mu.Unlock()

	if s.opts.Delay > 0 {
		t := time.NewTimer(s.opts.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.closed:
			t.Stop()
			return
		}
	}
	fault := OK
	if s.opts.Fault != nil {
		fault = s.opts.Fault(n, q)
	}
	switch fault {
	case Garbage:
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
		return
	case ServerError:
		apiError(w, http.StatusInternalServerError, "the fake failed, as asked")
		return
	case BadRequest:
		apiError(w, http.StatusBadRequest, "the fake refuses, as asked")
		return
	case Hang:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	}
	choices := q.N
	if s.opts.MaxChoices > 0 {
		choices = min(choices, s.opts.MaxChoices)
	}
	if fault == NoChoices {
		choices = 0
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.answer(q, choices))
}

// answer builds the response body with choices choices: an
// openai.ChatResponse or an openai.CompletionResponse.
func (s *Server) answer(q Request, choices int) any {
	prompt := utf8.RuneCountInString(q.Prompt)
	for _, m := range q.Messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	completion := 0
	chat := []openai.ChatChoice{}
	text := []openai.CompletionChoice{}
	for j := range choices {
		answer := "SELECT 1"
		if s.opts.Answer != nil {
			answer = s.opts.Answer(q, j)
		}
		answer, finish := cut(answer, q.Stop, q.MaxTokens)
		completion += utf8.RuneCountInString(answer)
		if q.Chat() {
			c := openai.ChatChoice{Index: j, FinishReason: finish, Message: openai.AnswerMessage{Role: "assistant", Content: answer}}
			if q.Logprobs {
				c.Logprobs = &openai.ChatLogprobs{Content: []openai.TokenLogprob{}}
				for _, r := range answer {
					c.Logprobs.Content = append(c.Logprobs.Content, openai.TokenLogprob{Token: string(r), Logprob: TokenLogprob})
				}
			}
			chat = append(chat, c)
			continue
		}
		c := openai.CompletionChoice{Index: j, Text: answer, FinishReason: finish}
		if q.Logprobs {
			c.Logprobs = &openai.CompletionLogprobs{}
			for _, r := range answer {
				lp := TokenLogprob
				c.Logprobs.Tokens = append(c.Logprobs.Tokens, string(r))
				c.Logprobs.TokenLogprobs = append(c.Logprobs.TokenLogprobs, &lp)
			}
		}
		text = append(text, c)
	}
	usage := &openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	if q.Chat() {
		return openai.ChatResponse{ID: "fake", Object: "chat.completion", Model: q.Model, Choices: chat, Usage: usage}
	}
	return openai.CompletionResponse{ID: "fake", Object: "text_completion", Model: q.Model, Choices: text, Usage: usage}
}

// cut ends text at its first stop string ("stop") or after maxTokens
// runes ("length"), as a server does.
func cut(text string, stop []string, maxTokens int) (string, string) {
	end := len(text)
	for _, s := range stop {
		if i := strings.Index(text, s); s != "" && i >= 0 && i < end {
			end = i
		}
	}
	text = text[:end]
	if r := []rune(text); maxTokens > 0 && len(r) > maxTokens {
		return string(r[:maxTokens]), "length"
	}
	return text, "stop"
}

// decode reads a request body.
func decode(path string, raw []byte) (Request, error) {
	q := Request{Path: path, N: 1}
	if err := json.Unmarshal(raw, &q.Fields); err != nil {
		return q, fmt.Errorf("malformed JSON: %v", err)
	}
	var body struct {
		openai.Params
		Prompt   json.RawMessage  `json:"prompt"`
		Messages []openai.Message `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return q, fmt.Errorf("bad request: %v", err)
	}
	q.Model, q.Messages, q.Temperature, q.TopP, q.Stop = body.Model, body.Messages, body.Temperature, body.TopP, body.Stop
	if body.Seed != nil {
		seed := int64(*body.Seed)
		q.Seed = &seed
	}
	if body.N != nil {
		q.N = *body.N
	}
	if body.MaxTokens != nil {
		q.MaxTokens = *body.MaxTokens
	}
	if body.MaxCompletionTokens != nil {
		q.MaxTokens = *body.MaxCompletionTokens
	}
	switch {
	case body.Stream:
		return q, fmt.Errorf("the fake does not stream")
	case q.N < 1:
		return q, fmt.Errorf("n must be at least 1")
	}
	q.Logprobs = body.WantLogprobs()
	if path == "/v1/chat/completions" {
		if len(q.Messages) == 0 {
			return q, fmt.Errorf("messages is required")
		}
		return q, nil
	}
	if err := json.Unmarshal(body.Prompt, &q.Prompt); err != nil {
		return q, fmt.Errorf("prompt must be one string (the fake takes no lists)")
	}
	return q, nil
}

// apiError writes an error as OpenAI's API does.
func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(openai.NewError(code, msg))
}
