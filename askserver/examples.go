package askserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/dbgen"
)

// ExampleQuestion is a question the page offers for a database
// (config databases.NAME.examples, or written from the schema).
type ExampleQuestion struct {
	Question string `json:"question"`
	Evidence string `json:"evidence,omitempty"`
}

// checkExamples checks a config's example questions; field names them in
// errors.
func checkExamples(field string, ex []ExampleQuestion) error {
	for i, e := range ex {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case strings.TrimSpace(e.Question) == "":
			return fmt.Errorf("%s.question: empty", f)
		case utf8.RuneCountInString(e.Question) > MaxQuestionChars || utf8.RuneCountInString(e.Evidence) > MaxQuestionChars:
			return fmt.Errorf("%s: question and evidence are at most %d characters each", f, MaxQuestionChars)
		}
	}
	return nil
}

// MaxExamples is the most example questions written from a schema.
const MaxExamples = 6

// ExamplesJSON is GET /api/databases/{db}/examples's answer.
type ExamplesJSON struct {
	DB       string            `json:"db"`
	Examples []ExampleQuestion `json:"examples"`
	// Source is "config" (databases.NAME.examples) or "schema" (written
	// over the database by package dbgen, each gold run and checked).
	Source string `json:"source"`
	// Note says why there are none, when there are none.
	Note string `json:"note,omitempty"`
}

// examples: GET /api/databases/{db}/examples.
func (s *Server) examples(ctx context.Context, r *http.Request) (any, error) {
	d, err := s.db(r.PathValue("db"))
	if err != nil {
		return nil, err
	}
	if ex := s.cfg.Databases[d.name].Examples; len(ex) > 0 {
		return ExamplesJSON{DB: d.name, Examples: ex, Source: "config"}, nil
	}
	d, sc, _, err := s.loadedSchema(r)
	if err != nil {
		return nil, err
	}
	if d.kind != "sqlite" {
		return ExamplesJSON{DB: d.name, Examples: []ExampleQuestion{}, Source: "schema",
			Note: "example questions are written over SQLite databases only for now: give databases." + d.name + ".examples in the config"}, nil
	}
	ex, err := s.browse.examples.get(ctx, sc, d.name, func(ctx context.Context) ([]ExampleQuestion, error) {
		return s.writeExamples(ctx, d)
	})
	if err != nil {
		return nil, err
	}
	return ExamplesJSON{DB: d.name, Examples: append([]ExampleQuestion{}, ex...), Source: "schema"}, nil
}

// exampleCandidates is how many verified questions the generator writes
// to choose the examples from.
const exampleCandidates = 40

// writeExamples writes up to MaxExamples questions over d with package
// dbgen (each gold executed and its answer checked), one per question
// family in the order they come, within the statement timeout.
func (s *Server) writeExamples(ctx context.Context, d *database) ([]ExampleQuestion, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Limits.StatementTimeout))
	defer cancel()
	db, err := dbgen.Introspect(ctx, s.dbs, d.name, dbgen.IntrospectOptions{DescriptionDir: s.dbs.descriptionDir(d.name)})
	if err != nil {
		s.log.Info("example questions not written", "db", d.name, "err", err)
		return []ExampleQuestion{}, nil
	}
	sp, err := dbgen.Generate(ctx, s.dbs, db, dbgen.Options{N: exampleCandidates, Seed: 1, Workers: 1})
	if err != nil {
		s.log.Info("example questions not written", "db", d.name, "err", err)
		return []ExampleQuestion{}, nil
	}
	out := []ExampleQuestion{}
	seen := map[string]bool{}
	for _, q := range append(append(sp.Train, sp.Dev...), sp.Test...) {
		if len(out) < MaxExamples && !seen[q.Family] {
			seen[q.Family] = true
			out = append(out, ExampleQuestion{Question: q.Question, Evidence: q.Evidence})
		}
	}
	return out, nil
}
