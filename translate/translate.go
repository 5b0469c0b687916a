// Package translate rewrites SQLite-dialect SQL (what BIRD's and Spider's
// gold queries, and models trained on them, write) into PostgreSQL that
// returns the same rows, so that one gold set can score predictions on both
// engines.
//
// It works on the token stream of package sqlparse, with parentheses, CASE
// ... END and function arguments matched, and rewrites only what it
// recognises; everything else passes through byte for byte. It translates
// what occurs in BIRD's gold SQL and in what models write for it, and
// reports constructs it saw but could not translate (Result.Unsupported), so
// that a caller can fall back to a hand-written PostgreSQL gold
// (docs/postgres.md lists every rule and why).
//
// Semantics, not syntax, drive the rules: SQLite's LIKE ignores ASCII case,
// its REAL is a double, its integer CAST truncates, division by zero gives
// NULL and NULLs sort first; PostgreSQL differs on each, and a translation
// that merely runs would score differently.
package translate

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
)

// Options give the translator what it cannot see in the SQL.
type Options struct {
	// Names are the database's table and column names, spelled exactly as
	// they are in PostgreSQL. SQLite matches names case-insensitively,
	// PostgreSQL folds unquoted names to lower case: a name that is not all
	// lower case (CDSCode) must be quoted to be found. Names also decide
	// what a double-quoted word is: SQLite reads "x" as a string literal
	// when no column x exists.
	Names []string
	// Types maps column names (any case) to their PostgreSQL type
	// (information_schema's data_type); "" when columns of that name have
	// different types. It lets SUM of integers stay an integer, as in
	// SQLite (PostgreSQL's SUM of a bigint is numeric, which divides
	// exactly where SQLite's integer division truncates).
	Types map[string]string
}

// Result is a translation.
type Result struct {
	SQL string
	// Applied names the rules that changed something, sorted, each once.
	Applied []string
	// Unsupported names SQLite constructs found and left as they were; the
	// translated query may fail or differ on PostgreSQL.
	Unsupported []string
}

// ToPostgres translates one SQLite statement.
func ToPostgres(sql string, opts Options) Result {
	t := &tr{toks: sqlparse.Tokenize(sql), names: map[string]string{}, types: map[string]string{}, applied: map[string]bool{}, unsupported: map[string]bool{}}
	for n, typ := range opts.Types {
		t.types[strings.ToLower(n)] = typ
	}
	for _, n := range opts.Names {
		l := strings.ToLower(n)
		if _, dup := t.names[l]; !dup {
			t.names[l] = n
		}
	}
	t.collectAliases()
	t.match()
	out := t.seq(0, len(t.toks))
	return Result{SQL: out, Applied: keys(t.applied), Unsupported: keys(t.unsupported)}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type tr struct {
	toks []sqlparse.Token
	// pair maps an opening '(' to its ')' and CASE to its END (-1: none);
	// opener maps back.
	pair        map[int]int
	opener      map[int]int
	subqueries  int
	names       map[string]string // lower -> exact
	types       map[string]string // lower column name -> type
	aliases     map[string]bool   // lower-case aliases defined with AS
	applied     map[string]bool
	unsupported map[string]bool
}

// Rule names, as reported in Result.Applied (docs/postgres.md explains each).
const (
	ruleCastReal      = "CAST AS REAL -> DOUBLE PRECISION"
	ruleCastInt       = "CAST AS INTEGER -> truncating cast"
	ruleCastText      = "CAST AS TEXT/VARCHAR -> TEXT"
	ruleCastBlob      = "CAST AS BLOB -> BYTEA"
	ruleRealLiteral   = "decimal literal -> DOUBLE PRECISION"
	ruleDivZero       = "x / y, x % y -> NULLIF(y, 0)"
	ruleLike          = "LIKE -> ILIKE"
	ruleLikeEscape    = "LIKE with backslash -> ESCAPE ''"
	ruleGlob          = "GLOB -> regular expression"
	ruleNulls         = "ORDER BY -> NULLS FIRST/LAST"
	ruleLimitComma    = "LIMIT o, n -> LIMIT n OFFSET o"
	ruleIs            = "IS / IS NOT value -> IS [NOT] DISTINCT FROM"
	ruleEqEq          = "== -> ="
	ruleIif           = "IIF -> CASE"
	ruleIfnull        = "IFNULL -> COALESCE"
	ruleSubstr        = "SUBSTR -> SUBSTR on text"
	ruleInstr         = "INSTR -> STRPOS"
	ruleLength        = "LENGTH -> LENGTH on text"
	ruleTextFunc      = "string function -> argument cast to text"
	ruleGroupConcat   = "GROUP_CONCAT -> STRING_AGG"
	ruleAvg           = "AVG -> AVG of DOUBLE PRECISION"
	ruleTotal         = "TOTAL -> COALESCE(SUM)"
	ruleRound         = "ROUND -> ROUND of NUMERIC"
	ruleMinMax        = "MIN/MAX(a, b, ...) -> LEAST/GREATEST"
	ruleStrftime      = "STRFTIME -> TO_CHAR"
	ruleDate          = "DATE/DATETIME/TIME -> TO_CHAR"
	ruleJulianday     = "JULIANDAY -> epoch arithmetic"
	ruleChar          = "CHAR -> CHR"
	ruleBacktick      = "`name`, [name] -> \"name\""
	ruleIdentCase     = "identifier -> exact-case quoted identifier"
	ruleDQString      = "\"text\" (not a name) -> 'text'"
	ruleStringAlias   = "AS 'alias' -> AS \"alias\""
	ruleNegativeSubst = "SUBSTR with negative start -> from the end"
	ruleBareColumn    = "bare column beside aggregates -> MIN(column)"
	ruleTextVsNumber  = "COUNT/SUM/AVG(...) compared with 'text' -> with +Infinity"
	ruleSubqueryAlias = "subquery in FROM without alias -> AS sqlrl_subN"
	ruleSumInt        = "SUM of integers -> CAST(SUM AS BIGINT)"
)

// match pairs parentheses and CASE/END so that ranges can be cut anywhere in
// O(1). Unbalanced input pairs nothing more; the output is then left as is
// (PostgreSQL reports the syntax error).
func (t *tr) match() {
	t.pair, t.opener = map[int]int{}, map[int]int{}
	var parens, cases []int
	for i, tok := range t.toks {
		switch {
		case tok.Kind == sqlparse.KindPunctuation && tok.Text == "(":
			parens = append(parens, i)
		case tok.Kind == sqlparse.KindPunctuation && tok.Text == ")":
			if n := len(parens); n > 0 {
				t.pair[parens[n-1]] = i
				t.opener[i] = parens[n-1]
				parens = parens[:n-1]
			}
		case t.isKw(i, "CASE"):
			cases = append(cases, i)
		case t.isKw(i, "END"):
			if n := len(cases); n > 0 {
				t.pair[cases[n-1]] = i
				cases = cases[:n-1]
			}
		}
	}
	for _, i := range parens {
		t.pair[i] = -1
	}
	for _, i := range cases {
		t.pair[i] = -1
	}
}

// collectAliases records names defined with AS, which a double-quoted word
// may refer to.
func (t *tr) collectAliases() {
	t.aliases = map[string]bool{}
	for i := range t.toks {
		if !t.isKw(i, "AS") {
			continue
		}
		j := t.next(i, len(t.toks))
		if j < 0 {
			continue
		}
		switch t.toks[j].Kind {
		case sqlparse.KindIdentifier, sqlparse.KindKeyword:
			t.aliases[strings.ToLower(t.toks[j].Text)] = true
		case sqlparse.KindQuotedIdentifier, sqlparse.KindString:
			t.aliases[strings.ToLower(unquote(t.toks[j].Text))] = true
		}
	}
}

func (t *tr) isKw(i int, w string) bool {
	if i < 0 || i >= len(t.toks) {
		return false
	}
	tok := t.toks[i]
	return (tok.Kind == sqlparse.KindKeyword || tok.Kind == sqlparse.KindIdentifier) && strings.EqualFold(tok.Text, w)
}

func (t *tr) isPunct(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Kind == sqlparse.KindPunctuation && t.toks[i].Text == p
}

func (t *tr) isOp(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Kind == sqlparse.KindOperator && t.toks[i].Text == p
}

// next returns the first significant token after i, before hi, or -1.
func (t *tr) next(i, hi int) int {
	for j := i + 1; j < hi; j++ {
		if !t.toks[j].IsTrivia() {
			return j
		}
	}
	return -1
}

// prev returns the last significant token before i, at or after lo, or -1.
func (t *tr) prev(i, lo int) int {
	for j := i - 1; j >= lo; j-- {
		if !t.toks[j].IsTrivia() {
			return j
		}
	}
	return -1
}

// closing returns the token that closes the group opened at i, or -1.
func (t *tr) closing(i int) int {
	if j, ok := t.pair[i]; ok {
		return j
	}
	return -1
}

// span is a half-open range of tokens.
type span struct{ lo, hi int }

// split cuts [lo, hi) at top-level commas.
func (t *tr) split(lo, hi int) []span {
	var out []span
	start := lo
	for i := lo; i < hi; i++ {
		if j := t.closing(i); j > i {
			i = j
			continue
		}
		if t.isPunct(i, ",") {
			out = append(out, span{start, i})
			start = i + 1
		}
	}
	return append(out, span{start, hi})
}

// trim narrows a span to its significant tokens.
func (t *tr) trim(s span) span {
	for s.lo < s.hi && t.toks[s.lo].IsTrivia() {
		s.lo++
	}
	for s.hi > s.lo && t.toks[s.hi-1].IsTrivia() {
		s.hi--
	}
	return s
}

// text is the translation of a span, without surrounding trivia.
func (t *tr) text(s span) string {
	s = t.trim(s)
	return t.seq(s.lo, s.hi)
}

// raw is a span's source text.
func (t *tr) raw(s span) string {
	var b strings.Builder
	for i := s.lo; i < s.hi; i++ {
		b.WriteString(t.toks[i].Text)
	}
	return b.String()
}

// functionKeywords are SQLite keywords that are also function names.
var functionKeywords = map[string]bool{"CAST": true, "REPLACE": true, "LIKE": true, "GLOB": true}

// seq translates tokens [lo, hi).
func (t *tr) seq(lo, hi int) string {
	var b strings.Builder
	for i := lo; i < hi; {
		tok := t.toks[i]
		switch tok.Kind {
		case sqlparse.KindWhitespace, sqlparse.KindComment:
			b.WriteString(tok.Text)
			i++
			continue
		case sqlparse.KindPunctuation:
			if tok.Text == "(" {
				if j := t.closing(i); j > i && j < hi {
					b.WriteString("(" + t.seq(i+1, j) + ")")
					b.WriteString(t.derivedAlias(i, j, hi))
					i = j + 1
					continue
				}
			}
		case sqlparse.KindIdentifier, sqlparse.KindKeyword:
			if j := t.next(i, hi); j >= 0 && t.isPunct(j, "(") && (tok.Kind == sqlparse.KindIdentifier || functionKeywords[strings.ToUpper(tok.Text)]) {
				if end := t.closing(j); end > j && end < hi {
					b.WriteString(t.call(i, j, end))
					i = end + 1
					continue
				}
			}
			if tok.Kind == sqlparse.KindKeyword {
				if n := t.keyword(i, hi, &b); n > i {
					i = n
					continue
				}
			}
			if tok.Kind == sqlparse.KindIdentifier {
				b.WriteString(t.ident(i))
				i++
				continue
			}
		case sqlparse.KindQuotedIdentifier:
			b.WriteString(t.quoted(i))
			i++
			continue
		case sqlparse.KindNumber:
			b.WriteString(t.number(tok.Text))
			i++
			continue
		case sqlparse.KindOperator:
			switch tok.Text {
			case "==":
				t.applied[ruleEqEq] = true
				b.WriteString("=")
				i++
				continue
			case "/", "%":
				b.WriteString(tok.Text)
				if n := t.divisor(i+1, hi, &b); n > i+1 {
					i = n
				} else {
					i++
				}
				continue
			}
		case sqlparse.KindString:
			if p := t.prev(i, lo); p >= 0 && t.isKw(p, "AS") {
				t.applied[ruleStringAlias] = true
				b.WriteString(quoteIdent(unquote(tok.Text)))
				i++
				continue
			}
			if t.comparedWithAggregate(i) {
				t.applied[ruleTextVsNumber] = true
				b.WriteString("CAST('Infinity' AS DOUBLE PRECISION)")
				i++
				continue
			}
		}
		b.WriteString(tok.Text)
		i++
	}
	return b.String()
}

// keyword handles the keywords whose meaning differs. It returns the index
// after what it consumed, or i when it did nothing.
func (t *tr) keyword(i, hi int, b *strings.Builder) int {
	switch strings.ToUpper(t.toks[i].Text) {
	case "SELECT":
		return t.selectList(i, hi, b)
	case "ORDER":
		if j := t.next(i, hi); j >= 0 && t.isKw(j, "BY") {
			return t.orderBy(i, j, hi, b)
		}
	case "LIMIT":
		return t.limit(i, hi, b)
	case "LIKE":
		return t.like(i, hi, b)
	case "GLOB":
		return t.glob(i, hi, false, b)
	case "NOT":
		if j := t.next(i, hi); j >= 0 && t.isKw(j, "GLOB") {
			return t.glob(j, hi, true, b)
		}
	case "IS":
		return t.is(i, hi, b)
	case "COLLATE":
		if j := t.next(i, hi); j >= 0 && (t.isKw(j, "NOCASE") || t.isKw(j, "RTRIM")) {
			t.unsupported["COLLATE "+strings.ToUpper(t.toks[j].Text)] = true
		}
	}
	// A keyword after a dot is a column name (T1.key).
	if p := t.prev(i, 0); p >= 0 && t.isPunct(p, ".") {
		b.WriteString(t.ident(i))
		return i + 1
	}
	return i
}

// orderBy appends NULLS FIRST to ascending and NULLS LAST to descending sort
// keys: SQLite sorts NULL before every value, PostgreSQL after.
func (t *tr) orderBy(i, by, hi int, b *strings.Builder) int {
	b.WriteString(t.raw(span{i, by + 1}))
	end := hi
	for k := by + 1; k < hi; k++ {
		if j := t.closing(k); j > k {
			k = j
			continue
		}
		if t.isPunct(k, ";") || t.isKw(k, "LIMIT") || t.isKw(k, "OFFSET") || t.isKw(k, "UNION") ||
			t.isKw(k, "INTERSECT") || t.isKw(k, "EXCEPT") || t.isKw(k, "FETCH") || t.isKw(k, "WINDOW") ||
			t.isKw(k, "ROWS") || t.isKw(k, "RANGE") || t.isKw(k, "GROUPS") {
			end = k
			break
		}
	}
	items := t.split(by+1, end)
	for n, it := range items {
		if n > 0 {
			b.WriteString(",")
		}
		s := t.trim(it)
		b.WriteString(t.raw(span{it.lo, s.lo}))
		b.WriteString(t.seq(s.lo, s.hi))
		hasNulls := false
		for k := s.lo; k < s.hi; k++ {
			if t.isKw(k, "NULLS") {
				hasNulls = true
			}
		}
		if !hasNulls && s.hi > s.lo {
			t.applied[ruleNulls] = true
			if t.isKw(s.hi-1, "DESC") {
				b.WriteString(" NULLS LAST")
			} else {
				b.WriteString(" NULLS FIRST")
			}
		}
		b.WriteString(t.raw(span{s.hi, it.hi}))
	}
	return end
}

// limit rewrites SQLite's "LIMIT offset, count".
func (t *tr) limit(i, hi int, b *strings.Builder) int {
	end := hi
	for k := i + 1; k < hi; k++ {
		if j := t.closing(k); j > k {
			k = j
			continue
		}
		if t.isPunct(k, ";") || t.isKw(k, "UNION") || t.isKw(k, "INTERSECT") || t.isKw(k, "EXCEPT") {
			end = k
			break
		}
	}
	parts := t.split(i+1, end)
	if len(parts) != 2 {
		return i
	}
	t.applied[ruleLimitComma] = true
	b.WriteString(t.toks[i].Text + " " + t.text(parts[1]) + " OFFSET " + t.text(parts[0]))
	if s := t.trim(span{i + 1, end}); s.hi < end {
		b.WriteString(t.raw(span{s.hi, end}))
	}
	return end
}

// like turns LIKE into ILIKE: SQLite's LIKE ignores the case of ASCII
// letters. PostgreSQL's LIKE (and ILIKE) also treat a backslash as the
// default escape character, SQLite has none: a literal pattern with a
// backslash gets ESCAPE ”.
func (t *tr) like(i, hi int, b *strings.Builder) int {
	t.applied[ruleLike] = true
	b.WriteString("ILIKE")
	p := t.next(i, hi)
	if p < 0 || t.toks[p].Kind != sqlparse.KindString || !strings.Contains(t.toks[p].Text, `\`) {
		return i + 1
	}
	if e := t.next(p, hi); e >= 0 && t.isKw(e, "ESCAPE") {
		return i + 1
	}
	t.applied[ruleLikeEscape] = true
	b.WriteString(t.raw(span{i + 1, p + 1}) + " ESCAPE ''")
	return p + 1
}

// glob turns GLOB with a literal pattern into an anchored POSIX regular
// expression (case-sensitive, as GLOB is).
func (t *tr) glob(i, hi int, not bool, b *strings.Builder) int {
	p := t.next(i, hi)
	if p < 0 || t.toks[p].Kind != sqlparse.KindString {
		t.unsupported["GLOB with a non-literal pattern"] = true
		return i
	}
	t.applied[ruleGlob] = true
	op := "~"
	if not {
		op = "!~"
	}
	b.WriteString(op + " " + quoteString(globRegexp(unquote(t.toks[p].Text))))
	return p + 1
}

func globRegexp(g string) string {
	var b strings.Builder
	b.WriteByte('^')
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteByte('.')
		case '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j == 0 { // "[]...]": ']' first is a member
				if k := strings.IndexByte(g[i+2:], ']'); k >= 0 {
					j = k + 1
				} else {
					j = -1
				}
			}
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "^") {
				class = "^" + strings.ReplaceAll(class[1:], `\`, `\\`)
			} else {
				class = strings.ReplaceAll(class, `\`, `\\`)
			}
			b.WriteString("[" + class + "]")
			i += j + 1
		case '.', '+', '(', ')', '{', '}', '|', '^', '$', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('$')
	return b.String()
}

// is handles SQLite's IS, which compares any two values NULL-safely;
// PostgreSQL's IS only takes NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM.
func (t *tr) is(i, hi int, b *strings.Builder) int {
	j := t.next(i, hi)
	not := false
	if j >= 0 && t.isKw(j, "NOT") {
		not = true
		j = t.next(j, hi)
	}
	if j < 0 {
		return i
	}
	for _, w := range []string{"NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT"} {
		if t.isKw(j, w) {
			return i
		}
	}
	t.applied[ruleIs] = true
	if not {
		b.WriteString("IS DISTINCT FROM ")
	} else {
		b.WriteString("IS NOT DISTINCT FROM ")
	}
	return j
}

// divisor wraps the right operand of / or % in NULLIF(..., 0): SQLite
// returns NULL on division by zero, PostgreSQL raises an error. It returns
// the index after the operand, or lo when it left it alone.
func (t *tr) divisor(lo, hi int, b *strings.Builder) int {
	s, ok := t.operand(lo, hi)
	if !ok {
		return lo
	}
	if s.hi-s.lo == 1 && t.toks[s.lo].Kind == sqlparse.KindNumber {
		if f, err := strconv.ParseFloat(t.toks[s.lo].Text, 64); err == nil && f != 0 {
			return lo // a non-zero literal needs no guard
		}
	}
	t.applied[ruleDivZero] = true
	b.WriteString(t.raw(span{lo, s.lo}))
	b.WriteString("NULLIF(" + t.seq(s.lo, s.hi) + ", 0)")
	return s.hi
}

// operand finds the unary expression that starts at the first significant
// token at or after lo: what binds tighter than * and /.
func (t *tr) operand(lo, hi int) (span, bool) {
	i := lo
	for i < hi && t.toks[i].IsTrivia() {
		i++
	}
	start := i
	for i < hi && (t.isOp(i, "-") || t.isOp(i, "+") || t.isOp(i, "~")) {
		i = t.nextOr(i, hi)
	}
	if i >= hi {
		return span{}, false
	}
	tok := t.toks[i]
	end := i + 1
	switch {
	case t.isPunct(i, "("):
		j := t.closing(i)
		if j < 0 || j >= hi {
			return span{}, false
		}
		end = j + 1
	case t.isKw(i, "CASE"):
		j := t.closing(i)
		if j < 0 || j >= hi {
			return span{}, false
		}
		end = j + 1
	case tok.Kind == sqlparse.KindIdentifier || tok.Kind == sqlparse.KindKeyword || tok.Kind == sqlparse.KindQuotedIdentifier:
		if tok.Kind == sqlparse.KindKeyword && !functionKeywords[strings.ToUpper(tok.Text)] && !t.isKw(i, "NULL") &&
			!t.isKw(i, "CURRENT_DATE") && !t.isKw(i, "CURRENT_TIME") && !t.isKw(i, "CURRENT_TIMESTAMP") {
			return span{}, false
		}
		// name, name.name, name(...), possibly followed by OVER (...)
		for {
			j := t.next(end-1, hi)
			if j >= 0 && t.isPunct(j, ".") {
				k := t.next(j, hi)
				if k < 0 {
					return span{}, false
				}
				end = k + 1
				continue
			}
			if j >= 0 && t.isPunct(j, "(") {
				c := t.closing(j)
				if c < 0 || c >= hi {
					return span{}, false
				}
				end = c + 1
				if k := t.next(end-1, hi); k >= 0 && (t.isKw(k, "FILTER") || t.isKw(k, "OVER")) {
					if m := t.next(k, hi); m >= 0 && t.isPunct(m, "(") {
						if c := t.closing(m); c > m && c < hi {
							end = c + 1
						}
					}
				}
			}
			break
		}
	case tok.Kind == sqlparse.KindNumber || tok.Kind == sqlparse.KindString || tok.Kind == sqlparse.KindBlob || tok.Kind == sqlparse.KindParameter:
	default:
		return span{}, false
	}
	return span{start, end}, true
}

func (t *tr) nextOr(i, hi int) int {
	if j := t.next(i, hi); j >= 0 {
		return j
	}
	return hi
}

// number gives a decimal literal SQLite's meaning: a REAL (double), where
// PostgreSQL would read an exact numeric and compute in decimal.
func (t *tr) number(s string) string {
	l := strings.ToLower(s)
	if strings.HasPrefix(l, "0x") || !strings.ContainsAny(l, ".e") {
		return s
	}
	t.applied[ruleRealLiteral] = true
	return "CAST(" + s + " AS DOUBLE PRECISION)"
}

// ident spells a bare name the way PostgreSQL will find it.
func (t *tr) ident(i int) string {
	s := t.toks[i].Text
	exact, ok := t.names[strings.ToLower(s)]
	if !ok {
		return s
	}
	if exact == strings.ToLower(exact) && !pgReserved[exact] && plain(exact) {
		return s // folds to the right name already
	}
	t.applied[ruleIdentCase] = true
	return quoteIdent(exact)
}

// quoted handles "name", `name` and [name]. SQLite reads a double-quoted
// word that names nothing as a string literal.
func (t *tr) quoted(i int) string {
	s := t.toks[i].Text
	name := unquote(s)
	exact, known := t.names[strings.ToLower(name)]
	if s[0] == '"' && !known && !t.aliases[strings.ToLower(name)] {
		// A string literal only where a value can stand: not after a dot
		// or AS.
		if p := t.prev(i, 0); !(p >= 0 && (t.isPunct(p, ".") || t.isKw(p, "AS"))) {
			t.applied[ruleDQString] = true
			return quoteString(name)
		}
	}
	if !known {
		exact = name
	}
	if s[0] != '"' {
		t.applied[ruleBacktick] = true
	} else if exact != name {
		t.applied[ruleIdentCase] = true
	}
	return quoteIdent(exact)
}

// call translates a function call: name at i, '(' at open, ')' at end.
func (t *tr) call(i, open, end int) string {
	name := strings.ToUpper(t.toks[i].Text)
	args := t.split(open+1, end)
	if len(args) == 1 && t.trim(args[0]).lo == t.trim(args[0]).hi {
		args = nil
	}
	tx := func(k int) string { return t.text(args[k]) }
	distinct, rest := t.distinct(args)
	generic := func(n string) string {
		parts := make([]string, len(args))
		for k := range args {
			parts[k] = tx(k)
		}
		return n + "(" + strings.Join(parts, ", ") + ")"
	}
	switch name {
	case "CAST":
		return t.cast(args, open, end)
	case "IIF":
		if len(args) == 3 {
			t.applied[ruleIif] = true
			return "(CASE WHEN " + tx(0) + " THEN " + tx(1) + " ELSE " + tx(2) + " END)"
		}
	case "IFNULL":
		if len(args) == 2 {
			t.applied[ruleIfnull] = true
			return generic("COALESCE")
		}
	case "SUBSTR", "SUBSTRING":
		if len(args) == 2 || len(args) == 3 {
			t.applied[ruleSubstr] = true
			s := "CAST(" + tx(0) + " AS TEXT)"
			start := tx(1)
			if n, ok := t.negativeInt(args[1]); ok {
				t.applied[ruleNegativeSubst] = true
				start = "LENGTH(" + s + ") - " + strconv.FormatInt(n-1, 10)
			}
			if len(args) == 3 {
				return "SUBSTR(" + s + ", " + start + ", " + tx(2) + ")"
			}
			return "SUBSTR(" + s + ", " + start + ")"
		}
	case "INSTR":
		if len(args) == 2 {
			t.applied[ruleInstr] = true
			return "STRPOS(CAST(" + tx(0) + " AS TEXT), CAST(" + tx(1) + " AS TEXT))"
		}
	case "LENGTH":
		if len(args) == 1 {
			t.applied[ruleLength] = true
			return "LENGTH(CAST(" + tx(0) + " AS TEXT))"
		}
	case "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REPLACE":
		if len(args) >= 1 {
			t.applied[ruleTextFunc] = true
			parts := []string{"CAST(" + tx(0) + " AS TEXT)"}
			for k := 1; k < len(args); k++ {
				parts = append(parts, tx(k))
			}
			return name + "(" + strings.Join(parts, ", ") + ")"
		}
	case "GROUP_CONCAT":
		if len(args) == 1 || len(args) == 2 {
			t.applied[ruleGroupConcat] = true
			sep := "','"
			if len(args) == 2 {
				sep = tx(1)
			}
			return "STRING_AGG(" + distinct + "CAST(" + t.text(rest) + " AS TEXT), " + sep + ")"
		}
	case "SUM":
		if len(args) == 1 && t.integer(t.trim(rest)) {
			t.applied[ruleSumInt] = true
			return "CAST(SUM(" + distinct + t.text(rest) + ") AS BIGINT)"
		}
	case "AVG":
		if len(args) == 1 {
			t.applied[ruleAvg] = true
			return "AVG(" + distinct + "CAST(" + t.text(rest) + " AS DOUBLE PRECISION))"
		}
	case "TOTAL":
		if len(args) == 1 {
			t.applied[ruleTotal] = true
			return "COALESCE(SUM(" + distinct + "CAST(" + t.text(rest) + " AS DOUBLE PRECISION)), 0)"
		}
	case "ROUND":
		if len(args) == 1 || len(args) == 2 {
			t.applied[ruleRound] = true
			if len(args) == 2 {
				return "ROUND(CAST(" + tx(0) + " AS NUMERIC), " + tx(1) + ")"
			}
			return "ROUND(CAST(" + tx(0) + " AS NUMERIC))"
		}
	case "MAX", "MIN":
		if len(args) >= 2 {
			t.applied[ruleMinMax] = true
			if name == "MAX" {
				return generic("GREATEST")
			}
			return generic("LEAST")
		}
	case "CHAR":
		if len(args) == 1 {
			t.applied[ruleChar] = true
			return generic("CHR")
		}
	case "STRFTIME":
		if len(args) == 2 {
			f := t.trim(args[0])
			if f.hi-f.lo == 1 && t.toks[f.lo].Kind == sqlparse.KindString {
				if pg, ok := strftimeFormat(unquote(t.toks[f.lo].Text)); ok {
					t.applied[ruleStrftime] = true
					return t.timeFunc(args[1], pg)
				}
			}
		}
		t.unsupported["STRFTIME with this format or modifiers"] = true
	case "DATE", "DATETIME", "TIME":
		if len(args) <= 1 {
			t.applied[ruleDate] = true
			f := map[string]string{"DATE": "YYYY-MM-DD", "DATETIME": "YYYY-MM-DD HH24:MI:SS", "TIME": "HH24:MI:SS"}[name]
			if len(args) == 0 {
				return "TO_CHAR(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', '" + f + "')"
			}
			return t.timeFunc(args[0], f)
		}
		t.unsupported[name+" with modifiers"] = true
	case "JULIANDAY":
		if len(args) == 1 {
			t.applied[ruleJulianday] = true
			jd := "CAST(EXTRACT(EPOCH FROM " + t.timestamp(args[0]) + ") AS DOUBLE PRECISION) / 86400 + 2440587.5"
			if t.now(args[0]) {
				return "(" + jd + ")"
			}
			return "(CASE WHEN CAST(" + t.text(args[0]) + " AS TEXT) ~ '" + timeFormats + "' THEN " + jd + " END)"
		}
		t.unsupported["JULIANDAY with modifiers"] = true
	case "PRINTF", "FORMAT", "HEX", "UNHEX", "UNICODE", "ZEROBLOB", "TYPEOF", "QUOTE", "LIKELIHOOD",
		"LIKELY", "UNLIKELY", "SQLITE_VERSION", "CHANGES", "LAST_INSERT_ROWID", "UNIXEPOCH":
		t.unsupported["SQLite function "+name] = true
	}
	return t.raw(span{i, open}) + "(" + t.seq(open+1, end) + ")"
}

// distinct splits a leading DISTINCT off a single argument.
func (t *tr) distinct(args []span) (string, span) {
	if len(args) == 0 {
		return "", span{}
	}
	s := t.trim(args[0])
	if s.lo < s.hi && t.isKw(s.lo, "DISTINCT") {
		return "DISTINCT ", span{s.lo + 1, s.hi}
	}
	return "", args[0]
}

// negativeInt reports whether a span is a negative integer literal.
func (t *tr) negativeInt(s span) (int64, bool) {
	s = t.trim(s)
	if s.hi-s.lo < 2 || !t.isOp(s.lo, "-") {
		return 0, false
	}
	j := t.next(s.lo, s.hi)
	if j != s.hi-1 || t.toks[j].Kind != sqlparse.KindNumber {
		return 0, false
	}
	n, err := strconv.ParseInt(t.toks[j].Text, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// timestamp is a SQLite time value as a PostgreSQL timestamp: 'now' is the
// current UTC time, anything else text in one of the ISO forms both read.
func (t *tr) timestamp(s span) string {
	if t.now(s) {
		return "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')"
	}
	return "CAST(RTRIM(CAST(" + t.text(s) + " AS TEXT), ' T') AS TIMESTAMP)"
}

func (t *tr) now(s span) bool {
	v := t.trim(s)
	return v.hi-v.lo == 1 && t.toks[v.lo].Kind == sqlparse.KindString && strings.EqualFold(unquote(t.toks[v.lo].Text), "now")
}

// timeFormats matches the time values SQLite's date functions read and a
// PostgreSQL timestamp reads the same way once trailing blanks and a lone
// 'T' are trimmed: YYYY-MM-DD, optionally with [T ]HH:MM[:SS[.fff]]. SQLite
// returns NULL for anything else ('2020-03-1'), where a cast would make
// PostgreSQL fail the query.
const timeFormats = `^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T]|[ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?)? *$`

// timeFunc formats a SQLite time value with TO_CHAR, NULL when SQLite would
// not read it.
func (t *tr) timeFunc(s span, format string) string {
	out := "TO_CHAR(" + t.timestamp(s) + ", " + quoteString(format) + ")"
	if t.now(s) {
		return out
	}
	return "(CASE WHEN CAST(" + t.text(s) + " AS TEXT) ~ '" + timeFormats + "' THEN " + out + " END)"
}

// strftimeFormat converts a strftime format to a TO_CHAR one, when every
// conversion has an exact equivalent.
func strftimeFormat(f string) (string, bool) {
	var b strings.Builder
	lit := func(s string) {
		// Letters outside a conversion must be quoted for TO_CHAR.
		for _, r := range s {
			if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '"' || r == '\\' {
				if r == '"' || r == '\\' {
					b.WriteString(`"\` + string(r) + `"`)
				} else {
					b.WriteString(`"` + string(r) + `"`)
				}
				continue
			}
			b.WriteRune(r)
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			j := strings.IndexByte(f[i:], '%')
			if j < 0 {
				j = len(f) - i
			}
			lit(f[i : i+j])
			i += j - 1
			continue
		}
		if i+1 >= len(f) {
			return "", false
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString("YYYY")
		case 'm':
			b.WriteString("MM")
		case 'd':
			b.WriteString("DD")
		case 'H':
			b.WriteString("HH24")
		case 'M':
			b.WriteString("MI")
		case 'S':
			b.WriteString("SS")
		case 'f':
			b.WriteString("SS.MS")
		case 'j':
			b.WriteString("DDD")
		case '%':
			b.WriteString("%")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// cast maps SQLite's type names (by affinity) to PostgreSQL types with the
// same conversion.
func (t *tr) cast(args []span, open, end int) string {
	if len(args) != 1 {
		return "CAST(" + t.seq(open+1, end) + ")"
	}
	s := t.trim(args[0])
	as := -1
	for k := s.lo; k < s.hi; k++ {
		if j := t.closing(k); j > k {
			k = j
			continue
		}
		if t.isKw(k, "AS") {
			as = k
		}
	}
	if as < 0 {
		return "CAST(" + t.seq(open+1, end) + ")"
	}
	expr := t.text(span{s.lo, as})
	typ := strings.ToUpper(strings.Join(strings.Fields(t.raw(span{as + 1, s.hi})), " "))
	base, _, _ := strings.Cut(typ, "(")
	base = strings.TrimSpace(base)
	switch {
	case strings.Contains(base, "INT"):
		// SQLite truncates toward zero; PostgreSQL's float-to-integer cast
		// rounds. NUMERIC reads integers, REALs and numeric text exactly.
		t.applied[ruleCastInt] = true
		return "CAST(TRUNC(CAST(" + expr + " AS NUMERIC)) AS BIGINT)"
	case strings.Contains(base, "CHAR"), strings.Contains(base, "CLOB"), strings.Contains(base, "TEXT"):
		if base != "TEXT" {
			t.applied[ruleCastText] = true
		}
		return "CAST(" + expr + " AS TEXT)"
	case strings.Contains(base, "BLOB"):
		t.applied[ruleCastBlob] = true
		return "CAST(" + expr + " AS BYTEA)"
	case strings.Contains(base, "REAL"), strings.Contains(base, "FLOA"), strings.Contains(base, "DOUB"):
		t.applied[ruleCastReal] = true
		return "CAST(" + expr + " AS DOUBLE PRECISION)"
	}
	return "CAST(" + expr + " AS " + t.raw(t.trim(span{as + 1, s.hi})) + ")"
}

// unquote strips SQL quotes: 'x', "x", `x`, [x].
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch s[0] {
	case '\'', '"', '`':
		q := s[0]
		if s[len(s)-1] == q {
			return strings.ReplaceAll(s[1:len(s)-1], string(q)+string(q), string(q))
		}
	case '[':
		if s[len(s)-1] == ']' {
			return s[1 : len(s)-1]
		}
	}
	return s
}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// plain reports whether s is a name PostgreSQL reads unquoted as itself.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (i > 0 && (c >= '0' && c <= '9' || c == '$'))) {
			return false
		}
	}
	return s != ""
}

// pgReserved are PostgreSQL's reserved key words (Appendix C, "reserved" and
// "reserved (can be function or type)"): a column with one of these names
// must be quoted in PostgreSQL, though SQLite takes many of them bare.
var pgReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization binary both case
		cast check collate collation column concurrently constraint create cross current_catalog current_date
		current_role current_schema current_time current_timestamp current_user default deferrable desc
		distinct do else end except false fetch for foreign freeze from full grant group having ilike in
		initially inner intersect into is isnull join lateral leading left like limit localtime
		localtimestamp natural not notnull null offset on only or order outer overlaps placing primary
		references returning right select session_user similar some symmetric system_user table tablesample
		then to trailing true union unique user using variadic verbose when where window with`) {
		m[w] = true
	}
	return m
}()

// aggregates are SQLite's aggregate functions (with one argument for MIN and
// MAX, which are scalar with more).
var aggregates = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true, "TOTAL": true, "GROUP_CONCAT": true}

// selectList handles SQLite's "bare columns": in an aggregate query SQLite
// accepts a column that is neither grouped nor aggregated and takes it from
// some row of the group; PostgreSQL refuses the query. When the column is
// constant within each group (it is functionally dependent on the grouping,
// or the WHERE clause fixes it: how BIRD's gold SQL uses them), MIN(column)
// returns the same value and is valid PostgreSQL. SQLite's other use, taking
// the bare column from the row where a lone MIN() or MAX() is reached, has
// no such rewrite and is reported. It returns where it stopped, i when it
// changed nothing.
func (t *tr) selectList(i, hi int, b *strings.Builder) int {
	// The clauses of this SELECT, at its own nesting level.
	from, group, having, end := -1, -1, -1, hi
	for k := i + 1; k < hi; k++ {
		if j := t.closing(k); j > k {
			k = j
			continue
		}
		switch {
		case t.isKw(k, "UNION"), t.isKw(k, "INTERSECT"), t.isKw(k, "EXCEPT"), t.isPunct(k, ";"):
			end = k
		case from < 0 && t.isKw(k, "FROM"):
			from = k
		case group < 0 && t.isKw(k, "GROUP"):
			if j := t.next(k, hi); j >= 0 && t.isKw(j, "BY") {
				group = j
			}
		case having < 0 && t.isKw(k, "HAVING"):
			having = k
		}
		if end != hi {
			break
		}
	}
	if from < 0 {
		return i
	}
	listLo := i + 1
	if j := t.next(i, from); j >= 0 && (t.isKw(j, "DISTINCT") || t.isKw(j, "ALL")) {
		listLo = j + 1
	}
	items := t.split(listLo, from)
	agg, minmax := false, false
	for _, it := range items {
		t.findAggregates(it.lo, it.hi, &agg, &minmax)
	}
	groupEnd := end
	if having >= 0 {
		hEnd := end
		for k := having + 1; k < end; k++ {
			if j := t.closing(k); j > k {
				k = j
				continue
			}
			if t.isKw(k, "ORDER") || t.isKw(k, "LIMIT") || t.isKw(k, "WINDOW") {
				hEnd = k
				break
			}
		}
		t.findAggregates(having+1, hEnd, &agg, &minmax)
		groupEnd = having
	}
	keys := map[string]bool{}
	if group >= 0 {
		for k := group + 1; k < groupEnd; k++ {
			if t.isKw(k, "ORDER") || t.isKw(k, "LIMIT") || t.isKw(k, "WINDOW") {
				groupEnd = k
				break
			}
		}
		for _, g := range t.split(group+1, groupEnd) {
			if ref, col, ok := t.columnRef(t.trim(g)); ok {
				keys[ref] = true
				keys[col] = true
			}
		}
	}
	if !agg && group < 0 {
		return i
	}
	bare := make([]bool, len(items))
	found := false
	for n, it := range items {
		e, _ := t.alias(t.trim(it))
		if ref, col, ok := t.columnRef(e); ok && !keys[ref] && !keys[col] {
			bare[n], found = true, true
		}
	}
	if !found {
		return i
	}
	if minmax {
		t.unsupported["bare column beside MIN()/MAX() (value from the extreme row)"] = true
		return i
	}
	t.applied[ruleBareColumn] = true
	b.WriteString(t.raw(span{i, listLo}))
	for n, it := range items {
		if n > 0 {
			b.WriteString(",")
		}
		s := t.trim(it)
		b.WriteString(t.raw(span{it.lo, s.lo}))
		if bare[n] {
			e, alias := t.alias(s)
			b.WriteString("MIN(" + t.seq(e.lo, e.hi) + ")" + t.seq(e.hi, alias.hi))
		} else {
			b.WriteString(t.seq(s.lo, s.hi))
		}
		b.WriteString(t.raw(span{s.hi, it.hi}))
	}
	return from
}

// findAggregates looks for aggregate calls in [lo, hi), not inside a
// subquery and not window functions.
func (t *tr) findAggregates(lo, hi int, agg, minmax *bool) {
	for k := lo; k < hi; k++ {
		if t.isPunct(k, "(") {
			if j := t.next(k, hi); j >= 0 && t.isKw(j, "SELECT") {
				if c := t.closing(k); c > k {
					k = c
				}
				continue
			}
		}
		tok := t.toks[k]
		if tok.Kind != sqlparse.KindIdentifier || !aggregates[strings.ToUpper(tok.Text)] {
			continue
		}
		open := t.next(k, hi)
		if open < 0 || !t.isPunct(open, "(") {
			continue
		}
		c := t.closing(open)
		if c < 0 {
			continue
		}
		name := strings.ToUpper(tok.Text)
		if (name == "MIN" || name == "MAX") && len(t.split(open+1, c)) > 1 {
			continue // scalar MIN/MAX
		}
		if w := t.next(c, hi); w >= 0 && t.isKw(w, "OVER") {
			continue
		}
		*agg = true
		if name == "MIN" || name == "MAX" {
			*minmax = true
		}
	}
}

// columnRef reports whether s is a column reference (name or
// qualifier.name), with its lower-case text and its last part.
func (t *tr) columnRef(s span) (string, string, bool) {
	var parts []string
	want := true // a name is expected next
	for k := s.lo; k < s.hi; k++ {
		tok := t.toks[k]
		switch {
		case tok.IsTrivia():
		case want && (tok.Kind == sqlparse.KindIdentifier || tok.Kind == sqlparse.KindQuotedIdentifier ||
			(tok.Kind == sqlparse.KindKeyword && len(parts) > 0)):
			parts = append(parts, strings.ToLower(unquote(tok.Text)))
			want = false
		case !want && t.isPunct(k, "."):
			want = true
		default:
			return "", "", false
		}
	}
	if len(parts) == 0 || want {
		return "", "", false
	}
	return strings.Join(parts, "."), parts[len(parts)-1], true
}

// alias splits a select item into its expression and its alias ([AS] name),
// the second span covering the alias with what precedes it.
func (t *tr) alias(s span) (span, span) {
	last := t.prev(s.hi, s.lo)
	if last < 0 {
		return s, span{s.hi, s.hi}
	}
	k := t.toks[last].Kind
	if k != sqlparse.KindIdentifier && k != sqlparse.KindQuotedIdentifier && k != sqlparse.KindString {
		return s, span{s.hi, s.hi}
	}
	p := t.prev(last, s.lo)
	switch {
	case p >= 0 && t.isKw(p, "AS"):
		e := t.trim(span{s.lo, p})
		return e, span{e.hi, s.hi}
	case p >= 0 && !t.isPunct(p, ".") && (t.toks[p].Kind == sqlparse.KindIdentifier || t.toks[p].Kind == sqlparse.KindQuotedIdentifier ||
		t.isPunct(p, ")")):
		e := t.trim(span{s.lo, last})
		return e, span{e.hi, s.hi}
	}
	return s, span{s.hi, s.hi}
}

// numericAggregates always return a number (or NULL) in SQLite, and, as
// function results, have no affinity.
var numericAggregates = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "TOTAL": true}

// comparedWithAggregate reports whether the string literal at i is compared
// with a COUNT/SUM/AVG/TOTAL call (COUNT(x) > '15'). SQLite then applies no
// conversion (neither side has a column affinity) and a number is less than
// any text, so the comparison does not depend on the literal; PostgreSQL
// would convert '15' to a number. +Infinity orders like SQLite's text.
func (t *tr) comparedWithAggregate(i int) bool {
	isCmp := func(k int) bool {
		if k < 0 || t.toks[k].Kind != sqlparse.KindOperator {
			return false
		}
		switch t.toks[k].Text {
		case "=", "==", "<", "<=", ">", ">=", "!=", "<>":
			return true
		}
		return false
	}
	// aggregate ) OP 'text'
	if op := t.prev(i, 0); isCmp(op) {
		if c := t.prev(op, 0); c >= 0 && t.isPunct(c, ")") {
			if o, ok := t.opener[c]; ok {
				if n := t.prev(o, 0); n >= 0 && t.toks[n].Kind == sqlparse.KindIdentifier && numericAggregates[strings.ToUpper(t.toks[n].Text)] {
					return true
				}
			}
		}
	}
	// 'text' OP aggregate(
	if op := t.next(i, len(t.toks)); isCmp(op) {
		if n := t.next(op, len(t.toks)); n >= 0 && t.toks[n].Kind == sqlparse.KindIdentifier && numericAggregates[strings.ToUpper(t.toks[n].Text)] {
			if o := t.next(n, len(t.toks)); o >= 0 && t.isPunct(o, "(") {
				return true
			}
		}
	}
	return false
}

// derivedAlias names a subquery in FROM or JOIN that has no alias:
// PostgreSQL before 16 requires one, SQLite does not.
func (t *tr) derivedAlias(open, close, hi int) string {
	first := t.next(open, close)
	if first < 0 || !(t.isKw(first, "SELECT") || t.isKw(first, "VALUES") || t.isKw(first, "WITH")) {
		return ""
	}
	p := t.prev(open, 0)
	if p < 0 || !(t.isKw(p, "FROM") || t.isKw(p, "JOIN")) {
		return ""
	}
	if n := t.next(close, len(t.toks)); n >= 0 {
		k := t.toks[n].Kind
		if t.isKw(n, "AS") || k == sqlparse.KindIdentifier || k == sqlparse.KindQuotedIdentifier {
			return ""
		}
	}
	t.subqueries++
	t.applied[ruleSubqueryAlias] = true
	return " AS sqlrl_sub" + strconv.Itoa(t.subqueries)
}

// integer reports whether the expression s has an integer type in
// PostgreSQL: integer literals, integer columns (Options.Types), COUNT, and
// + - * / % and CASE branches of those. Unknown is false.
func (t *tr) integer(s span) bool {
	if s.lo >= s.hi {
		return false
	}
	want := true // an operand is expected next
	for k := s.lo; k < s.hi; k++ {
		tok := t.toks[k]
		if tok.IsTrivia() {
			continue
		}
		if !want {
			if tok.Kind == sqlparse.KindOperator && strings.Contains("+-*/%", tok.Text) && len(tok.Text) == 1 {
				want = true
				continue
			}
			return false
		}
		switch {
		case t.isOp(k, "-") || t.isOp(k, "+"):
			continue // unary
		case t.isPunct(k, "("):
			c := t.closing(k)
			if c < 0 || c >= s.hi || !t.integer(t.trim(span{k + 1, c})) {
				return false
			}
			k = c
		case t.isKw(k, "CASE"):
			c := t.closing(k)
			if c < 0 || c >= s.hi || !t.integerCase(k, c) {
				return false
			}
			k = c
		case tok.Kind == sqlparse.KindNumber:
			if strings.ContainsAny(strings.ToLower(tok.Text), ".e") && !strings.HasPrefix(strings.ToLower(tok.Text), "0x") {
				return false
			}
		case tok.Kind == sqlparse.KindIdentifier || tok.Kind == sqlparse.KindQuotedIdentifier:
			n := t.next(k, s.hi)
			if n >= 0 && t.isPunct(n, "(") { // a function: COUNT is an integer
				c := t.closing(n)
				if !strings.EqualFold(tok.Text, "COUNT") || c < 0 || c >= s.hi {
					return false
				}
				k = c
				break
			}
			last := k // the column name of name or qualifier.name
			for n >= 0 && t.isPunct(n, ".") {
				last = t.next(n, s.hi)
				if last < 0 {
					return false
				}
				n = t.next(last, s.hi)
			}
			switch t.types[strings.ToLower(unquote(t.toks[last].Text))] {
			case "bigint", "integer", "smallint":
			default:
				return false
			}
			k = last
		default:
			return false
		}
		want = false
	}
	return !want
}

// integerCase reports whether every THEN and ELSE branch of the CASE at
// [open, end] is an integer expression (NULL branches included).
func (t *tr) integerCase(open, end int) bool {
	var marks []int // THEN, ELSE, WHEN and END positions at this level
	for k := open + 1; k < end; k++ {
		if c := t.closing(k); c > k {
			k = c
			continue
		}
		if t.isKw(k, "WHEN") || t.isKw(k, "THEN") || t.isKw(k, "ELSE") {
			marks = append(marks, k)
		}
	}
	marks = append(marks, end)
	branches := 0
	for i := 0; i+1 < len(marks); i++ {
		if !t.isKw(marks[i], "THEN") && !t.isKw(marks[i], "ELSE") {
			continue
		}
		b := t.trim(span{marks[i] + 1, marks[i+1]})
		if b.hi-b.lo == 1 && t.isKw(b.lo, "NULL") {
			continue
		}
		if !t.integer(b) {
			return false
		}
		branches++
	}
	return branches > 0
}
