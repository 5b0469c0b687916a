package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServer: each fault answers as documented, and a normal answer
// honours n, MaxChoices, stop, max_tokens and logprobs in both endpoints.
func TestServer(t *testing.T) {
	answer := func(q Request, j int) string { return fmt.Sprintf("%s;%d", q.Text(), j) }
	tests := []struct {
		name  string
		opts  Options
		path  string
		body  string
		code  int
		want  string // a substring of the answer
		lacks string // not in the answer
	}{
		{"completions", Options{Answer: answer}, "/v1/completions", `{"prompt":"p","n":2}`, 200,
			`"text":"p;1"`, `"logprobs":{`},
		{"stop", Options{Answer: answer}, "/v1/completions", `{"prompt":"p","stop":";"}`, 200,
			`"index":0,"text":"p","finish_reason":"stop","logprobs":null}`, ""},
		{"max_tokens", Options{Answer: answer}, "/v1/completions", `{"prompt":"pq","max_tokens":2}`, 200,
			`"index":0,"text":"pq","finish_reason":"length","logprobs":null}`, ""},
		{"completions logprobs", Options{Answer: answer}, "/v1/completions", `{"prompt":"p","logprobs":0}`, 200,
			`"token_logprobs":[-0.25,-0.25,-0.25]`, ""},
		{"chat", Options{Answer: answer}, "/v1/chat/completions", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"n":3}`, 200,
			`"content":"u;2"`, `"prompt_tokens":1,`},
		{"chat logprobs", Options{}, "/v1/chat/completions", `{"messages":[{"role":"user","content":"u"}],"logprobs":true}`, 200,
			`{"token":"S","logprob":-0.25}`, ""},
		{"max choices", Options{MaxChoices: 1, Answer: answer}, "/v1/completions", `{"prompt":"p","n":4}`, 200,
			`"text":"p;0"`, `"index":1`},
		{"garbage", Options{Fault: Always(Garbage)}, "/v1/completions", `{"prompt":"p"}`, 200, "<html>", ""},
		{"server error", Options{Fault: Always(ServerError)}, "/v1/completions", `{"prompt":"p"}`, 500, `"type":"server_error"`, ""},
		{"bad request", Options{Fault: Always(BadRequest)}, "/v1/chat/completions", `{"messages":[{"role":"user","content":"u"}]}`, 400,
			`"type":"invalid_request_error"`, ""},
		{"no choices", Options{Fault: Always(NoChoices)}, "/v1/completions", `{"prompt":"p","n":2}`, 200, `"choices":[]`, ""},
		{"first fault only", Options{Fault: First(0, ServerError)}, "/v1/completions", `{"prompt":"p"}`, 200, `"text":"SELECT 1"`, ""},
		{"malformed", Options{}, "/v1/completions", `{"prompt":`, 400, "malformed JSON", ""},
		{"no messages", Options{}, "/v1/chat/completions", `{"n":1}`, 400, "messages is required", ""},
		{"unknown path", Options{}, "/v1/embeddings", `{}`, 404, "no endpoint", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.opts)
			defer s.Close()
			resp, err := http.Post(strings.TrimSuffix(s.URL, "/v1")+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.want) || tt.lacks != "" && strings.Contains(string(b), tt.lacks) {
				t.Errorf("%d %s\nwant %d with %s, without %q", resp.StatusCode, b, tt.code, tt.want, tt.lacks)
			}
		})
	}
}

// TestLog: requests are recorded with their fields, in order, the
// failed ones too; a hang ends when the client leaves.
func TestLog(t *testing.T) {
	s := New(Options{Fault: func(n int, _ Request) Fault {
		if n == 2 {
			return Hang
		}
		return OK
	}})
	defer s.Close()
	post := func(body string, timeout time.Duration) error {
		c := &http.Client{Timeout: timeout}
		resp, err := c.Post(s.URL+"/completions", "application/json", strings.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := post(`{"model":"m","prompt":"a","seed":3,"temperature":0.5,"top_p":0.9,"stop":["x","y"],"guide":false}`, 0); err != nil {
		t.Fatal(err)
	}
	if err := post(`{"prompt":"b"}`, 50*time.Millisecond); err == nil {
		t.Error("the hang answered")
	}
	log := s.Log()
	if len(log) != 2 || s.Requests() != 2 {
		t.Fatalf("log %+v", log)
	}
	q := log[0]
	if q.Model != "m" || q.Text() != "a" || *q.Seed != 3 || *q.Temperature != 0.5 || *q.TopP != 0.9 ||
		strings.Join(q.Stop, "|") != "x|y" || string(q.Fields["guide"]) != "false" || q.N != 1 || q.Chat() {
		b, _ := json.Marshal(q)
		t.Errorf("request %s", b)
	}
	if log[1].Text() != "b" {
		t.Errorf("second request %+v", log[1])
	}
}
