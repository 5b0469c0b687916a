package confidence

import (
	"context"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// FilterLiterals returns the literals the SQL compares a column with, in
// order of appearance and each once: `col = 'x'`, `'x' = col`, `T1.col IN
// ('x', 'y')`, `col LIKE '%x%'` (a pattern), in WHERE, HAVING, ON and CASE
// conditions alike. A literal compared with anything but a bare column (a
// function's result, an expression), negated (NOT LIKE, NOT IN) or joined
// to more text (||, COLLATE) is left out: whether it occurs in a column
// says nothing there. Number literals count as values, and LIKE patterns
// are kept whole. Double-quoted words are names, not literals.
func FilterLiterals(sql string) []Literal {
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(sql) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	var out []Literal
	type key struct {
		text    string
		pattern bool
	}
	seen := map[key]bool{}
	add := func(t sqlparse.Token, pattern bool) {
		if !t.Terminated() {
			return
		}
		if k := (key{t.Text, pattern}); !seen[k] {
			seen[k] = true
			out = append(out, Literal{Text: t.Text, Pattern: pattern})
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case isOp(t, "=", "=="):
			switch {
			case i+1 < len(toks) && isLiteral(toks[i+1]) && columnEndsAt(toks, i-1) && !joined(toks, i+2):
				add(toks[i+1], false)
			case i > 0 && isLiteral(toks[i-1]) && columnStartsAt(toks, i+1) && !extended(toks, i-2):
				add(toks[i-1], false)
			}
		case isWord(t, "LIKE"):
			if i+1 < len(toks) && toks[i+1].Kind == sqlparse.KindString && columnEndsAt(toks, i-1) && !joined(toks, i+2) &&
				!(i+2 < len(toks) && isWord(toks[i+2], "ESCAPE")) {
				add(toks[i+1], true)
			}
		case isWord(t, "IN"):
			if !columnEndsAt(toks, i-1) || i+1 >= len(toks) || toks[i+1].Text != "(" {
				continue
			}
			// A list of literals only: ( lit , lit ... ).
			var list []sqlparse.Token
			closed := false
			for j := i + 2; j+1 < len(toks) && isLiteral(toks[j]); j += 2 {
				list = append(list, toks[j])
				if toks[j+1].Text != "," {
					closed = toks[j+1].Text == ")"
					break
				}
			}
			if closed {
				for _, l := range list {
					add(l, false)
				}
			}
		}
	}
	return out
}

func isLiteral(t sqlparse.Token) bool {
	return t.Kind == sqlparse.KindString || t.Kind == sqlparse.KindNumber
}

func isName(t sqlparse.Token) bool {
	return t.Kind == sqlparse.KindIdentifier || t.Kind == sqlparse.KindQuotedIdentifier && !strings.HasPrefix(t.Text, "'")
}

func isOp(t sqlparse.Token, ops ...string) bool {
	if t.Kind != sqlparse.KindOperator {
		return false
	}
	for _, op := range ops {
		if t.Text == op {
			return true
		}
	}
	return false
}

func isWord(t sqlparse.Token, w string) bool {
	return t.Kind == sqlparse.KindKeyword && strings.EqualFold(t.Text, w)
}

// extending is what makes a literal or a column part of a larger
// expression.
var extending = []string{"+", "-", "*", "/", "%", "||", "&", "|", "<<", ">>", "~"}

// columnEndsAt reports whether toks[i] ends a bare column reference (col,
// T1.col, "col") that is not part of a larger expression or negated.
func columnEndsAt(toks []sqlparse.Token, i int) bool {
	if i < 0 || !isName(toks[i]) {
		return false
	}
	j := i - 1
	if j >= 1 && toks[j].Text == "." && isName(toks[j-1]) {
		j -= 2
	}
	if j >= 0 && (isOp(toks[j], extending...) || toks[j].Text == ".") {
		return false
	}
	// NOT LIKE / NOT IN: the word before the operator is NOT.
	return !(i+1 < len(toks) && isWord(toks[i+1], "NOT"))
}

// columnStartsAt reports whether a bare column reference starts at toks[i]
// and ends an operand (nothing extends it).
func columnStartsAt(toks []sqlparse.Token, i int) bool {
	if i >= len(toks) || !isName(toks[i]) {
		return false
	}
	j := i + 1
	if j+1 < len(toks) && toks[j].Text == "." && isName(toks[j+1]) {
		j += 2
	}
	if j < len(toks) && toks[j].Text == "(" {
		return false // a function call
	}
	return !joined(toks, j)
}

// joined reports whether the token at i continues the operand before it
// (an operator, COLLATE).
func joined(toks []sqlparse.Token, i int) bool {
	return i < len(toks) && (isOp(toks[i], extending...) || isWord(toks[i], "COLLATE"))
}

// extended reports whether the token at i (before a literal) makes it part
// of an expression.
func extended(toks []sqlparse.Token, i int) bool {
	return i >= 0 && (isOp(toks[i], extending...) || toks[i].Text == ".")
}

// Table is a table as CheckLiterals searches it.
type Table struct {
	Name    string
	Columns []string
}

// Querier runs one read-only query on a database (an sqlexec.Engine).
type Querier interface {
	Query(ctx context.Context, db, sql string) (*sqlexec.Result, error)
}

// CheckOptions bound CheckLiterals.
type CheckOptions struct {
	// Postgres writes the queries for PostgreSQL (text comparison of every
	// column; number literals are not checked there).
	Postgres bool
	// Timeout bounds all the checks of one SQL together (default
	// DefaultCheckTimeout); literals not checked by then are left out.
	Timeout time.Duration
	// MaxLiterals is the most literals checked (default 8), MaxTables the
	// most tables searched for each (default 6).
	MaxLiterals, MaxTables int
}

// DefaultCheckTimeout bounds the literal checks of one answer: each is a
// scan of the tables read, cheap on the databases people ask about.
const DefaultCheckTimeout = 2 * time.Second

// CheckLiterals looks up each of the SQL's filter literals (FilterLiterals)
// in every column of the tables the SQL reads (tables lists the schema;
// the SQL's tables are matched to it without regard to case), one query
// per literal and table, and returns the literals it could decide, Found or
// not. A string found nowhere as written is looked up again ignoring case,
// and the value found is its Variant. SQL that does not parse, or reads no
// known table, has no literals to check.
func CheckLiterals(ctx context.Context, q Querier, db, sql string, tables []Table, o CheckOptions) []Literal {
	if o.Timeout <= 0 {
		o.Timeout = DefaultCheckTimeout
	}
	if o.MaxLiterals <= 0 {
		o.MaxLiterals = 8
	}
	if o.MaxTables <= 0 {
		o.MaxTables = 6
	}
	lits := FilterLiterals(sql)
	if len(lits) == 0 {
		return nil
	}
	shape, err := sqlparse.Analyze(sql)
	if err != nil {
		return nil
	}
	byName := map[string]Table{}
	for _, t := range tables {
		byName[strings.ToLower(t.Name)] = t
	}
	var read []Table
	for _, name := range shape.Tables {
		if t, ok := byName[name]; ok && len(t.Columns) > 0 && len(read) < o.MaxTables {
			read = append(read, t)
		}
	}
	if len(read) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var out []Literal
	for _, l := range lits[:min(len(lits), o.MaxLiterals)] {
		if o.Postgres && l.Text[0] != '\'' {
			continue
		}
		for _, t := range read {
			l.Tables = append(l.Tables, t.Name)
		}
		found, ok := search(ctx, q, db, read, l, false, o.Postgres)
		if !ok {
			continue
		}
		if found == nil && !l.Pattern && l.Text[0] == '\'' {
			if found, ok = search(ctx, q, db, read, l, true, o.Postgres); !ok {
				continue
			}
			if found != nil {
				l.Variant = *found
			}
		} else {
			l.Found = found != nil
		}
		out = append(out, l)
	}
	return out
}

// search looks for l in every column of tables: exactly (or as a LIKE
// pattern), or ignoring case when nocase. It returns the value found (nil:
// none) and whether the search finished.
func search(ctx context.Context, q Querier, db string, tables []Table, l Literal, nocase, pg bool) (*string, bool) {
	for _, t := range tables {
		var conds, cases []string
		for _, c := range t.Columns {
			col := quoteName(c)
			if pg {
				col += "::text"
			}
			var cond string
			switch {
			case l.Pattern:
				cond = col + " LIKE " + l.Text
			case nocase && pg:
				cond = "lower(" + col + ") = lower(" + l.Text + ")"
			case nocase:
				cond = col + " = " + l.Text + " COLLATE NOCASE"
			default:
				cond = col + " = " + l.Text
			}
			conds = append(conds, cond)
			cases = append(cases, "WHEN "+cond+" THEN "+col)
		}
		sel := "1"
		if nocase {
			sel = "CASE " + strings.Join(cases, " ") + " END"
			if !pg {
				sel = "CAST(" + sel + " AS TEXT)"
			}
		}
		res, err := q.Query(ctx, db, "SELECT "+sel+" FROM "+quoteName(t.Name)+" WHERE "+strings.Join(conds, " OR ")+" LIMIT 1")
		if err != nil {
			return nil, false
		}
		if len(res.Rows) > 0 {
			v := ""
			if len(res.Rows[0]) > 0 {
				v = res.Rows[0][0].Display()
			}
			return &v, true
		}
	}
	return nil, true
}

// quoteName quotes an identifier for SQLite and PostgreSQL alike.
func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
