package askserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
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
	// by the server from the schema, each checked to run).
	Source string `json:"source"`
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
	d, sc, schema, err := s.loadedSchema(r)
	if err != nil {
		return nil, err
	}
	ex, err := s.browse.examples.get(ctx, sc, d.name, func(ctx context.Context) ([]ExampleQuestion, error) {
		sj, err := s.browse.schema.get(ctx, sc, d.name, func(ctx context.Context) (*SchemaJSON, error) {
			return s.browseSchema(ctx, d, schema)
		})
		if err != nil {
			return nil, err
		}
		var out []ExampleQuestion
		for _, c := range s.checkedExamples(ctx, d, sj) {
			out = append(out, c.ExampleQuestion)
		}
		return out, ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return ExamplesJSON{DB: d.name, Examples: append([]ExampleQuestion{}, ex...), Source: "schema"}, nil
}

// candidate is an example question with the SQL that answers it and what
// its result must look like to be offered.
type candidate struct {
	ExampleQuestion
	SQL string
	// minRows and maxRows bound the result's rows (maxRows 0: no bound);
	// positive: the first cell must be a number above 0 (a count).
	minRows, maxRows int
	positive         bool
}

// maxExampleRuns bounds the candidates run for one database's examples.
const maxExampleRuns = 40

// checkedExamples keeps up to MaxExamples of the candidates written from
// sj, one of each kind in turn (a kind's next candidate is tried when one
// fails), each run and kept only when its result is what the question
// promises: rows, a first cell that is not NULL, a count above 0, 2 to 30
// groups. The runs share one statement timeout.
func (s *Server) checkedExamples(ctx context.Context, d *database, sj *SchemaJSON) []candidate {
	qctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Limits.StatementTimeout))
	defer cancel()
	var out []candidate
	seen := map[string]bool{}
	runs := 0
	for queues := candidates(sj); len(out) < MaxExamples; {
		more := false
		for k := range queues {
			for len(queues[k]) > 0 && len(out) < MaxExamples && runs < maxExampleRuns && qctx.Err() == nil {
				c := queues[k][0]
				queues[k] = queues[k][1:]
				if seen[c.Question] {
					continue
				}
				runs++
				if s.answersAsPromised(qctx, d, c) {
					seen[c.Question] = true
					out = append(out, c)
					break
				}
			}
			more = more || len(queues[k]) > 0
		}
		if !more || runs >= maxExampleRuns || qctx.Err() != nil {
			break
		}
	}
	return out
}

// answersAsPromised runs c's SQL and checks its result.
func (s *Server) answersAsPromised(ctx context.Context, d *database, c candidate) bool {
	res, truncated, err := s.result(ctx, d.name, c.SQL)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Info("example question does not run", "db", d.name, "sql", c.SQL, "err", err)
		}
		return false
	}
	n := len(res.Rows)
	if n == 0 || n < c.minRows || c.maxRows > 0 && (n > c.maxRows || truncated) || len(res.Rows[0]) == 0 || res.Rows[0][0].Kind == sqlexec.KindNull {
		return false
	}
	v := res.Rows[0][0]
	return !c.positive || v.Kind == sqlexec.KindInt && v.I > 0 || v.Kind == sqlexec.KindFloat && v.F > 0
}

// column kinds, from a column's type, name and example values.
type colKind int

const (
	kindOther    colKind = iota
	kindKey              // a primary key, a reference, an id
	kindName             // text naming a row: *name*, *title*
	kindCategory         // other text: checked to have 2 to 30 values when used
	kindMeasure          // a number that is not a key or a code
	kindDate             // a date or time type, or values that read as dates
)

func kindOf(c ColumnJSON) colKind {
	name, typ := strings.ToLower(c.Name), strings.ToUpper(c.Type)
	switch {
	case c.PrimaryKey || c.References != "" || name == "id" || strings.HasSuffix(name, "_id") || strings.HasSuffix(c.Name, "Id") || strings.HasSuffix(c.Name, "ID"):
		return kindKey
	case strings.Contains(typ, "DATE") || strings.Contains(typ, "TIME") || allDates(c.Examples):
		return kindDate
	case containsAny(typ, "INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"):
		if containsAny(name, "code", "zip", "phone", "year", "number") {
			return kindOther
		}
		return kindMeasure
	case typ == "" || containsAny(typ, "CHAR", "TEXT", "CLOB", "STRING"):
		if containsAny(name, "name", "title") {
			return kindName
		}
		return kindCategory
	}
	return kindOther
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func allDates(ex []string) bool {
	for _, v := range ex {
		if _, ok := timeOf(sqlexec.Value{Kind: sqlexec.KindText, S: v}, ""); !ok || len(v) == 4 {
			return false
		}
	}
	return len(ex) > 0
}

// candidates writes questions from sj's tables, tables with more columns
// first (the facts before the lookups): a count, a lookup by a name-like
// column, a count per category (a text column, or a reference to a table
// with a text column), a top 5 by a measure, a count per year of a date;
// a queue per kind.
func candidates(sj *SchemaJSON) [][]candidate {
	tables := make([]*TableJSON, len(sj.Tables))
	for i := range sj.Tables {
		tables[i] = &sj.Tables[i]
	}
	slices.SortStableFunc(tables, func(a, b *TableJSON) int { return len(b.Columns) - len(a.Columns) })
	byName := map[string]*TableJSON{}
	for _, t := range tables {
		byName[strings.ToLower(t.Name)] = t
	}
	kinds := make([][]candidate, 5)
	for _, t := range tables {
		if t.Rows != nil && *t.Rows == 0 {
			continue
		}
		tq, things := quoteIdent(t.Name), plural(words(t.Name))
		var names, measures, cats, dates []ColumnJSON
		for _, c := range t.Columns {
			switch kindOf(c) {
			case kindName:
				names = append(names, c)
			case kindMeasure:
				measures = append(measures, c)
			case kindCategory:
				cats = append(cats, c)
			case kindDate:
				dates = append(dates, c)
			}
		}
		kinds[0] = append(kinds[0], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("How many %s are there?", things)},
			SQL: "SELECT COUNT(*) FROM " + tq, minRows: 1, positive: true})
		if len(names) > 0 {
			n := names[0]
			v := plainExample(n)
			attrs := append(append(append([]ColumnJSON{}, measures...), cats...), dates...)
			if v != "" && len(attrs) > 0 {
				a := attrs[0]
				kinds[1] = append(kinds[1], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("What is the %s of %s?", words(a.Name), v)},
					SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", quoteIdent(a.Name), tq, quoteIdent(n.Name), quoteText(v)), minRows: 1})
			}
		}
		for _, c := range cats {
			kinds[2] = append(kinds[2], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("How many %s are there per %s?", things, words(c.Name))},
				SQL:     fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY COUNT(*) DESC", quoteIdent(c.Name), tq, quoteIdent(c.Name), quoteIdent(c.Name)),
				minRows: 2, maxRows: 30})
		}
		for _, c := range t.Columns {
			ref, col, ok := strings.Cut(c.References, ".")
			rt := byName[strings.ToLower(ref)]
			if !ok || rt == nil {
				continue
			}
			// superhero.eye_colour_id -> colour.colour: "per eye colour".
			per := strings.TrimSuffix(words(c.Name), " id")
			for _, rc := range rt.Columns {
				if k := kindOf(rc); k == kindName || k == kindCategory {
					kinds[2] = append(kinds[2], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("How many %s are there per %s?", things, per)},
						SQL: fmt.Sprintf("SELECT r.%s, COUNT(*) FROM %s AS t JOIN %s AS r ON t.%s = r.%s GROUP BY r.%s ORDER BY COUNT(*) DESC",
							quoteIdent(rc.Name), tq, quoteIdent(rt.Name), quoteIdent(c.Name), quoteIdent(col), quoteIdent(rc.Name)),
						minRows: 2, maxRows: 30})
					break
				}
			}
		}
		for _, m := range measures {
			if len(names) > 0 {
				kinds[3] = append(kinds[3], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("Which 5 %s have the highest %s?", things, words(m.Name))},
					SQL:     fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s IS NOT NULL ORDER BY %s DESC LIMIT 5", quoteIdent(names[0].Name), quoteIdent(m.Name), tq, quoteIdent(m.Name), quoteIdent(m.Name)),
					minRows: 1})
			} else {
				kinds[3] = append(kinds[3], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("What is the average %s of %s?", words(m.Name), things)},
					SQL: fmt.Sprintf("SELECT AVG(%s) FROM %s", quoteIdent(m.Name), tq), minRows: 1})
			}
		}
		for _, c := range dates {
			kinds[4] = append(kinds[4], candidate{ExampleQuestion: ExampleQuestion{Question: fmt.Sprintf("How many %s are there per year of %s?", things, words(c.Name))},
				SQL:     fmt.Sprintf("SELECT substr(CAST(%s AS TEXT), 1, 4) AS year, COUNT(*) FROM %s WHERE %s IS NOT NULL GROUP BY year ORDER BY year", quoteIdent(c.Name), tq, quoteIdent(c.Name)),
				minRows: 1, maxRows: 30})
		}
	}
	return kinds
}

// plainExample is a column's first example value that was not clipped.
func plainExample(c ColumnJSON) string {
	for _, v := range c.Examples {
		if !strings.HasSuffix(v, textclip.Mark) && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// quoteText writes v as a SQL string literal.
func quoteText(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// words turns an identifier into lower-case words: hair_colour_id ->
// "hair colour id", eventDate -> "event date".
func words(id string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range id {
		switch {
		case r == '_' || r == '-' || r == ' ':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteRune(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// plural is English's regular plural of a phrase's last word.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "s") || strings.HasSuffix(s, "x") || strings.HasSuffix(s, "z") || strings.HasSuffix(s, "ch") || strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}
