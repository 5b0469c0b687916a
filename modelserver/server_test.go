package modelserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/openai"
	"github.com/sqlrl/sqlrl/sqlparse"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, v
}

func TestServer(t *testing.T) {
	srv := httptest.NewServer((&Server{Policy: policytest.Peaked(t), Name: "m"}).Handler())
	defer srv.Close()
	code, v := post(t, srv.URL+"/v1/chat/completions", `{"model":"x","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"question: q"}]}],"n":3,"temperature":0.8,"top_p":0.9,"max_tokens":8,"seed":1}`)
	if code != 200 {
		t.Fatalf("chat: %d %v", code, v)
	}
	choices := v["choices"].([]any)
	if len(choices) != 3 || v["object"] != "chat.completion" {
		t.Fatalf("chat reply %v", v)
	}
	msg := choices[0].(map[string]any)["message"].(map[string]any)
	if msg["role"] != "assistant" {
		t.Errorf("message %v", msg)
	}
	u := v["usage"].(map[string]any)
	if u["completion_tokens"].(float64) < 1 {
		t.Errorf("usage %v", u)
	}
	code, v = post(t, srv.URL+"/v1/completions", `{"model":"m","prompt":["a","b"],"n":2,"max_tokens":5,"stop":"\n","temperature":0}`)
	if code != 200 || len(v["choices"].([]any)) != 4 {
		t.Fatalf("completions: %d %v", code, v)
	}
	code, v = post(t, srv.URL+"/v1/completions", `{"prompt":"a","top_p":0}`)
	if code != 400 || v["error"].(map[string]any)["message"] == "" {
		t.Errorf("bad top_p: %d %v", code, v)
	}
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"q"}],"stream":true,"max_tokens":4}`))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var events []string
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, s)
		}
	}
	resp.Body.Close()
	if len(events) < 2 || events[len(events)-1] != "[DONE]" {
		t.Errorf("stream events %v", events)
	}
	r, err := http.Get(srv.URL + "/v1/models")
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("models: %v %v", err, r)
	}
	r.Body.Close()
}

// TestOpenAINodeClient runs the official OpenAI Node client
// (testdata/openai_client.mjs) against the server. It needs node and a
// directory with the openai package installed (npm install openai), named
// by SQLRL_OPENAI_NODE_MODULES; otherwise it is skipped.
func TestOpenAINodeClient(t *testing.T) {
	mods := os.Getenv("SQLRL_OPENAI_NODE_MODULES")
	node, err := exec.LookPath("node")
	if mods == "" || err != nil {
		t.Skip("set SQLRL_OPENAI_NODE_MODULES to a node_modules directory holding openai, with node on PATH")
	}
	srv := httptest.NewServer((&Server{Policy: policytest.Peaked(t), Name: "sqlrl-test"}).Handler())
	defer srv.Close()
	script, _ := filepath.Abs("testdata/openai_client.mjs")
	cmd := exec.Command(node, script)
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=dummy", "NODE_PATH="+mods)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OK") {
		t.Fatalf("node client output:\n%s", out)
	}
	t.Logf("%s", out)
}

// A compact prompt is answered under its schema's guide unless the request
// turns it off.
func TestServerGuide(t *testing.T) {
	srv := httptest.NewServer((&Server{Policy: policytest.Peaked(t), Name: "m"}).Handler())
	defer srv.Close()
	guided := func(sql string) bool {
		g := sqlparse.NewGuide(map[string][]string{"customer": {"customer_id", "first_name"}}, nil)
		st := g.Start()
		return st.Allow(sql, false)
	}
	prompt, _ := json.Marshal(policytest.Texts[0])
	for _, guide := range []string{"", `,"guide":false`} {
		code, v := post(t, srv.URL+"/v1/completions", `{"prompt":`+string(prompt)+`,"n":6,"temperature":1,"max_tokens":12,"seed":3`+guide+`}`)
		if code != 200 {
			t.Fatalf("%d %v", code, v)
		}
		bad := 0
		for _, c := range v["choices"].([]any) {
			if !guided(c.(map[string]any)["text"].(string)) {
				bad++
			}
		}
		if guide == "" && bad > 0 {
			t.Errorf("guided: %d of 6 completions leave the guide: %v", bad, v["choices"])
		}
		if guide != "" && bad == 0 {
			t.Errorf("unguided: all 6 completions happen to pass the guide: %v", v["choices"])
		}
	}
}

// TestLimits: the model server answers what goes wrong in OpenAI's error
// shape (which its clients parse), under httpserve's limits: a body over
// the cap is a 413, a request past its deadline a 504 that leaves no
// slot taken (with one slot, the next request is decoded), and every
// answer is counted on /metrics.
func TestLimits(t *testing.T) {
	pol := policytest.Peaked(t)
	// s has a deadline no request meets; ok decodes with one slot.
	s := &Server{Policy: pol, Name: "m", Slots: 1, MaxBodyBytes: 256, RequestTimeout: time.Nanosecond}
	ok := &Server{Policy: pol, Name: "m", Slots: 1, MaxBodyBytes: 256}
	defer s.Close()
	defer ok.Close()
	hs, hok := httptest.NewServer(s.Handler()), httptest.NewServer(ok.Handler())
	defer hs.Close()
	defer hok.Close()
	tests := []struct {
		name, method, path, body string
		late                     bool // sent to s
		want                     int
		typ, msg                 string
	}{
		{"oversize body", "POST", "/v1/completions", `{"prompt":"` + strings.Repeat("a", 300) + `"}`, false, 413, "invalid_request_error", "larger than 256 bytes"},
		{"malformed", "POST", "/v1/chat/completions", `{"messages":`, false, 400, "invalid_request_error", "malformed JSON"},
		{"bad option", "POST", "/v1/completions", `{"prompt":"a","n":0}`, false, 400, "invalid_request_error", "n must be"},
		{"deadline", "POST", "/v1/completions", `{"prompt":"a","n":1,"max_tokens":50}`, true, 504, "server_error", "request took longer than 1ns"},
		{"deadline, chat", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}],"max_tokens":50}`, true, 504, "server_error", "fewer completions or tokens"},
		{"wrong method", "GET", "/v1/completions", ``, false, 405, "invalid_request_error", "use POST"},
		{"unknown path", "POST", "/v1/embeddings", `{}`, false, 404, "invalid_request_error", "no such endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := hok.URL
			if tt.late {
				url = hs.URL
			}
			req, _ := http.NewRequest(tt.method, url+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var v openai.ErrorResponse
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatalf("status %d, body not JSON: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tt.want || v.Error.Type != tt.typ || !strings.Contains(v.Error.Message, tt.msg) {
				t.Errorf("status %d %+v, want %d %s %q", resp.StatusCode, v.Error, tt.want, tt.typ, tt.msg)
			}
		})
	}
	// Requests past their deadline leave the one slot free: the next
	// request is decoded.
	for range 20 { // some reach the batcher before it sees their deadline
		post(t, hs.URL+"/v1/completions", `{"prompt":"a","n":1,"max_tokens":50}`)
	}
	if code, v := post(t, hok.URL+"/v1/completions", `{"prompt":"a","max_tokens":4}`); code != 200 {
		t.Errorf("%d %v", code, v)
	}

	wantMetrics(t, hs.URL,
		`sqlrl_model_requests_total{endpoint="completions",code="504"} 21`,
		`sqlrl_model_requests_total{endpoint="chat",code="504"} 1`,
		`sqlrl_model_request_duration_seconds_count{endpoint="completions"} 21`,
		`sqlrl_model_requests_in_flight 0`)
	wantMetrics(t, hok.URL,
		`sqlrl_model_requests_total{endpoint="completions",code="200"} 1`,
		`sqlrl_model_requests_total{endpoint="completions",code="400"} 1`,
		`sqlrl_model_requests_total{endpoint="completions",code="405"} 1`,
		`sqlrl_model_requests_total{endpoint="completions",code="413"} 1`,
		`sqlrl_model_requests_total{endpoint="chat",code="400"} 1`,
		`sqlrl_model_requests_total{endpoint="other",code="404"} 1`)
}

// wantMetrics checks that the server at url reports each series.
func wantMetrics(t *testing.T, url string, series ...string) {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range series {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", text)
	}
}

// TestServeShutsDown: Serve answers until its context ends, then returns
// cleanly with the decoding loop stopped (a request reaching the handler
// afterwards is told the server is shutting down); /health and /healthz
// answer while it runs.
func TestServeShutsDown(t *testing.T) {
	s := &Server{Policy: policytest.Peaked(t), Name: "m"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	if code, v := post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":4}`); code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	for path, want := range map[string]string{"/health": "ok\n", "/healthz": `{"model":"m","status":"ok"}` + "\n"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != want {
			t.Errorf("%s: %d %q", path, resp.StatusCode, b)
		}
	}
	stop()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt":"a"}`)))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "shutting down") {
		t.Errorf("after shutdown: %d %s", w.Code, w.Body)
	}
}

// TestTokenize checks POST /tokenize against vLLM's shape: chat messages
// count what the chat route's usage.prompt_tokens says for them, a prompt
// what the completions route encodes, max_model_len is the model's
// context (also on GET /v1/models), and llmclient reads both, so that
// `sqlrl serve`'s OpenAI generator can fit its prompts to this server.
func TestTokenize(t *testing.T) {
	pol := policytest.Peaked(t)
	srv := httptest.NewServer((&Server{Policy: pol, Name: "m"}).Handler())
	defer srv.Close()
	msgs := `[{"role":"system","content":"write SQL"},{"role":"user","content":"customer: customer_id integer key\nquestion: How many customers?"}]`
	code, chat := post(t, srv.URL+"/v1/chat/completions", `{"messages":`+msgs+`,"max_tokens":2,"temperature":0}`)
	if code != 200 {
		t.Fatalf("chat: %d %v", code, chat)
	}
	want := chat["usage"].(map[string]any)["prompt_tokens"].(float64)
	tests := []struct {
		name, body string
		code       int
		count      float64
	}{
		{"messages", `{"model":"m","messages":` + msgs + `,"add_generation_prompt":true}`, 200, want},
		{"prompt", `{"prompt":"SELECT COUNT(*) FROM customer","add_special_tokens":true}`, 200, float64(len(pol.Tok.Encode("SELECT COUNT(*) FROM customer")))},
		{"both", `{"prompt":"a","messages":` + msgs + `}`, 400, 0},
		{"unknown field", `{"prompt":"a","tokenz":1}`, 400, 0},
		{"no messages", `{"messages":[]}`, 400, 0},
	}
	for _, tc := range tests {
		code, v := post(t, srv.URL+"/tokenize", tc.body)
		if code != tc.code {
			t.Errorf("%s: %d %v", tc.name, code, v)
			continue
		}
		if code != 200 {
			continue
		}
		if v["count"] != tc.count || v["max_model_len"] != float64(pol.Model.Cfg.MaxSeq) || len(v["tokens"].([]any)) != int(tc.count) {
			t.Errorf("%s: %v; want count %v, max_model_len %d", tc.name, v, tc.count, pol.Model.Cfg.MaxSeq)
		}
	}
	c := &llmclient.Client{BaseURL: srv.URL + "/v1", Model: "m"}
	card, err := c.Card(context.Background())
	if err != nil || card.MaxModelLen != pol.Model.Cfg.MaxSeq || !strings.Contains(string(card.SQLRLPrompt), `"kind":"compact"`) {
		t.Errorf("Card = %+v, %v; want max_model_len %d and the compact format", card, err, pol.Model.Cfg.MaxSeq)
	}
	tr, err := c.CountTokens(context.Background(), []openai.Message{{Role: "system", Content: "write SQL"}, {Role: "user", Content: "customer: customer_id integer key\nquestion: How many customers?"}})
	if err != nil || float64(tr.Count) != want {
		t.Errorf("CountTokens = %+v, %v; want %v", tr, err, want)
	}
}
