package askserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/feedback"
)

const testKey = "test-key-0123456789abcdef"

// fakeGen answers with the SQL a test maps the question to; the question
// itself never becomes SQL.
type fakeGen struct {
	sql  map[string]string
	fail bool
	hang bool
	seen []Question
}

func (g *fakeGen) Name() string { return "fake" }

func (g *fakeGen) Generate(ctx context.Context, q Question) (string, error) {
	g.seen = append(g.seen, q)
	switch {
	case g.hang:
		<-ctx.Done()
		return "", ctx.Err()
	case g.fail:
		return "", errors.New("dial tcp 10.1.2.3:8000: connection refused")
	}
	if s, ok := g.sql[q.Question]; ok {
		return s, nil
	}
	return "SELECT COUNT(*) FROM superhero", nil
}

func benchDB(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "datasets", "bird-dev-sample", "dev_databases", name, name+".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newTest starts a server over the bundled superhero and student_club
// databases with a fake generator and a SQLite store in a temporary folder.
func newTest(t *testing.T, gen *fakeGen, mutate func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}, "student_club": {"sqlite": %q}},
		"api_keys": {"alice": {"key": %q}},
		"limits": {"page_size": 10, "max_rows": 100, "max_body_bytes": 4096, "statement_timeout": "5s"}}`,
		benchDB(t, "superhero"), benchDB(t, "student_club"), testKey)
	path := filepath.Join(dir, "serve.json")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(c)
	}
	if c.Store != filepath.Join(dir, "feedback.sqlite") {
		t.Errorf("default store %s, want feedback.sqlite beside the config", c.Store)
	}
	s, err := New(context.Background(), c, Options{Generator: gen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return serveTest(t, s)
}

// serveTest serves s on a test server closed at the end of the test.
func serveTest(t *testing.T, s *Server) (*Server, *httptest.Server) {
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

func call(t *testing.T, ts *httptest.Server, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, ts.URL+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %q", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func ask(t *testing.T, ts *httptest.Server, db, q string) map[string]any {
	t.Helper()
	code, out := call(t, ts, "POST", "/api/ask", "", map[string]string{"db": db, "question": q})
	if code != 200 {
		t.Fatalf("ask %q: %d %v", q, code, out)
	}
	return out
}

func TestAsk(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{
		"how many heroes":  "SELECT COUNT(*) AS n FROM superhero",
		"colours":          "SELECT colour, id FROM colour ORDER BY id",
		"ids":              "SELECT id FROM superhero ORDER BY id",
		"broken":           "SELECT nope FROM superhero",
		"write":            "DELETE FROM superhero",
		"two numbers":      "SELECT id, id * 2 FROM colour ORDER BY id LIMIT 3",
		"two texts":        "SELECT colour, colour FROM colour LIMIT 3",
		"empty":            "SELECT id FROM colour WHERE 0",
		"<script>alert(1)": "SELECT '<script>alert(2)</script>' AS \"<b>x</b>\"",
	}}
	_, ts := newTest(t, gen, nil)
	tests := []struct {
		question   string
		wantErr    string // error class, "" for none
		total      float64
		truncated  bool
		chart      bool
		chartLabel string
	}{
		{"how many heroes", "", 1, false, false, ""},
		{"colours", "", 35, false, true, "colour"},
		{"ids", "", 100, true, false, ""},
		{"broken", "unknown_column", 0, false, false, ""},
		{"write", "write_attempt", 0, false, false, ""},
		{"two numbers", "", 3, false, true, "id"},
		{"two texts", "", 3, false, false, ""},
		{"empty", "", 0, false, false, ""},
		{"<script>alert(1)", "", 1, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			out := ask(t, ts, "superhero", tt.question)
			if out["sql"] != gen.sql[tt.question] {
				t.Errorf("sql %v, want the generator's %q", out["sql"], gen.sql[tt.question])
			}
			e, _ := out["error"].(map[string]any)
			if got, _ := e["class"].(string); got != tt.wantErr {
				t.Errorf("error %v, want class %q", out["error"], tt.wantErr)
			}
			if out["total_rows"] != tt.total || out["truncated"] != tt.truncated {
				t.Errorf("total_rows %v truncated %v, want %v %v", out["total_rows"], out["truncated"], tt.total, tt.truncated)
			}
			ch, _ := out["chart"].(map[string]any)
			if (ch != nil) != tt.chart || (ch != nil && ch["label"] != tt.chartLabel) {
				t.Errorf("chart %v, want %v with label %q", ch, tt.chart, tt.chartLabel)
			}
			if rows := out["rows"].([]any); len(rows) > 10 {
				t.Errorf("first page has %d rows, page size 10", len(rows))
			}
			if id, _ := out["answer_id"].(float64); id <= 0 {
				t.Errorf("no answer id: %v", out)
			}
		})
	}
	// The hostile question and cell come back verbatim, as data.
	h := ask(t, ts, "superhero", "<script>alert(1)")
	if h["question"] != "<script>alert(1)" || h["columns"].([]any)[0] != "<b>x</b>" || h["rows"].([]any)[0].([]any)[0] != "<script>alert(2)</script>" {
		t.Errorf("hostile text not returned verbatim: %v", h)
	}
	// The chart of colours: labels and values in row order.
	c := ask(t, ts, "superhero", "colours")["chart"].(map[string]any)
	if c["labels"].([]any)[0] != "No Colour" || c["values"].([]any)[0] != 1.0 || c["value"] != "id" {
		t.Errorf("chart %v", c)
	}
}

func TestPaging(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"ids": "SELECT id FROM superhero ORDER BY id", "broken": "SELECT nope"}}
	_, ts := newTest(t, gen, nil)
	id := int(ask(t, ts, "superhero", "ids")["answer_id"].(float64))
	bad := int(ask(t, ts, "superhero", "broken")["answer_id"].(float64))
	tests := []struct {
		path  string
		code  int
		first float64
	}{
		{fmt.Sprintf("/api/answers/%d/rows", id), 200, 1},
		{fmt.Sprintf("/api/answers/%d/rows?page=2", id), 200, 11},
		{fmt.Sprintf("/api/answers/%d/rows?page=10", id), 200, 91},
		{fmt.Sprintf("/api/answers/%d/rows?page=11", id), 404, 0},
		{fmt.Sprintf("/api/answers/%d/rows?page=0", id), 400, 0},
		{fmt.Sprintf("/api/answers/%d/rows?page=x", id), 400, 0},
		{fmt.Sprintf("/api/answers/%d/rows", bad), 409, 0},
		{"/api/answers/999999/rows", 404, 0},
		{"/api/answers/abc/rows", 400, 0},
	}
	for _, tt := range tests {
		code, out := call(t, ts, "GET", tt.path, "", nil)
		if code != tt.code {
			t.Errorf("%s: %d %v, want %d", tt.path, code, out, tt.code)
			continue
		}
		if code == 200 {
			if got := out["rows"].([]any)[0].([]any)[0]; got != tt.first || out["pages"] != 10.0 {
				t.Errorf("%s: first id %v pages %v, want %v of 10", tt.path, got, out["pages"], tt.first)
			}
		} else if out["error"] == "" {
			t.Errorf("%s: no error message", tt.path)
		}
	}
}

func TestAskRefused(t *testing.T) {
	_, ts := newTest(t, &fakeGen{}, nil)
	tests := []struct {
		name string
		body any
		code int
		want string
	}{
		{"unknown db", map[string]string{"db": "payroll", "question": "q"}, 404, "no database \"payroll\""},
		{"no db", map[string]string{"question": "q"}, 400, "\"db\" is required"},
		{"empty question", map[string]string{"db": "superhero", "question": "  "}, 400, "empty"},
		{"long question", map[string]string{"db": "superhero", "question": strings.Repeat("x", MaxQuestionChars+1)}, 400, "at most"},
		{"oversize body", `{"db":"superhero","question":"` + strings.Repeat("x", 5000) + `"}`, 413, "larger than 4096"},
		{"malformed", `{"db":`, 400, "malformed JSON"},
		{"two values", `{} {}`, 400, "more than one"},
	}
	for _, tt := range tests {
		code, out := call(t, ts, "POST", "/api/ask", "", tt.body)
		if msg, _ := out["error"].(string); code != tt.code || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %d %v, want %d and %q", tt.name, code, out, tt.code, tt.want)
		}
	}
	if code, _ := call(t, ts, "GET", "/api/ask", "", nil); code != 405 {
		t.Errorf("GET /api/ask: %d, want 405", code)
	}
	if code, _ := call(t, ts, "GET", "/api/nothing", "", nil); code != 404 {
		t.Errorf("GET /api/nothing: %d, want 404", code)
	}
}

// TestGeneratorFailure: a generator that fails or hangs is recorded as a
// generation error, and the client learns what happened, not where.
func TestGeneratorFailure(t *testing.T) {
	for _, tt := range []struct {
		name  string
		gen   *fakeGen
		class string
	}{
		{"fails", &fakeGen{fail: true}, ClassGeneration},
		{"hangs", &fakeGen{hang: true}, ClassGenerationTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := newTest(t, tt.gen, func(c *Config) { c.Generator.Timeout = Duration(50e6) })
			out := ask(t, ts, "superhero", "anything")
			e := out["error"].(map[string]any)
			if e["class"] != tt.class || strings.Contains(e["message"].(string), "10.1.2.3") || out["sql"] != "" {
				t.Errorf("answer %v, want class %s without internals", out, tt.class)
			}
			got, err := s.store.Answer(context.Background(), int64(out["answer_id"].(float64)))
			if err != nil || got.Outcome != feedback.OutcomeError || got.ErrorClass != tt.class {
				t.Errorf("stored %+v, %v", got, err)
			}
		})
	}
}

// TestInjectionThroughQuestion: the question reaches the generator as
// data and the prompt, and never runs: the database is unchanged and the
// SQL that ran is the generator's.
func TestInjectionThroughQuestion(t *testing.T) {
	gen := &fakeGen{}
	_, ts := newTest(t, gen, nil)
	for _, q := range []string{
		"'; DROP TABLE superhero; --",
		"1; ATTACH DATABASE '/tmp/x' AS x; --",
		"\" OR 1=1 --",
	} {
		out := ask(t, ts, "superhero", q)
		if out["sql"] != "SELECT COUNT(*) FROM superhero" || out["error"] != nil || out["rows"].([]any)[0].([]any)[0] != 750.0 {
			t.Errorf("question %q: %v", q, out)
		}
		last := gen.seen[len(gen.seen)-1]
		if last.Question != q || last.Prompt == nil || !strings.Contains(last.Prompt.User(), strings.Join(strings.Fields(q), " ")) || last.Schema == nil {
			t.Errorf("generator saw %+v", last)
		}
	}
}

func TestFeedback(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"count": "SELECT COUNT(*) FROM superhero"}}
	s, ts := newTest(t, gen, nil)
	id := int64(ask(t, ts, "superhero", "count")["answer_id"].(float64))
	path := fmt.Sprintf("/api/answers/%d/feedback", id)
	tests := []struct {
		name       string
		key        string
		body       any
		code       int
		correction string
		want       string
	}{
		{"no key", "", map[string]string{"verdict": "up"}, 401, "", "needs an API key"},
		{"bad key", "wrong-key-0123456789", map[string]string{"verdict": "up"}, 403, "", "not recognised"},
		{"up", testKey, map[string]string{"verdict": "up"}, 200, "", ""},
		{"bad verdict", testKey, map[string]string{"verdict": "meh"}, 400, "", "verdict"},
		{"empty", testKey, map[string]string{}, 400, "", "empty feedback"},
		{"valid correction", testKey, map[string]string{"verdict": "down", "corrected_sql": "SELECT COUNT(*) FROM superhero WHERE id > 10", "comment": "<img src=x onerror=alert(1)>"}, 200, "ok", ""},
		{"failing correction", testKey, map[string]string{"corrected_sql": "SELECT nope FROM superhero"}, 200, "error", ""},
		{"write attempt", testKey, map[string]string{"corrected_sql": "DROP TABLE superhero"}, 422, "", "nothing was stored"},
		{"update attempt", testKey, map[string]string{"verdict": "up", "corrected_sql": "UPDATE superhero SET id = 0"}, 422, "", "read-only"},
		// what is not one read of the database's own tables never trains
		{"pragma", testKey, map[string]string{"corrected_sql": "PRAGMA table_info(superhero)"}, 422, "", "nothing was stored"},
		{"catalog", testKey, map[string]string{"corrected_sql": "SELECT * FROM sqlite_master"}, 422, "", "catalog"},
		{"pragma function", testKey, map[string]string{"corrected_sql": "SELECT * FROM pragma_table_info('superhero')"}, 422, "", "PRAGMA function"},
		{"two statements", testKey, map[string]string{"verdict": "down", "corrected_sql": "SELECT 1; DELETE FROM superhero"}, 422, "", "more than one statement"},
		{"with delete", testKey, map[string]string{"corrected_sql": "WITH t AS (SELECT 1) DELETE FROM superhero"}, 422, "", "nothing was stored"},
		{"oversize", testKey, `{"comment":"` + strings.Repeat("x", 5000) + `"}`, 413, "", ""},
	}
	for _, tt := range tests {
		code, out := call(t, ts, "POST", path, tt.key, tt.body)
		msg, _ := out["error"].(string)
		if code != tt.code || !strings.Contains(msg, tt.want) || (out["correction"] != nil && out["correction"] != tt.correction) {
			t.Errorf("%s: %d %v, want %d %q correction %q", tt.name, code, out, tt.code, tt.want, tt.correction)
		}
		if code == 200 && out["author"] != "alice" {
			t.Errorf("%s: author %v", tt.name, out["author"])
		}
	}
	if code, _ := call(t, ts, "POST", "/api/answers/424242/feedback", testKey, map[string]string{"verdict": "up"}); code != 404 {
		t.Errorf("feedback on a missing answer: %d", code)
	}
	e, err := s.store.Answer(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Feedback) != 3 {
		t.Fatalf("%d feedback stored, want 3 (up, valid, failing): %+v", len(e.Feedback), e.Feedback)
	}
	f1, f2 := e.Feedback[1], e.Feedback[2]
	if f1.Correction != feedback.CorrectionOK || f1.Comment != "<img src=x onerror=alert(1)>" || f1.Author != "alice" || f1.Verdict != feedback.VerdictDown {
		t.Errorf("valid correction stored as %+v", f1)
	}
	if f2.Correction != feedback.CorrectionError || !strings.Contains(f2.CorrectionError, "unknown_column") {
		t.Errorf("failing correction stored as %+v", f2)
	}
	// The database is unchanged by the write attempts.
	if n := ask(t, ts, "superhero", "count")["rows"].([]any)[0].([]any)[0]; n != 750.0 {
		t.Errorf("superhero has %v rows after the write attempts", n)
	}
}

func TestHistoryAndStats(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"a": "SELECT 1", "b": "SELECT nope", "c": "SELECT 2"}}
	_, ts := newTest(t, gen, nil)
	ids := map[string]int64{}
	for _, q := range []string{"a", "b", "c"} {
		ids[q] = int64(ask(t, ts, "superhero", q)["answer_id"].(float64))
	}
	ask(t, ts, "student_club", "a")
	call(t, ts, "POST", fmt.Sprintf("/api/answers/%d/feedback", ids["a"]), testKey, map[string]string{"verdict": "up"})
	call(t, ts, "POST", fmt.Sprintf("/api/answers/%d/feedback", ids["c"]), testKey, map[string]string{"verdict": "down", "corrected_sql": "SELECT 3"})
	tests := []struct {
		query string
		want  []string // questions, newest first
		code  int
	}{
		{"", []string{"a", "c", "b", "a"}, 200},
		{"?db=superhero", []string{"c", "b", "a"}, 200},
		{"?outcome=error", []string{"b"}, 200},
		{"?feedback=up", []string{"a"}, 200},
		{"?feedback=down", []string{"c"}, 200},
		{"?feedback=corrected", []string{"c"}, 200},
		{"?feedback=none&db=superhero", []string{"b"}, 200},
		{"?q=nope", []string{"b"}, 200},
		{fmt.Sprintf("?db=superhero&before=%d", ids["c"]), []string{"b", "a"}, 200},
		{"?db=superhero&limit=2", []string{"c", "b"}, 200},
		{"?outcome=maybe", nil, 400},
		{"?feedback=x", nil, 400},
		{"?before=-1", nil, 400},
	}
	for _, tt := range tests {
		code, out := call(t, ts, "GET", "/api/history"+tt.query, "", nil)
		if code != tt.code {
			t.Errorf("%s: %d %v", tt.query, code, out)
			continue
		}
		if code != 200 {
			continue
		}
		var got []string
		for _, e := range out["entries"].([]any) {
			got = append(got, e.(map[string]any)["question"].(string))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
		}
	}
	code, out := call(t, ts, "GET", "/api/history?db=superhero&limit=2", "", nil)
	if code != 200 || out["next"] == nil {
		t.Errorf("a full page has no next cursor: %v", out)
	}
	for _, b := range []string{"", "?bucket=hour", "?bucket=day"} {
		code, out := call(t, ts, "GET", "/api/stats"+b, "", nil)
		bs, _ := out["buckets"].([]any)
		if code != 200 || len(bs) != 1 {
			t.Fatalf("stats%s: %d %v", b, code, out)
		}
		got := bs[0].(map[string]any)
		if got["answers"] != 4.0 || got["accepted"] != 1.0 || got["corrected"] != 1.0 || got["errors"] != 1.0 || got["share_accepted"] != 0.25 {
			t.Errorf("stats%s: %v", b, got)
		}
	}
	if code, _ := call(t, ts, "GET", "/api/stats?bucket=week", "", nil); code != 400 {
		t.Errorf("bucket=week: %d", code)
	}
}

func TestDatabasesAndReload(t *testing.T) {
	_, ts := newTest(t, &fakeGen{}, nil)
	code, out := call(t, ts, "GET", "/api/databases", "", nil)
	if code != 200 {
		t.Fatal(code, out)
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(string(raw), "sqlite\"") && strings.Contains(string(raw), ".sqlite") {
		t.Errorf("databases leaks file paths: %s", raw)
	}
	dbs := out["databases"].([]any)
	if len(dbs) != 2 || dbs[0].(map[string]any)["name"] != "student_club" || len(dbs[1].(map[string]any)["tables"].([]any)) != 10 {
		t.Errorf("databases %s", raw)
	}
	for _, tt := range []struct {
		key, query string
		code       int
	}{{"", "", 401}, {"nope-nope-nope-nope", "", 403}, {testKey, "", 200}, {testKey, "?db=superhero", 200}, {testKey, "?db=x", 404}} {
		code, out := call(t, ts, "POST", "/api/admin/reload"+tt.query, tt.key, nil)
		if code != tt.code {
			t.Errorf("reload %q %s: %d %v", tt.key, tt.query, code, out)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	db := benchDB(t, "superhero")
	tests := []struct {
		cfg, want string
	}{
		{`{}`, "databases: none configured"},
		{`{"databases": {"a": {}}}`, "databases.a: want exactly one"},
		{`{"databases": {"a b": {"sqlite": "x"}}}`, "databases.a b: a name is"},
		{`{"databases": {"a": {"sqlite": "missing.sqlite"}}}`, "databases.a.sqlite: no file"},
		{`{"databases": {"a": {"postgres": "mysql://x"}}}`, "databases.a.postgres: want a postgres:// DSN"},
		{`{"databases": {"a": {"sqlite": "` + db + `", "schema": "s"}}}`, "databases.a.schema: only for PostgreSQL"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "api_keys": {"k": {"key": "short"}}}`, "api_keys.k: a key of 5 characters"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "api_keys": {"k": {"env": "SQLRL_TEST_UNSET_VAR"}}}`, "api_keys.k.env: environment variable SQLRL_TEST_UNSET_VAR is empty"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "limits": {"statement_timeout": 5}}`, "want a duration"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "limits": {"page_size": 5000}}`, "limits.page_size"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "generator": {"native": "x", "openai": {"base_url": "http://x", "model": "m"}}}`, "not both"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "generator": {"openai": {"base_url": "ftp://x", "model": "m"}}}`, "generator.openai.base_url"},
		{`{"databases": {"a": {"sqlite": "` + db + `"}}, "typo": 1}`, "unknown field \"typo\""},
	}
	for _, tt := range tests {
		_, err := ParseConfig("/etc/serve.json", []byte(tt.cfg))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "/etc/serve.json") {
			t.Errorf("%s: err %v, want %q naming the file", tt.cfg, err, tt.want)
		}
	}
	// No generator in the config and none given: New says so.
	c, err := ParseConfig(filepath.Join(t.TempDir(), "s.json"), []byte(`{"databases": {"a": {"sqlite": "`+db+`"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), c, Options{}); err == nil || !strings.Contains(err.Error(), "generator") {
		t.Errorf("no generator: %v", err)
	}
}

func TestStarterConfig(t *testing.T) {
	raw, err := StarterConfig(Starter{DBs: map[string]string{"superhero": benchDB(t, "superhero")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SQLRL_SERVE_KEY", testKey)
	if _, err := ParseConfig(filepath.Join(t.TempDir(), "serve.json"), raw); err != nil {
		t.Errorf("starter config does not load: %v\n%s", err, raw)
	}
}

// TestPage: the page and its assets are served with a CSP; other paths
// are JSON 404s.
func TestPage(t *testing.T) {
	_, ts := newTest(t, &fakeGen{}, nil)
	for _, tt := range []struct {
		path, want string
		code       int
	}{{"/", `id="ask-btn"`, 200}, {"/app.js", "textContent", 200}, {"/style.css", "table", 200}, {"/secret", "no such endpoint", 404}} {
		resp, err := http.Get(ts.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s: %d %.80q", tt.path, resp.StatusCode, b)
		}
		if tt.code == 200 && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s: no CSP", tt.path)
		}
	}
}

// TestAppJSNoHTMLSinks: the page's script never parses text as HTML, so
// questions, SQL and cells can only ever be shown as text.
func TestAppJSNoHTMLSinks(t *testing.T) {
	for _, f := range []string{"web/app.js", "web/index.html"} {
		b, err := webFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new Function|setAttribute\(\s*["']on|\.src\s*=|createContextualFragment|DOMParser`)
		if m := sinks.FindAllString(string(b), -1); len(m) > 0 {
			t.Errorf("%s uses HTML sinks %v: insert data with textContent", f, m)
		}
		if f == "web/index.html" && (strings.Contains(string(b), "<script>") || regexp.MustCompile(`\son[a-z]+=`).Match(b)) {
			t.Errorf("%s has inline script or event handler attributes (the CSP forbids them)", f)
		}
	}
}

// TestOpenAIGenerator: the chat prompt holds the schema and the question,
// and the SQL is extracted from a fenced answer.
func TestOpenAIGenerator(t *testing.T) {
	var got struct {
		Messages []struct{ Role, Content string }
	}
	var mu sync.Mutex // the answer and its samples are asked for at once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		json.NewDecoder(r.Body).Decode(&got)
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "Here:\n```sql\nSELECT COUNT(*) FROM superhero\n```"}}}})
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}}, "generator": {"openai": {"base_url": %q, "model": "m"}}}`, benchDB(t, "superhero"), srv.URL+"/v1")
	c, err := ParseConfig(filepath.Join(dir, "serve.json"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	out := ask(t, ts, "superhero", "How many heroes are there?")
	if out["sql"] != "SELECT COUNT(*) FROM superhero" || out["model"] != "openai:m" || out["error"] != nil {
		t.Errorf("answer %v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got.Messages) != 2 || !strings.Contains(got.Messages[1].Content, "CREATE TABLE superhero") || !strings.Contains(got.Messages[1].Content, "How many heroes are there?") {
		t.Errorf("prompt %+v", got.Messages)
	}
}
