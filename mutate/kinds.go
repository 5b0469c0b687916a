package mutate

import (
	"math/rand"
	"strconv"
	"strings"
)

// context returns the nearest clause keyword that governs token i: SELECT,
// FROM, JOIN, ON, WHERE, GROUP, HAVING, ORDER or LIMIT, looking backwards at
// the token's own depth and then outwards; "" when none.
func (q *query) context(i int) string {
	d := q.depth[i]
	for j := i - 1; j >= 0; j-- {
		if q.depth[j] < d {
			d = q.depth[j]
		}
		if q.depth[j] != d || q.toks[j].kind != tWord {
			continue
		}
		switch u := q.toks[j].upper(); u {
		case "SELECT", "FROM", "JOIN", "ON", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "USING":
			return u
		}
	}
	return ""
}

var cmpSwap = map[string]string{
	"=": "<>", "==": "<>", "!=": "=", "<>": "=",
	"<": "<=", "<=": "<", ">": ">=", ">=": ">",
}

func mCompareOp(q *query, rng *rand.Rand) (string, bool) {
	var cand []int
	for i, t := range q.toks {
		if _, ok := cmpSwap[t.text]; ok && t.kind == tOp && q.context(i) != "ON" {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	i := cand[pick(rng, len(cand))]
	return q.with(i, i+1, cmpSwap[q.toks[i].text]), true
}

// inLimit reports whether token i is a LIMIT/OFFSET argument.
func (q *query) inLimit(i int) bool {
	c := q.context(i)
	return c == "LIMIT" || c == "OFFSET"
}

func mLiteralValue(q *query, rng *rand.Rand) (string, bool) {
	type edit struct {
		i    int
		text string
	}
	var cand []edit
	for i, t := range q.toks {
		if q.inLimit(i) || q.context(i) == "ON" {
			continue
		}
		switch t.kind {
		case tNumber:
			if s, ok := bumpNumber(t.text); ok {
				cand = append(cand, edit{i, s})
			}
		case tString:
			if s, ok := bumpString(unquote(t.text)); ok {
				cand = append(cand, edit{i, quoteString(s)})
			}
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	e := cand[pick(rng, len(cand))]
	return q.with(e.i, e.i+1, e.text), true
}

// bumpNumber adds 1 to a decimal integer or decimal-point literal, keeping
// the number of decimals.
func bumpNumber(s string) (string, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < 1<<62 {
		return strconv.FormatInt(n+1, 10), true
	}
	if strings.ContainsAny(s, "xXeE") {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	dec := 0
	if k := strings.IndexByte(s, '.'); k >= 0 {
		dec = len(s) - k - 1
	}
	out := strconv.FormatFloat(f+1, 'f', dec, 64)
	if dec == 0 && strings.Contains(s, ".") {
		out += "."
	}
	return out, out != s
}

// bumpString changes the last ASCII letter or digit of s to the next one
// (z->a, Z->A, 9->0); an empty or symbol-only string gets an "x" appended
// before any trailing % wildcard.
func bumpString(s string) (string, bool) {
	b := []byte(s)
	for k := len(b) - 1; k >= 0; k-- {
		c := b[k]
		switch {
		case c >= '0' && c <= '9':
			b[k] = '0' + (c-'0'+1)%10
			return string(b), true
		case c >= 'a' && c <= 'z':
			b[k] = 'a' + (c-'a'+1)%26
			return string(b), true
		case c >= 'A' && c <= 'Z':
			b[k] = 'A' + (c-'A'+1)%26
			return string(b), true
		}
	}
	t := strings.TrimRight(s, "%")
	return t + "x" + s[len(t):], true
}

// quoteString renders s as an SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func mLiteralCase(q *query, rng *rand.Rand) (string, bool) {
	type edit struct {
		i    int
		text string
	}
	var cand []edit
	for i, t := range q.toks {
		if t.kind != tString {
			continue
		}
		s := []byte(unquote(t.text))
		for k, c := range s {
			if c >= 'a' && c <= 'z' {
				s[k] = c - 'a' + 'A'
			} else if c >= 'A' && c <= 'Z' {
				s[k] = c - 'A' + 'a'
			} else {
				continue
			}
			cand = append(cand, edit{i, quoteString(string(s))})
			break
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	e := cand[pick(rng, len(cand))]
	return q.with(e.i, e.i+1, e.text), true
}

// whereParts returns the WHERE keyword index, the clause end and its
// AND-conjuncts at depth 0; ok is false when there is no WHERE or when the
// WHERE has a top-level OR (dropping a conjunct of "a AND b OR c" is not a
// clean single-filter change).
func (q *query) whereParts() (where, end int, parts [][2]int, ok bool) {
	c := q.clauses()
	if c.where < 0 {
		return 0, 0, nil, false
	}
	end = q.clauseEnd(c.where, c.coreEnd)
	bt := q.betweenAnds()
	caseDepth := 0
	for i := c.where + 1; i < end; i++ {
		if q.depth[i] != 0 {
			continue
		}
		t := q.toks[i]
		if t.is("CASE") {
			caseDepth++
		} else if t.is("END") && caseDepth > 0 {
			caseDepth--
		} else if caseDepth == 0 && t.is("OR") {
			return 0, 0, nil, false
		}
	}
	parts = q.splitTop(c.where+1, end, func(i int) bool { return q.toks[i].is("AND") && !bt[i] })
	return c.where, end, parts, true
}

func mDropConjunct(q *query, rng *rand.Rand) (string, bool) {
	where, end, parts, ok := q.whereParts()
	if !ok {
		return "", false
	}
	if len(parts) == 1 {
		i := where
		if p := q.prev(where); p >= 0 {
			i = p + 1
		}
		j := q.trim(where, end)[1]
		return q.with(i, j, ""), true
	}
	k := pick(rng, len(parts))
	if k < len(parts)-1 {
		return q.with(parts[k][0], parts[k+1][0], ""), true
	}
	return q.with(parts[k-1][1], parts[k][1], ""), true
}

func mSwapAndOr(q *query, rng *rand.Rand) (string, bool) {
	bt := q.betweenAnds()
	var cand []int
	for i, t := range q.toks {
		if !(t.is("AND") && !bt[i]) && !t.is("OR") {
			continue
		}
		if c := q.context(i); c == "WHERE" || c == "HAVING" {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	i := cand[pick(rng, len(cand))]
	repl := "OR"
	if q.toks[i].is("OR") {
		repl = "AND"
	}
	return q.with(i, i+1, matchCase(q.toks[i].text, repl)), true
}

var aggSwap = map[string]string{"COUNT": "SUM", "SUM": "COUNT", "AVG": "SUM", "MAX": "MIN", "MIN": "MAX"}

func mAggregate(q *query, rng *rand.Rand) (string, bool) {
	var cand []int
	for i, t := range q.toks {
		if t.kind != tWord {
			continue
		}
		if _, ok := aggSwap[t.upper()]; !ok {
			continue
		}
		o := q.next(i)
		if o < 0 || !q.toks[o].isOp("(") {
			continue
		}
		if a := q.next(o); a >= 0 && q.toks[a].isOp("*") {
			continue // COUNT(*): SUM(*) is just a syntax error
		}
		cand = append(cand, i)
	}
	if len(cand) == 0 {
		return "", false
	}
	i := cand[pick(rng, len(cand))]
	return q.with(i, i+1, matchCase(q.toks[i].text, aggSwap[q.toks[i].upper()])), true
}

func mDistinct(q *query, _ *rand.Rand) (string, bool) {
	c := q.clauses()
	if c.sel < 0 {
		return "", false
	}
	n := q.next(c.sel)
	if n < 0 {
		return "", false
	}
	switch {
	case q.toks[n].is("DISTINCT"):
		j := q.next(n)
		if j < 0 {
			j = n + 1
		}
		return q.with(n, j, ""), true
	case q.toks[n].is("ALL"):
		return q.with(n, n+1, matchCase(q.toks[c.sel].text, "DISTINCT")), true
	}
	return q.with(n, n, matchCase(q.toks[c.sel].text, "DISTINCT")+" "), true
}

func mCountDistinct(q *query, rng *rand.Rand) (string, bool) {
	type edit struct{ i, j int }
	var cand []edit
	var inserts [][2]int // {insert position, COUNT token}
	for i, t := range q.toks {
		if !t.is("COUNT") {
			continue
		}
		o := q.next(i)
		if o < 0 || !q.toks[o].isOp("(") {
			continue
		}
		a := q.next(o)
		if a < 0 || q.toks[a].isOp("*") || q.toks[a].isOp(")") {
			continue
		}
		if q.toks[a].is("DISTINCT") {
			b := q.next(a)
			if b < 0 {
				continue
			}
			cand = append(cand, edit{a, b})
		} else {
			inserts = append(inserts, [2]int{a, i})
		}
	}
	n := len(cand) + len(inserts)
	if n == 0 {
		return "", false
	}
	k := pick(rng, n)
	if k < len(cand) {
		return q.with(cand[k].i, cand[k].j, ""), true
	}
	ins := inserts[k-len(cand)]
	return q.with(ins[0], ins[0], matchCase(q.toks[ins[1]].text, "DISTINCT")+" "), true
}

// selectItems returns the top-level items of the main SELECT list.
func (q *query) selectItems() [][2]int {
	c := q.clauses()
	if c.sel < 0 {
		return nil
	}
	start := c.sel + 1
	if n := q.next(c.sel); n >= 0 && (q.toks[n].is("DISTINCT") || q.toks[n].is("ALL")) {
		start = n + 1
	}
	end := c.from
	if end < 0 {
		end = q.clauseEnd(c.sel, c.coreEnd)
	}
	if start >= end {
		return nil
	}
	return q.splitTop(start, end, func(i int) bool { return q.toks[i].isOp(",") })
}

func mReorderSelect(q *query, rng *rand.Rand) (string, bool) {
	items := q.selectItems()
	if len(items) < 2 {
		return "", false
	}
	a := pick(rng, len(items))
	b := pick(rng, len(items)-1)
	if b >= a {
		b++
	}
	if strings.EqualFold(q.text(items[a][0], items[a][1]), q.text(items[b][0], items[b][1])) {
		return "", false
	}
	var sb strings.Builder
	sb.WriteString(q.text(0, items[0][0]))
	for k := range items {
		src := k
		if k == a {
			src = b
		} else if k == b {
			src = a
		}
		sb.WriteString(q.text(items[src][0], items[src][1]))
		if k+1 < len(items) {
			sb.WriteString(q.text(items[k][1], items[k+1][0]))
		}
	}
	sb.WriteString(q.text(items[len(items)-1][1], len(q.toks)))
	return sb.String(), true
}

func mDropSelectColumn(q *query, rng *rand.Rand) (string, bool) {
	items := q.selectItems()
	if len(items) < 2 {
		return "", false
	}
	k := pick(rng, len(items))
	if k < len(items)-1 {
		return q.with(items[k][0], items[k+1][0], ""), true
	}
	return q.with(items[k-1][1], items[k][1], ""), true
}

func mLimit(q *query, _ *rand.Rand) (string, bool) {
	c := q.clauses()
	if c.sel < 0 {
		return "", false
	}
	if c.limit >= 0 {
		n := q.next(c.limit)
		if n < 0 || q.toks[n].kind != tNumber {
			return "", false
		}
		v, err := strconv.ParseInt(q.toks[n].text, 10, 64)
		if err != nil || v > 1<<40 {
			return "", false
		}
		return q.with(n, n+1, strconv.FormatInt(v+1, 10)), true
	}
	last := q.trim(0, c.end)[1]
	return q.with(last, last, " "+matchCase(q.toks[c.sel].text, "LIMIT")+" 1"), true
}

func mOrderDirection(q *query, _ *rand.Rand) (string, bool) {
	c := q.clauses()
	if c.order < 0 {
		return "", false
	}
	by := q.next(c.order)
	end := q.clauseEnd(by, c.end)
	items := q.splitTop(by+1, end, func(i int) bool { return q.toks[i].isOp(",") })
	if len(items) == 0 || items[0][0] >= items[0][1] {
		return "", false
	}
	last := items[0][1] - 1
	t := q.toks[last]
	switch {
	case t.is("DESC"):
		return q.with(last, last+1, matchCase(t.text, "ASC")), true
	case t.is("ASC"):
		return q.with(last, last+1, matchCase(t.text, "DESC")), true
	case t.is("FIRST") || t.is("LAST"):
		return "", false
	}
	return q.with(last+1, last+1, " "+matchCase(q.toks[c.order].text, "DESC")), true
}

func mIntText(q *query, rng *rand.Rand) (string, bool) {
	type edit struct {
		i    int
		text string
	}
	var cand []edit
	for i, t := range q.toks {
		if q.inLimit(i) {
			continue
		}
		switch t.kind {
		case tNumber:
			if _, err := strconv.ParseInt(t.text, 10, 64); err == nil {
				cand = append(cand, edit{i, "'" + t.text + "'"})
			}
		case tString:
			s := unquote(t.text)
			if isPlainNumber(s) {
				cand = append(cand, edit{i, s})
			}
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	e := cand[pick(rng, len(cand))]
	return q.with(e.i, e.i+1, e.text), true
}

// isPlainNumber reports whether s is an optionally signed decimal number
// without leading zeros (so that unquoting it keeps its text).
func isPlainNumber(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || (len(t) > 1 && t[0] == '0' && t[1] != '.') {
		return false
	}
	dot := false
	for k := 0; k < len(t); k++ {
		switch {
		case isDigit(t[k]):
		case t[k] == '.' && !dot && k > 0 && k < len(t)-1:
			dot = true
		default:
			return false
		}
	}
	return true
}

func mCastReal(q *query, rng *rand.Rand) (string, bool) {
	type edit struct {
		i, j int
		text string
	}
	var cand []edit
	for i, t := range q.toks {
		switch {
		case t.is("CAST"):
			o := q.next(i)
			if o < 0 || !q.toks[o].isOp("(") {
				continue
			}
			cl := q.closing(o)
			if cl < 0 {
				continue
			}
			typ := q.prev(cl)
			as := q.prev(typ)
			if typ < 0 || as < 0 || !q.toks[typ].is("REAL") || !q.toks[as].is("AS") || q.depth[as] != q.depth[o]+1 {
				continue
			}
			inner := q.trim(o+1, as)
			cand = append(cand, edit{i, cl + 1, q.text(inner[0], inner[1])})
		case t.isOp("/"):
			p := q.prev(i)
			if p < 0 {
				continue
			}
			start := p
			switch pt := q.toks[p]; {
			case pt.isOp(")"):
				o := q.opening(p)
				if o < 0 {
					continue
				}
				start = o
				if f := q.prev(o); f >= 0 && q.toks[f].kind == tWord && !isKeyword(q.toks[f]) {
					start = f
				} else if f >= 0 && q.toks[f].is("CAST") {
					continue // already a CAST
				}
			case pt.kind == tWord || pt.kind == tQuoted:
				if isKeyword(pt) {
					continue
				}
				if d := q.prev(p); d >= 0 && q.toks[d].isOp(".") {
					if tb := q.prev(d); tb >= 0 {
						start = tb
					}
				}
			case pt.kind == tNumber:
			default:
				continue
			}
			cand = append(cand, edit{start, p + 1, "CAST(" + q.text(start, p+1) + " AS REAL)"})
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	e := cand[pick(rng, len(cand))]
	return q.with(e.i, e.j, e.text), true
}

func mDuplicateJoin(q *query, _ *rand.Rand) (string, bool) {
	c := q.clauses()
	if c.from < 0 {
		return "", false
	}
	n := q.next(c.from)
	if n < 0 {
		return "", false
	}
	end := n
	switch t := q.toks[n]; {
	case t.isOp("("):
		end = q.closing(n)
		if end < 0 {
			return "", false
		}
	case t.kind == tWord && !isKeyword(t), t.kind == tQuoted:
		if d := q.next(n); d >= 0 && q.toks[d].isOp(".") {
			if m := q.next(d); m >= 0 {
				end = m
			}
		}
	default:
		return "", false
	}
	// optional alias: [AS] name
	if a := q.next(end); a >= 0 {
		if q.toks[a].is("AS") {
			if b := q.next(a); b >= 0 {
				end = b
			}
		} else if (q.toks[a].kind == tWord && !isKeyword(q.toks[a])) || q.toks[a].kind == tQuoted {
			end = a
		}
	}
	ins := " " + matchCase(q.toks[c.from].text, "CROSS JOIN (SELECT 1 UNION ALL SELECT 2)")
	return q.with(end+1, end+1, ins), true
}

// misspell returns a plausible typo of an identifier token, keeping its
// quoting: two adjacent distinct letters swapped, or an "x" appended for
// short names.
func misspell(text string) string {
	open, close := "", ""
	name := text
	if len(text) >= 2 {
		switch text[0] {
		case '"', '`', '[':
			open, close = text[:1], text[len(text)-1:]
			name = text[1 : len(text)-1]
		}
	}
	b := []byte(name)
	for k := len(b) - 2; k >= 1; k-- {
		if b[k] != b[k+1] && isLetter(b[k]) && isLetter(b[k+1]) {
			b[k], b[k+1] = b[k+1], b[k]
			return open + string(b) + close
		}
	}
	return open + name + "x" + close
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func mUnknownColumn(q *query, rng *rand.Rand) (string, bool) {
	var cand []int
	for i, t := range q.toks {
		if !(t.kind == tWord && !isKeyword(t)) && t.kind != tQuoted {
			continue
		}
		p := q.prev(i)
		if p >= 0 && q.toks[p].isOp(".") {
			cand = append(cand, i) // qualified column T1.col
		}
	}
	if len(cand) == 0 {
		// unqualified names in the main SELECT list that are not calls
		for _, it := range q.selectItems() {
			for i := it[0]; i < it[1]; i++ {
				t := q.toks[i]
				if t.kind != tWord || isKeyword(t) {
					continue
				}
				if n := q.next(i); n >= 0 && (q.toks[n].isOp("(") || q.toks[n].isOp(".")) {
					continue
				}
				if p := q.prev(i); p >= 0 && q.toks[p].is("AS") {
					continue
				}
				cand = append(cand, i)
			}
		}
	}
	if len(cand) == 0 {
		return "", false
	}
	i := cand[pick(rng, len(cand))]
	return q.with(i, i+1, misspell(q.toks[i].text)), true
}

// tableTokens returns the indexes of table names right after FROM or JOIN.
func (q *query) tableTokens() []int {
	var out []int
	for i, t := range q.toks {
		if !t.is("FROM") && !t.is("JOIN") {
			continue
		}
		n := q.next(i)
		if n < 0 {
			continue
		}
		u := q.toks[n]
		if !(u.kind == tWord && !isKeyword(u)) && u.kind != tQuoted {
			continue
		}
		if m := q.next(n); m >= 0 && (q.toks[m].isOp("(") || q.toks[m].isOp(".")) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func mUnknownTable(q *query, rng *rand.Rand) (string, bool) {
	cand := q.tableTokens()
	if len(cand) == 0 {
		return "", false
	}
	i := cand[pick(rng, len(cand))]
	return q.with(i, i+1, misspell(q.toks[i].text)), true
}

func mSyntaxError(q *query, _ *rand.Rand) (string, bool) {
	c := q.clauses()
	if c.from >= 0 {
		return q.with(c.from, c.from+1, matchCase(q.toks[c.from].text, "FORM")), true
	}
	for i := len(q.toks) - 1; i >= 0; i-- {
		if q.toks[i].isOp(")") {
			return q.with(i, i+1, ""), true
		}
	}
	return stripTerminator(q.sql()) + " WHERE", true
}

func mMultiStatement(q *query, _ *rand.Rand) (string, bool) {
	return stripTerminator(q.sql()) + "; SELECT 1", true
}

func mTrailingSemicolon(q *query, _ *rand.Rand) (string, bool) {
	s := q.sql()
	t := strings.TrimRight(s, " \t\r\n")
	if strings.HasSuffix(t, ";") {
		return stripTerminator(s), true
	}
	return t + ";", true
}

func mKeywordCase(q *query, _ *rand.Rand) (string, bool) {
	var b strings.Builder
	changed := false
	for _, t := range q.toks {
		if isKeyword(t) {
			s := strings.ToLower(t.text)
			if s == t.text {
				s = strings.ToUpper(t.text)
			}
			changed = changed || s != t.text
			b.WriteString(s)
			continue
		}
		b.WriteString(t.text)
	}
	return b.String(), changed
}

// writeWith returns a mutation that ignores the gold except for picking one
// of its tables, substituted for %t in tmpl.
func writeWith(tmpl string) func(q *query, rng *rand.Rand) (string, bool) {
	return func(q *query, rng *rand.Rand) (string, bool) {
		if !strings.Contains(tmpl, "%t") {
			return tmpl, true
		}
		ts := q.tables()
		if len(ts) == 0 {
			return "", false
		}
		return strings.ReplaceAll(tmpl, "%t", ts[pick(rng, len(ts))]), true
	}
}

func mWriteMultiStatement(q *query, rng *rand.Rand) (string, bool) {
	ts := q.tables()
	if len(ts) == 0 {
		return "", false
	}
	return stripTerminator(q.sql()) + "; DELETE FROM " + ts[pick(rng, len(ts))], true
}

func mRunawayCrossJoin(q *query, _ *rand.Rand) (string, bool) {
	ts := q.tables()
	if len(ts) == 0 {
		return "", false
	}
	var from []string
	n := 0
	for _, t := range ts {
		for k := 0; k < 3; k++ {
			n++
			from = append(from, t+" AS r"+strconv.Itoa(n))
		}
	}
	return "SELECT COUNT(*) FROM " + strings.Join(from, ", "), true
}

func mRunawayRecursive(_ *query, _ *rand.Rand) (string, bool) {
	return "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r", true
}
