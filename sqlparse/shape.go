package sqlparse

import (
	"fmt"
	"sort"
	"strings"
)

// Shape is the structure of one query, schema-free: what a validator trained
// without a teacher compares between a candidate and the gold. Two queries
// that are written differently but mean the same thing (aliases, a = b
// against b = a, spacing, keyword case) should give equal fields, so that the
// differences left are the ones worth a sentence of feedback.
//
// The counts cover the whole query, subqueries and set-operation arms
// included; the text fields describe the top-level SELECT only, because that
// is what decides the result a question is graded on.
type Shape struct {
	// Joins counts table units beyond the first in each SELECT's FROM,
	// summed over every SELECT (JOIN and comma joins alike).
	Joins int
	// Subqueries counts nested SELECT statements: in expressions, in FROM
	// and CTE bodies.
	Subqueries int
	// SetOps counts UNION / INTERSECT / EXCEPT.
	SetOps int
	// Windows counts window function calls (OVER).
	Windows int
	// Case and Cast count CASE expressions and CAST calls.
	Case, Cast int
	// Arithmetic counts binary + - * / % with at least one operand that is
	// not a literal: the ratios and differences BIRD questions ask for.
	Arithmetic int
	// Aggregates counts calls to count, sum, avg, total, group_concat and
	// single-argument min/max.
	Aggregates int
	// GroupBy, Having, OrderBy and Limit count SELECTs with that clause.
	GroupBy, Having, OrderBy, Limit int
	// Distinct counts DISTINCT, in SELECT DISTINCT and in aggregates.
	Distinct int
	// NullTests counts IS [NOT] NULL, ISNULL and NOTNULL.
	NullTests int
	// Like counts LIKE and GLOB.
	Like int
	// DateFuncs counts strftime, date, time, datetime, julianday and
	// unixepoch calls and CURRENT_DATE/TIME/TIMESTAMP.
	DateFuncs int

	// Tables are the lower-cased distinct names of the tables read anywhere
	// in the query (CTE names excluded), sorted.
	Tables []string

	// Select holds the top-level SELECT's result columns (the first arm of
	// a set operation), normalised by the rules of Skeleton but keeping
	// names and literals: keywords and names lower-cased, single spaces,
	// the column alias dropped, table aliases replaced by the table name,
	// and a bare column qualified with the table when the SELECT reads a
	// single table. "T1.name" over "superhero AS T1" and "name" over
	// "superhero" both read "superhero.name".
	Select []string
	// Conditions are the WHERE and HAVING conditions of every arm of the
	// top-level statement, split at top-level AND (not the AND of BETWEEN
	// or inside CASE), outer parentheses removed, a literal compared by =
	// moved to the right.
	Conditions []string
	// JoinOn are the ON conditions of the top-level FROM, split at AND,
	// each equality with its two sides in sorted order so that a = b and
	// b = a read the same.
	JoinOn []string
	// GroupByCols and OrderByCols are the top-level GROUP BY and ORDER BY
	// terms (ORDER BY of the last arm, where SQLite attaches it); ASC, the
	// default, is dropped, DESC kept.
	GroupByCols, OrderByCols []string
	// TopLimit is the top-level LIMIT clause's text ("1", "1 offset 2"),
	// empty without one: with ORDER BY it decides which rows come back.
	TopLimit string

	// Skeleton is the query with every name replaced by "_" and every
	// literal by "?" (function names and keywords kept, lower-cased,
	// whitespace normalised), so two queries that differ only in names and
	// values have the same skeleton: a cheap key for "same kind of query".
	Skeleton string
}

// Analyze reads the structure of one SELECT statement. It accepts what the
// general parser accepts (the SQLite SELECT syntax of BIRD and Spider golds
// and of model output) and returns an error wrapping ErrSyntax otherwise;
// it never panics on arbitrary text.
func Analyze(sql string) (*Shape, error) {
	raw := Tokenize(sql)
	for _, t := range raw {
		if !t.Terminated() {
			return nil, fmt.Errorf("sqlparse: analyze: %w: unterminated %s at offset %d", ErrSyntax, t.Kind, t.Offset)
		}
	}
	if _, err := parseGeneral(raw); err != nil {
		return nil, fmt.Errorf("sqlparse: analyze: %w", err)
	}
	a := newShaper(raw)
	return a.analyze(), nil
}

// shaper walks the token list of a query the general parser has accepted,
// so every parenthesis is balanced and every clause well formed; the walk
// only has to find where clauses and items start and end.
type shaper struct {
	toks  []ptok
	match []int   // index of the matching ")" for each "(", else -1
	scope []*core // innermost SELECT core containing each token
	bound []bool  // a table name or alias where FROM binds it
	typ   []bool  // a word of a CAST type name
	cores []*core // every SELECT core, outermost statement first
	ctes  map[string]bool
	shape *Shape
}

// span is a half-open token range.
type span struct{ lo, hi int }

func (s span) empty() bool { return s.hi <= s.lo }

// core is one SELECT core: its clauses and the names its FROM binds.
type core struct {
	parent                     *core
	sel, where, group          span
	having, order, limit       span
	distinct                   bool
	units                      int               // table units in FROM
	tables                     []string          // real tables in FROM, in order
	aliases                    map[string]string // alias (and table name) -> table
	selAliases                 map[string]bool   // result column aliases
	on                         []span
	subqueryUnit, top, hasFrom bool
}

func newShaper(raw []Token) *shaper {
	a := &shaper{ctes: map[string]bool{}, shape: &Shape{}}
	for _, t := range raw {
		if t.IsTrivia() {
			continue
		}
		n := len(a.toks)
		// "> =" is one operator to the parser; keep it one here too.
		if t.Text == "=" && n > 0 && t.Offset > a.toks[n-1].End() {
			switch a.toks[n-1].Text {
			case ">", "<", "!":
				a.toks[n-1].Text += "="
				a.toks[n-1].Kind = KindOperator
				a.toks[n-1].low = a.toks[n-1].Text
				continue
			}
		}
		a.toks = append(a.toks, ptok{Token: t, low: strings.ToLower(t.Text)})
	}
	for len(a.toks) > 0 && a.toks[len(a.toks)-1].low == ";" {
		a.toks = a.toks[:len(a.toks)-1]
	}
	a.match = make([]int, len(a.toks))
	a.scope = make([]*core, len(a.toks))
	a.bound = make([]bool, len(a.toks))
	a.typ = make([]bool, len(a.toks))
	var stack []int
	for i, t := range a.toks {
		a.match[i] = -1
		if t.Kind != KindPunctuation {
			continue
		}
		switch t.low {
		case "(":
			stack = append(stack, i)
		case ")":
			if n := len(stack); n > 0 {
				a.match[stack[n-1]] = i
				stack = stack[:n-1]
			}
		}
	}
	for i := range a.toks {
		if !a.is(i, "cast") || !a.is(i+1, "(") || a.match[i+1] < 0 {
			continue
		}
		end := a.match[i+1]
		for j := i + 2; j < end; j = a.skip(j) {
			if a.is(j, "as") {
				for k := j + 1; k < end; k++ {
					a.typ[k] = true
				}
			}
		}
	}
	return a
}

// is reports whether token i is the word or symbol w (lower case).
func (a *shaper) is(i int, w string) bool {
	if i < 0 || i >= len(a.toks) {
		return false
	}
	t := a.toks[i]
	switch t.Kind {
	case KindKeyword, KindIdentifier, KindOperator, KindPunctuation:
		return t.low == w
	}
	return false
}

// skip returns the index after token i, jumping over a parenthesised group.
func (a *shaper) skip(i int) int {
	if a.is(i, "(") && a.match[i] > i {
		return a.match[i] + 1
	}
	return i + 1
}

// isStmtStart reports whether "(" at i opens a nested statement.
func (a *shaper) isStmtStart(i int) bool {
	return a.is(i, "(") && (a.is(i+1, "select") || a.is(i+1, "with") || a.is(i+1, "values"))
}

func (a *shaper) analyze() *Shape {
	sh := a.shape
	top := a.stmt(span{0, len(a.toks)}, nil)
	for i := range a.toks {
		if a.isStmtStart(i) && a.match[i] > i {
			a.stmt(span{i + 1, a.match[i]}, a.scope[i])
		}
	}
	a.counts()
	tables := map[string]bool{}
	for _, c := range a.cores {
		if c.units > 1 {
			sh.Joins += c.units - 1
		}
		if !c.group.empty() {
			sh.GroupBy++
		}
		if !c.having.empty() {
			sh.Having++
		}
		if !c.order.empty() {
			sh.OrderBy++
		}
		if !c.limit.empty() {
			sh.Limit++
		}
		for _, t := range c.tables {
			if !a.ctes[t] {
				tables[t] = true
			}
		}
	}
	for t := range tables {
		sh.Tables = append(sh.Tables, t)
	}
	sort.Strings(sh.Tables)
	if len(top) > 0 {
		first := top[0]
		for _, it := range a.items(first.sel) {
			sh.Select = append(sh.Select, a.render(a.dropAlias(it), false))
		}
		for _, c := range top {
			for _, w := range []span{c.where, c.having} {
				for _, part := range a.splitAnd(w) {
					sh.Conditions = append(sh.Conditions, literalRight(a.atom(part)))
				}
			}
			for _, on := range c.on {
				for _, part := range a.splitAnd(on) {
					sh.JoinOn = append(sh.JoinOn, sortedSides(a.atom(part)))
				}
			}
		}
		for _, it := range a.items(first.group) {
			sh.GroupByCols = append(sh.GroupByCols, a.render(it, false))
		}
		for _, it := range a.items(top[len(top)-1].order) {
			if a.is(it.hi-1, "asc") {
				it.hi--
			}
			sh.OrderByCols = append(sh.OrderByCols, a.render(it, false))
		}
		sh.TopLimit = a.render(top[len(top)-1].limit, false)
	}
	sh.Skeleton = a.render(span{0, len(a.toks)}, true)
	return sh
}

// stmt splits a statement into its SELECT cores (after any WITH clause) and
// reads each; parent is the core the statement is nested in.
func (a *shaper) stmt(s span, parent *core) []*core {
	i := s.lo
	if a.is(i, "with") {
		i++
		if a.is(i, "recursive") {
			i++
		}
		for i < s.hi {
			if i < len(a.toks) {
				a.ctes[unquote(a.toks[i])] = true
			}
			i++
			for i < s.hi && !a.isStmtStart(i) {
				i = a.skip(i)
			}
			i = a.skip(i) // the body
			if !a.is(i, ",") {
				break
			}
			i++
		}
	}
	var cores []*core
	start := i
	for {
		if i >= s.hi {
			return append(cores, a.core(span{start, s.hi}, parent))
		}
		if a.is(i, "union") || a.is(i, "intersect") || a.is(i, "except") {
			cores = append(cores, a.core(span{start, i}, parent))
			i++
			if a.is(i, "all") {
				i++
			}
			start = i
			continue
		}
		i = a.skip(i)
	}
}

// clauseStart reports the clause a depth-0 token starts, if any.
func (a *shaper) clauseStart(i int) string {
	switch {
	case a.is(i, "from"):
		if a.is(i-1, "distinct") && (a.is(i-2, "is") || a.is(i-2, "not")) {
			return ""
		}
		return "from"
	case a.is(i, "where"), a.is(i, "having"), a.is(i, "window"), a.is(i, "limit"):
		return a.toks[i].low
	case (a.is(i, "group") || a.is(i, "order")) && a.is(i+1, "by"):
		return a.toks[i].low
	}
	return ""
}

func (a *shaper) core(s span, parent *core) *core {
	c := &core{parent: parent, aliases: map[string]string{}, selAliases: map[string]bool{}}
	a.cores = append(a.cores, c)
	for i := s.lo; i < s.hi; i++ {
		a.scope[i] = c
	}
	if !a.is(s.lo, "select") {
		return c // VALUES or a parenthesised arm: nothing to read
	}
	i := s.lo + 1
	if a.is(i, "distinct") {
		c.distinct = true
		i++
	} else if a.is(i, "all") {
		i++
	}
	cur, curStart := "select", i
	var from span
	set := func(end int) {
		sp := span{curStart, end}
		switch cur {
		case "select":
			c.sel = sp
		case "from":
			from = sp
			c.hasFrom = true
		case "where":
			c.where = sp
		case "group":
			c.group = sp
		case "having":
			c.having = sp
		case "order":
			c.order = sp
		case "limit":
			c.limit = sp
		}
	}
	for i < s.hi {
		if cl := a.clauseStart(i); cl != "" {
			set(i)
			cur = cl
			i++
			if cl == "group" || cl == "order" {
				i++
			}
			curStart = i
			continue
		}
		i = a.skip(i)
	}
	set(s.hi)
	a.from(from, c)
	for _, it := range a.items(c.sel) {
		if al, ok := a.aliasOf(it); ok {
			c.selAliases[al] = true
		}
	}
	return c
}

// isJoinWord reports whether token i belongs to a join operator.
func (a *shaper) isJoinWord(i int) bool {
	if a.is(i+1, "(") && !a.is(i, "join") {
		return false // LEFT(...), RIGHT(...) are functions
	}
	for _, w := range []string{"join", "natural", "left", "right", "full", "inner", "cross", "outer"} {
		if a.is(i, w) {
			return true
		}
	}
	return false
}

// from reads a FROM clause: its table units, their aliases and the ON
// conditions.
func (a *shaper) from(s span, c *core) {
	i := s.lo
	for i < s.hi {
		switch {
		case a.is(i, ",") || a.isJoinWord(i):
			i++
			continue
		case a.is(i, "on"):
			j := i + 1
			for j < s.hi && !a.is(j, ",") && !a.isJoinWord(j) {
				j = a.skip(j)
			}
			c.on = append(c.on, span{i + 1, j})
			i = j
			continue
		case a.is(i, "using"):
			i = a.skip(i + 1)
			continue
		case a.is(i, "("):
			end := a.match[i]
			if end < 0 {
				return
			}
			if a.isStmtStart(i) {
				c.units++
				c.subqueryUnit = true
			} else {
				a.from(span{i + 1, end}, c) // a parenthesised join
			}
			i = a.aliasAt(end+1, s.hi, "", c)
			continue
		}
		name := unquote(a.toks[i])
		a.bound[i] = true
		i++
		if a.is(i, ".") && i+1 < s.hi { // schema.table
			name = unquote(a.toks[i+1])
			a.bound[i+1] = true
			i += 2
		}
		c.units++
		c.tables = append(c.tables, name)
		c.aliases[name] = name
		if a.is(i, "(") { // table-valued function
			i = a.skip(i)
		}
		i = a.aliasAt(i, s.hi, name, c)
		if a.is(i, "indexed") && a.is(i+1, "by") {
			i += 3
		} else if a.is(i, "not") && a.is(i+1, "indexed") {
			i += 2
		}
	}
}

// aliasAt reads an optional [AS] alias at i for table (empty for a
// subquery) and returns the index after it.
func (a *shaper) aliasAt(i, hi int, table string, c *core) int {
	if i >= hi {
		return i
	}
	if a.is(i, "as") {
		i++
	} else if k := a.toks[i].Kind; k != KindIdentifier && k != KindQuotedIdentifier && k != KindString {
		return i
	}
	if i < hi {
		a.bound[i] = true
		if table != "" {
			c.aliases[unquote(a.toks[i])] = table
		}
		i++
	}
	return i
}

// items splits a clause at its depth-0 commas.
func (a *shaper) items(s span) []span {
	if s.empty() {
		return nil
	}
	var out []span
	start := s.lo
	for i := s.lo; i < s.hi; {
		if a.is(i, ",") {
			out = append(out, span{start, i})
			start = i + 1
			i++
			continue
		}
		i = a.skip(i)
	}
	return append(out, span{start, s.hi})
}

// operandEnd reports whether token i can end an operand, so that what
// follows it is a binary operator or an alias.
func (a *shaper) operandEnd(i int) bool {
	if i < 0 || i >= len(a.toks) {
		return false
	}
	switch t := a.toks[i]; t.Kind {
	case KindIdentifier, KindQuotedIdentifier, KindNumber, KindString, KindBlob, KindParameter:
		return true
	case KindPunctuation:
		return t.low == ")"
	case KindKeyword:
		return t.low == "end" || t.low == "null" || !reservedWords[t.low] && !a.is(i+1, "(")
	}
	return false
}

// aliasOf returns the alias of a result column, if it has one.
func (a *shaper) aliasOf(s span) (string, bool) {
	n := s.hi - s.lo
	if n >= 2 && a.is(s.hi-2, "as") {
		return unquote(a.toks[s.hi-1]), true
	}
	if n >= 2 {
		k := a.toks[s.hi-1].Kind
		if (k == KindIdentifier || k == KindQuotedIdentifier || k == KindString) && a.operandEnd(s.hi-2) && !a.is(s.hi-2, ".") {
			return unquote(a.toks[s.hi-1]), true
		}
	}
	return "", false
}

func (a *shaper) dropAlias(s span) span {
	if _, ok := a.aliasOf(s); ok {
		s.hi--
		if a.is(s.hi-1, "as") {
			s.hi--
		}
	}
	return s
}

// unwrap removes parentheses around the whole span.
func (a *shaper) unwrap(s span) span {
	for s.hi-s.lo >= 2 && a.is(s.lo, "(") && a.match[s.lo] == s.hi-1 && !a.isStmtStart(s.lo) {
		s = span{s.lo + 1, s.hi - 1}
	}
	return s
}

// splitAnd splits a condition at its top-level ANDs, leaving the AND of
// BETWEEN and those inside CASE alone.
func (a *shaper) splitAnd(s span) []span {
	s = a.unwrap(s)
	if s.empty() {
		return nil
	}
	var out []span
	start, between, cases := s.lo, 0, 0
	for i := s.lo; i < s.hi; {
		switch {
		case a.is(i, "between"):
			between++
		case a.is(i, "case"):
			cases++
		case a.is(i, "end") && cases > 0:
			cases--
		case a.is(i, "and") && cases == 0:
			if between > 0 {
				between--
				break
			}
			if part := a.unwrap(span{start, i}); !part.empty() {
				out = append(out, a.splitAnd(part)...)
			}
			start = i + 1
		}
		i = a.skip(i)
	}
	if part := a.unwrap(span{start, s.hi}); !part.empty() {
		if part != s {
			out = append(out, a.splitAnd(part)...)
		} else {
			out = append(out, part)
		}
	}
	return out
}

// atom renders one atomic condition as its left side, operator and right
// side when it is a single comparison at depth 0, for the reorderings.
type atomCond struct {
	text, left, op, right string
}

var cmpOps = map[string]bool{"=": true, "==": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

func (a *shaper) atom(s span) atomCond {
	ac := atomCond{text: a.render(s, false)}
	opAt, n := -1, 0
	for i := s.lo; i < s.hi; i = a.skip(i) {
		if a.toks[i].Kind == KindOperator && cmpOps[a.toks[i].low] {
			opAt = i
			n++
		}
		if a.is(i, "case") || a.is(i, "between") || a.is(i, "in") || a.is(i, "like") {
			return ac
		}
	}
	if n != 1 || opAt == s.lo || opAt == s.hi-1 {
		return ac
	}
	ac.left = a.render(span{s.lo, opAt}, false)
	ac.op = canonicalEq(a.toks[opAt].low)
	ac.right = a.render(span{opAt + 1, s.hi}, false)
	ac.text = ac.left + " " + ac.op + " " + ac.right
	return ac
}

var flipped = map[string]string{"=": "=", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}

// isLiteralText reports whether rendered text is a single literal.
func isLiteralText(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '\'' || s == "null" {
		return true
	}
	toks := Tokenize(s)
	return len(toks) == 1 && toks[0].Kind == KindNumber
}

// literalRight writes "'x' = T.c" as "T.c = 'x'".
func literalRight(c atomCond) string {
	if c.op != "" && isLiteralText(c.left) && !isLiteralText(c.right) {
		return c.right + " " + flipped[c.op] + " " + c.left
	}
	return c.text
}

// sortedSides writes an equality with its sides in sorted order.
func sortedSides(c atomCond) string {
	if (c.op == "=" || c.op == "!=") && c.right < c.left {
		return c.right + " " + c.op + " " + c.left
	}
	return c.text
}

// unquote lower-cases a name and strips its quotes when what is inside is a
// plain name, so "T1"."Name", `t1`.name and T1.name read the same.
func unquote(t ptok) string {
	if t.Kind != KindQuotedIdentifier || len(t.Text) < 2 {
		return t.low
	}
	inner := strings.ToLower(t.Text[1 : len(t.Text)-1])
	plain := inner != ""
	for i := 0; i < len(inner); i++ {
		if !isIDChar(inner[i]) || (i == 0 && isDigit(inner[i])) {
			plain = false
		}
	}
	if plain && !isSQLiteKeyword(inner) {
		return inner
	}
	return `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`
}

// isFunc reports whether token i names a function being called.
func (a *shaper) isFunc(i int) bool {
	t := a.toks[i]
	return (t.Kind == KindIdentifier || t.Kind == KindKeyword && !reservedWords[t.low]) && a.is(i+1, "(") && !a.is(i-1, ".")
}

// resolve returns the table an alias names in c or the cores around it.
func resolve(c *core, name string) (string, bool) {
	for ; c != nil; c = c.parent {
		if t, ok := c.aliases[name]; ok {
			return t, true
		}
	}
	return "", false
}

// render writes a span as normalised text; skeleton replaces names by "_"
// and literals by "?".
func (a *shaper) render(s span, skeleton bool) string {
	var b strings.Builder
	prev := ""
	for i := s.lo; i < s.hi && i < len(a.toks); i++ {
		t := a.toks[i]
		word := t.low
		isName := t.Kind == KindIdentifier || t.Kind == KindQuotedIdentifier ||
			t.Kind == KindKeyword && !reservedWords[t.low] && !a.isFunc(i) && (a.is(i+1, ".") || a.is(i-1, "."))
		switch {
		case t.Kind == KindString || t.Kind == KindNumber || t.Kind == KindBlob || t.Kind == KindParameter:
			word = t.Text
			if skeleton {
				word = "?"
			}
		case t.Kind == KindOperator:
			word = canonicalEq(t.low)
		case isName && a.isFunc(i), a.typ[i]:
			word = t.low
		case isName && skeleton:
			word = "_"
		case isName:
			word = unquote(t)
			c := a.scope[i]
			switch {
			case a.bound[i]:
			case a.is(i+1, ".") && !a.is(i-1, "."):
				if tab, ok := resolve(c, word); ok {
					word = tab
				}
			case !a.is(i-1, ".") && !a.is(i-1, "as") && c != nil && !c.selAliases[word] &&
				c.units == 1 && len(c.tables) == 1 && !a.isAlias(i):
				word = c.tables[0] + "." + word
			}
		}
		if b.Len() > 0 && prev != "(" && prev != "." && word != ")" && word != "," && word != "." &&
			!(word == "(" && i > 0 && a.isFunc(i-1)) {
			b.WriteByte(' ')
		}
		b.WriteString(word)
		prev = word
	}
	return b.String()
}

// isAlias reports whether name token i is the alias of a result column or
// table rather than a column reference.
func (a *shaper) isAlias(i int) bool {
	return a.operandEnd(i-1) && !a.is(i-1, ".")
}

// counts fills the feature counts that a token scan can see.
func (a *shaper) counts() {
	sh := a.shape
	for i, t := range a.toks {
		fn := a.isFunc(i)
		switch {
		case a.isStmtStart(i):
			sh.Subqueries++
		case a.is(i, "union") || a.is(i, "intersect") || a.is(i, "except"):
			sh.SetOps++
		case a.is(i, "over"):
			sh.Windows++
		case a.is(i, "case"):
			sh.Case++
		case a.is(i, "cast") && a.is(i+1, "("):
			sh.Cast++
		case a.is(i, "distinct") && !a.is(i-1, "is") && !a.is(i-2, "is"):
			sh.Distinct++
		case a.is(i, "is") && (a.is(i+1, "null") || a.is(i+1, "not") && a.is(i+2, "null")),
			a.is(i, "isnull"), a.is(i, "notnull"), a.is(i, "not") && a.is(i+1, "null") && !a.is(i-1, "is"):
			sh.NullTests++
		case a.is(i, "like") || a.is(i, "glob"):
			sh.Like++
		case a.is(i, "current_date") || a.is(i, "current_time") || a.is(i, "current_timestamp"):
			sh.DateFuncs++
		case fn:
			switch t.low {
			case "count", "sum", "avg", "total", "group_concat":
				sh.Aggregates++
			case "min", "max":
				if len(a.items(span{i + 2, a.match[i+1]})) == 1 {
					sh.Aggregates++
				}
			case "strftime", "date", "time", "datetime", "julianday", "unixepoch":
				sh.DateFuncs++
			}
		case t.Kind == KindOperator && (t.low == "+" || t.low == "-" || t.low == "*" || t.low == "/" || t.low == "%"):
			if !a.operandEnd(i - 1) {
				break // unary minus, count(*), select *
			}
			lit := func(j int) bool {
				return j >= 0 && j < len(a.toks) && (a.toks[j].Kind == KindNumber || a.toks[j].Kind == KindString)
			}
			if !(lit(i-1) && lit(i+1)) {
				sh.Arithmetic++
			}
		}
	}
}
