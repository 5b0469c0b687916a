package askserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/sqlexec"
)

const analystKey = "analyst-key-0123456789abcdef"

// newAnalystTest is newTest with a second key, "bob", of role analyst
// (alice's key has no role: admin).
func newAnalystTest(t *testing.T, gen *fakeGen, mutate func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	return newTest(t, gen, func(c *Config) {
		c.APIKeys["bob"] = APIKey{Key: analystKey, Role: RoleAnalyst}
		if mutate != nil {
			mutate(c)
		}
	})
}

func TestRoles(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"count": "SELECT COUNT(*) FROM superhero"}}
	s, ts := newAnalystTest(t, gen, nil)
	id := int64(ask(t, ts, "superhero", "count")["answer_id"].(float64))
	fb := fmt.Sprintf("/api/answers/%d/feedback", id)
	run := map[string]string{"db": "superhero", "sql": "SELECT 1"}
	tests := []struct {
		name, method, path, key string
		body                    any
		code                    int
		want                    string // in the body
	}{
		{"me without key", "GET", "/api/me", "", nil, 401, "needs an API key"},
		{"me with a wrong key", "GET", "/api/me", "wrong-key-0123456789", nil, 403, "not recognised"},
		{"me analyst", "GET", "/api/me", analystKey, nil, 200, `"name":"bob","role":"analyst"`},
		{"me admin", "GET", "/api/me", testKey, nil, 200, `"name":"alice","role":"admin"`},
		{"feedback without key", "POST", fb, "", map[string]string{"verdict": "up"}, 401, "needs an API key"},
		{"feedback analyst", "POST", fb, analystKey, map[string]string{"verdict": "up"}, 200, `"author":"bob"`},
		{"feedback admin", "POST", fb, testKey, map[string]string{"verdict": "down"}, 200, `"author":"alice"`},
		{"run without key", "POST", "/api/run", "", run, 401, "needs an API key"},
		{"run analyst", "POST", "/api/run", analystKey, run, 200, `"total_rows":1`},
		{"run admin", "POST", "/api/run", testKey, run, 200, `"total_rows":1`},
		{"reload without key", "POST", "/api/admin/reload", "", nil, 401, "needs an API key"},
		{"reload analyst", "POST", "/api/admin/reload", analystKey, nil, 403, "this route needs an admin key"},
		{"reload admin", "POST", "/api/admin/reload", testKey, nil, 200, `"reloaded"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := callRaw(t, ts, tt.method, tt.path, tt.key, tt.body)
			if code != tt.code || !strings.Contains(string(raw), tt.want) {
				t.Errorf("%d %s, want %d with %q", code, raw, tt.code, tt.want)
			}
		})
	}
	e, err := s.store.Answer(context.Background(), id)
	if err != nil || len(e.Feedback) != 2 || e.Feedback[0].Author != "bob" || e.Feedback[1].Author != "alice" {
		t.Errorf("stored feedback %+v, %v: want bob's then alice's", e.Feedback, err)
	}
}

func TestRoleConfig(t *testing.T) {
	db := benchDB(t, "superhero")
	key := func(role string) string {
		return `{"databases": {"a": {"sqlite": "` + db + `"}}, "api_keys": {"k": {"key": "0123456789abcdef"` + role + `}}}`
	}
	for _, tt := range []struct {
		cfg      string
		role     Role
		wantErr  string
		examples int
	}{
		{key(""), RoleAdmin, "", 0},
		{key(`, "role": "admin"`), RoleAdmin, "", 0},
		{key(`, "role": "analyst"`), RoleAnalyst, "", 0},
		{key(`, "role": "root"`), "", `api_keys.k.role: "root": want "analyst"`, 0},
		{key(`, "role": "Admin"`), "", `api_keys.k.role: "Admin"`, 0},
		{`{"databases": {"a": {"sqlite": "` + db + `", "examples": [{"question": "How many heroes?"}, {"question": "Tallest?", "evidence": "height_cm"}]}}}`, "", "", 2},
		{`{"databases": {"a": {"sqlite": "` + db + `", "examples": [{"question": "ok"}, {"question": "  "}]}}}`, "", "databases.a.examples[1].question: empty", 0},
		{`{"databases": {"a": {"sqlite": "` + db + `", "examples": [{"q": "x"}]}}}`, "", `unknown field "q"`, 0},
	} {
		c, err := ParseConfig("/etc/serve.json", []byte(tt.cfg))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "/etc/serve.json") {
				t.Errorf("%s: err %v, want %q naming the file", tt.cfg, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.cfg, err)
			continue
		}
		if tt.role != "" && c.APIKeys["k"].Role != tt.role {
			t.Errorf("%s: role %q, want %q", tt.cfg, c.APIKeys["k"].Role, tt.role)
		}
		if len(c.Databases["a"].Examples) != tt.examples {
			t.Errorf("%s: %d examples, want %d", tt.cfg, len(c.Databases["a"].Examples), tt.examples)
		}
	}
	raw, err := StarterConfig(Starter{DBs: map[string]string{"superhero": db}})
	if err != nil || !strings.Contains(string(raw), `"role": "admin"`) {
		t.Errorf("starter config writes no admin role (%v):\n%s", err, raw)
	}
}

// callRaw is call without decoding: the status and the body.
func callRaw(t *testing.T, ts *httptest.Server, method, path, key string, body any) (int, []byte) {
	t.Helper()
	resp := do(t, ts, method, path, key, body)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func do(t *testing.T, ts *httptest.Server, method, path, key string, body any) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, ts.URL+path, rd)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRun(t *testing.T) {
	s, ts := newAnalystTest(t, &fakeGen{}, nil)
	before, err := s.store.History(context.Background(), feedback.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		body      any
		code      int
		wantErr   string // error class of a 200, or text of the error body
		total     float64
		page      float64
		chartKind string
	}{
		{"select", map[string]any{"db": "superhero", "sql": "SELECT colour, id FROM colour ORDER BY id"}, 200, "", 35, 1, "bar"},
		{"page 4", map[string]any{"db": "superhero", "sql": "SELECT colour, id FROM colour ORDER BY id", "page": 4}, 200, "", 35, 4, "bar"},
		{"past the last page", map[string]any{"db": "superhero", "sql": "SELECT colour, id FROM colour", "page": 5}, 404, "page 5 of 4", 0, 0, ""},
		{"with", map[string]any{"db": "superhero", "sql": "WITH c AS (SELECT id FROM colour) SELECT COUNT(*) FROM c"}, 200, "", 1, 1, ""},
		{"truncated", map[string]any{"db": "superhero", "sql": "SELECT id FROM superhero"}, 200, "", 100, 1, ""},
		{"unknown column", map[string]any{"db": "superhero", "sql": "SELECT nope FROM superhero"}, 200, "unknown_column", 0, 1, ""},
		{"delete", map[string]any{"db": "superhero", "sql": "DELETE FROM superhero"}, 422, "sql was refused and not run", 0, 0, ""},
		{"two statements", map[string]any{"db": "superhero", "sql": "SELECT 1; DELETE FROM superhero"}, 422, "sql was refused and not run", 0, 0, ""},
		{"pragma", map[string]any{"db": "superhero", "sql": "PRAGMA table_info(superhero)"}, 422, "sql was refused", 0, 0, ""},
		{"sqlite_master", map[string]any{"db": "superhero", "sql": "SELECT * FROM sqlite_master"}, 422, "sql was refused", 0, 0, ""},
		{"empty", map[string]any{"db": "superhero", "sql": "  "}, 400, `"sql" is empty`, 0, 0, ""},
		{"no db", map[string]any{"sql": "SELECT 1"}, 400, `"db" is required`, 0, 0, ""},
		{"unknown db", map[string]any{"db": "nope", "sql": "SELECT 1"}, 404, `no database "nope"`, 0, 0, ""},
		{"bad format", map[string]any{"db": "superhero", "sql": "SELECT 1", "format": "xml"}, 400, `format "xml"`, 0, 0, ""},
		{"negative page", map[string]any{"db": "superhero", "sql": "SELECT 1", "page": -1}, 400, "page -1", 0, 0, ""},
		{"unknown field", map[string]any{"db": "superhero", "sql": "SELECT 1", "limit": 5}, 400, "limit", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := callRaw(t, ts, "POST", "/api/run", analystKey, tt.body)
			var out map[string]any
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("%d, not JSON: %s", code, raw)
			}
			if code != tt.code {
				t.Fatalf("%d %s, want %d", code, raw, tt.code)
			}
			if code != 200 {
				if msg, _ := out["error"].(string); !strings.Contains(msg, tt.wantErr) {
					t.Errorf("error %q, want %q", msg, tt.wantErr)
				}
				return
			}
			e, _ := out["error"].(map[string]any)
			if class, _ := e["class"].(string); class != tt.wantErr {
				t.Errorf("error %v, want class %q", out["error"], tt.wantErr)
			}
			if out["total_rows"] != tt.total || out["page"] != tt.page || out["sql"] == "" || out["db"] != "superhero" {
				t.Errorf("total_rows %v page %v, want %v %v: %s", out["total_rows"], out["page"], tt.total, tt.page, raw)
			}
			ch, _ := out["chart"].(map[string]any)
			if kind, _ := ch["kind"].(string); kind != tt.chartKind {
				t.Errorf("chart %v, want kind %q", out["chart"], tt.chartKind)
			}
		})
	}
	// A run records nothing and changes nothing.
	after, err := s.store.History(context.Background(), feedback.Filter{Limit: 10})
	if err != nil || len(after.Entries) != len(before.Entries) {
		t.Errorf("runs recorded answers: %d before, %d after (%v)", len(before.Entries), len(after.Entries), err)
	}
	if _, out := call(t, ts, "POST", "/api/run", analystKey, map[string]string{"db": "superhero", "sql": "SELECT COUNT(*) FROM superhero"}); out["rows"].([]any)[0].([]any)[0] != 750.0 {
		t.Errorf("superhero changed: %v", out)
	}
}

// TestCSV: /api/run's and an answer's CSV, against a golden file.
func TestCSV(t *testing.T) {
	sql := `SELECT id, colour AS "colour, name", CASE WHEN id = 2 THEN NULL WHEN id = 3 THEN 'say "hi"' || char(10) || 'bye' WHEN id = 4 THEN '=HYPERLINK("http://x")' ELSE 'x' END AS note, 1 - id AS "-d", id / 4.0 AS quarter FROM colour WHERE id <= 4 ORDER BY id`
	gen := &fakeGen{sql: map[string]string{"small": sql, "broken": "SELECT nope FROM colour"}}
	_, ts := newAnalystTest(t, gen, nil)
	golden, err := os.ReadFile(filepath.Join("testdata", "result.csv"))
	if err != nil {
		t.Fatal(err)
	}
	id := int64(ask(t, ts, "superhero", "small")["answer_id"].(float64))
	broken := int64(ask(t, ts, "superhero", "broken")["answer_id"].(float64))
	for _, tt := range []struct {
		name, method, path string
		body               any
		code               int
		filename           string
		want               string // the body, or part of an error's
	}{
		{"run", "POST", "/api/run", map[string]string{"db": "superhero", "sql": sql, "format": "csv"}, 200, "result-superhero.csv", string(golden)},
		{"answer", "GET", fmt.Sprintf("/api/answers/%d/csv", id), nil, 200, fmt.Sprintf("answer-%d.csv", id), string(golden)},
		{"failed answer", "GET", fmt.Sprintf("/api/answers/%d/csv", broken), nil, 409, "", "has no result"},
		{"no answer", "GET", "/api/answers/999/csv", nil, 404, "", "no answer 999"},
		{"run fails", "POST", "/api/run", map[string]string{"db": "superhero", "sql": "SELECT nope FROM colour", "format": "csv"}, 422, "", "unknown_column"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, ts, tt.method, tt.path, analystKey, tt.body)
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.code {
				t.Fatalf("%d %s, want %d", resp.StatusCode, raw, tt.code)
			}
			if tt.code != 200 {
				if !strings.Contains(string(raw), tt.want) {
					t.Errorf("%s, want %q", raw, tt.want)
				}
				return
			}
			if string(raw) != tt.want {
				t.Errorf("CSV:\n%s\nwant (testdata/result.csv):\n%s", raw, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="`+tt.filename+`"` {
				t.Errorf("Content-Disposition %q", cd)
			}
		})
	}
}

func TestChartKind(t *testing.T) {
	text := func(s string) sqlexec.Value { return sqlexec.Value{Kind: sqlexec.KindText, S: s} }
	num := func(i int64) sqlexec.Value { return sqlexec.Value{Kind: sqlexec.KindInt, I: i} }
	null := sqlexec.Value{}
	tests := []struct {
		name   string
		label  string
		labels []sqlexec.Value
		kind   string
		first  string // the chart's first label
	}{
		{"dates rising", "day", []sqlexec.Value{text("2019-09-01"), text("2019-10-01"), text("2020-01-14")}, "line", "2019-09-01"},
		{"months falling", "month", []sqlexec.Value{text("2020-02"), text("2020-01"), text("2019-11")}, "line", "2019-11"},
		{"datetimes", "event_date", []sqlexec.Value{text("2019-09-04T12:00:00"), text("2019-10-08 09:30:00")}, "line", "2019-09-04T12:00:00"},
		{"text years", "y", []sqlexec.Value{text("2018"), text("2019"), text("2020")}, "line", "2018"},
		{"integer years", "release_year", []sqlexec.Value{num(2018), num(2019), num(2020)}, "line", "2018"},
		{"integers not named year", "id", []sqlexec.Value{num(2018), num(2019), num(2020)}, "bar", "2018"},
		{"dates out of order", "day", []sqlexec.Value{text("2019-09-01"), text("2020-01-14"), text("2019-10-01")}, "bar", "2019-09-01"},
		{"repeated date", "day", []sqlexec.Value{text("2019-09-01"), text("2019-09-01")}, "bar", "2019-09-01"},
		{"one date", "day", []sqlexec.Value{text("2019-09-01")}, "bar", "2019-09-01"},
		{"a NULL date", "day", []sqlexec.Value{text("2019-09-01"), null, text("2019-10-01")}, "bar", "2019-09-01"},
		{"categories", "colour", []sqlexec.Value{text("Amber"), text("Black")}, "bar", "Amber"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &sqlexec.Result{Columns: []string{tt.label, "n"}}
			for i, l := range tt.labels {
				res.Rows = append(res.Rows, []sqlexec.Value{l, num(int64(10 + i))})
			}
			c := chartOf(res)
			if c == nil || c.Kind != tt.kind || c.Labels[0] != tt.first {
				t.Fatalf("chart %+v, want kind %s starting at %s", c, tt.kind, tt.first)
			}
			if tt.kind == "line" && tt.first != fmt.Sprint(jsonValue(tt.labels[0])) && c.Values[0] != float64(9+len(tt.labels)) {
				t.Errorf("a falling series turned round without its values: %+v", c)
			}
		})
	}
	// Through the API, on the bundled student_club's event dates.
	_, ts := newAnalystTest(t, &fakeGen{}, nil)
	for sql, kind := range map[string]string{
		"SELECT substr(event_date, 1, 7) AS month, COUNT(*) FROM event GROUP BY month ORDER BY month": "line",
		"SELECT type, COUNT(*) FROM event GROUP BY type ORDER BY type":                                "bar",
	} {
		_, out := call(t, ts, "POST", "/api/run", analystKey, map[string]string{"db": "student_club", "sql": sql})
		if ch, _ := out["chart"].(map[string]any); ch == nil || ch["kind"] != kind {
			t.Errorf("%s: chart %v, want %s", sql, out["chart"], kind)
		}
	}
}
