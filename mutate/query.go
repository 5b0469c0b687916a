package mutate

import (
	"math/rand"
	"strings"
)

// query is a lexed SQL string plus the structure the mutations need:
// parenthesis depth per token and the position of the main query's clauses.
type query struct {
	toks  []token
	depth []int // parenthesis depth of each token; "(" and its ")" sit at the outer depth
}

func newQuery(sql string) *query {
	q := &query{toks: lex(sql)}
	q.depth = make([]int, len(q.toks))
	d := 0
	for i, t := range q.toks {
		if t.isOp(")") && d > 0 {
			d--
		}
		q.depth[i] = d
		if t.isOp("(") {
			d++
		}
	}
	return q
}

// next returns the index of the first significant token after i, or -1.
func (q *query) next(i int) int {
	for j := i + 1; j < len(q.toks); j++ {
		if q.toks[j].significant() {
			return j
		}
	}
	return -1
}

// prev returns the index of the last significant token before i, or -1.
func (q *query) prev(i int) int {
	for j := i - 1; j >= 0; j-- {
		if q.toks[j].significant() {
			return j
		}
	}
	return -1
}

// closing returns the index of the ")" matching the "(" at i, or -1.
func (q *query) closing(i int) int {
	d := q.depth[i]
	for j := i + 1; j < len(q.toks); j++ {
		if q.toks[j].isOp(")") && q.depth[j] == d {
			return j
		}
	}
	return -1
}

// opening returns the index of the "(" matching the ")" at i, or -1.
func (q *query) opening(i int) int {
	d := q.depth[i]
	for j := i - 1; j >= 0; j-- {
		if q.toks[j].isOp("(") && q.depth[j] == d {
			return j
		}
	}
	return -1
}

// with returns the SQL text with toks[i:j] replaced by text.
func (q *query) with(i, j int, text string) string {
	var b strings.Builder
	for _, t := range q.toks[:i] {
		b.WriteString(t.text)
	}
	b.WriteString(text)
	for _, t := range q.toks[j:] {
		b.WriteString(t.text)
	}
	return b.String()
}

// text renders toks[i:j].
func (q *query) text(i, j int) string { return render(q.toks[i:j]) }

// sql renders the whole query.
func (q *query) sql() string { return render(q.toks) }

// clauses locates the clause keywords of the main (outermost) query. Indexes
// are token indexes, -1 when absent. The "core" is the first SELECT ... up to
// a compound operator (UNION, INTERSECT, EXCEPT); ORDER BY and LIMIT are
// searched for over the whole outer statement.
type clauses struct {
	sel     int // main SELECT
	from    int // FROM of the core
	where   int // WHERE of the core
	group   int // GROUP (BY) of the core
	having  int // HAVING of the core
	order   int // last depth-0 ORDER (BY)
	limit   int // last depth-0 LIMIT
	coreEnd int // first compound operator at depth 0, or end
	end     int // first ";" at depth 0, or len(toks)
}

func (q *query) clauses() clauses {
	c := clauses{sel: -1, from: -1, where: -1, group: -1, having: -1, order: -1, limit: -1}
	c.end = len(q.toks)
	for i, t := range q.toks {
		if q.depth[i] == 0 && t.isOp(";") {
			c.end = i
			break
		}
	}
	c.coreEnd = c.end
	for i := 0; i < c.end; i++ {
		t := q.toks[i]
		if q.depth[i] != 0 || t.kind != tWord {
			continue
		}
		switch t.upper() {
		case "SELECT":
			if c.sel < 0 {
				c.sel = i
			}
		case "UNION", "INTERSECT", "EXCEPT":
			if c.sel >= 0 && c.coreEnd == c.end {
				c.coreEnd = i
			}
		}
	}
	if c.sel < 0 {
		return c
	}
	for i := c.sel + 1; i < c.end; i++ {
		t := q.toks[i]
		if q.depth[i] != 0 || t.kind != tWord {
			continue
		}
		inCore := i < c.coreEnd
		switch t.upper() {
		case "FROM":
			if inCore && c.from < 0 {
				c.from = i
			}
		case "WHERE":
			if inCore && c.where < 0 {
				c.where = i
			}
		case "GROUP":
			if inCore && c.group < 0 {
				c.group = i
			}
		case "HAVING":
			if inCore && c.having < 0 {
				c.having = i
			}
		case "ORDER":
			if n := q.next(i); n >= 0 && q.toks[n].is("BY") {
				c.order = i // the last ORDER BY at depth 0 wins
			}
		case "LIMIT":
			c.limit = i
		}
	}
	return c
}

// clauseEnd returns the index where the clause starting at start ends: the
// next depth-0 clause keyword or compound operator, or stop.
func (q *query) clauseEnd(start, stop int) int {
	for i := start + 1; i < stop; i++ {
		if q.depth[i] != 0 || q.toks[i].kind != tWord {
			continue
		}
		switch q.toks[i].upper() {
		case "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "WINDOW":
			if q.toks[i].is("ORDER") || q.toks[i].is("GROUP") {
				if n := q.next(i); n < 0 || !q.toks[n].is("BY") {
					continue
				}
			}
			return i
		}
	}
	return stop
}

// splitTop splits the significant range (from, to) at depth-0 separators for
// which isSep reports true. It returns [start, end) token ranges, trimmed of
// surrounding whitespace. Tokens between CASE and END never split.
func (q *query) splitTop(from, to int, isSep func(i int) bool) [][2]int {
	var parts [][2]int
	start := from
	caseDepth := 0
	for i := from; i < to; i++ {
		t := q.toks[i]
		if q.depth[i] != q.depth[from] {
			continue
		}
		if t.is("CASE") {
			caseDepth++
		} else if t.is("END") && caseDepth > 0 {
			caseDepth--
		}
		if caseDepth == 0 && isSep(i) {
			parts = append(parts, q.trim(start, i))
			start = i + 1
		}
	}
	parts = append(parts, q.trim(start, to))
	return parts
}

// trim shrinks [i, j) to exclude leading and trailing whitespace/comments.
func (q *query) trim(i, j int) [2]int {
	for i < j && !q.toks[i].significant() {
		i++
	}
	for j > i && !q.toks[j-1].significant() {
		j--
	}
	return [2]int{i, j}
}

// betweenAnds returns the set of AND tokens that belong to a BETWEEN ... AND.
func (q *query) betweenAnds() map[int]bool {
	m := map[int]bool{}
	for i, t := range q.toks {
		if !t.is("BETWEEN") {
			continue
		}
		for j := i + 1; j < len(q.toks); j++ {
			if q.depth[j] < q.depth[i] {
				break
			}
			if q.depth[j] == q.depth[i] && q.toks[j].is("AND") {
				m[j] = true
				break
			}
		}
	}
	return m
}

// tables returns the table names referenced after FROM, JOIN or a comma in a
// FROM list, at any depth, in order of appearance, without duplicates
// (compared case-insensitively, quotes kept as written).
func (q *query) tables() []string {
	var out []string
	seen := map[string]bool{}
	add := func(i int) {
		if i < 0 {
			return
		}
		t := q.toks[i]
		if (t.kind == tWord && !isKeyword(t)) || t.kind == tQuoted {
			if n := q.next(i); n >= 0 && q.toks[n].isOp("(") {
				return // table-valued function
			}
			if n := q.next(i); n >= 0 && q.toks[n].isOp(".") {
				return // schema-qualified: leave alone
			}
			k := strings.ToLower(unquote(t.text))
			if !seen[k] {
				seen[k] = true
				out = append(out, t.text)
			}
		}
	}
	for i, t := range q.toks {
		if t.is("FROM") || t.is("JOIN") {
			add(q.next(i))
			if t.is("FROM") {
				// comma-separated FROM list at the same depth
				for j := i + 1; j < len(q.toks); j++ {
					if q.depth[j] < q.depth[i] {
						break
					}
					if q.depth[j] != q.depth[i] {
						continue
					}
					u := q.toks[j]
					if u.kind == tWord && (u.is("WHERE") || u.is("GROUP") || u.is("ORDER") || u.is("LIMIT") ||
						u.is("HAVING") || u.is("UNION") || u.is("INTERSECT") || u.is("EXCEPT") || u.is("SELECT")) {
						break
					}
					if u.isOp(",") {
						add(q.next(j))
					}
				}
			}
		}
	}
	return out
}

// unquote strips one level of identifier or string quoting.
func unquote(s string) string {
	if len(s) >= 2 {
		switch {
		case s[0] == '"' && s[len(s)-1] == '"',
			s[0] == '`' && s[len(s)-1] == '`',
			s[0] == '\'' && s[len(s)-1] == '\'':
			q := s[:1]
			return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
		case s[0] == '[' && s[len(s)-1] == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// pick returns a random index below n, or 0 when rng is nil (n must be > 0).
func pick(rng *rand.Rand, n int) int {
	if rng == nil || n <= 1 {
		return 0
	}
	return rng.Intn(n)
}
