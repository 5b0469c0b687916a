package askserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/prompt"
)

// TestOpenAIGeneratorServesTrainedPrompt: an LLM trained on `sqlrl data
// prepare`'s chat files (trl_sft_chat.jsonl, ...) and served behind the
// OpenAI generator is asked with the very system and user messages it was
// trained on, BIRD's column descriptions (database_description/ beside
// the SQLite file) included. The served prompt had no descriptions
// (docs/rl-at-scale.md, "Your own database": train on from-db's data,
// serve the LLM with `sqlrl serve`), which the native generator had
// already been fixed for.
func TestOpenAIGeneratorServesTrainedPrompt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "prep")
	o := export.DefaultOptions()
	o.Dir, o.Split, o.Out = filepath.Join("..", "datasets", "bird-dev-sample"), "dev", out
	if _, err := export.Prepare(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// the trained prompts: the SFT part's superhero questions, with evidence
	type trained struct {
		DBID     string           `json:"db_id"`
		Question string           `json:"question"`
		Evidence string           `json:"evidence"`
		Messages []prompt.Message `json:"messages"`
	}
	var want []trained
	f, err := os.Open(filepath.Join(out, "sft.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && len(want) < 3 {
		var r trained
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.DBID == "superhero" && r.Evidence != "" {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		t.Fatal("no superhero question with evidence in sft.jsonl")
	}

	var mu sync.Mutex
	var sent [][]prompt.Message
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		sent = append(sent, chatMessages(t, body))
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "SELECT COUNT(*) FROM superhero"}}}})
	}))
	defer llm.Close()
	ts := openAIServer(t, llm.URL+"/v1", `, "samples": 0`)
	for _, w := range want {
		mu.Lock()
		sent = nil
		mu.Unlock()
		code, res := call(t, ts, "POST", "/api/ask", "", map[string]string{"db": "superhero", "question": w.Question, "evidence": w.Evidence})
		if code != 200 || len(sent) != 1 {
			t.Fatalf("ask %q: %d %v, %d chat requests", w.Question, code, res, len(sent))
		}
		got := sent[0]
		if len(got) != 2 || len(w.Messages) != 3 {
			t.Fatalf("ask %q: served %d messages, trained on %d (want system, user; + the answer)", w.Question, len(got), len(w.Messages))
		}
		for i, role := range []string{"system", "user"} {
			if got[i].Role != role || got[i].Content != w.Messages[i].Content {
				t.Errorf("ask %q: the served %s message differs from the trained one:\nserved:  %.600q\ntrained: %.600q", w.Question, role, got[i].Content, w.Messages[i].Content)
			}
		}
	}
}
