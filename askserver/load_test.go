package askserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/fakechat"
)

// loadServers starts n in-process servers sharing one SQLite store, with
// the OpenAI generator pointed at a fakechat.Server that knows qs. It returns
// their base URLs, the store and the config.
func loadServers(t *testing.T, n int, qs []LoadQuestion) ([]string, feedback.Store, *Config) {
	t.Helper()
	fake := &fakechat.Server{}
	fake.Set(fakeAnswers(qs))
	llm := httptest.NewServer(fake)
	t.Cleanup(llm.Close)
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}, "student_club": {"sqlite": %q}},
		"generator": {"openai": {"base_url": %q, "model": "load-fake"}},
		"api_keys": {"alice": {"key": %q}}}`, benchDB(t, "superhero"), benchDB(t, "student_club"), llm.URL+"/v1", testKey)
	c, err := ParseConfig(filepath.Join(dir, "serve.json"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	st, err := feedback.Open(context.Background(), c.Store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var urls []string
	for range n {
		s, err := New(context.Background(), c, Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		_, ts := serveTest(t, s)
		urls = append(urls, ts.URL)
	}
	return urls, st, c
}

func sampleQuestions() []LoadQuestion {
	return BuiltinLoadQuestions(map[string][]string{"superhero": {"superhero", "colour"}, "student_club": {"member"}})
}

// TestLoadShort: 8 clients for 2 s on two servers sharing a store answer
// every request, every outcome the built-in questions aim at is reached
// (so the fake model answered each question with its own SQL), and every
// acknowledged answer and feedback is in the store with its content.
func TestLoadShort(t *testing.T) {
	qs := sampleQuestions()
	urls, st, _ := loadServers(t, 2, qs)
	rep, err := RunLoad(context.Background(), LoadOptions{Targets: urls, Key: testKey, Questions: qs, Clients: 8,
		Duration: 2 * time.Second, FeedbackShare: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Verify(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	rep.WriteText(&sb)
	t.Log(sb.String())
	for _, route := range []string{RouteAsk, RouteFeedback} {
		r := rep.Routes[route]
		if r.OK == 0 || r.HTTPErrors() != 0 || r.ConnErrors != 0 || r.P50MS <= 0 || r.P99MS < r.P50MS || r.MaxMS < r.P99MS {
			t.Errorf("%s: %+v", route, r)
		}
	}
	for _, class := range []string{"ok", "unknown_column", "write_attempt"} {
		if rep.Outcomes[class] == 0 {
			t.Errorf("no answer with outcome %s: %v", class, rep.Outcomes)
		}
	}
	if !rep.Verified || rep.Lost != 0 || rep.AckedAnswers == 0 || rep.AckedFeedback == 0 {
		t.Errorf("verified %v, lost %d of %d answers and %d feedback: %v", rep.Verified, rep.Lost, rep.AckedAnswers, rep.AckedFeedback, rep.LostSample)
	}
	// Verify finds what is missing or altered: against an empty store
	// everything is lost, and one acknowledged SQL changed is one loss.
	empty, err := feedback.Open(context.Background(), filepath.Join(t.TempDir(), "empty.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if err := rep.Verify(context.Background(), empty); err != nil {
		t.Fatal(err)
	}
	if rep.Lost != rep.AckedAnswers+rep.AckedFeedback {
		t.Errorf("against an empty store: lost %d, want %d", rep.Lost, rep.AckedAnswers+rep.AckedFeedback)
	}
	rep.answers[0].sql += " "
	if err := rep.Verify(context.Background(), st); err != nil || rep.Lost != 1 || !strings.Contains(rep.LostSample[0], "stored as") {
		t.Errorf("one altered answer: lost %d %v, %v", rep.Lost, rep.LostSample, err)
	}
}

// TestLoadRetriesWhileDown: a server that goes away mid-run (its listener
// and connections closed, then the same address served again 300 ms later)
// costs connection errors, retried, and no HTTP error and no acknowledged
// write.
func TestLoadRetriesWhileDown(t *testing.T) {
	qs := sampleQuestions()
	fake := &fakechat.Server{}
	fake.Set(fakeAnswers(qs))
	llm := httptest.NewServer(fake)
	defer llm.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}, "student_club": {"sqlite": %q}},
		"generator": {"openai": {"base_url": %q, "model": "load-fake"}}, "api_keys": {"alice": {"key": %q}}}`,
		benchDB(t, "superhero"), benchDB(t, "student_club"), llm.URL+"/v1", testKey)
	c, err := ParseConfig(filepath.Join(dir, "serve.json"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	st, err := feedback.Open(context.Background(), c.Store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := New(context.Background(), c, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(ln)
	defer func() { srv.Close() }()
	disrupt := func(context.Context) error {
		srv.Close()
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		srv = &http.Server{Handler: s.Handler()}
		go srv.Serve(ln)
		return nil
	}
	rep, err := RunLoad(context.Background(), LoadOptions{Targets: []string{"http://" + addr}, Key: testKey, Questions: qs, Clients: 4,
		Duration: 1500 * time.Millisecond, FeedbackShare: 0.5, Seed: 2, Disrupt: disrupt, DisruptAfter: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Verify(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	// Which route's requests meet the 300 ms outage depends on timing (a
	// loaded machine may have only feedback in flight), so the connection
	// errors are counted over both routes.
	ask, fb := rep.Routes[RouteAsk], rep.Routes[RouteFeedback]
	if rep.DisruptError != "" || ask.ConnErrors+fb.ConnErrors == 0 || ask.HTTPErrors() != 0 || fb.HTTPErrors() != 0 || rep.Lost != 0 || ask.OK == 0 {
		var sb strings.Builder
		rep.WriteText(&sb)
		t.Errorf("a server down for 300 ms:\n%s", sb.String())
	}
}

func TestReadLoadQuestions(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text, want string
		n                int
	}{
		{"ok", `{"db": "superhero", "question": "How many?", "sql": "SELECT 1"}` + "\n\n" + `{"db": "x", "question": "q"}`, "", 2},
		{"unknown field", `{"db": "superhero", "question": "q", "gold": "x"}`, ": line 1: json: unknown field", 0},
		{"no question", `{"db": "superhero"}`, `: line 1: want "db" and "question"`, 0},
		{"empty", "\n", ": no questions", 0},
	} {
		p := filepath.Join(dir, tt.name+".jsonl")
		os.WriteFile(p, []byte(tt.text), 0o644)
		qs, err := ReadLoadQuestions(p)
		if tt.want == "" && (err != nil || len(qs) != tt.n) || tt.want != "" && (err == nil || !strings.Contains(err.Error(), p+tt.want)) {
			t.Errorf("%s: %d questions, %v", tt.name, len(qs), err)
		}
	}
}

// TestHostileInput is issue 13's hostile-input list, each item refused
// with a clear message (or, for XSS, carried as JSON text only) and the
// database file and the store unchanged by it. TestAskRefused, TestFeedback
// and TestInjectionThroughQuestion check the messages item by item; this
// adds what they leave out: the database's bytes and the store's contents
// compared before and after every item, XSS through a question and through
// result cells, injection through evidence and the database name, bad keys
// in several forms (a prefix, a suffix, Basic auth; reload too), and
// corrections that write in other guises (a CTE, ATTACH, PRAGMA, a second
// statement).
func TestHostileInput(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{
		"xss data":      `SELECT '<script>alert(1)</script>' AS "<img src=x onerror=alert(2)>", 1 AS n`,
		"count":         "SELECT COUNT(*) FROM superhero",
		"attach please": "ATTACH DATABASE '/tmp/sqlrl-hostile.sqlite' AS x",
	}}
	s, ts := newTest(t, gen, nil)
	db := benchDB(t, "superhero")
	id := int64(ask(t, ts, "superhero", "count")["answer_id"].(float64))
	fbPath := fmt.Sprintf("/api/answers/%d/feedback", id)
	fileSum := func() [32]byte {
		b, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	// The store's contents as the API's history lists them (answers and
	// their feedback).
	storeDump := func() string {
		p, err := s.store.History(context.Background(), feedback.Filter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		return string(b)
	}
	type request struct {
		method, path string
		header       map[string]string
		body         string
	}
	tests := []struct {
		name string
		req  request
		code int
		want string // in the error message, or (200) in the raw body
		// records: a 200 that records an answer (or a feedback): the store
		// grows by exactly that, checked by the answer's own lookup.
		records bool
	}{
		{"injection in question", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "'; DROP TABLE superhero; --"}`}, 200, `"sql":"SELECT COUNT(*) FROM superhero"`, true},
		{"injection in evidence", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "count", "evidence": "\"); DELETE FROM superhero; --"}`}, 200, `"rows":[[750]]`, true},
		{"injection in db name", request{"POST", "/api/ask", nil, `{"db": "superhero; DROP TABLE superhero", "question": "count"}`}, 404, "no database", false},
		{"path traversal db name", request{"POST", "/api/ask", nil, `{"db": "../../etc/passwd", "question": "count"}`}, 404, "no database", false},
		{"unknown field", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "count", "evidance": "typo"}`}, 400, `unknown field "evidance"`, false},
		{"generated write", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "attach please"}`}, 200, `"class":"`, true},
		{"xss in question", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "<script>alert(1)</script>"}`}, 200, `"question":"<script>alert(1)</script>"`, true},
		{"xss in data", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "xss data"}`}, 200, `"rows":[["<script>alert(1)</script>",1]]`, true},
		{"oversize ask", request{"POST", "/api/ask", nil, `{"db": "superhero", "question": "` + strings.Repeat("x", 5000) + `"}`}, 413, "larger than 4096", false},
		{"oversize feedback", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"verdict": "up", "comment": "` + strings.Repeat("x", 5000) + `"}`}, 413, "larger than 4096", false},
		{"no key", request{"POST", fbPath, nil, `{"verdict": "up"}`}, 401, "needs an API key", false},
		{"wrong key", request{"POST", fbPath, map[string]string{"X-API-Key": "wrong-key-0123456789"}, `{"verdict": "up"}`}, 403, "not recognised", false},
		{"wrong bearer", request{"POST", fbPath, map[string]string{"Authorization": "Bearer wrong-key-0123456789"}, `{"verdict": "up"}`}, 403, "not recognised", false},
		{"key prefix", request{"POST", fbPath, map[string]string{"X-API-Key": testKey[:16]}, `{"verdict": "up"}`}, 403, "not recognised", false},
		{"key with suffix", request{"POST", fbPath, map[string]string{"X-API-Key": testKey + "x"}, `{"verdict": "up"}`}, 403, "not recognised", false},
		{"basic auth", request{"POST", fbPath, map[string]string{"Authorization": "Basic " + testKey}, `{"verdict": "up"}`}, 403, "not recognised", false},
		{"reload wrong key", request{"POST", "/api/admin/reload", map[string]string{"X-API-Key": "wrong-key-0123456789"}, ""}, 403, "not recognised", false},
		{"correction drop", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"verdict": "up", "corrected_sql": "DROP TABLE superhero"}`}, 422, "nothing was stored", false},
		{"correction delete", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"corrected_sql": "DELETE FROM superhero"}`}, 422, "read-only", false},
		{"correction select then delete", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"corrected_sql": "SELECT 1; DELETE FROM superhero"}`}, 0, "", false},
		{"correction attach", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"corrected_sql": "ATTACH DATABASE '/tmp/sqlrl-hostile.sqlite' AS x"}`}, 0, "", false},
		{"correction pragma", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"corrected_sql": "PRAGMA writable_schema = 1"}`}, 0, "", false},
		{"correction cte write", request{"POST", fbPath, map[string]string{"X-API-Key": testKey}, `{"corrected_sql": "WITH x AS (SELECT 1) UPDATE superhero SET id = 0"}`}, 422, "read-only", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, before := fileSum(), storeDump()
			req, _ := http.NewRequest(tt.req.method, ts.URL+tt.req.path, strings.NewReader(tt.req.body))
			for k, v := range tt.req.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q: an API answer must never be taken for HTML", ct)
			}
			var out map[string]any
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("%d, not JSON: %q", resp.StatusCode, raw)
			}
			msg, _ := out["error"].(string)
			switch {
			case tt.code == 0:
				// Either refused (422: a write) or stored as a failed
				// correction (a statement SQLite will not run read-only);
				// never run.
				if resp.StatusCode == 200 && out["correction"] != "error" || resp.StatusCode != 200 && resp.StatusCode != 422 {
					t.Errorf("%d %s", resp.StatusCode, raw)
				}
			case resp.StatusCode != tt.code:
				t.Errorf("%d %s, want %d", resp.StatusCode, raw, tt.code)
			case tt.code == 200 && !strings.Contains(string(raw), tt.want):
				t.Errorf("answer %s, want %s", raw, tt.want)
			case tt.code != 200 && !strings.Contains(msg, tt.want):
				t.Errorf("error %q, want %q", msg, tt.want)
			}
			for _, leak := range []string{db, filepath.Dir(db), "goroutine ", ".go:"} {
				if strings.Contains(string(raw), leak) {
					t.Errorf("answer leaks %q: %s", leak, raw)
				}
			}
			if after := fileSum(); after != sum {
				t.Errorf("the database file changed")
			}
			after := storeDump()
			switch {
			case resp.StatusCode == 200 && tt.records:
				id := int64(out["answer_id"].(float64))
				e, err := s.store.Answer(context.Background(), id)
				if err != nil || e.Question != strings.TrimSpace(out["question"].(string)) {
					t.Errorf("answer %d stored as %+v, %v", id, e, err)
				}
			case resp.StatusCode == 200:
				// A failed correction is stored as such, never as a target.
				e, err := s.store.Answer(context.Background(), id)
				if err != nil || len(e.Feedback) == 0 || e.Feedback[len(e.Feedback)-1].Correction != feedback.CorrectionError {
					t.Errorf("correction stored as %+v, %v", e.Feedback, err)
				}
			case after != before:
				t.Errorf("a refused request changed the store:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	if _, err := os.Stat("/tmp/sqlrl-hostile.sqlite"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an ATTACH created /tmp/sqlrl-hostile.sqlite: %v", err)
	}
	if n := ask(t, ts, "superhero", "count")["rows"].([]any)[0].([]any)[0]; n != 750.0 {
		t.Errorf("superhero has %v rows after the hostile requests", n)
	}
}
