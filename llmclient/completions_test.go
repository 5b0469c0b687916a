package llmclient

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/fakeopenai"
	"github.com/sqlrl/sqlrl/openai"
)

// TestComplete: a completions request carries the typed fields and the
// extra ones (which do not override a typed field), and the answer's
// choices, finish reasons, log-probabilities and usage come back; failures
// are retried unless permanent.
func TestComplete(t *testing.T) {
	seed := int64(7)
	one := 1
	tests := []struct {
		name     string
		fault    func(int, fakeopenai.Request) fakeopenai.Fault
		req      openai.CompletionRequest
		wantErr  string
		requests int
		texts    []string
		finish   []string
		logprob  float64 // of the first choice
	}{
		{name: "n, stop, length", req: openai.CompletionRequest{Prompt: "p", Temperature: 0.5, MaxTokens: 4, Stop: []string{";"},
			Sampling: openai.Sampling{N: 2, TopP: 0.9, Seed: &seed}},
			requests: 1, texts: []string{"SELE", "ab"}, finish: []string{"length", "stop"}},
		{name: "logprobs", req: openai.CompletionRequest{Prompt: "p", Logprobs: &one},
			requests: 1, texts: []string{"SELECT 1"}, finish: []string{"stop"}, logprob: 8 * fakeopenai.TokenLogprob},
		{name: "500 then answer", fault: fakeopenai.First(1, fakeopenai.ServerError), req: openai.CompletionRequest{Prompt: "p"},
			requests: 2, texts: []string{"SELECT 1"}, finish: []string{"stop"}},
		{name: "garbage every time", fault: fakeopenai.Always(fakeopenai.Garbage), req: openai.CompletionRequest{Prompt: "p"},
			requests: 3, wantErr: "answer is not a completion"},
		{name: "no choices every time", fault: fakeopenai.Always(fakeopenai.NoChoices), req: openai.CompletionRequest{Prompt: "p"},
			requests: 3, wantErr: "no choices"},
		{name: "400 is permanent", fault: fakeopenai.Always(fakeopenai.BadRequest), req: openai.CompletionRequest{Prompt: "p"},
			requests: 1, wantErr: "HTTP 400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(fakeopenai.Options{Fault: tt.fault, Answer: func(q fakeopenai.Request, j int) string {
				if j == 1 {
					return "ab;cd"
				}
				return "SELECT 1"
			}})
			defer srv.Close()
			c := &Client{BaseURL: srv.URL, Model: "m", Retries: 2, Backoff: time.Millisecond}
			resp, err := c.Complete(context.Background(), tt.req)
			if srv.Requests() != tt.requests {
				t.Errorf("%d requests, want %d", srv.Requests(), tt.requests)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var texts, finish []string
			for _, c := range resp.Choices {
				texts, finish = append(texts, c.Text), append(finish, c.FinishReason)
			}
			if strings.Join(texts, "|") != strings.Join(tt.texts, "|") || strings.Join(finish, "|") != strings.Join(tt.finish, "|") {
				t.Errorf("choices %q %q, want %q %q", texts, finish, tt.texts, tt.finish)
			}
			if resp.Usage == nil || resp.Usage.PromptTokens != 1 {
				t.Errorf("usage %+v", resp.Usage)
			}
			var lp float64
			if l := resp.Choices[0].Logprobs; l != nil {
				for _, x := range l.TokenLogprobs {
					lp += *x
				}
			}
			if math.Abs(lp-tt.logprob) > 1e-9*8 {
				t.Errorf("logprob %g, want %g", lp, tt.logprob)
			}
			q := srv.Log()[0]
			if q.Model != "m" || q.Prompt != "p" || q.N != max(1, tt.req.N) || q.MaxTokens != tt.req.MaxTokens ||
				(q.Seed == nil) != (tt.req.Seed == nil) || q.Logprobs != (tt.req.Logprobs != nil) {
				t.Errorf("sent %+v for %+v", q, tt.req)
			}
		})
	}
}

// TestExtraFields: Extra adds fields, never overrides a typed one; unset
// sampling fields are not sent (servers that lack them still answer).
func TestExtraFields(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{})
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m"}
	if _, err := c.ChatCompletion(context.Background(), openai.ChatRequest{Messages: []openai.Message{{Role: "user", Content: "q"}},
		Extra: map[string]any{"guide": false, "model": "other"}}); err != nil {
		t.Fatal(err)
	}
	f := srv.Log()[0].Fields
	if string(f["guide"]) != "false" || string(f["model"]) != `"m"` {
		t.Errorf("fields %s", mustJSON(f))
	}
	for _, k := range []string{"n", "top_p", "seed", "logprobs"} {
		if _, ok := f[k]; ok {
			t.Errorf("unset %s sent: %s", k, mustJSON(f))
		}
	}
}

// TestChatCompletion: a chat answer's choices, their log-probabilities
// and the usage come back; a hang ends with the caller's deadline.
func TestChatCompletion(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Answer: func(q fakeopenai.Request, j int) string { return q.Text() + "!" }})
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m"}
	resp, err := c.ChatCompletion(context.Background(), openai.ChatRequest{Messages: []openai.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "hi"}},
		Temperature: 1, Sampling: openai.Sampling{N: 3}, Logprobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 3 || resp.Choices[2].Message.Content != "hi!" || resp.Choices[2].Index != 2 ||
		resp.Choices[0].Logprobs == nil || len(resp.Choices[0].Logprobs.Content) != 3 || resp.Usage.CompletionTokens != 9 {
		t.Errorf("answer %s", mustJSON(resp))
	}

	hang := fakeopenai.New(fakeopenai.Options{Fault: fakeopenai.Always(fakeopenai.Hang)})
	defer hang.Close()
	c = &Client{BaseURL: hang.URL, Retries: 3, Backoff: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.ChatCompletion(ctx, openai.ChatRequest{Messages: []openai.Message{{Role: "user", Content: "q"}}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", err)
	}
	if hang.Requests() != 1 {
		t.Errorf("%d requests, want 1", hang.Requests())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
