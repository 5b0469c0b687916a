// Package fakechat is an OpenAI-compatible chat server (POST
// .../chat/completions) that answers each known question with a fixed
// text, found by the question in the prompt. It costs next to nothing, so
// a load run against a server that calls a model measures the server, not
// a model.
package fakechat

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/sqlrl/sqlrl/openai"
)

// QA is a question and the text the fake answers it with.
type QA struct{ Question, Answer string }

// Server answers the last user message with the answer of the longest
// known question it contains (spaces normalised), and "SELECT 1"
// otherwise, as n choices when the request asks for n (1 to 128). Set its questions with Set before or while it serves.
type Server struct {
	mu sync.RWMutex
	qs []QA // longest question first
}

// Set replaces the questions the fake knows; those with no answer are
// ignored.
func (m *Server) Set(qs []QA) {
	sorted := make([]QA, 0, len(qs))
	for _, q := range qs {
		if q.Answer != "" {
			sorted = append(sorted, QA{normSpace(q.Question), q.Answer})
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].Question) > len(sorted[j].Question) })
	m.mu.Lock()
	m.qs = sorted
	m.mu.Unlock()
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// ServeHTTP implements http.Handler.
func (m *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatParams
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error": "POST .../chat/completions"}`, http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error": "malformed request"}`, http.StatusBadRequest)
		return
	}
	user := ""
	for _, msg := range req.Messages {
		if text, err := msg.Text(); err == nil && msg.Role == "user" {
			user = normSpace(text)
		}
	}
	answer := "SELECT 1"
	m.mu.RLock()
	for _, q := range m.qs {
		if strings.Contains(user, q.Question) {
			answer = q.Answer
			break
		}
	}
	m.mu.RUnlock()
	n := 1
	if req.N != nil {
		n = *req.N
	}
	if n < 1 || n > 128 {
		http.Error(w, `{"error": "n must be between 1 and 128"}`, http.StatusBadRequest)
		return
	}
	choices := make([]openai.ChatChoice, n)
	for i := range choices {
		choices[i] = openai.ChatChoice{Index: i, Message: openai.AnswerMessage{Role: "assistant", Content: answer}, FinishReason: "stop"}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(openai.ChatResponse{Object: "chat.completion", Choices: choices})
}
