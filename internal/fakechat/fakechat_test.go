package fakechat

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestServerAnswersLongestQuestion(t *testing.T) {
	s := &Server{}
	s.Set([]QA{{"How many rows?", "SELECT 1 AS short"}, {"How many rows?  In   table t", "SELECT COUNT(*) FROM t"}, {"No answer", ""}})
	for _, c := range []struct{ prompt, want string }{
		{"Schema ...\nQuestion: How many rows? In table t\n", "SELECT COUNT(*) FROM t"},
		{"Question: How many rows?", "SELECT 1 AS short"},
		{"Question: No answer", "SELECT 1"},
	} {
		body, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "system", "content": "x"}, {"role": "user", "content": c.prompt}}})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(string(body))))
		var out struct {
			Choices []struct{ Message struct{ Content string } }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || len(out.Choices) != 1 || out.Choices[0].Message.Content != c.want {
			t.Errorf("%q: %d %s, want %q", c.prompt, rec.Code, rec.Body, c.want)
		}
	}
	// n choices when asked for n; n out of range refused
	for _, c := range []struct{ n, code, choices int }{{8, 200, 8}, {1, 200, 1}, {0, 400, 0}, {129, 400, 0}} {
		body, _ := json.Marshal(map[string]any{"n": c.n, "messages": []map[string]string{{"role": "user", "content": "Question: How many rows?"}}})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(string(body))))
		var out struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.Unmarshal(rec.Body.Bytes(), &out)
		if rec.Code != c.code || len(out.Choices) != c.choices {
			t.Errorf("n %d: %d with %d choices, want %d with %d", c.n, rec.Code, len(out.Choices), c.code, c.choices)
		}
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/models", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET: %d", rec.Code)
	}
}
