package askserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
)

// chatMessages is the messages of a chat request body.
func chatMessages(t *testing.T, body []byte) []prompt.Message {
	t.Helper()
	var q struct{ Messages []prompt.Message }
	if err := json.Unmarshal(body, &q); err != nil {
		t.Fatal(err)
	}
	return q.Messages
}

// openAIServer starts `sqlrl serve` over superhero with the OpenAI
// generator at base (extra: more generator fields).
func openAIServer(t *testing.T, base, extra string) *httptest.Server {
	t.Helper()
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}}, "generator": {"openai": {"base_url": %q, "model": "m"}%s}}`, benchDB(t, "superhero"), base, extra)
	c, err := ParseConfig(filepath.Join(t.TempDir(), "serve.json"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	_, ts := serveTest(t, s)
	return ts
}

// TestOpenAIGeneratorFitsServeModel serves a policy whose context is far
// smaller than the superhero prompt behind `sqlrl serve-model` (in
// process): the generator learns the context and the policy's prompt
// format from /v1/models and counts with /tokenize, so every prompt it
// sends is the compact prompt the policy was trained on and fits with
// max_tokens (issue 37: every one failed with `prompt 0 has 1826 tokens;
// the model's context is 768`, and was a CREATE TABLE prompt).
func TestOpenAIGeneratorFitsServeModel(t *testing.T) {
	pol := policytest.New(t, policytest.Options{Corpus: []string{"SELECT COUNT(*) FROM superhero", "CREATE TABLE superhero (id INTEGER)"}, Vocab: 300, Seed: 1,
		Format: policy.Format{Kind: policy.FormatCompact}, Config: nn.Config{Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 768}})
	ms := &modelserver.Server{Policy: pol, Name: "m"}
	defer ms.Close()
	const maxTokens = 16
	var mu sync.Mutex
	var counts []int
	h := ms.Handler()
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			msgs := chatMessages(t, body)
			if _, compact := policy.CompactSchema(msgs[len(msgs)-1].Content); len(msgs) != 1 || !compact {
				t.Errorf("serve-model's compact policy was sent %+v, not its compact prompt", msgs)
			}
			mu.Lock()
			counts = append(counts, len(pol.Tok.Encode(pol.Info.Prompt.ChatPrompt(msgs))))
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != 200 {
				t.Errorf("serve-model answered %d: %s", rec.Code, rec.Body)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer model.Close()
	ts := openAIServer(t, model.URL+"/v1", fmt.Sprintf(`, "max_tokens": %d`, maxTokens))
	// the random model's answers hold no SQL (a generation_error the
	// server logs as such): what is checked is that serve-model took
	// every prompt
	for _, q := range []string{"How many superheroes have blue eyes?", "List the powers of 3-D Man.", "Which publisher published the most superheroes?"} {
		ask(t, ts, "superhero", q)
	}
	// each ask: its answer and one request for its samples, fitted alike
	if len(counts) != 6 {
		t.Fatalf("%d chat requests, want 6 (3 answers, 3 sample requests)", len(counts))
	}
	for i, n := range counts {
		if n+maxTokens+fitMargin > pol.Model.Cfg.MaxSeq {
			t.Errorf("question %d: prompt of %d tokens, with max_tokens %d over the context %d", i, n, maxTokens, pol.Model.Cfg.MaxSeq)
		}
	}
}

// TestOpenAIGeneratorEstimates: a server that says neither its context
// nor its counts (OpenAI itself) gets prompts within prompt_tokens as
// estimated; one that refuses a prompt for its length gets it once more
// with half the budget, and a second refusal is the answer's error, not
// a loop.
func TestOpenAIGeneratorEstimates(t *testing.T) {
	const budget = 600
	var mu sync.Mutex
	var sent []int // estimated cost of each chat request's messages
	refuse := 0    // requests to refuse for their length
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		n := 0
		for _, m := range chatMessages(t, body) {
			n += estimateTokens{}.Count(m.Content)
		}
		mu.Lock()
		sent = append(sent, n)
		no := refuse > 0
		refuse--
		mu.Unlock()
		if no {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(openai.NewError(400, "This model's maximum context length is 512 tokens. However, you requested 700 tokens"))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "SELECT COUNT(*) FROM superhero"}}}})
	}))
	defer llm.Close()
	ts := openAIServer(t, llm.URL+"/v1", fmt.Sprintf(`, "prompt_tokens": %d, "samples": 0`, budget))
	tests := []struct {
		name      string
		refuse    int
		requests  int
		wantError bool
	}{
		{"fits", 0, 1, false},
		{"refused once", 1, 2, false},
		{"refused twice", 2, 2, true},
	}
	for _, tc := range tests {
		mu.Lock()
		sent, refuse = nil, tc.refuse
		mu.Unlock()
		out := ask(t, ts, "superhero", "How many superheroes have blue eyes?")
		e, _ := out["error"].(map[string]any)
		if (e != nil) != tc.wantError || len(sent) != tc.requests {
			t.Errorf("%s: %d requests, error %v; want %d, error %v", tc.name, len(sent), e, tc.requests, tc.wantError)
			continue
		}
		// the system message and separators come on top of the budget's count
		if sent[0] > budget+20 {
			t.Errorf("%s: first prompt estimated at %d tokens, budget %d", tc.name, sent[0], budget)
		}
		if len(sent) == 2 && sent[1] > budget/2+20 {
			t.Errorf("%s: retried prompt estimated at %d tokens, want about half of %d", tc.name, sent[1], budget)
		}
	}
}

// TestOpenAIGeneratorTokenizeRefuses: a server whose /tokenize refuses a
// prompt longer than the context (400, context_length_exceeded) is still
// a server that counts: the prompt is halved until it counts one that fits.
func TestOpenAIGeneratorTokenizeRefuses(t *testing.T) {
	const context, maxChars = 1000, 1500
	var mu sync.Mutex
	var tokenized, chats []int // prompt sizes in bytes
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size := 0
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			for _, m := range chatMessages(t, body) {
				size += len(m.Content)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/v1/models":
			json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"id": "m", "max_model_len": context}}})
		case "/tokenize":
			tokenized = append(tokenized, size)
			if size > maxChars {
				w.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "prompt too long", "code": "context_length_exceeded"}})
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"count": size / 2, "max_model_len": context})
		case "/v1/chat/completions":
			chats = append(chats, size)
			json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "SELECT 1"}}}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer llm.Close()
	ts := openAIServer(t, llm.URL+"/v1", `, "max_tokens": 64, "samples": 0`)
	out := ask(t, ts, "superhero", "How many superheroes have blue eyes?")
	if out["error"] != nil || len(chats) != 1 || chats[0] > maxChars || len(tokenized) < 2 {
		t.Errorf("answer %v; tokenized %v, sent %v (want one prompt of at most %d bytes, after a refusal)", out["error"], tokenized, chats, maxChars)
	}
}
