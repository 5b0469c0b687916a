package modelserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// texts are the test policy's corpus; texts[0] is a compact prompt.
var texts = []string{
	"customer: customer_id integer key, first_name text\nquestion: How many customers?\nSQL: ",
	"SELECT COUNT(*) FROM customer",
	"SELECT first_name FROM customer WHERE customer_id = 7",
}

// testPolicy is a tiny policy (as policy's tests build it) whose sampling
// distributions are peaked enough for the guide to matter.
func testPolicy(t testing.TB) *policy.Policy {
	t.Helper()
	var corpus []string
	for range 10 {
		corpus = append(corpus, texts...)
	}
	tok, err := tokenizer.Train(corpus, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Vocab: tok.VocabSize(), Dim: 16, Layers: 2, Heads: 2, Hidden: 32, MaxSeq: 96, PrevToken: true, Copy: true}
	p, err := policy.New(tok, "", cfg, policy.Format{Kind: policy.FormatCompact}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Model.Params {
		p.Model.Params[i] *= 8
	}
	return p
}

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
	srv := httptest.NewServer((&Server{Policy: testPolicy(t), Name: "m"}).Handler())
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
	srv := httptest.NewServer((&Server{Policy: testPolicy(t), Name: "sqlrl-test"}).Handler())
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
	srv := httptest.NewServer((&Server{Policy: testPolicy(t), Name: "m"}).Handler())
	defer srv.Close()
	guided := func(sql string) bool {
		g := sqlparse.NewGuide(map[string][]string{"customer": {"customer_id", "first_name"}}, nil)
		st := g.Start()
		return st.Allow(sql, false)
	}
	prompt, _ := json.Marshal(texts[0])
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
