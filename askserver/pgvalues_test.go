package askserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/policy"
)

// TestNativePostgresValues serves a checkpoint in `sqlrl specialise`'s
// format (compact, column descriptions, value linking) over superhero's
// PostgreSQL copy and over its SQLite file: the native policy reads the
// same prompt, byte for byte, for the sample's real questions, values line
// included. (Over PostgreSQL the prompt had no values line, keys or
// descriptions, and its tables came in name order.)
func TestNativePostgresValues(t *testing.T) {
	d := pgtest.CopySample(t)
	dir := t.TempDir()
	tinyCheckpoint(t, filepath.Join(dir, "ckpt"), policy.Format{Kind: policy.FormatCompact, Descriptions: true, Values: true})
	file := benchDB(t, "superhero")
	open := func(db string) *Server {
		s, err := configServer(t, dir, fmt.Sprintf(`{"databases": {"heroes": %s}, "generator": {"native": "ckpt", "max_tokens": 16, "slots": 2}}`, db))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lite := open(fmt.Sprintf(`{"sqlite": %q}`, file))
	pg := open(fmt.Sprintf(`{"postgres": %q, "schema": "superhero", "descriptions": %q}`, d.ReadOnly, filepath.Dir(file)))

	b, err := dataset.Load(pgtest.SampleDir(t), "dev")
	if err != nil {
		t.Fatal(err)
	}
	var questions []dataset.Example
	for _, ex := range b.Examples {
		if ex.DBID == "superhero" && len(questions) < 8 {
			questions = append(questions, ex)
		}
	}
	ctx := context.Background()
	withValues := 0
	for _, ex := range questions {
		var texts [2]string
		for i, s := range []*Server{lite, pg} {
			fit, err := s.gen.(*NativeGenerator).fit(ctx, serverQuestion(t, s, "heroes", ex.Question, ex.Evidence))
			if err != nil {
				t.Fatalf("question %d: %v", ex.QuestionID, err)
			}
			texts[i] = fit.Text
		}
		if texts[0] != texts[1] {
			t.Errorf("question %d: over PostgreSQL the prompt is\n%s\nover SQLite\n%s", ex.QuestionID, texts[1], texts[0])
		}
		if strings.Contains(texts[1], "\nvalues: ") {
			withValues++
		}
	}
	if withValues == 0 {
		t.Errorf("none of %d questions has a values line", len(questions))
	}
	t.Logf("%d questions, the same prompts; %d with a values line", len(questions), withValues)

	// A question quoting a stored value gets it linked over PostgreSQL, and
	// the server answers it.
	fit, err := pg.gen.(*NativeGenerator).fit(ctx, serverQuestion(t, pg, "heroes", "Please list all the superpowers of 3-D Man.", ""))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nvalues: superhero.superhero_name = '3-D Man'\n"; !strings.Contains(fit.Text, want) {
		t.Errorf("prompt over PostgreSQL without %q:\n%s", want, fit.Text)
	}
	_, ts := serveTest(t, pg)
	_, out := call(t, ts, "POST", "/api/ask", "", map[string]string{"db": "heroes", "question": "Please list all the superpowers of 3-D Man."})
	if e, _ := out["error"].(map[string]any); e != nil && (strings.HasPrefix(e["class"].(string), "generation") || e["class"] == ClassSchema) || out["sql"] == "" {
		t.Errorf("ask on PostgreSQL: %v", out)
	}
}

// configServer opens a server of the config conf, as if read from
// dir/serve.json (relative paths are dir's).
func configServer(t *testing.T, dir, conf string) (*Server, error) {
	t.Helper()
	c, err := ParseConfig(filepath.Join(dir, "serve.json"), []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), c, Options{})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// serverQuestion is the Question s's /api/ask hands its generator.
func serverQuestion(t *testing.T, s *Server, db, question, evidence string) Question {
	t.Helper()
	d := s.dbs.dbs[db]
	schema := s.schemas.get().byDB[db]
	if d == nil || schema == nil {
		t.Fatalf("no schema for %s: %v", db, s.schemas.get().errs[db])
	}
	return Question{DB: db, Question: question, Evidence: evidence, Dialect: d.dialect, Schema: schema}
}
