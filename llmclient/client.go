// Package llmclient is sqlrl's one client for OpenAI-compatible servers
// (vLLM, llama.cpp, Ollama, OpenAI, `sqlrl serve-model`): the LLM judge of
// package reward grades with it, `sqlrl serve` writes SQL with it (Chat,
// one answer's text), and the agents' remote backend samples with it
// (Complete and ChatCompletion, whole answers). All sit in front of a
// caller with a deadline (a trainer's reward request, a user waiting on a
// page, a pipeline's question), so the client is built around not
// overstaying one:
// each attempt has its own timeout, failures a retry can fix are retried
// with exponential backoff and jitter, a retry that could not start before
// the caller's deadline is not waited for, requests in flight to the
// server are bounded, and what is read back is capped. It is plain
// net/http: no SDK, no dependency; the wire types are package openai's.
package llmclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/textclip"
)

// Defaults of Client.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultBackoff       = 500 * time.Millisecond
	MaxBackoff           = 10 * time.Second
	DefaultMaxConcurrent = 16
	DefaultMaxTokens     = 512
	// MaxResponseBytes caps what is read from the server: a chat answer is
	// a few KiB, and a broken or hostile server must not fill memory.
	MaxResponseBytes = 4 << 20
)

// ErrPermanent is wrapped by failures a retry cannot fix (a 4xx other than
// 408 and 429: a wrong model name, a bad key, a malformed URL): the client
// stops retrying on them.
var ErrPermanent = errors.New("permanent")

// StatusError is a server's answer other than 200: its address, status
// and the start of its body.
type StatusError struct {
	URL  string
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s: HTTP %d: %s", e.URL, e.Code, e.Body) }

// ErrContextLength is wrapped by the error of a request the server refused
// because its prompt and max_tokens do not fit the model's context (a 400
// saying so, as OpenAI, vLLM and `sqlrl serve-model` word it): a shorter
// prompt can succeed where a retry of the same one cannot.
var ErrContextLength = errors.New("the prompt does not fit the model's context")

// contextLengthError reports whether a 400's body says the context was
// exceeded.
func contextLengthError(body string) bool {
	b := strings.ToLower(body)
	for _, s := range []string{"context_length_exceeded", "maximum context length", "context length", "model's context", "context window"} {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// Client sends chat completion requests to {BaseURL}/chat/completions. Set
// its fields before the first call; it is safe for concurrent use after.
type Client struct {
	// BaseURL is the API root, e.g. http://localhost:8000/v1 (as in
	// OPENAI_BASE_URL).
	BaseURL string
	Model   string
	// APIKey is sent as a Bearer token when set.
	APIKey string
	// HTTP defaults to http.DefaultClient (no overall timeout: Timeout
	// bounds each attempt).
	HTTP *http.Client
	// Timeout bounds one attempt; default DefaultTimeout. The caller's
	// context bounds every attempt too.
	Timeout time.Duration
	// Retries is the number of attempts after the first; 0 means none.
	Retries int
	// Backoff is the wait before the first retry, doubled each time, with
	// jitter; default DefaultBackoff, capped at MaxBackoff.
	Backoff time.Duration
	// MaxConcurrent bounds requests in flight to the server; default
	// DefaultMaxConcurrent. Waiting for a slot counts against the
	// caller's context.
	MaxConcurrent int
	// MaxTokens caps an answer; default DefaultMaxTokens.
	MaxTokens int
	// Temperature of the answers; 0 (greedy) by default.
	Temperature float64
	// Stop sequences, sent when set.
	Stop []string

	once              sync.Once
	sem               chan struct{}
	requests, retries atomic.Int64
}

// Requests is the number of attempts sent since start (for metrics).
func (c *Client) Requests() int64 { return c.requests.Load() }

// RetryCount is the number of attempts that were retries of a failed one.
func (c *Client) RetryCount() int64 { return c.retries.Load() }

func (c *Client) init() {
	c.once.Do(func() {
		n := c.MaxConcurrent
		if n <= 0 {
			n = DefaultMaxConcurrent
		}
		c.sem = make(chan struct{}, n)
	})
}

// Chat sends msgs and returns the first choice's text. accept, when set,
// checks an answer (a judge's grade line, a reply that holds SQL); an
// answer it refuses counts as a failed attempt and is retried like a
// server error. The last attempt's error is returned when none succeeds.
func (c *Client) Chat(ctx context.Context, msgs []openai.Message, accept func(string) error) (string, error) {
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body, err := json.Marshal(openai.ChatRequest{Model: c.Model, Messages: msgs, Temperature: c.Temperature, MaxTokens: maxTokens, Stop: c.Stop})
	if err != nil {
		return "", fmt.Errorf("encode chat request: %w", err)
	}
	var text string
	err = c.retry(ctx, func(ctx context.Context) error {
		var cr openai.ChatResponse
		if err := c.post(ctx, "/chat/completions", body, "chat completion", &cr); err != nil {
			return err
		}
		if len(cr.Choices) == 0 {
			return fmt.Errorf("%s: answer has no choices", c.url("/chat/completions"))
		}
		text = cr.Choices[0].Message.Content
		if accept != nil {
			return accept(text)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return text, nil
}

// retry runs attempt under the client's bound on requests in flight
// (held across the retries of one call, so that a failing server is not
// sent more than MaxConcurrent calls' worth of attempts at once) until it
// succeeds, fails with ErrPermanent, the caller's context ends, or the
// retries are spent; backoff doubles with jitter, and a retry that could
// not start before the caller's deadline is not waited for. It returns the
// last attempt's error.
func (c *Client) retry(ctx context.Context, attempt func(ctx context.Context) error) error {
	c.init()
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return ctx.Err()
	}
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	var last error
	for n := 0; n <= max(0, c.Retries); n++ {
		if n > 0 {
			wait := backoff<<(n-1) + time.Duration(rand.Int64N(int64(backoff)/2+1))
			wait = min(wait, MaxBackoff)
			if d, ok := ctx.Deadline(); ok && time.Until(d) <= wait {
				break // no attempt could start before the caller's deadline
			}
			c.retries.Add(1)
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
		c.requests.Add(1)
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		last = err
		if errors.Is(err, ErrPermanent) || ctx.Err() != nil {
			break
		}
	}
	return last
}

// url is the address of an endpoint below BaseURL ("/completions").
func (c *Client) url(path string) string {
	return strings.TrimRight(c.BaseURL, "/") + path
}

// post sends one request (body, JSON) to the endpoint at path, bounded by
// the client's per-attempt timeout, and decodes a 200 answer into out;
// what names the answer's kind in errors. A 4xx other than 408 and 429
// wraps ErrPermanent; an answer that does not decode does not (a server
// that garbles one answer may not garble the next).
func (c *Client) post(ctx context.Context, path string, body []byte, what string, out any) error {
	return c.do(ctx, http.MethodPost, c.url(path), body, what, out)
}

// do sends one request to url (a POST with body, or a GET), as post
// describes.
func (c *Client) do(ctx context.Context, method, url string, body []byte, what string, out any) error {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("%s request %s: %w: %w", what, url, ErrPermanent, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s: reading answer: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		var err error = &StatusError{URL: url, Code: resp.StatusCode, Body: textclip.Clip(string(raw), 200)}
		if resp.StatusCode == http.StatusBadRequest && contextLengthError(string(raw)) {
			err = fmt.Errorf("%w: %w", ErrContextLength, err)
		}
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout {
			err = fmt.Errorf("%w: %w", ErrPermanent, err)
		}
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: answer is not a %s (%s): %w", url, what, textclip.Clip(string(raw), 80), err)
	}
	return nil
}
