package rewardserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// newTestServer builds a stack and an httptest server over it.
func newTestServer(t testing.TB, o reward.StackOptions, mutate func(*Config)) (*httptest.Server, *Server, *reward.Stack) {
	t.Helper()
	if o.DBRoot == "" {
		o.DBRoot = loadSample(t).DBRoot
	}
	if o.Reward.Kind == "" {
		o.Reward = reward.Config{Kind: reward.KindGate, ErrorValue: -1}
	}
	st, err := reward.NewSQLiteStack(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := StackConfig(st, o.Reward.Kind)
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs, srv, st
}

// postJSON posts body (a value or raw bytes) and decodes the answer into
// out; it returns the status.
func postJSON(t testing.TB, url string, body any, out any) int {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case []byte:
		raw = b
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decoding %s: %v", data, err)
		}
	}
	if resp.StatusCode != http.StatusOK {
		var e map[string]string
		if json.Unmarshal(data, &e) != nil || e["error"] == "" {
			t.Errorf("status %d without a JSON error message: %s", resp.StatusCode, data)
		}
	}
	return resp.StatusCode
}

// TestAgreesWithEvalOverHTTP sends every pair of the official BIRD set
// through both HTTP APIs, grouped by question as a trainer would (K
// completions of one prompt): the reward is at its top (1) exactly when
// the official evaluator says EX = 1, and component ex is the verdict.
// The in-process trainer API (reward.Stack.ScoreGroup, on a stack of its
// own over an engine of its own, so that no cache is shared) gives every
// completion the same score, parts, class and error as the server.
func TestAgreesWithEvalOverHTTP(t *testing.T) {
	pairs := testkit.Official(t, "bird_ex.jsonl")
	so := reward.StackOptions{Reward: reward.Config{Kind: reward.KindGate, ErrorValue: -1}}
	hs, _, _ := newTestServer(t, so, nil)
	engine := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: loadSample(t).DBRoot,
		Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout, MaxBytes: 256 << 20}})
	t.Cleanup(func() { engine.Close() })
	trainer, err := reward.NewStack(engine, so)
	if err != nil {
		t.Fatal(err)
	}
	type group struct {
		db, gold string
		idx      []int
	}
	var groups []*group
	byKey := map[string]*group{}
	for i, p := range pairs {
		k := p.DBID + "\x00" + p.Gold
		g := byKey[k]
		if g == nil {
			g = &group{db: p.DBID, gold: p.Gold}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	rewards := make([]float64, len(pairs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, g := range groups {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			comps := make([]string, len(g.idx))
			for j, i := range g.idx {
				comps[j] = pairs[i].Pred
			}
			var ans BatchResponse
			code := postJSON(t, hs.URL+"/v1/reward", map[string]any{"db_id": g.db, "gold_sql": g.gold, "completions": comps}, &ans)
			if code != http.StatusOK || len(ans.Results) != len(comps) {
				t.Errorf("status %d, %d results", code, len(ans.Results))
				return
			}
			scores, err := trainer.ScoreGroup(context.Background(), reward.Sample{DBID: g.db, GoldSQL: g.gold}, comps)
			if err != nil || len(scores) != len(comps) {
				t.Errorf("trainer API on %s: %d scores, %v", g.db, len(scores), err)
				return
			}
			for j, i := range g.idx {
				r := ans.Results[j]
				rewards[i] = r.Reward
				p := pairs[i]
				if (r.Reward == 1) != (p.EX == 1) || r.Components["ex"] != float64(p.EX) || r.SQL != p.Pred {
					t.Errorf("pair %d (%s): reward %v class %s ex %v; official EX %d", i, p.Kind, r.Reward, r.Class, r.Components["ex"], p.EX)
				}
				// Same code, same inputs, same order of operations:
				// equal to the last bit (JSON keeps float64 exactly).
				sc := scores[j]
				if sc.Value != r.Reward || sc.Class != r.Class || sc.Error != r.Error || !maps.Equal(sc.Components, r.Components) {
					t.Errorf("pair %d (%s): trainer %v %s %q %v; server %v %s %q %v", i, p.Kind,
						sc.Value, sc.Class, sc.Error, sc.Components, r.Reward, r.Class, r.Error, r.Components)
				}
			}
		}()
	}
	wg.Wait()
	// The same pairs through OpenRLHF's protocol (chat template, padding,
	// special tokens) give the same rewards.
	const prompt = "<|im_start|>system\nYou write SQLite.<|im_end|>\n<|im_start|>user\nQuestion?<|im_end|>\n<|im_start|>assistant\n"
	for start := 0; start < len(pairs); start += 512 {
		end := min(len(pairs), start+512)
		var req OpenRLHFRequest
		for _, p := range pairs[start:end] {
			label, _ := json.Marshal(map[string]string{"db_id": p.DBID, "gold_sql": p.Gold})
			lj, _ := json.Marshal(string(label))
			req.Query = append(req.Query, "<|endoftext|><|endoftext|>"+prompt+"```sql\n"+p.Pred+"\n```<|im_end|>")
			req.Prompts = append(req.Prompts, prompt)
			req.Labels = append(req.Labels, lj)
		}
		var ans OpenRLHFResponse
		if code := postJSON(t, hs.URL+"/get_reward", req, &ans); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		for j, r := range ans.Rewards {
			if r != rewards[start+j] {
				t.Errorf("pair %d: OpenRLHF reward %v, batch API %v", start+j, r, rewards[start+j])
			}
		}
	}
}

// TestOpenRLHFClient replays what OpenRLHF's remote reward client does
// (openrlhf/utils/remote_rm_utils.py, request_api_wrapper and remote_rm_fn):
// POST {"query", "prompts", "labels"} as JSON with Content-Type
// application/json, raise on a non-2xx status, decode the JSON body, assert
// the score key is in it and take response[score_key] ("rewards"); newer
// versions keep the whole dict and read "rewards", "scores" and
// "extra_logs" (lists, one value per sample). The Python itself needs
// torch and ray to import, so it is replayed here; see
// docs/reward-server.md for the run against the real function.
func TestOpenRLHFClient(t *testing.T) {
	hs, _, _ := newTestServer(t, reward.StackOptions{}, nil)
	const gold = "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'"
	label := func() string {
		b, _ := json.Marshal(map[string]string{"db_id": "superhero", "gold_sql": gold})
		return string(b)
	}()
	// Llama 3 template, left padding as OpenRLHF decodes it.
	prompt := "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nList the powers of 3-D Man. Answer in ```sql```.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	pad := "<|end_of_text|><|end_of_text|>"
	responses := []string{
		"```sql\n" + gold + "\n```<|eot_id|>",                              // correct
		"```sql\nSELECT power_name FROM superpower LIMIT 3\n```<|eot_id|>", // wrong
		"```sql\nSELECT power_nam FROM superpower\n```<|eot_id|>",          // error
		"I don't know.<|eot_id|><|end_of_text|>",                           // no SQL
	}
	var queries, prompts, labels []string
	for _, r := range responses {
		queries = append(queries, pad+prompt+r)
		prompts = append(prompts, prompt)
		labels = append(labels, label)
	}
	data := map[string]any{"query": queries, "prompts": prompts, "labels": labels}
	raw, _ := json.Marshal(data)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/get_reward", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 180 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 { // response.raise_for_status()
		t.Fatalf("status %d", resp.StatusCode)
	}
	var response map[string]any // response.json()
	if err := json.NewDecoder(resp.Body).Decode(&response); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"rewards", "scores", "extra_logs"} { // assert score_key in response
		if _, ok := response[key]; !ok {
			t.Fatalf("%q not in %v", key, response)
		}
	}
	floats := func(v any) []float64 {
		var out []float64
		for _, x := range v.([]any) {
			out = append(out, x.(float64))
		}
		return out
	}
	rewards, scores := floats(response["rewards"]), floats(response["scores"])
	want := []float64{1, -1, -1, -1}
	if len(rewards) != 4 || rewards[0] != want[0] || rewards[2] != want[2] || rewards[3] != want[3] || rewards[1] <= 0 || rewards[1] >= 1 {
		t.Errorf("rewards %v, want [1, (0,1), -1, -1]", rewards)
	}
	for i, s := range scores {
		if s < 0 || s > 1 || s != (rewards[i]+1)/2 {
			t.Errorf("score %d = %v for reward %v: want (r+1)/2 in [0,1]", i, s, rewards[i])
		}
	}
	logs := response["extra_logs"].(map[string]any)
	for _, k := range []string{"ex", "exec_ok", "judge", "prompt_mismatch"} {
		v, ok := logs[k].([]any)
		if !ok || len(v) != 4 {
			t.Errorf("extra_logs[%q] = %v, want a list of 4", k, logs[k])
		}
	}
	if ex := floats(logs["ex"]); ex[0] != 1 || ex[1] != 0 {
		t.Errorf("extra_logs.ex %v", ex)
	}
	if pm := floats(logs["prompt_mismatch"]); pm[0] != 0 {
		t.Errorf("prompt_mismatch %v", pm)
	}
	// Old OpenRLHF sends only "query"; a label is still required (400 with
	// a message), since there is nothing to compare against.
	if code := postJSON(t, hs.URL+"/get_reward", map[string]any{"query": queries}, nil); code != http.StatusBadRequest {
		t.Errorf("query without labels: status %d, want 400", code)
	}
	// Labels as objects rather than strings, and without prompts.
	var ans OpenRLHFResponse
	objLabel := json.RawMessage(label)
	code := postJSON(t, hs.URL+"/", map[string]any{"query": queries[:1], "labels": []json.RawMessage{objLabel}}, &ans)
	if code != http.StatusOK || len(ans.Rewards) != 1 || ans.Rewards[0] != 1 {
		t.Errorf("object label, no prompts: status %d, %+v", code, ans)
	}
}

func TestResponseOf(t *testing.T) {
	const p = "<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\n"
	tests := []struct {
		name, query, prompt, want string
		ok                        bool
	}{
		{"prefix", p + "SELECT 1<|im_end|>", p, "SELECT 1<|im_end|>", true},
		{"left padding", "<|endoftext|><|endoftext|>" + p + "SELECT 1", p, "SELECT 1", true},
		{"bos differs", "<s> " + strings.TrimPrefix(p, "") + "SELECT 1", "<s>" + p, "SELECT 1", true},
		{"prompt not found, template", "<|im_start|>user\nQ ?<|im_end|>\n<|im_start|>assistant\nSELECT 2", p, "SELECT 2", false},
		{"no prompt, template", p + "SELECT 3", "", "SELECT 3", true},
		{"no prompt, llama3", "<|start_header_id|>assistant<|end_header_id|>\n\nSELECT 4<|eot_id|>", "", "SELECT 4<|eot_id|>", true},
		{"no prompt, plain", "SELECT 5", "", "SELECT 5", true},
		{"prompt repeated in response", p + "SELECT 6 " + p, p, "SELECT 6 " + p, true},
	}
	for _, tt := range tests {
		got, ok := ResponseOf(tt.query, tt.prompt)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: ResponseOf = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// copyDB makes a private copy of the superhero database for tests that
// send hostile SQL, and returns the root and the file's hash.
func copyDB(t testing.TB) (root string, hash [32]byte) {
	t.Helper()
	root = t.TempDir()
	src := filepath.Join(loadSample(t).DBRoot, "superhero", "superhero.sqlite")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "superhero"), 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, "superhero", "superhero.sqlite")
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root, sha256.Sum256(data)
}

func fileHash(t testing.TB, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// TestBadInput: every kind of bad request gets a clear 4xx with a JSON
// message, hostile SQL gets a scored error, the database never changes,
// and the server keeps answering.
func TestBadInput(t *testing.T) {
	root, before := copyDB(t)
	// Databases the engine refuses to open (sqlexec.SQLite.Check): a file
	// that is not SQLite, and a link out of the root. Both are the label's
	// fault, not the machine's: 422, not a retryable 503.
	for db, create := range map[string]func(path string) error{
		"junk": func(path string) error { return os.WriteFile(path, []byte("not a database"), 0o644) },
		"outside": func(path string) error {
			return os.Symlink(filepath.Join(loadSample(t).DBRoot, "superhero", "superhero.sqlite"), path)
		},
	} {
		if err := os.MkdirAll(filepath.Join(root, db), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := create(filepath.Join(root, db, db+".sqlite")); err != nil {
			t.Fatal(err)
		}
	}
	hs, _, _ := newTestServer(t, reward.StackOptions{DBRoot: root, QueryTimeout: 300 * time.Millisecond}, func(c *Config) {
		c.MaxBodyBytes = 1 << 20
		c.MaxItems = 100
		c.Questions = nil
	})
	good := map[string]any{"db_id": "superhero", "gold_sql": "SELECT COUNT(*) FROM superhero", "completions": []string{"SELECT COUNT(*) FROM superhero"}}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range good {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	label := func(l string) []byte {
		b, _ := json.Marshal(map[string]any{"query": []string{"SELECT 1"}, "labels": []string{l}})
		return b
	}
	huge := append([]byte(`{"db_id": "superhero", "gold_sql": "SELECT 1", "completions": ["`), bytes.Repeat([]byte("x"), 2<<20)...)
	huge = append(huge, `"]}`...)
	tests := []struct {
		name string
		path string
		body any
		want int
	}{
		{"not json", "/v1/reward", "{not json", 400},
		{"empty body", "/v1/reward", "", 400},
		{"two values", "/v1/reward", `{"completions": []} {}`, 400},
		{"wrong types", "/v1/reward", `{"db_id": 3, "completions": "SELECT 1"}`, 400},
		{"missing completions", "/v1/reward", with("completions", nil), 400},
		{"missing db", "/v1/reward", with("db_id", nil), 400},
		{"missing gold", "/v1/reward", with("gold_sql", nil), 400},
		{"path as db", "/v1/reward", with("db_id", "../superhero/superhero.sqlite"), 400},
		{"absolute path as db", "/v1/reward", with("db_id", "/etc/passwd"), 400},
		{"unknown db", "/v1/reward", with("db_id", "no_such_db"), 422},
		{"db not sqlite", "/v1/reward", with("db_id", "junk"), 422},
		{"db linked out of the root", "/v1/reward", with("db_id", "outside"), 422},
		{"question_id without benchmark", "/v1/reward", map[string]any{"question_id": 1, "completions": []string{"SELECT 1"}}, 422},
		{"broken gold", "/v1/reward", with("gold_sql", "SELECT nope FROM superhero"), 422},
		{"writing gold", "/v1/reward", with("gold_sql", "DELETE FROM superhero"), 422},
		{"too many completions", "/v1/reward", with("completions", make([]string, 101)), 413},
		{"huge body", "/v1/reward", huge, 413},
		{"openrlhf empty", "/get_reward", `{}`, 400},
		{"openrlhf no labels", "/get_reward", `{"query": ["SELECT 1"]}`, 400},
		{"openrlhf label not json", "/get_reward", label("superhero"), 400},
		{"openrlhf label without db", "/get_reward", label(`{"gold_sql": "SELECT 1"}`), 400},
		{"openrlhf label unknown db", "/get_reward", label(`{"db_id": "nope", "gold_sql": "SELECT 1"}`), 422},
		{"openrlhf prompts mismatch", "/get_reward", `{"query": ["a", "b"], "prompts": ["a"], "labels": ["{}", "{}"]}`, 400},
		{"openrlhf labels mismatch", "/get_reward", `{"query": ["a", "b"], "labels": ["{}"]}`, 400},
	}
	for _, tt := range tests {
		if got := postJSON(t, hs.URL+tt.path, tt.body, nil); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		req, _ := http.NewRequest(m, hs.URL+"/v1/reward", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || string(body) != `{"error":"use POST"}`+"\n" {
			t.Errorf("%s: status %d, Allow %q, %s", m, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
	if code := postJSON(t, hs.URL+"/nope", "{}", nil); code != 404 {
		t.Errorf("unknown path: %v", code)
	}

	// Hostile completions are scored errors, never applied.
	hostile := []string{
		"DELETE FROM superhero",
		"DROP TABLE superhero",
		"UPDATE superhero SET height_cm = 0",
		"INSERT INTO superhero DEFAULT VALUES",
		"WITH x AS (SELECT 1) DELETE FROM superhero",
		"SELECT 1; DELETE FROM superhero",
		"ATTACH DATABASE 'probe.sqlite' AS probe",
		"PRAGMA writable_schema = ON",
		"CREATE TABLE t(x)",
		"VACUUM",
		"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT COUNT(*) FROM r",
		"SELECT COUNT(*) FROM superhero a, superhero b, superhero c, superhero d",
		"",
		strings.Repeat("(", 100000),
	}
	var ans BatchResponse
	if code := postJSON(t, hs.URL+"/v1/reward", with("completions", hostile), &ans); code != 200 {
		t.Fatalf("hostile completions: status %d", code)
	}
	for i, r := range ans.Results {
		if r.Reward != -1 || r.Components["exec_ok"] != 0 {
			t.Errorf("hostile %d %q: reward %v class %s", i, textclip.Clip(hostile[i], 60), r.Reward, r.Class)
		}
	}
	if got := fileHash(t, filepath.Join(root, "superhero", "superhero.sqlite")); got != before {
		t.Error("the database file changed")
	}
	if _, err := os.Stat("probe.sqlite"); err == nil {
		t.Error("ATTACH created a file")
	}
	// Still serving.
	if code := postJSON(t, hs.URL+"/v1/reward", good, &ans); code != 200 || ans.Results[0].Reward != 1 {
		t.Errorf("after bad input: status %d, %+v", code, ans)
	}
}

// TestRunawayAndDisconnect: a query that never ends is stopped by the
// query timeout and scored; a client that disconnects mid-request cancels
// its queries (the connection is free again at once); a request past its
// deadline gets a 504; everyone else keeps being served meanwhile.
func TestRunawayAndDisconnect(t *testing.T) {
	root, before := copyDB(t)
	const runaway = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT COUNT(*) FROM r"
	good := map[string]any{"db_id": "superhero", "gold_sql": "SELECT COUNT(*) FROM superhero", "completions": []string{"SELECT COUNT(*) FROM superhero"}}
	hung := map[string]any{"db_id": "superhero", "gold_sql": "SELECT COUNT(*) FROM superhero", "completions": []string{runaway}}

	t.Run("timeout is scored", func(t *testing.T) {
		hs, _, _ := newTestServer(t, reward.StackOptions{DBRoot: root, QueryTimeout: 400 * time.Millisecond, ConnsPerDB: 2}, nil)
		done := make(chan BatchResponse)
		go func() {
			var a BatchResponse
			postJSON(t, hs.URL+"/v1/reward", hung, &a)
			done <- a
		}()
		time.Sleep(50 * time.Millisecond)
		var ans BatchResponse
		if code := postJSON(t, hs.URL+"/v1/reward", good, &ans); code != 200 || ans.Results[0].Reward != 1 {
			t.Errorf("while a runaway runs: status %d %+v", code, ans)
		}
		a := <-done
		if len(a.Results) != 1 || a.Results[0].Class != "timeout" || a.Results[0].Reward != -1 {
			t.Errorf("runaway: %+v", a)
		}
	})

	t.Run("disconnect cancels", func(t *testing.T) {
		// One connection per database and no practical time limit: the
		// abandoned request's handler (which waits for its queries) only
		// returns, and is counted as 499, when its runaway is canceled;
		// after that the database's one connection must be free, so the
		// next request's gold and completion run.
		hs, srv, st := newTestServer(t, reward.StackOptions{DBRoot: root, QueryTimeout: time.Hour, ConnsPerDB: 1}, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		raw, _ := json.Marshal(hung)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/v1/reward", bytes.NewReader(raw))
		errc := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		for st.Scorer.CacheStats().Misses < 2 {
			time.Sleep(5 * time.Millisecond) // until the gold ran and the runaway started
		}
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("the runaway request returned")
		}
		for {
			n := srv.http.Requests("v1", 499)
			if n == 1 {
				break
			}
			time.Sleep(10 * time.Millisecond) // until go test's -timeout, if the runaway was not canceled
		}
		var ans BatchResponse
		if code := postJSON(t, hs.URL+"/v1/reward", good, &ans); code != 200 || ans.Results[0].Reward != 1 {
			t.Errorf("after a disconnect: status %d %+v", code, ans)
		}
	})

	t.Run("request deadline", func(t *testing.T) {
		hs, _, _ := newTestServer(t, reward.StackOptions{DBRoot: root, QueryTimeout: 10 * time.Second}, func(c *Config) {
			c.RequestTimeout = 300 * time.Millisecond
		})
		if code := postJSON(t, hs.URL+"/v1/reward", hung, nil); code != http.StatusGatewayTimeout {
			t.Errorf("status %d, want 504", code)
		}
		var ans BatchResponse
		if code := postJSON(t, hs.URL+"/v1/reward", good, &ans); code != 200 {
			t.Errorf("after a 504: status %d", code)
		}
	})
	if got := fileHash(t, filepath.Join(root, "superhero", "superhero.sqlite")); got != before {
		t.Error("the database file changed")
	}
}

// TestJudgeFaults: an LLM judge that hangs, answers garbage or fails makes
// the server fall back to the analytic judge (judge_fallback = 1) after its
// retries; the server keeps answering.
func TestJudgeFaults(t *testing.T) {
	var mu sync.Mutex
	mode := "good"
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body: only then does net/http notice a client that
		// goes away (and cancel r.Context()).
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		m := mode
		mu.Unlock()
		switch m {
		case "hang":
			<-r.Context().Done()
		case "garbage":
			fmt.Fprint(w, `{"choices": [{"message": {"role": "assistant", "content": "Nice query!"}}]}`)
		case "500":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			fmt.Fprint(w, `{"choices": [{"message": {"role": "assistant", "content": "Close.\nGrade: 40/50"}}]}`)
		}
	}))
	defer judge.Close()
	j := reward.NewLLMJudge(judge.URL+"/v1", "m", "")
	j.Timeout, j.Retries, j.Backoff = 200*time.Millisecond, 1, 10*time.Millisecond
	hs, _, _ := newTestServer(t, reward.StackOptions{Reward: reward.Config{Kind: reward.KindJudge, Judge: j}, NoMemo: true}, nil)
	for i, m := range []string{"good", "hang", "garbage", "500", "good"} {
		mu.Lock()
		mode = m
		mu.Unlock()
		// A different answer each time: the judge caches its grades.
		req := map[string]any{"db_id": "superhero", "gold_sql": "SELECT superhero_name FROM superhero WHERE id < 10",
			"completions": []string{fmt.Sprintf("SELECT superhero_name FROM superhero WHERE id < %d", i+2)}}
		var ans BatchResponse
		code := postJSON(t, hs.URL+"/v1/reward", req, &ans)
		if code != 200 || len(ans.Results) != 1 {
			t.Fatalf("%s: status %d", m, code)
		}
		r := ans.Results[0]
		fallback := r.Components["judge_fallback"] == 1
		if fallback != (m != "good") {
			t.Errorf("%s: judge_fallback %v", m, r.Components["judge_fallback"])
		}
		if m == "good" && r.Reward != 0.8 {
			t.Errorf("good judge: reward %v, want 0.8", r.Reward)
		}
		if fallback && (r.Reward <= 0 || r.Reward >= 1) {
			t.Errorf("%s: fallback reward %v", m, r.Reward)
		}
	}
}

func TestQuestionIDLabels(t *testing.T) {
	b := loadSample(t)
	qs := map[int]dataset.Example{}
	for _, ex := range b.Examples {
		qs[ex.QuestionID] = ex
	}
	hs, _, _ := newTestServer(t, reward.StackOptions{}, func(c *Config) { c.Questions = qs })
	ex := b.Examples[0]
	var ans BatchResponse
	code := postJSON(t, hs.URL+"/v1/reward", map[string]any{"question_id": ex.QuestionID, "completions": []string{ex.SQL, "SELECT 1"}}, &ans)
	if code != 200 || ans.Results[0].Reward != 1 || ans.Results[1].Reward == 1 {
		t.Errorf("question_id: status %d %+v", code, ans)
	}
	lab, _ := json.Marshal(fmt.Sprintf(`{"question_id": %d}`, ex.QuestionID))
	var or OpenRLHFResponse
	code = postJSON(t, hs.URL+"/get_reward", fmt.Sprintf(`{"query": [%q], "labels": [%s]}`, ex.SQL, lab), &or)
	if code != 200 || or.Rewards[0] != 1 {
		t.Errorf("openrlhf question_id: status %d %+v", code, or)
	}
	if code := postJSON(t, hs.URL+"/v1/reward", map[string]any{"question_id": -7, "completions": []string{"SELECT 1"}}, nil); code != 422 {
		t.Errorf("unknown question_id: status %d", code)
	}
}

// TestMetricsAndHealth checks /healthz and that /metrics is valid text
// exposition with the series the dashboards need.
func TestMetricsAndHealth(t *testing.T) {
	hs, _, _ := newTestServer(t, reward.StackOptions{}, nil)
	req := map[string]any{"db_id": "superhero", "gold_sql": "SELECT COUNT(*) FROM superhero",
		"completions": []string{"SELECT COUNT(*) FROM superhero", "SELECT COUNT(*) FROM superhero", "SELECT nope", "SELECT 1"}}
	postJSON(t, hs.URL+"/v1/reward", req, nil)
	postJSON(t, hs.URL+"/v1/reward", "bad", nil)
	resp, err := http.Get(hs.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	health, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(health) != `{"reward":"gate","status":"ok"}`+"\n" {
		t.Errorf("healthz: %s", health)
	}
	resp, err = http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	line := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? -?[0-9.e+Inf-]+$`)
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE ") {
			continue
		}
		if !line.MatchString(l) {
			t.Errorf("malformed metrics line %q", l)
		}
	}
	for _, want := range []string{
		`sqlrl_reward_requests_total{endpoint="v1",code="200"} 1`,
		`sqlrl_reward_requests_total{endpoint="v1",code="400"} 1`,
		`sqlrl_reward_request_duration_seconds_count{endpoint="v1"} 2`,
		`sqlrl_reward_request_duration_seconds_bucket{endpoint="v1",le="+Inf"} 2`,
		`sqlrl_reward_value_count 4`,
		`sqlrl_reward_value_bucket{le="-1"} 1`,
		`sqlrl_reward_completions_total{class="correct"} 2`,
		`sqlrl_reward_completions_total{class="unknown_column"} 1`,
		`sqlrl_reward_completions_total{class="wrong_result"} 1`,
		`sqlrl_reward_score_cache_lookups_total{result="hit"} 1`,
		`sqlrl_reward_score_cache_lookups_total{result="miss"} 3`,
		`sqlrl_reward_result_cache_lookups_total{result="miss"}`,
		`# TYPE sqlrl_reward_request_duration_seconds histogram`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// funcReward adapts a function to reward.Func.
type funcReward func(context.Context, reward.Sample) (reward.Score, error)

func (f funcReward) Reward(ctx context.Context, s reward.Sample) (reward.Score, error) {
	return f(ctx, s)
}

// TestFailuresInsideScoring: a reward that panics costs its request a 500
// and nothing else; a judge that fails without fallback is a 502.
func TestFailuresInsideScoring(t *testing.T) {
	f := funcReward(func(_ context.Context, s reward.Sample) (reward.Score, error) {
		switch s.Completion {
		case "panic":
			var m map[string]int
			m["boom"]++ // a nil-map write, as a real bug would do
		case "judge":
			return reward.Score{}, fmt.Errorf("llm judge: %w: down", reward.ErrJudge)
		}
		return reward.Score{Value: 1, Class: "correct"}, nil
	})
	srv, err := New(Config{Reward: f})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	req := func(c string) map[string]any {
		return map[string]any{"db_id": "d", "gold_sql": "SELECT 1", "completions": []string{"SELECT 1", c}}
	}
	if code := postJSON(t, hs.URL+"/v1/reward", req("panic"), nil); code != http.StatusInternalServerError {
		t.Errorf("panic: status %d, want 500", code)
	}
	// The client learns which item failed, not the panic or its stack.
	raw, _ := json.Marshal(req("panic"))
	resp, err := http.Post(hs.URL+"/v1/reward", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "internal error scoring item 1") || strings.Contains(string(body), "nil map") || strings.Contains(string(body), "goroutine") {
		t.Errorf("panic: body %s", body)
	}
	if code := postJSON(t, hs.URL+"/v1/reward", req("judge"), nil); code != http.StatusBadGateway {
		t.Errorf("judge failure: status %d, want 502", code)
	}
	var ans BatchResponse
	if code := postJSON(t, hs.URL+"/v1/reward", req("fine"), &ans); code != 200 || len(ans.Results) != 2 {
		t.Errorf("after a panic: status %d", code)
	}
}
