package askserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/confidence"
	"github.com/sqlrl/sqlrl/feedback"
)

// sampleGen is fakeGen that also samples: the samples a test maps the
// question to (none: the answer's SQL, k times).
type sampleGen struct {
	fakeGen
	samples map[string][]string
	fail    bool
	mu      sync.Mutex
	asked   []SampleOptions
}

// Generate is fakeGen's, one call at a time (fakeGen records what it saw).
func (g *sampleGen) Generate(ctx context.Context, q Question) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fakeGen.Generate(ctx, q)
}

func (g *sampleGen) Sample(ctx context.Context, q Question, o SampleOptions) ([]string, error) {
	g.mu.Lock()
	g.asked = append(g.asked, o)
	g.mu.Unlock()
	if g.fail {
		return nil, errors.New("dial tcp 10.1.2.3:8000: connection refused")
	}
	if s, ok := g.samples[q.Question]; ok {
		return s, nil
	}
	sql, ok := g.sql[q.Question]
	if !ok {
		sql = "SELECT COUNT(*) FROM superhero"
	}
	out := make([]string, o.N)
	for i := range out {
		out[i] = sql
	}
	return out, nil
}

const (
	femaleWrong = "SELECT COUNT(*) FROM superhero WHERE superhero_name = 'superhero Maps'"
	femaleRight = "SELECT COUNT(*) FROM superhero T1 JOIN gender T2 ON T1.gender_id = T2.id WHERE T2.gender = 'Female'"
	femaleCase  = "SELECT COUNT(*) FROM superhero T1 JOIN gender T2 ON T1.gender_id = T2.id WHERE T2.gender = 'female'"
)

// TestAskConfidence asks over the bundled superhero database with a
// generator that samples: each answer carries its judgement, the same one
// is stored, and GET /api/answers and History show it again.
func TestAskConfidence(t *testing.T) {
	rule := confidence.Rule{RightShare: 0.75, WrongShare: 0.5, UnknownWrong: true}
	gen := &sampleGen{fakeGen: fakeGen{sql: map[string]string{
		"female":      femaleWrong,
		"female case": femaleCase,
		"count":       "SELECT COUNT(*) FROM superhero",
		"split":       "SELECT COUNT(*) FROM superhero WHERE height_cm > 180",
		"broken":      "SELECT T1.nope FROM superhero AS T1",
		"empty":       "SELECT id FROM superhero WHERE id < 0",
		"one sample":  "SELECT COUNT(*) FROM superhero",
	}}, samples: map[string][]string{
		"one sample":  {"SELECT COUNT(*) FROM superhero"},
		"female":      {femaleRight, femaleRight, femaleRight, "SELECT nope"},
		"female case": {femaleRight, femaleRight, femaleCase, femaleRight},
		"split": {"SELECT COUNT(*) FROM superhero WHERE height_cm > 180", "SELECT COUNT(*) FROM superhero WHERE 180 < height_cm",
			"SELECT COUNT(*) FROM superhero WHERE height_cm >= 180", "SELECT COUNT(*) FROM superhero WHERE height_cm > 200"},
	}}
	four := 4
	s, ts := newTestOptions(t, func(c *Config) { c.Generator.Samples = &four }, Options{Generator: gen, Rule: &rule})
	tests := []struct {
		question string
		want     confidence.Judgement
	}{
		{"female", judgement(confidence.LikelyWrong, "the value 'superhero Maps' occurs in no column of superhero", "the answer is a single 0",
			"0 of 4 samples agree on the result; 3 agree on another result")},
		{"female case", judgement(confidence.LikelyWrong, "the value 'female' occurs in no column of gender, superhero as written ('Female' does)", "the answer is a single 0",
			"1 of 4 samples agrees on the result; 3 agree on another result")},
		{"count", judgement(confidence.LikelyRight, "4 of 4 samples agree on the result")},
		{"split", judgement(confidence.Unsure, "2 of 4 samples agree on the result")},
		{"broken", judgement(confidence.LikelyWrong, "the column nope does not exist in table superhero")},
		{"one sample", judgement(confidence.Unsure, "only 1 of the 4 samples asked for came back to cross-check it")},
		{"empty", judgement(confidence.Unsure, "4 of 4 samples agree on the result", "the result is empty")},
	}
	for _, tc := range tests {
		out := ask(t, ts, "superhero", tc.question)
		got := judgementOf(t, out["confidence"])
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: confidence\n got %+v\nwant %+v", tc.question, got, tc.want)
			continue
		}
		id := int(out["answer_id"].(float64))
		if _, e := call(t, ts, "GET", fmt.Sprintf("/api/answers/%d", id), "", nil); !reflect.DeepEqual(judgementOf(t, e["confidence"]), tc.want) {
			t.Errorf("%s: GET /api/answers/%d: confidence %v", tc.question, id, e["confidence"])
		}
	}
	for _, o := range gen.asked {
		if o.N != 4 || o.Temperature != DefaultSampleTemp {
			t.Errorf("sampled with %+v, want 4 at the default temperature", o)
		}
	}
	// An answer recorded before judgements were kept reads back with none.
	old, err := s.store.RecordAnswer(context.Background(), feedback.Answer{DBID: "superhero", Question: "old", SQL: "SELECT 1", Outcome: feedback.OutcomeOK, Rows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, e := call(t, ts, "GET", fmt.Sprintf("/api/answers/%d", old.ID), "", nil); e["confidence"] != nil {
		t.Errorf("old answer: confidence %v, want null", e["confidence"])
	} else if _, has := e["confidence"]; !has {
		t.Errorf("old answer: no confidence field: %v", e)
	}
	_, h := call(t, ts, "GET", "/api/history?limit=2", "", nil)
	entries := h["entries"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["confidence"] != nil ||
		!reflect.DeepEqual(judgementOf(t, entries[1].(map[string]any)["confidence"]), tests[len(tests)-1].want) {
		t.Errorf("history: %v", entries)
	}
}

// TestAskConfidenceWithoutSamples: sampling off, a generator that cannot
// sample, and one whose sampling fails each leave the answer not sure, and
// say why.
func TestAskConfidenceWithoutSamples(t *testing.T) {
	zero := 0
	tests := []struct {
		name   string
		gen    SQLGenerator
		mutate func(*Config)
		reason string
	}{
		{"sampling off", &sampleGen{}, func(c *Config) { c.Generator.Samples = &zero }, "no samples were drawn to cross-check it"},
		{"a generator that cannot sample", &fakeGen{}, nil, "no samples were drawn to cross-check it"},
		{"sampling fails", &sampleGen{fail: true}, nil, "the samples to cross-check it could not be drawn"},
	}
	for _, tc := range tests {
		_, ts := newTestOptions(t, tc.mutate, Options{Generator: tc.gen})
		out := ask(t, ts, "superhero", "how many heroes")
		if got, want := judgementOf(t, out["confidence"]), judgement(confidence.Unsure, tc.reason); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, want)
		}
		if e, _ := out["error"].(map[string]any); e != nil {
			t.Errorf("%s: error %v", tc.name, e)
		}
	}
}

// newTestOptions starts a server over the bundled superhero database
// with the options given and a SQLite store in a temporary folder.
func newTestOptions(t *testing.T, mutate func(*Config), o Options) (*Server, *httptest.Server) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.json")
	conf := fmt.Sprintf(`{"databases": {"superhero": {"sqlite": %q}}, "limits": {"statement_timeout": "5s"}}`, benchDB(t, "superhero"))
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(c)
	}
	s, err := New(context.Background(), c, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return serveTest(t, s)
}

func judgement(l confidence.Level, reasons ...string) confidence.Judgement {
	return confidence.Judgement{Level: l, Label: l.Label(), Reasons: reasons}
}

// judgementOf reads a confidence field of a JSON answer.
func judgementOf(t *testing.T, v any) confidence.Judgement {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("confidence %v is not an object", v)
	}
	j := confidence.Judgement{Level: confidence.Level(fmt.Sprint(m["level"])), Label: fmt.Sprint(m["label"])}
	for _, r := range m["reasons"].([]any) {
		j.Reasons = append(j.Reasons, fmt.Sprint(r))
	}
	return j
}

// TestOpenAISample: the OpenAI generator asks once for n choices at the
// sample temperature, seeded by the question; a choice that holds no SQL
// is a sample that did not run.
func TestOpenAISample(t *testing.T) {
	var mu sync.Mutex
	var reqs []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r) // a server that says neither its context nor its counts
			return
		}
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		n, _ := req["n"].(float64)
		var choices []map[string]any
		for i := range max(int(n), 1) {
			content := "SELECT COUNT(*) FROM superhero"
			if i == 2 {
				content = "I cannot answer that."
			}
			choices = append(choices, map[string]any{"message": map[string]string{"role": "assistant", "content": content}})
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": choices})
	}))
	defer srv.Close()
	three := 3
	_, ts := newTestOptions(t, func(c *Config) {
		c.Generator.OpenAI, c.Generator.Samples, c.Generator.SampleTemperature = &OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m"}, &three, 0.7
	}, Options{})
	out := ask(t, ts, "superhero", "How many heroes are there?")
	want := judgement(confidence.Unsure, "2 of 3 samples agree on the result")
	if got := judgementOf(t, out["confidence"]); !reflect.DeepEqual(got, want) {
		t.Errorf("confidence %+v, want %+v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the answer's and the samples'", len(reqs))
	}
	sampled := reqs[0]
	if sampled["n"] == nil {
		sampled = reqs[1]
	}
	if sampled["n"] != 3.0 || sampled["temperature"] != 0.7 || sampled["top_p"] != sampleTopP || sampled["seed"] == nil {
		t.Errorf("samples asked with %v", sampled)
	}
}

// TestAskVote: with generator.vote the answer is the largest group's
// SQL among the greedy decode and its samples, the greedy decode standing
// on a tie or when no sample runs; its confidence counts the same group.
// A config that votes without samples is refused.
func TestAskVote(t *testing.T) {
	gen := &sampleGen{fakeGen: fakeGen{sql: map[string]string{
		"female": femaleWrong,
		"broken": "SELECT T1.nope FROM superhero AS T1",
		"tie":    "SELECT COUNT(*) FROM superhero",
		"alone":  "SELECT COUNT(*) FROM superhero",
	}}, samples: map[string][]string{
		"female": {femaleRight, "SELECT nope", femaleRight, femaleRight},
		"broken": {"SELECT COUNT(*) FROM superhero", "SELECT COUNT(*) FROM superhero WHERE 1", "SELECT 1", "SELECT nope"},
		"tie":    {"SELECT 1", "SELECT 2", "SELECT 3", "SELECT nope"},
		"alone":  {"SELECT nope", "SELECT nope", "SELECT nope", "SELECT nope"},
	}}
	four := 4
	_, ts := newTestOptions(t, func(c *Config) { c.Generator.Samples, c.Generator.Vote = &four, true }, Options{Generator: gen})
	for _, tc := range []struct{ question, want, agree string }{
		// the greedy decode is now one of the other candidates
		{"female", femaleRight, "2 of 4 samples agree on the result"},
		{"broken", "SELECT COUNT(*) FROM superhero", "1 of 4 samples agrees on the result; 2 fail to run"},
		{"tie", "SELECT COUNT(*) FROM superhero", "0 of 4 samples agree on the result"},
		{"alone", "SELECT COUNT(*) FROM superhero", "0 of 4 samples agree on the result"},
	} {
		out := ask(t, ts, "superhero", tc.question)
		if out["sql"] != tc.want {
			t.Errorf("%s: answered %q, want %q", tc.question, out["sql"], tc.want)
		}
		if j := judgementOf(t, out["confidence"]); !slices.ContainsFunc(j.Reasons, func(r string) bool { return strings.HasPrefix(r, tc.agree) }) {
			t.Errorf("%s: confidence %+v, want a reason starting %q", tc.question, j, tc.agree)
		}
	}
	raw, err := StarterConfig(Starter{DBs: map[string]string{"superhero": benchDB(t, "superhero")}})
	if err != nil {
		t.Fatal(err)
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	zero := 0
	c.Generator.Samples, c.Generator.Vote = &zero, true
	if err := c.check(); err == nil || !strings.Contains(err.Error(), "generator.vote") {
		t.Errorf("vote without samples: %v, want an error naming generator.vote", err)
	}
}
