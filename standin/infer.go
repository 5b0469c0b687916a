// Package standin builds stand-in databases for question files whose
// databases one does not have: BIRD's public train questions ship apart
// from their (large) databases, yet their human-written questions are
// the best teacher of how people ask. Infer reads every gold SQL of a
// database, resolves its table aliases and collects the tables, columns,
// join keys, numeric uses and quoted values it reads; Write creates a
// SQLite file with those tables (keys declared) and one row per quoted
// text value, so that prompts show the schema the golds need and value
// linking finds the values the questions name. Build keeps only the
// questions whose gold then runs.
//
// A stand-in schema holds only what some gold reads: it teaches language
// and SQL, not schema linking among a real database's distractors.
package standin

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
)

// Schema is one database's inferred tables.
type Schema struct {
	DBID   string
	Tables []*Table
}

// Table is an inferred table; names keep the case of their first use.
type Table struct {
	Name    string
	Columns []*Column
	byName  map[string]*Column
}

// Column is an inferred column.
type Column struct {
	Name string
	// Numeric: some gold compares it with a number, sums, averages or
	// computes with it.
	Numeric bool
	// Key: some gold joins on it.
	Key bool
	// Ref is the table and column a join reads it against, when it is the
	// referencing side (the other side is a key named like an id).
	Ref *[2]string
	// Values are the text literals golds compare it with (= or IN), in
	// first-seen order.
	Values []string
}

// maxValues bounds the quoted values a column keeps.
const maxValues = 200

// Infer collects the schemas the golds of sqls (by database) read.
// Queries it cannot read add what they can; Build's check drops the
// questions whose gold does not run on the result.
func Infer(sqls map[string][]string) []*Schema {
	var out []*Schema
	for _, db := range slices.Sorted(maps.Keys(sqls)) {
		s := &Schema{DBID: db}
		idx := map[string]*Table{}
		var deferred []unresolved
		for _, q := range sqls[db] {
			deferred = append(deferred, s.add(idx, q)...)
		}
		for _, u := range deferred {
			s.resolve(idx, u)
		}
		out = append(out, s)
	}
	return out
}

// unresolved is an unqualified column of a query reading several tables.
type unresolved struct {
	col    string
	tables []string
	use    use
}

// use is what a query does with a column reference.
type use struct {
	numeric bool
	values  []string
}

func (s *Schema) table(idx map[string]*Table, name string) *Table {
	k := strings.ToLower(name)
	if t := idx[k]; t != nil {
		return t
	}
	t := &Table{Name: name, byName: map[string]*Column{}}
	idx[k] = t
	s.Tables = append(s.Tables, t)
	return t
}

func (t *Table) column(name string) *Column {
	k := strings.ToLower(name)
	if c := t.byName[k]; c != nil {
		return c
	}
	c := &Column{Name: name}
	t.byName[k] = c
	t.Columns = append(t.Columns, c)
	return c
}

func (c *Column) apply(u use) {
	c.Numeric = c.Numeric || u.numeric
	for _, v := range u.values {
		if len(c.Values) < maxValues && !slices.Contains(c.Values, v) {
			c.Values = append(c.Values, v)
		}
	}
}

// resolve places an unqualified column of a several-table query: on the
// one table already holding it, else on the first table of its query.
func (s *Schema) resolve(idx map[string]*Table, u unresolved) {
	var holders []*Table
	for _, name := range u.tables {
		if t := idx[strings.ToLower(name)]; t != nil && t.byName[strings.ToLower(u.col)] != nil {
			holders = append(holders, t)
		}
	}
	switch len(holders) {
	case 0:
		s.table(idx, u.tables[0]).column(u.col).apply(u.use)
	case 1:
		holders[0].column(u.col).apply(u.use)
	}
}

// ref is one column reference in a query.
type ref struct {
	qual, col string
	pos       int // token index of the column name
	start     int // token index of the qualifier, or pos
}

// add reads one query into s and returns the unqualified columns it could
// not place.
func (s *Schema) add(idx map[string]*Table, sql string) []unresolved {
	toks := significant(sqlparse.Tokenize(sql))
	aliases := map[string]string{} // lower alias or table -> table
	var tables []string
	colAliases := map[string]bool{}
	derived := map[string]bool{} // aliases of subqueries in FROM
	skip := map[int]bool{}       // token indexes that name tables or aliases
	for i := 0; i < len(toks); i++ {
		if !isKeyword(toks[i], "FROM", "JOIN") {
			continue
		}
		for j := i + 1; j < len(toks); {
			if !isName(toks[j]) {
				break
			}
			t := name(toks[j])
			skip[j] = true
			tables = append(tables, t)
			aliases[strings.ToLower(t)] = t
			j++
			if j < len(toks) && isKeyword(toks[j], "AS") {
				j++
			}
			if j < len(toks) && toks[j].Kind == sqlparse.KindIdentifier {
				aliases[strings.ToLower(toks[j].Text)] = t
				skip[j] = true
				j++
			}
			if j+1 < len(toks) && toks[j].Text == "," && isName(toks[j+1]) {
				j++
				continue
			}
			break
		}
	}
	for i := 1; i < len(toks); i++ {
		if isKeyword(toks[i-1], "AS") && !skip[i] && isName(toks[i]) {
			colAliases[strings.ToLower(name(toks[i]))] = true
			skip[i] = true
			if i >= 2 && toks[i-2].Text == ")" {
				derived[strings.ToLower(name(toks[i]))] = true
			}
		} else if toks[i-1].Text == ")" && toks[i].Kind == sqlparse.KindIdentifier {
			derived[strings.ToLower(toks[i].Text)] = true
			skip[i] = true
		}
	}
	var refs []ref
	for i := 0; i < len(toks); i++ {
		if skip[i] || !isName(toks[i]) || stringLike(toks, i) {
			continue
		}
		if i+1 < len(toks) && toks[i+1].Text == "(" {
			continue // a function
		}
		if i+2 < len(toks) && toks[i+1].Text == "." {
			if (isName(toks[i+2]) || toks[i+2].Kind == sqlparse.KindKeyword) && !derived[strings.ToLower(name(toks[i]))] {
				refs = append(refs, ref{qual: name(toks[i]), col: name(toks[i+2]), pos: i + 2, start: i})
			}
			i += 2
			continue
		}
		if colAliases[strings.ToLower(name(toks[i]))] || aliases[strings.ToLower(name(toks[i]))] != "" {
			continue
		}
		refs = append(refs, ref{col: name(toks[i]), pos: i, start: i})
	}
	for _, t := range tables {
		s.table(idx, t)
	}
	// Each placed reference by its last token (left of =) and its first
	// (right of =); an unqualified one of a several-table query waits.
	type placed struct {
		c     *Column
		table string
	}
	ends, starts := map[int]placed{}, map[int]placed{}
	var left []unresolved
	for _, r := range refs {
		var t string
		switch {
		case r.qual != "":
			t = cmp.Or(aliases[strings.ToLower(r.qual)], r.qual)
		case len(tables) == 1:
			t = tables[0]
		case len(tables) > 1:
			left = append(left, unresolved{col: r.col, tables: slices.Clone(tables), use: useAt(toks, r.pos)})
			continue
		default:
			continue
		}
		c := s.table(idx, t).column(r.col)
		c.apply(useAt(toks, r.pos))
		ends[r.pos], starts[r.start] = placed{c, t}, placed{c, t}
	}
	// Join keys: a = b between columns of two tables.
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].Text != "=" {
			continue
		}
		pa, oka := ends[i-1]
		pb, okb := starts[i+1]
		if !oka || !okb || strings.EqualFold(pa.table, pb.table) {
			continue
		}
		pa.c.Key, pb.c.Key = true, true
		// The side named like its own table's id is the one referenced.
		if idLike(pa.c.Name, pa.table) && !idLike(pb.c.Name, pb.table) {
			pa, pb = pb, pa
		}
		if pa.c.Ref == nil {
			pa.c.Ref = &[2]string{pb.table, pb.c.Name}
		}
	}
	return left
}

// idLike says a column looks like its table's own key: id, <table>_id,
// <table>id.
func idLike(col, table string) bool {
	c := strings.ToLower(col)
	t := strings.ToLower(table)
	one := strings.TrimSuffix(t, "s")
	return c == "id" || c == t+"_id" || c == t+"id" || c == one+"_id" || c == one+"id"
}

// useAt reads what the query does with the column named at token i: a
// comparison with a number, an aggregate or arithmetic over it (numeric),
// or = / IN with text literals (its values).
func useAt(toks []sqlparse.Token, i int) use {
	var u use
	if i >= 2 && toks[i-1].Text == "(" && isFunc(toks[i-2], "SUM", "AVG", "TOTAL") {
		u.numeric = true
	}
	if i >= 1 && isArith(toks[i-1]) || i+1 < len(toks) && isArith(toks[i+1]) {
		u.numeric = true
	}
	if i+2 >= len(toks) {
		return u
	}
	op, lit := toks[i+1], toks[i+2]
	switch {
	case isCompare(op) && lit.Kind == sqlparse.KindNumber,
		isKeyword(op, "BETWEEN") && lit.Kind == sqlparse.KindNumber:
		u.numeric = true
	case (op.Text == "=" || op.Text == "==") && isText(lit):
		u.values = append(u.values, unquote(lit.Text))
	case isKeyword(op, "IN") && lit.Text == "(":
		for j := i + 3; j < len(toks) && toks[j].Text != ")"; j++ {
			if isText(toks[j]) {
				u.values = append(u.values, unquote(toks[j].Text))
			} else if toks[j].Text != "," {
				break
			}
		}
	}
	return u
}

func significant(ts []sqlparse.Token) []sqlparse.Token {
	out := ts[:0:0]
	for _, t := range ts {
		if !t.IsTrivia() {
			out = append(out, t)
		}
	}
	return out
}

func isKeyword(t sqlparse.Token, words ...string) bool {
	if t.Kind != sqlparse.KindKeyword {
		return false
	}
	for _, w := range words {
		if strings.EqualFold(t.Text, w) {
			return true
		}
	}
	return false
}

func isFunc(t sqlparse.Token, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(t.Text, n) {
			return true
		}
	}
	return false
}

func isName(t sqlparse.Token) bool {
	return t.Kind == sqlparse.KindIdentifier || t.Kind == sqlparse.KindQuotedIdentifier
}

func isCompare(t sqlparse.Token) bool {
	switch t.Text {
	case "=", "==", "!=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

func isArith(t sqlparse.Token) bool {
	switch t.Text {
	case "+", "-", "*", "/":
		return t.Kind == sqlparse.KindOperator
	}
	return false
}

// stringLike says a double-quoted token at i is a string, not a name:
// SQLite reads "x" as a string where no column x exists, and BIRD's golds
// write strings so after a comparison, IN's list or LIKE.
func stringLike(toks []sqlparse.Token, i int) bool {
	t := toks[i]
	if t.Kind != sqlparse.KindQuotedIdentifier || t.Text[0] != '"' || i == 0 {
		return false
	}
	p := toks[i-1]
	return isCompare(p) || isKeyword(p, "LIKE", "GLOB", "IN", "AND", "BETWEEN") || p.Text == "," || p.Text == "("
}

func isText(t sqlparse.Token) bool {
	return t.Kind == sqlparse.KindString || t.Kind == sqlparse.KindQuotedIdentifier && t.Text[0] == '"'
}

// name is an identifier token's name, unquoted.
func name(t sqlparse.Token) string {
	if t.Kind == sqlparse.KindQuotedIdentifier {
		return unquote(t.Text)
	}
	return t.Text
}

// unquote strips SQL quotes (”, "", “, []) and their doubled escapes.
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch q := s[0]; q {
	case '\'', '"', '`':
		if s[len(s)-1] == q {
			return strings.ReplaceAll(s[1:len(s)-1], string([]byte{q, q}), string(q))
		}
	case '[':
		if s[len(s)-1] == ']' {
			return s[1 : len(s)-1]
		}
	}
	return s
}
