package llmclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/openai"
)

func answer(w http.ResponseWriter, text string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": text}}}})
}

func TestChat(t *testing.T) {
	tests := []struct {
		name    string
		serve   func(n int64, w http.ResponseWriter, r *http.Request)
		accept  func(string) error
		want    string
		wantErr bool
		calls   int64
	}{
		{"ok", func(_ int64, w http.ResponseWriter, _ *http.Request) { answer(w, "SELECT 1") }, nil, "SELECT 1", false, 1},
		{"500 then ok", func(n int64, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				http.Error(w, "busy", http.StatusInternalServerError)
				return
			}
			answer(w, "SELECT 2")
		}, nil, "SELECT 2", false, 2},
		{"404 is permanent", func(_ int64, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no such model", http.StatusNotFound)
		}, nil, "", true, 1},
		{"refused answers are retried", func(n int64, w http.ResponseWriter, _ *http.Request) { answer(w, fmt.Sprint(n)) },
			func(s string) error {
				if s != "3" {
					return errors.New("not yet")
				}
				return nil
			}, "3", false, 3},
		{"not json", func(_ int64, w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>") }, nil, "", true, 3},
		{"no choices", func(_ int64, w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"choices":[]}`) }, nil, "", true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req openai.ChatRequest
				if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "m" || len(req.Messages) != 1 {
					http.Error(w, "bad request", http.StatusBadRequest)
					return
				}
				tt.serve(calls.Add(1), w, r)
			}))
			defer srv.Close()
			c := &Client{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: "k", Retries: 2, Backoff: time.Millisecond}
			got, err := c.Chat(context.Background(), []openai.Message{{Role: "user", Content: "q"}}, tt.accept)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Chat = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
			if n := calls.Load(); n != tt.calls || c.Requests() != tt.calls {
				t.Errorf("%d calls (%d counted), want %d", n, c.Requests(), tt.calls)
			}
		})
	}
}

// TestChatDeadline: a hanging server and retries that cannot start before
// the caller's deadline end in the deadline's error after one attempt.
func TestChatDeadline(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body) // net/http sees the client leave only after the body
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m", Retries: 3, Backoff: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Chat(ctx, []openai.Message{{Role: "user", Content: "q"}}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
}
