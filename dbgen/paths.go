package dbgen

import (
	"math"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// hop is one join: from.fromCol = to.toCol. Many says it goes from a
// referenced row to the rows referencing it (one to many), so counts over
// the base table need DISTINCT.
type hop struct {
	from, to       *Table
	fromCol, toCol string
	many           bool
	// via is the foreign-key column that makes the hop (on either side):
	// its label names what the joined table is to the base ("eye colour").
	via *Column
}

// attr is a column reached from a base table along a join path.
type attr struct {
	col  *Column
	path []hop
	// top are the values base rows reach through path, most frequent
	// first (joinedValues); nil for the base's own columns, whose
	// Stats.Top serve.
	top []ValueCount
}

// values are the attribute's values with their frequencies.
func (a attr) values() []ValueCount {
	if a.top != nil {
		return a.top
	}
	return a.col.Stats.Top
}

// many reports whether the path fans out (one base row, many values).
func (a attr) many() bool {
	for _, h := range a.path {
		if h.many {
			return true
		}
	}
	return false
}

// phrase is how a question names the attribute: a lookup table's only
// name column is named by the foreign key that reaches it ("eye colour"
// for colour.colour via eye_colour_id), any other column by its label.
func (a attr) phrase() string {
	if n := len(a.path); n > 0 && a.col.Role == RoleName && nameColumn(a.col.Table) == a.col && a.path[n-1].via != nil {
		return shortLabel(a.path[n-1].via)
	}
	return shortLabel(a.col)
}

// attrs lists the columns questions over base can use: its own, those of
// the tables its foreign keys reach (two hops), and through a table that
// references it, that table's columns and what its own keys reach (the
// bridge of a many-to-many link).
func attrs(d *Database, base *Table) []attr {
	var out []attr
	add := func(t *Table, path []hop) {
		for _, c := range t.Columns {
			if c.Role != RoleKey && c.Role != RoleBookkeeping && c.Role != RoleText {
				out = append(out, attr{col: c, path: path})
			}
		}
	}
	add(base, nil)
	var up func(t *Table, path []hop, depth int)
	up = func(t *Table, path []hop, depth int) {
		if depth == 0 {
			return
		}
		for _, fk := range t.ForeignKeys {
			ref := d.Table(fk.RefTable)
			if ref == nil || ref == base || ref.Rows == 0 {
				continue
			}
			p := append(append([]hop(nil), path...), hop{from: t, to: ref, fromCol: fk.Column, toCol: fk.RefColumn, via: t.Column(fk.Column)})
			add(ref, p)
			up(ref, p, depth-1)
		}
	}
	up(base, nil, 2)
	if len(base.PrimaryKey) == 1 {
		for _, t := range d.Tables {
			for _, fk := range t.ForeignKeys {
				if t == base || !strings.EqualFold(fk.RefTable, base.Name) || t.Rows == 0 {
					continue
				}
				p := []hop{{from: base, to: t, fromCol: fk.RefColumn, toCol: fk.Column, many: true, via: t.Column(fk.Column)}}
				add(t, p)
				up(t, p, 1)
			}
		}
	}
	return out
}

// nameColumn is the column that names a table's rows: its first name-role
// column, preferring one called *name or *title; nil when none.
func nameColumn(t *Table) *Column {
	var first *Column
	for _, c := range t.Columns {
		if c.Role != RoleName {
			continue
		}
		ps := nameParts(c.Name)
		if len(ps) > 0 && nameWords[ps[len(ps)-1]] {
			return c
		}
		if first == nil {
			first = c
		}
	}
	return first
}

// query builds a gold's FROM clause: the base table as T1 and each join
// path's tables as T2, T3, ... in the order first used, with one alias per
// distinct path.
type query struct {
	base    *Table
	aliases map[string]string
	joins   []string
	fanout  bool
	left    bool // the next joins are LEFT JOINs
}

func newQuery(base *Table) *query {
	return &query{base: base, aliases: map[string]string{"": "T1"}}
}

// ref returns the attribute's column qualified by its alias, adding the
// joins its path needs.
func (q *query) ref(a attr) string {
	return q.alias(a.path) + "." + ident(a.col.Name)
}

// joined reports whether the query already joins along path.
func (q *query) joined(path []hop) bool {
	_, ok := q.aliases[pathKey(path)]
	return ok
}

func pathKey(path []hop) string {
	key := ""
	for _, h := range path {
		key += h.to.Name + "." + h.toCol + "<" + h.fromCol + "|"
	}
	return key
}

// alias returns the alias of the table a path ends at.
func (q *query) alias(path []hop) string {
	key := ""
	prev := "T1"
	for _, h := range path {
		key += h.to.Name + "." + h.toCol + "<" + h.fromCol + "|"
		al, ok := q.aliases[key]
		if !ok {
			al = "T" + strconv.Itoa(len(q.aliases)+1)
			q.aliases[key] = al
			kind := "INNER JOIN"
			if q.left {
				kind = "LEFT JOIN"
			}
			q.joins = append(q.joins, kind+" "+ident(h.to.Name)+" AS "+al+" ON "+prev+"."+ident(h.fromCol)+" = "+al+"."+ident(h.toCol))
		}
		if h.many {
			q.fanout = true
		}
		prev = al
	}
	return prev
}

// self is a column of the base table, qualified.
func (q *query) self(c *Column) string { return "T1." + ident(c.Name) }

// from renders the FROM clause.
func (q *query) from() string {
	s := "FROM " + ident(q.base.Name) + " AS T1"
	for _, j := range q.joins {
		s += " " + j
	}
	return s
}

// finish drops the aliases of a query that reads one table, as BIRD's
// golds write those.
func (q *query) finish(sql string) string {
	if len(q.joins) > 0 {
		return sql
	}
	sql = strings.Replace(sql, " AS T1", "", 1)
	var b strings.Builder
	in := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c == '\'' {
			in = !in
		}
		if !in && strings.HasPrefix(sql[i:], "T1.") && (i == 0 || !isWord(sql[i-1])) {
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// lit writes a value as a SQL literal.
func lit(v sqlexec.Value) string {
	switch v.Kind {
	case sqlexec.KindInt:
		return strconv.FormatInt(v.I, 10)
	case sqlexec.KindFloat:
		return fmtNum(v.F)
	case sqlexec.KindText:
		return "'" + strings.ReplaceAll(v.S, "'", "''") + "'"
	}
	return "NULL"
}

// fmtNum writes a threshold without float noise.
func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// wordValued reports whether a value is an entity's name: text with a
// letter in it, short enough for a question.
func wordValued(v sqlexec.Value) bool {
	if v.Kind != sqlexec.KindText || len(v.S) > 60 || strings.ContainsAny(v.S, "\n\t\r") || strings.TrimSpace(v.S) != v.S || v.S == "" {
		return false
	}
	for _, r := range v.S {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f {
			return true
		}
	}
	return false
}
