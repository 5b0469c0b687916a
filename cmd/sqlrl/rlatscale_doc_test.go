package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
)

// ownDBHeading is the section of docs/rl-at-scale.md whose first ```sh
// block TestRLAtScaleOwnDB runs.
const ownDBHeading = "## 4. Your own database: from `bench from-db` to a served LLM"

// ownDBJQ is the block's jq line, which the test does in Go.
const ownDBJQ = `jq -c '.answers[] | {question_id, sql: (.sql // "no SQL")}' `

// trainerFields are the fields every line of each file data prepare
// writes must have (docs/training-formats.md).
var trainerFields = map[string][]string{
	"sft.jsonl":              {"question_id", "db_id", "question", "evidence", "SQL", "difficulty", "prompt", "messages", "tables", "prompt_tokens"},
	"holdout.jsonl":          {"question_id", "db_id", "question", "evidence", "SQL", "difficulty", "prompt", "messages", "tables", "prompt_tokens"},
	"holdout_aug.jsonl":      {"question_id", "db_id", "question", "SQL", "prompt", "messages", "variant", "permutation"},
	"trl_sft.jsonl":          {"prompt", "completion"},
	"trl_sft_chat.jsonl":     {"prompt", "completion"},
	"trl_sft_messages.jsonl": {"messages"},
	"trl_grpo.jsonl":         {"prompt", "db_id", "gold_sql", "question_id", "variant"},
	"openrlhf_prompts.jsonl": {"prompt", "messages", "label"},
	"verl.jsonl":             {"data_source", "prompt", "ability", "reward_model", "extra_info"},
}

// TestRLAtScaleOwnDB runs the block of rl-at-scale.md's section "Your own
// database" as a user would, in a folder holding a copy of the bundled
// sample, and checks what it wrote: every trainer file non-empty JSON
// Lines with its fields, none holding a question or gold SQL of the
// sealed test split; `data prepare -split test` refused; the reward
// server scoring a gold 1 and a wrong SQL's execution 0; both
// calibrations and `sqlrl eval` at EX 100 for a model that answers the
// gold; the server answering with it. The commands run in this process,
// built from this source, as written except that: `bench from-db` gets
// -n 200; `vllm serve` is a stand-in OpenAI-compatible server answering
// each question with its gold SQL (serve.json's base_url is pointed at
// it after `serve init`); servers listen on free ports; the jq line is
// done in Go; $(openssl rand -hex 16) is 16 random bytes in hex. A line
// this test does not know fails it: teach it here.
func TestRLAtScaleOwnDB(t *testing.T) {
	if testing.Short() {
		t.Skip("generates questions, prepares them and asks about 400 questions")
	}
	wd, _ := os.Getwd()
	repo := filepath.Join(wd, "..", "..")
	doc := filepath.Join(repo, "docs", "rl-at-scale.md")
	cmds := docBlockUnder(t, doc, ownDBHeading)
	dir := t.TempDir()
	sample := filepath.Join("datasets", "bird-dev-sample")
	if err := os.CopyFS(filepath.Join(dir, sample), os.DirFS(filepath.Join(repo, sample))); err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	llm := &goldLLM{gold: map[string]string{}}
	var llmServer *httptest.Server
	var rewardBase, serveBase string
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var logs syncBuffer
	background := func(args []string, addrFlag string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		i := slices.Index(args, addrFlag)
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("%q has no %s to replace", strings.Join(args, " "), addrFlag)
		}
		args[i+1] = addr
		t.Logf("$ sqlrl %s &", strings.Join(args, " "))
		exited := make(chan int, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := run(ctx, args, io.Discard, &logs)
			exited <- code
			if ctx.Err() == nil {
				t.Errorf("sqlrl %s: exit %d before the test ended", strings.Join(args, " "), code)
			}
		}()
		waitUp(t, "http://"+addr, exited, &logs)
		return "http://" + addr
	}
	for i, line := range cmds {
		words := strings.Fields(line)
		bg := words[len(words)-1] == "&"
		if bg {
			words = words[:len(words)-1]
		}
		out := ""
		if n := len(words); n >= 2 && words[n-2] == ">" {
			out, words = words[n-1], words[:n-2]
		}
		switch {
		case line == "go build -o bin/sqlrl ./cmd/sqlrl":
			continue
		case words[0] == "export" && strings.HasSuffix(line, "=$(openssl rand -hex 16)"):
			name, _, _ := strings.Cut(words[1], "=")
			var b [16]byte
			rand.Read(b[:])
			t.Setenv(name, hex.EncodeToString(b[:]))
			continue
		case bg && len(words) > 2 && words[0] == "vllm" && words[1] == "serve":
			llmServer = httptest.NewServer(llm)
			defer llmServer.Close()
			t.Logf("$ %s: a stand-in answering the gold SQL at %s", line, llmServer.URL)
			continue
		case strings.HasPrefix(line, ownDBJQ):
			from, to, ok := strings.Cut(strings.TrimPrefix(line, ownDBJQ), " > ")
			if !ok {
				t.Fatalf("rl-at-scale.md command %d %q: want jq ... FILE > FILE", i+1, line)
			}
			answersToPred(t, from, to)
			continue
		case len(words) < 2 || words[0] != "bin/sqlrl":
			t.Fatalf("rl-at-scale.md command %d %q: not a command this test knows how to run", i+1, line)
		}
		args := words[1:]
		switch {
		case bg && args[0] == "reward" && args[1] == "serve":
			rewardBase = background(args, "--addr")
			continue
		case bg:
			t.Fatalf("rl-at-scale.md command %d %q: this test runs only reward serve and vllm serve in the background", i+1, line)
		case args[0] == "serve" && len(args) > 1 && args[1] == "-config":
			serveBase = background(args, "-addr")
			continue
		case args[0] == "bench" && args[1] == "from-db":
			args = append(args, "-n", "200", "-q")
		}
		t.Logf("$ sqlrl %s", strings.Join(args, " "))
		var stderr bytes.Buffer
		if code := runTo(ctx, t, args, out, &stderr); code != 0 {
			t.Fatalf("rl-at-scale.md command %d %q: exit %d\n%s", i+1, line, code, stderr.String())
		}
		switch {
		case args[0] == "bench" && args[1] == "from-db":
			// the stand-in model knows every gold from here on
			for _, f := range []string{"data/superhero/train.json", "data/superhero/dev.json", filepath.Join(sample, "dev.json")} {
				llm.learn(t, f)
			}
			// one human question without an answer: calibrate and eval count it wrong
			llm.forget(readQuestions(t, filepath.Join(sample, "dev.json"))[0].Question)
		case args[0] == "serve" && args[1] == "init":
			if llmServer == nil {
				t.Fatal("serve init before vllm serve: nothing to point serve.json at")
			}
			pointAt(t, out, llmServer.URL+"/v1")
		}
	}
	if rewardBase == "" || serveBase == "" || llmServer == nil {
		t.Fatalf("the block started reward server %q, server %q, model %v: want all three", rewardBase, serveBase, llmServer != nil)
	}

	train := readQuestions(t, "data/superhero/train.json")
	test := readQuestions(t, "data/superhero/test.json")
	t.Run("trainer files", func(t *testing.T) {
		checkTrainerFiles(t, "out/superhero-train", train, test)
		checkTrainerFiles(t, "out/superhero-dev", nil, test)
	})
	t.Run("test split refused", func(t *testing.T) {
		for _, args := range [][]string{
			{"data", "prepare", "-q", "-split", "test", "-out", "out/leak", "data/superhero"},
			{"serve", "calibrate", "-config", "serve.json", "-samples", "0", "-split", "test", "-out", "out/leak", "data/superhero"},
			{"eval", "--data", "data/superhero", "--split", "test", "--gold-as-pred", "--json", "out/leak"},
		} {
			var stderr bytes.Buffer
			code := run(ctx, args, io.Discard, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), "sealed") {
				t.Errorf("sqlrl %s: exit %d, %q; want refused as sealed", strings.Join(args, " "), code, stderr.String())
			}
			if _, err := os.Stat("out/leak"); err == nil {
				t.Errorf("sqlrl %s wrote out/leak", strings.Join(args, " "))
			}
		}
	})
	t.Run("reward", func(t *testing.T) { checkOwnDBReward(t, rewardBase, train) })
	t.Run("evaluation", func(t *testing.T) {
		dev := readQuestions(t, "data/superhero/dev.json")
		human := readQuestions(t, filepath.Join(sample, "dev.json"))
		for _, c := range []struct {
			report   string
			n, right int
		}{{"eval/dev/report.json", len(dev), len(dev)}, {"eval/human/report.json", len(human), len(human) - 1}} {
			var r struct {
				Calibration struct {
					Answers, Right int
				}
			}
			readJSON(t, c.report, &r)
			if r.Calibration.Answers != c.n || r.Calibration.Right != c.right {
				t.Errorf("%s: %d right of %d answers; want %d of %d (the stand-in answers the gold, but for one human question)", c.report, r.Calibration.Right, r.Calibration.Answers, c.right, c.n)
			}
		}
		var ev struct {
			Total   struct{ Count, Correct int }
			Classes map[string]int
		}
		readJSON(t, "eval/human/eval.json", &ev)
		if ev.Total.Count != len(human) || ev.Total.Correct != len(human)-1 || ev.Classes["syntax_error"] != 1 {
			t.Errorf("sqlrl eval of eval/human/pred.jsonl: %d of %d correct, classes %v; want %d correct and the unanswered one a syntax_error (no SQL)", ev.Total.Correct, ev.Total.Count, ev.Classes, len(human)-1)
		}
	})
	t.Run("serve", func(t *testing.T) {
		q := train[0]
		body, _ := json.Marshal(map[string]string{"db": "superhero", "question": q.Question, "evidence": q.Evidence})
		req, _ := http.NewRequest("POST", serveBase+"/api/ask", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+os.Getenv("SQLRL_SERVE_KEY"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a struct {
			SQL   string          `json:"sql"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != 200 || a.SQL != q.SQL {
			t.Errorf("ask %q: HTTP %d, %v, sql %q error %s; want the gold %q", q.Question, resp.StatusCode, err, a.SQL, a.Error, q.SQL)
		}
	})
	if t.Failed() {
		t.Logf("servers' log:\n%s", logs.String())
	}
}

// goldLLM is a stand-in for vLLM: it answers a chat request with the
// gold SQL of the question its user message ends with (package prompt's
// "Question: ..." line), and refuses what it does not know or forgot.
type goldLLM struct {
	mu   sync.Mutex
	gold map[string]string // question (one line) -> gold SQL
}

// forget makes the stand-in refuse question q.
func (g *goldLLM) forget(q string) {
	g.mu.Lock()
	delete(g.gold, strings.Join(strings.Fields(q), " "))
	g.mu.Unlock()
}

func (g *goldLLM) learn(t *testing.T, path string) {
	for _, r := range readQuestions(t, path) {
		g.mu.Lock()
		g.gold[strings.Join(strings.Fields(r.Question), " ")] = r.SQL
		g.mu.Unlock()
	}
}

func (g *goldLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	sql, ok := "", false
	if i := strings.LastIndex(user, "\nQuestion: "); i >= 0 {
		q, _, _ := strings.Cut(user[i+len("\nQuestion: "):], "\n")
		g.mu.Lock()
		sql, ok = g.gold[q]
		g.mu.Unlock()
	}
	if !ok {
		http.Error(w, `{"error": {"message": "the stand-in does not know this question"}}`, http.StatusBadRequest)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "```sql\n" + sql + "\n```"}}}})
}

// pointAt sets a serve config's generator.openai.base_url.
func pointAt(t *testing.T, path, url string) {
	t.Helper()
	var cfg map[string]any
	readJSON(t, path, &cfg)
	gen, _ := cfg["generator"].(map[string]any)
	oa, _ := gen["openai"].(map[string]any)
	if oa == nil {
		t.Fatalf("%s has no generator.openai: %v", path, cfg)
	}
	oa["base_url"] = url
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// answersToPred does the block's jq line: calibrate's answers as
// {"question_id", "sql"} lines, "no SQL" where the answer has none.
func answersToPred(t *testing.T, from, to string) {
	t.Helper()
	var r struct {
		Answers []struct {
			QuestionID int    `json:"question_id"`
			SQL        string `json:"sql"`
		} `json:"answers"`
	}
	readJSON(t, from, &r)
	var b bytes.Buffer
	for _, a := range r.Answers {
		if a.SQL == "" {
			a.SQL = "no SQL"
		}
		line, _ := json.Marshal(map[string]any{"question_id": a.QuestionID, "sql": a.SQL})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(to, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readQuestions reads a BIRD questions file as it is on disk (the test
// split too: this test checks that nothing of it leaked).
func readQuestions(t *testing.T, path string) []dataset.Record {
	t.Helper()
	var rs []dataset.Record
	readJSON(t, path, &rs)
	if len(rs) == 0 {
		t.Fatalf("%s: no questions", path)
	}
	return rs
}

// checkTrainerFiles checks every file data prepare wrote to dir: JSON
// Lines, non-empty unless the part is empty (dev's SFT part), each line
// with its fields; no string in any of them is a test question's gold
// SQL or its question (alone, or as a prompt's question line). train, when
// given, must be found the same way (the check can see a question).
func checkTrainerFiles(t *testing.T, dir string, train, test []dataset.Record) {
	var m struct {
		Source struct{ Split string }
		Counts struct{ SFT int }
	}
	readJSON(t, filepath.Join(dir, "manifest.json"), &m)
	if m.Source.Split == dataset.SplitTest {
		t.Fatalf("%s was prepared from the test split", dir)
	}
	leaks := func(rs []dataset.Record) func(string) bool {
		sqls, qs := map[string]bool{}, map[string]bool{}
		for _, r := range rs {
			sqls[r.SQL] = true
			qs[strings.Join(strings.Fields(r.Question), " ")] = true
		}
		return func(s string) bool {
			if sqls[s] || qs[s] {
				return true
			}
			if i := strings.LastIndex(s, "\nQuestion: "); i >= 0 {
				q, _, _ := strings.Cut(s[i+len("\nQuestion: "):], "\n")
				return qs[q]
			}
			return false
		}
	}
	isTest, isTrain := leaks(test), leaks(train)
	trainSeen := 0
	for name, fields := range trainerFields {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		n := 0
		for sc.Scan() {
			n++
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s line %d: %v", path, n, err)
			}
			for _, k := range fields {
				if _, ok := rec[k]; !ok {
					t.Fatalf("%s line %d: no field %q", path, n, k)
				}
			}
			for _, s := range jsonStrings(rec) {
				if isTest(s) {
					t.Fatalf("%s line %d holds a question or gold SQL of the sealed test split: %.200q", path, n, s)
				}
				if isTrain(s) {
					trainSeen++
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		empty := m.Counts.SFT == 0 && (strings.HasPrefix(name, "trl_sft") || name == "sft.jsonl")
		if (n == 0) != empty {
			t.Errorf("%s: %d lines (SFT part %d)", path, n, m.Counts.SFT)
		}
	}
	if train != nil && trainSeen == 0 {
		t.Errorf("%s: no train question found in the trainer files: the leak check cannot see questions", dir)
	}
}

// jsonStrings is every string in a decoded JSON value, the strings that
// themselves hold JSON (openrlhf's label) decoded too.
func jsonStrings(v any) []string {
	switch v := v.(type) {
	case string:
		out := []string{v}
		var inner any
		if strings.HasPrefix(v, "{") && json.Unmarshal([]byte(v), &inner) == nil {
			out = append(out, jsonStrings(inner)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	}
	return nil
}

// checkOwnDBReward asks the block's reward server (gate) to score a train
// question's gold and a wrong SQL, by question id, by verl.jsonl's label
// and over OpenRLHF's protocol with openrlhf_prompts.jsonl's label.
func checkOwnDBReward(t *testing.T, base string, train []dataset.Record) {
	const wrong = "SELECT -12345"
	type result struct {
		Reward     float64
		Class      string
		Components map[string]float64
	}
	post := func(path string, body any, out any) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s %s: %d %s", path, b, resp.StatusCode, raw)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("POST %s: %v: %s", path, err, raw)
		}
	}
	check := func(what string, rs []result) {
		t.Helper()
		if len(rs) != 2 {
			t.Fatalf("%s: %d results, want 2", what, len(rs))
		}
		if rs[0].Reward != 1 || rs[0].Class != "correct" {
			t.Errorf("%s: the gold scored %v (%s), want 1 (correct)", what, rs[0].Reward, rs[0].Class)
		}
		if rs[1].Components["ex"] != 0 || rs[1].Reward >= 1 || rs[1].Class != "wrong_result" {
			t.Errorf("%s: %s scored %v (%s, ex %v), want ex 0 and under 1 (wrong_result)", what, wrong, rs[1].Reward, rs[1].Class, rs[1].Components["ex"])
		}
	}
	q := train[len(train)/2]
	var byID struct{ Results []result }
	post("/v1/reward", map[string]any{"question_id": q.QuestionID, "completions": []string{q.SQL, wrong}}, &byID)
	check("question_id label", byID.Results)

	var verl struct {
		RewardModel struct {
			GroundTruth string `json:"ground_truth"`
		} `json:"reward_model"`
		ExtraInfo struct {
			DBID string `json:"db_id"`
		} `json:"extra_info"`
	}
	firstLine(t, "out/superhero-train/verl.jsonl", &verl)
	var byLabel struct{ Results []result }
	post("/v1/reward", map[string]any{"db_id": verl.ExtraInfo.DBID, "gold_sql": verl.RewardModel.GroundTruth,
		"completions": []string{verl.RewardModel.GroundTruth, wrong}}, &byLabel)
	check("verl.jsonl label", byLabel.Results)

	var orl struct{ Prompt, Label string }
	firstLine(t, "out/superhero-train/openrlhf_prompts.jsonl", &orl)
	var lab struct {
		GoldSQL string `json:"gold_sql"`
	}
	if err := json.Unmarshal([]byte(orl.Label), &lab); err != nil || lab.GoldSQL == "" {
		t.Fatalf("openrlhf_prompts.jsonl label %q: %v", orl.Label, err)
	}
	var openrlhf struct{ Rewards []float64 }
	post("/get_reward", map[string]any{"query": []string{orl.Prompt + lab.GoldSQL, orl.Prompt + wrong},
		"prompts": []string{orl.Prompt, orl.Prompt}, "labels": []string{orl.Label, orl.Label}}, &openrlhf)
	if len(openrlhf.Rewards) != 2 || openrlhf.Rewards[0] != 1 || openrlhf.Rewards[1] >= 1 {
		t.Errorf("/get_reward with openrlhf_prompts.jsonl's label: rewards %v, want [1, under 1]", openrlhf.Rewards)
	}
}

func firstLine(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	if !sc.Scan() {
		t.Fatalf("%s: empty", path)
	}
	if err := json.Unmarshal(sc.Bytes(), v); err != nil {
		t.Fatalf("%s line 1: %v", path, err)
	}
}
