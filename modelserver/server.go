// Package modelserver serves the native policy behind OpenAI's API, so that
// any OpenAI client (and any tool built on one) uses it with only its base
// URL changed. Package policy keeps the model and its decoding; this
// package keeps the wire protocol, and httpserve (shared with the reward
// server) the limits: a body cap, a bound on concurrent requests, a
// per-request deadline whose passing frees the request's decoding slots,
// request metrics on /metrics, and a graceful shutdown.
package modelserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
)

// Server serves a policy behind OpenAI's API: POST /v1/completions, POST
// /v1/chat/completions (n, temperature, top_p, max_tokens, stop, seed,
// stream) and GET /v1/models, so that any OpenAI client talks to it with
// only its base URL changed. Concurrent requests are decoded together
// (policy.Batcher): a request's completions join the running batch as soon as
// slots free up.
type Server struct {
	Policy *policy.Policy
	// Name is the model id reported and accepted (any id is accepted).
	Name string
	// MaxTokens is the default max_tokens (default 256).
	MaxTokens int
	// Slots is how many sequences are decoded at once (default 32).
	Slots int
	// MaxBodyBytes caps a request body (default 16 MiB); larger: 413.
	MaxBodyBytes int64
	// RequestTimeout bounds one request (default 5 minutes, under the
	// OpenAI clients' 10); past it the client gets a 504 and the
	// request's completions leave the batch, freeing their slots.
	RequestTimeout time.Duration
	// MaxRequests bounds requests being answered at once (default
	// httpserve.DefaultMaxConcurrent); more get a 503 with Retry-After.
	MaxRequests int
	// Log receives one line per failed request; nil discards.
	Log *slog.Logger

	once    sync.Once
	batcher *policy.Batcher
	hinit   sync.Once
	http    *httpserve.Server
}

// Defaults for the fields above.
const (
	DefaultMaxBodyBytes   = 16 << 20
	DefaultRequestTimeout = 5 * time.Minute
)

// Close stops the server's decoding loop; requests still decoding fail.
func (s *Server) Close() {
	s.once.Do(func() {})
	if s.batcher != nil {
		s.batcher.Close()
	}
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler {
	return s.server().Handler()
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully
// (requests in flight get httpserve's ShutdownTimeout to finish) and stops
// the decoding loop.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	return s.server().Serve(ctx, ln)
}

// server builds the HTTP side once, from the fields.
func (s *Server) server() *httpserve.Server {
	s.hinit.Do(func() {
		body, timeout := s.MaxBodyBytes, s.RequestTimeout
		if body <= 0 {
			body = DefaultMaxBodyBytes
		}
		if timeout <= 0 {
			timeout = DefaultRequestTimeout
		}
		h := httpserve.New(httpserve.Config{
			Name:           "model server",
			Namespace:      "sqlrl_model",
			MaxBodyBytes:   body,
			MaxConcurrent:  s.MaxRequests,
			RequestTimeout: timeout,
			TimeoutHint:    "retry, or ask for fewer completions or tokens",
			ErrorBody:      errorBody,
			Health:         map[string]string{"model": s.name()},
			Log:            s.Log,
		})
		h.Handle(http.MethodGet, "/v1/models", "models", s.models)
		h.Handle(http.MethodPost, "/v1/completions", "completions", s.completions)
		h.Handle(http.MethodPost, "/v1/chat/completions", "chat", s.chat)
		h.Handle(http.MethodPost, "/tokenize", "tokenize", s.tokenize)
		h.HandleRaw("/health", "health", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) }))
		s.http = h
	})
	return s.http
}

// errorBody is an error as OpenAI's API writes it, which its clients
// parse into their exceptions.
func errorBody(code int, msg string) any {
	return openai.NewError(code, msg)
}

func badRequest(format string, args ...any) error {
	return httpserve.Errorf(http.StatusBadRequest, format, args...)
}

func (s *Server) name() string {
	if s.Name == "" {
		return "sqlrl-policy"
	}
	return s.Name
}

func (s *Server) models(context.Context, *http.Request) (any, error) {
	return map[string]any{"object": "list", "data": []map[string]any{
		{"id": s.name(), "object": "model", "created": 0, "owned_by": "sqlrl", "max_model_len": s.Policy.Model.Cfg.MaxSeq,
			// an extension: the prompt format the checkpoint was trained
			// on, so that a client can send that prompt (`sqlrl serve`)
			"sqlrl_prompt": s.Policy.Info.Prompt},
	}}, nil
}

// extensions are the request fields the server reads beyond OpenAI's.
type extensions struct {
	// Guide (an extension; default true) constrains SQL written for a
	// compact prompt to the tables and columns the prompt lists
	// (sqlparse.Guide), as `sqlrl generate` does.
	Guide *bool `json:"guide"`
}

func (s *Server) options(q openai.Params) (policy.SampleOptions, error) {
	o := policy.SampleOptions{N: 1, Temperature: 1, TopP: 1, MaxTokens: s.MaxTokens, Stop: q.Stop}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 256
	}
	if q.N != nil {
		o.N = *q.N
	}
	if q.Temperature != nil {
		o.Temperature = *q.Temperature
	}
	if q.TopP != nil {
		o.TopP = *q.TopP
	}
	if q.MaxTokens != nil {
		o.MaxTokens = *q.MaxTokens
	}
	if q.MaxCompletionTokens != nil {
		o.MaxTokens = *q.MaxCompletionTokens
	}
	if q.Seed != nil {
		o.Seed = *q.Seed
	} else {
		o.Seed = uint64(time.Now().UnixNano())
	}
	switch {
	case o.N < 1 || o.N > 128:
		return o, errors.New("n must be between 1 and 128")
	case o.Temperature < 0 || o.Temperature > 2:
		return o, errors.New("temperature must be between 0 and 2")
	case o.TopP <= 0 || o.TopP > 1:
		return o, errors.New("top_p must be in (0, 1]")
	case o.MaxTokens < 1:
		return o, errors.New("max_tokens must be at least 1")
	case len(o.Stop) > 4:
		return o, errors.New("at most 4 stop sequences")
	}
	return o, nil
}

// guided sets o.Constrain for the prompts that are compact prompts, unless
// the request turned the guide off.
func (s *Server) guided(o *policy.SampleOptions, q extensions, prompts []string) {
	if q.Guide != nil && !*q.Guide || s.Policy.Info.Prompt.Kind != policy.FormatCompact {
		return
	}
	if g, ok := policy.PromptGuides(prompts, s.Policy.Info.SQLWords); ok {
		o.Constrain = g
	}
}

// generate decodes prompts in the shared batch. The request's end (its
// deadline, its client leaving) is returned as is, for httpserve to answer
// 504 or nothing; a closed batcher is a 503; anything else is the
// request's fault (a prompt too long for the model): 400.
func (s *Server) generate(ctx context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	s.once.Do(func() { s.batcher = s.Policy.NewBatcher(s.Slots) })
	if s.batcher == nil {
		return nil, policy.Stats{}, httpserve.Errorf(http.StatusServiceUnavailable, "the model server is shutting down")
	}
	outs, st, err := s.batcher.Generate(ctx, prompts, o)
	switch {
	case err == nil:
	case ctx.Err() != nil:
	case errors.Is(err, policy.ErrClosed):
		err = httpserve.Errorf(http.StatusServiceUnavailable, "the model server is shutting down")
	default:
		err = badRequest("%v", err)
	}
	return outs, st, err
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func usage(st policy.Stats) *openai.Usage {
	return &openai.Usage{PromptTokens: st.PromptTokens, CompletionTokens: st.CompletionTokens, TotalTokens: st.PromptTokens + st.CompletionTokens}
}

func (s *Server) completions(ctx context.Context, r *http.Request) (any, error) {
	var q struct {
		openai.CompletionParams
		extensions
	}
	if err := httpserve.DecodeJSON(r.Body, &q); err != nil {
		return nil, err
	}
	if len(q.Prompt) == 0 {
		return nil, badRequest("prompt is required")
	}
	o, err := s.options(q.Params)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	s.guided(&o, q.extensions, q.Prompt)
	outs, st, err := s.generate(ctx, q.Prompt, o)
	if err != nil {
		return nil, err
	}
	id, created := newID("cmpl-"), time.Now().Unix()
	var choices []openai.CompletionChoice
	for i, cs := range outs {
		for j, c := range cs {
			choices = append(choices, openai.CompletionChoice{Text: c.Text, Index: i*o.N + j, FinishReason: c.Finish})
		}
	}
	answer := openai.CompletionResponse{ID: id, Object: "text_completion", Created: created, Model: s.name()}
	if q.Stream {
		return sse(func(send func(any)) {
			for _, c := range choices {
				answer.Choices = []openai.CompletionChoice{c}
				send(answer)
			}
		}), nil
	}
	answer.Choices, answer.Usage = choices, usage(st)
	return answer, nil
}

// chatPrompt is the prompt text the policy reads for chat messages: their
// contents in the checkpoint's format (policy.Format.ChatPrompt).
func (s *Server) chatPrompt(in []openai.InputMessage) (string, error) {
	if len(in) == 0 {
		return "", badRequest("messages is required")
	}
	var msgs []prompt.Message
	for _, m := range in {
		t, err := m.Text()
		if err != nil {
			return "", badRequest("%v", err)
		}
		msgs = append(msgs, prompt.Message{Role: m.Role, Content: t})
	}
	return s.Policy.Info.Prompt.ChatPrompt(msgs), nil
}

// tokenize answers vLLM's POST /tokenize: a prompt's tokens, or chat
// messages' as the chat route renders them (so count is that request's
// prompt_tokens), with the model's context as max_model_len, so that a
// client can fit its prompt before it asks.
func (s *Server) tokenize(_ context.Context, r *http.Request) (any, error) {
	var q struct {
		Model    string                `json:"model"`
		Prompt   *string               `json:"prompt"`
		Messages []openai.InputMessage `json:"messages"`
		// vLLM's options: the policy's prompts have no special tokens
		// and its chat rendering always ends with the cue.
		AddSpecialTokens     *bool `json:"add_special_tokens"`
		AddGenerationPrompt  *bool `json:"add_generation_prompt"`
		ContinueFinalMessage *bool `json:"continue_final_message"`
		ReturnTokenStrs      bool  `json:"return_token_strs"`
	}
	if err := httpserve.DecodeStrictJSON(r.Body, &q); err != nil {
		return nil, err
	}
	var text string
	switch {
	case q.Prompt != nil && q.Messages != nil:
		return nil, badRequest("give prompt or messages, not both")
	case q.Prompt != nil:
		text = *q.Prompt
	default:
		var err error
		if text, err = s.chatPrompt(q.Messages); err != nil {
			return nil, err
		}
	}
	toks := s.Policy.Tok.Encode(text)
	out := map[string]any{"count": len(toks), "max_model_len": s.Policy.Model.Cfg.MaxSeq, "tokens": toks, "token_strs": nil}
	if q.ReturnTokenStrs {
		strs := make([]string, len(toks))
		for i, t := range toks {
			strs[i] = s.Policy.Tok.Decode([]int32{t})
		}
		out["token_strs"] = strs
	}
	return out, nil
}

func (s *Server) chat(ctx context.Context, r *http.Request) (any, error) {
	var q struct {
		openai.ChatParams
		extensions
	}
	if err := httpserve.DecodeJSON(r.Body, &q); err != nil {
		return nil, err
	}
	text, err := s.chatPrompt(q.Messages)
	if err != nil {
		return nil, err
	}
	o, err := s.options(q.Params)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	prompts := []string{text}
	s.guided(&o, q.extensions, prompts)
	outs, st, err := s.generate(ctx, prompts, o)
	if err != nil {
		return nil, err
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	if q.Stream {
		return sse(func(send func(any)) {
			for i, c := range outs[0] {
				chunk := func(delta openai.Delta, finish *string) {
					send(openai.ChatChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: s.name(),
						Choices: []openai.ChunkChoice{{Index: i, Delta: delta, FinishReason: finish}}})
				}
				empty := ""
				chunk(openai.Delta{Role: "assistant", Content: &empty}, nil)
				chunk(openai.Delta{Content: &c.Text}, nil)
				chunk(openai.Delta{}, &c.Finish)
			}
		}), nil
	}
	var choices []openai.ChatChoice
	for i, c := range outs[0] {
		choices = append(choices, openai.ChatChoice{Index: i, Message: openai.AnswerMessage{Role: "assistant", Content: c.Text},
			FinishReason: c.Finish})
	}
	return openai.ChatResponse{ID: id, Object: "chat.completion", Created: created, Model: s.name(),
		Choices: choices, Usage: usage(st)}, nil
}

// sse is a response of server-sent events: each send is one "data:"
// event, then "data: [DONE]".
func sse(body func(send func(any))) httpserve.Responder {
	return httpserve.RespondFunc(func(w http.ResponseWriter) { writeSSE(w, body) })
}

func writeSSE(w http.ResponseWriter, body func(send func(any))) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	body(func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}
