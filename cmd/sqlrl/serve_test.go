package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/feedback"
)

func TestServeFlags(t *testing.T) {
	if _, errs, code := sqlrl(t, "serve", "--help"); code != 0 || !strings.Contains(errs, "/api/ask") {
		t.Errorf("--help: exit %d\n%s", code, errs)
	}
	if _, errs, code := sqlrl(t, "serve"); code != 2 || !strings.Contains(errs, "-config is required") {
		t.Errorf("no -config: exit %d\n%s", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"databases": {"a": {"sqlite": "nope.sqlite"}}}`), 0o644)
	if _, errs, code := sqlrl(t, "serve", "-config", bad); code != 1 || !strings.Contains(errs, bad) || !strings.Contains(errs, "databases.a.sqlite") {
		t.Errorf("bad config: exit %d\n%s", code, errs)
	}
	if _, _, code := sqlrl(t, "serve", "init"); code != 2 {
		t.Errorf("init without -db: exit %d", code)
	}
	out, errs, code := sqlrlOS(t, "serve", "init", "-db", "superhero=datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite")
	if code != 0 || !strings.Contains(out, `"superhero"`) || !strings.Contains(out, "SQLRL_SERVE_KEY") {
		t.Errorf("init: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestServeRuns starts `sqlrl serve` on a free port with an
// OpenAI-compatible fake, asks a question, gives feedback, stops it with its
// context, and finds both in the store.
func TestServeRuns(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "SELECT COUNT(*) FROM superhero"}}}})
	}))
	defer llm.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs("../../datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite")
	key := "serve-test-key-0123456789"
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}}, "generator": {"openai": {"base_url": %q, "model": "m"}}, "api_keys": {"bob": {"key": %q}}}`, db, llm.URL, key)
	path := filepath.Join(dir, "serve.json")
	os.WriteFile(path, []byte(cfg), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"serve", "-config", path, "-addr", addr, "-quiet"}, &bytes.Buffer{}, &stderr)
	}()
	base := "http://" + addr
	up := false
	for range 200 {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			up = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !up {
		cancel()
		t.Fatalf("server did not come up: exit %v", <-done)
	}
	resp, err := http.Post(base+"/api/ask", "application/json", strings.NewReader(`{"db": "superhero", "question": "How many heroes?"}`))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		AnswerID int64     `json:"answer_id"`
		Rows     [][]int64 `json:"rows"`
	}
	json.NewDecoder(resp.Body).Decode(&a)
	resp.Body.Close()
	if a.AnswerID == 0 || len(a.Rows) != 1 || a.Rows[0][0] != 750 {
		t.Errorf("answer %+v", a)
	}
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/answers/%d/feedback", base, a.AnswerID), strings.NewReader(`{"verdict": "up"}`))
	req.Header.Set("X-API-Key", key)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("feedback: %v %v", resp, err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after shutdown\n%s", code, stderr.String())
	}
	st, err := feedback.Open(context.Background(), filepath.Join(dir, "feedback.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := st.Answer(context.Background(), a.AnswerID)
	if err != nil || e.SQL != "SELECT COUNT(*) FROM superhero" || len(e.Feedback) != 1 || e.Feedback[0].Author != "bob" {
		t.Errorf("stored %+v, %v", e, err)
	}
}
