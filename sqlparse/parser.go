package sqlparse

import (
	"fmt"
	"strings"
)

// This file is the general parser: a recursive-descent parser for the SQLite
// SELECT syntax found in BIRD and Spider gold SQL and in model output
// (WITH, all join forms, subqueries anywhere, CASE, CAST, function calls with
// FILTER/OVER, IN lists, IS [NOT] NULL, COLLATE, set operations, LIMIT/OFFSET).
// It is used when the process_sql replay in compat.go rejects a query, and maps
// what it parses onto the same query model, so the counting rules stay those
// of the official evaluator:
//
//   - a condition is flattened through parentheses into units joined by AND/OR;
//     NOT in front of a condition (or NOT IN / NOT LIKE / NOT BETWEEN /
//     IS NOT / NOT EXISTS) sets the unit's not_op;
//   - a unit's nested count is the number of subqueries in its operands;
//   - an item, column or operand "has an aggregate" when it contains a call to
//     one of Spider's aggregates (count, sum, avg, and single-argument min/max)
//     outside any subquery, so CAST(SUM(x) AS REAL) / COUNT(y) is one aggregated
//     SELECT item, and in ORDER BY its first operand and the rest are the two
//     column units of process_sql's value unit;
//   - every table, subquery or table-valued function in FROM is a table unit,
//     however joined (JOIN, INNER/LEFT/CROSS/NATURAL JOIN, comma);
//   - CTE bodies (WITH) are like FROM subqueries: parsed, not counted.

// ptok is a parser token: a non-trivia lexer token with its lower-cased text.
type ptok struct {
	Token
	low string
}

// exprKind enumerates the expression nodes the general parser builds.
type exprKind int

const (
	eLeaf    exprKind = iota // column, literal, parameter, '*'
	eFunc                    // function call; op is the lower-cased name
	eSub                     // (SELECT ...) used as a value
	eParen                   // ( expr )
	eList                    // ( expr, expr, ... )
	eBinary                  // arithmetic, concatenation, bitwise, JSON
	eUnary                   // - + ~
	eCase                    // CASE ... END
	eCast                    // CAST(expr AS type)
	eCollate                 // expr COLLATE name
	eAnd                     // a AND b
	eOr                      // a OR b
	eNot                     // NOT a
	eCmp                     // comparison; op is =, <, in, like, between, is, ...
	eExists                  // EXISTS (SELECT ...)
)

type expr struct {
	kind exprKind
	op   string
	neg  bool // NOT IN, NOT LIKE, NOT BETWEEN, IS NOT, NOT EXISTS
	kids []*expr
	sub  *query
}

// maxDepth bounds recursion so that adversarial input ("((((...") fails with
// an error instead of exhausting the stack.
const maxDepth = 200

type parser struct {
	toks  []ptok
	pos   int
	depth int
}

// parseGeneral parses one SELECT statement (optionally followed by ';').
func parseGeneral(toks []Token) (*query, error) {
	p := &parser{}
	for _, t := range toks {
		if t.IsTrivia() {
			continue
		}
		n := len(p.toks)
		// "> =", "< =", "! =": process_sql and the test-suite postprocess
		// both read these as one operator.
		if t.Text == "=" && n > 0 && t.Offset > p.toks[n-1].End() {
			switch p.toks[n-1].Text {
			case ">", "<", "!":
				p.toks[n-1].Text += "="
				p.toks[n-1].Kind = KindOperator
				p.toks[n-1].low = p.toks[n-1].Text
				continue
			}
		}
		p.toks = append(p.toks, ptok{Token: t, low: strings.ToLower(t.Text)})
	}
	if len(p.toks) == 0 {
		return nil, fmt.Errorf("%w: empty query", ErrSyntax)
	}
	q, err := p.selectStmt()
	if err != nil {
		return nil, err
	}
	for p.is(";") {
		p.pos++
	}
	if p.pos < len(p.toks) {
		return nil, p.errorf("unexpected %q after the query", p.toks[p.pos].Text)
	}
	return q, nil
}

func (p *parser) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p.pos < len(p.toks) {
		return fmt.Errorf("%w: %s (offset %d)", ErrSyntax, msg, p.toks[p.pos].Offset)
	}
	return fmt.Errorf("%w: %s (at end of query)", ErrSyntax, msg)
}

func (p *parser) peek(k int) *ptok {
	if p.pos+k < len(p.toks) {
		return &p.toks[p.pos+k]
	}
	return nil
}

// is reports whether the current token is the operator, punctuation or bare
// word s (lower case).
func (p *parser) is(s string) bool { return p.isAt(0, s) }

func (p *parser) isAt(k int, s string) bool {
	t := p.peek(k)
	if t == nil {
		return false
	}
	switch t.Kind {
	case KindKeyword, KindIdentifier, KindOperator, KindPunctuation, KindIllegal:
		return t.low == s
	}
	return false
}

// accept consumes the current token if it is s.
func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if p.accept(s) {
		return nil
	}
	if t := p.peek(0); t != nil {
		return p.errorf("expected %q, found %q", strings.ToUpper(s), t.Text)
	}
	return p.errorf("expected %q", strings.ToUpper(s))
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("query nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// selectStmt parses [WITH ...] select-core [set-op select-core]...
func (p *parser) selectStmt() (*query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.accept("with") {
		if err := p.withClause(); err != nil {
			return nil, err
		}
	}
	q, err := p.selectCore()
	if err != nil {
		return nil, err
	}
	switch {
	case p.is("union") || p.is("intersect") || p.is("except"):
		op := p.toks[p.pos].low
		p.pos++
		if op == "union" {
			p.accept("all")
		}
		rhs, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		switch op {
		case "union":
			q.union = rhs
		case "intersect":
			q.intersect = rhs
		default:
			q.except = rhs
		}
	}
	return q, nil
}

// withClause parses the common table expressions after WITH; their bodies are
// checked but, like subqueries in FROM, do not count towards hardness.
func (p *parser) withClause() error {
	p.accept("recursive")
	for {
		if _, ok := p.name(); !ok {
			return p.errorf("CTE name expected")
		}
		if p.is("(") {
			if err := p.skipParens(); err != nil {
				return err
			}
		}
		if err := p.expect("as"); err != nil {
			return err
		}
		p.accept("not")
		p.accept("materialized")
		if err := p.expect("("); err != nil {
			return err
		}
		if _, err := p.selectStmt(); err != nil {
			return err
		}
		if err := p.expect(")"); err != nil {
			return err
		}
		if !p.accept(",") {
			return nil
		}
	}
}

// selectCore parses SELECT ... [FROM] [WHERE] [GROUP BY] [HAVING] [WINDOW]
// [ORDER BY] [LIMIT]. ORDER BY and LIMIT are read here, after each core, which
// attaches them to the last arm of a set operation as process_sql does.
func (p *parser) selectCore() (*query, error) {
	q := &query{}
	switch {
	case p.is("("):
		p.pos++
		inner, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		q = inner
	case p.accept("values"):
		for {
			row, err := p.primary()
			if err != nil {
				return nil, err
			}
			if len(q.selectItems) == 0 {
				n := 1
				if row.kind == eList {
					n = len(row.kids)
				}
				q.selectItems = make([]selectItem, n)
			}
			if !p.accept(",") {
				break
			}
		}
	default:
		if err := p.expect("select"); err != nil {
			return nil, err
		}
		if err := p.selectBody(q); err != nil {
			return nil, err
		}
	}
	if p.is("order") && p.isAt(1, "by") {
		p.pos += 2
		q.hasOrder = true
		for {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			q.orderBy = append(q.orderBy, valUnitOf(e))
			if !p.accept("asc") {
				p.accept("desc")
			}
			if p.accept("nulls") && !p.accept("first") && !p.accept("last") {
				return nil, p.errorf("FIRST or LAST expected after NULLS")
			}
			if !p.accept(",") {
				break
			}
		}
	}
	if p.accept("limit") {
		q.hasLimit = true
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		if p.accept("offset") || p.accept(",") {
			if _, err := p.expr(); err != nil {
				return nil, err
			}
		}
	}
	return q, nil
}

func (p *parser) selectBody(q *query) error {
	if !p.accept("distinct") {
		p.accept("all")
	}
	for {
		item, err := p.resultColumn()
		if err != nil {
			return err
		}
		q.selectItems = append(q.selectItems, item)
		if !p.accept(",") {
			break
		}
	}
	if p.accept("from") {
		if err := p.joinSource(q); err != nil {
			return err
		}
	}
	if p.accept("where") {
		e, err := p.expr()
		if err != nil {
			return err
		}
		q.where = conditionOf(e)
	}
	if p.is("group") && p.isAt(1, "by") {
		p.pos += 2
		for {
			e, err := p.expr()
			if err != nil {
				return err
			}
			q.groupBy = append(q.groupBy, colUnit{agg: containsAgg(e)})
			if !p.accept(",") {
				break
			}
		}
	}
	if p.accept("having") {
		e, err := p.expr()
		if err != nil {
			return err
		}
		q.having = conditionOf(e)
	}
	if p.accept("window") {
		for {
			if _, ok := p.name(); !ok {
				return p.errorf("window name expected")
			}
			if err := p.expect("as"); err != nil {
				return err
			}
			if err := p.skipParens(); err != nil {
				return err
			}
			if !p.accept(",") {
				break
			}
		}
	}
	return nil
}

// resultColumn parses *, table.*, or expr [[AS] alias].
func (p *parser) resultColumn() (selectItem, error) {
	if p.accept("*") {
		return selectItem{}, nil
	}
	if t := p.peek(0); t != nil && isNameToken(t) && p.isAt(1, ".") && p.isAt(2, "*") {
		p.pos += 3
		return selectItem{}, nil
	}
	e, err := p.expr()
	if err != nil {
		return selectItem{}, err
	}
	if err := p.alias(); err != nil {
		return selectItem{}, err
	}
	return selectItem{agg: containsAgg(e)}, nil
}

// alias consumes an optional [AS] alias. Without AS only a plain or quoted
// name (or a string) is taken, so keywords such as WHERE or LEFT are never
// mistaken for one.
func (p *parser) alias() error {
	if p.accept("as") {
		t := p.peek(0)
		if t == nil || !(isNameToken(t) || t.Kind == KindKeyword || t.Kind == KindString) {
			return p.errorf("alias expected after AS")
		}
		p.pos++
		return nil
	}
	if t := p.peek(0); t != nil && (t.Kind == KindIdentifier || t.Kind == KindQuotedIdentifier || t.Kind == KindString) {
		p.pos++
	}
	return nil
}

// joinSource parses the FROM clause: table-or-subquery items joined by commas
// or any JOIN form, with ON / USING constraints.
func (p *parser) joinSource(q *query) error {
	if err := p.tableOrSubquery(q); err != nil {
		return err
	}
	for {
		if p.accept(",") {
			if err := p.tableOrSubquery(q); err != nil {
				return err
			}
			continue
		}
		if !p.joinOperator() {
			return nil
		}
		if err := p.tableOrSubquery(q); err != nil {
			return err
		}
		switch {
		case p.accept("on"):
			e, err := p.expr()
			if err != nil {
				return err
			}
			q.fromConds.add(conditionOf(e), "and")
		case p.accept("using"):
			if err := p.skipParens(); err != nil {
				return err
			}
		}
	}
}

// joinOperator consumes [NATURAL] [LEFT|RIGHT|FULL [OUTER] | INNER | CROSS] JOIN.
func (p *parser) joinOperator() bool {
	start := p.pos
	p.accept("natural")
	switch {
	case p.accept("left") || p.accept("right") || p.accept("full"):
		p.accept("outer")
	case p.accept("inner") || p.accept("cross"):
	}
	if p.accept("join") {
		return true
	}
	p.pos = start
	return false
}

func (p *parser) tableOrSubquery(q *query) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	if p.accept("(") {
		if p.is("select") || p.is("with") || p.is("values") {
			if _, err := p.selectStmt(); err != nil {
				return err
			}
			q.tableUnits++
		} else if err := p.joinSource(q); err != nil {
			return err
		}
		if err := p.expect(")"); err != nil {
			return err
		}
		return p.alias()
	}
	if _, ok := p.name(); !ok {
		return p.errorf("table name expected")
	}
	if p.accept(".") {
		if _, ok := p.name(); !ok {
			return p.errorf("table name expected after '.'")
		}
	}
	q.tableUnits++
	if p.is("(") { // table-valued function such as json_each(...)
		if err := p.skipParens(); err != nil {
			return err
		}
	}
	if err := p.alias(); err != nil {
		return err
	}
	switch {
	case p.is("indexed") && p.isAt(1, "by"):
		p.pos += 2
		if _, ok := p.name(); !ok {
			return p.errorf("index name expected")
		}
	case p.is("not") && p.isAt(1, "indexed"):
		p.pos += 2
	}
	return nil
}

// reservedWords may not be used as a bare column, table or function name:
// they would otherwise let a missing expression ("SELECT FROM t") parse.
var reservedWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`add all alter and as between by case check collate commit
		constraint create cross current_date current_time current_timestamp default
		deferrable delete distinct drop else end escape except exists filter foreign from
		group having in index indexed inner insert intersect into is isnull join limit
		natural not nothing notnull null on or order outer over primary references
		returning select set table then transaction union unique update using values when
		where window with`) {
		m[w] = true
	}
	return m
}()

// isNameToken reports whether t can name a table, column or function.
func isNameToken(t *ptok) bool {
	switch t.Kind {
	case KindIdentifier, KindQuotedIdentifier:
		return true
	case KindKeyword:
		return !reservedWords[t.low]
	}
	return false
}

func (p *parser) name() (string, bool) {
	t := p.peek(0)
	if t == nil || !isNameToken(t) {
		return "", false
	}
	p.pos++
	return t.low, true
}

// skipParens consumes a balanced parenthesised group the hardness rules do not
// look into (column lists, window definitions, table-valued arguments).
func (p *parser) skipParens() error {
	if err := p.expect("("); err != nil {
		return err
	}
	level := 1
	for p.pos < len(p.toks) {
		switch {
		case p.is("("):
			level++
		case p.is(")"):
			level--
			if level == 0 {
				p.pos++
				return nil
			}
		}
		p.pos++
	}
	return p.errorf("unbalanced parentheses")
}

// expr parses an expression with SQLite's operator precedence.
func (p *parser) expr() (*expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.orExpr()
}

func (p *parser) orExpr() (*expr, error) {
	l, err := p.andExpr()
	for err == nil && p.accept("or") {
		var r *expr
		if r, err = p.andExpr(); err == nil {
			l = &expr{kind: eOr, kids: []*expr{l, r}}
		}
	}
	return l, err
}

func (p *parser) andExpr() (*expr, error) {
	l, err := p.notExpr()
	for err == nil && p.accept("and") {
		var r *expr
		if r, err = p.notExpr(); err == nil {
			l = &expr{kind: eAnd, kids: []*expr{l, r}}
		}
	}
	return l, err
}

func (p *parser) notExpr() (*expr, error) {
	if p.accept("not") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &expr{kind: eNot, kids: []*expr{e}}, nil
	}
	return p.cmpExpr()
}

// cmpExpr parses the equality-level operators: = == != <> IS [NOT] [DISTINCT
// FROM], [NOT] IN, [NOT] LIKE/GLOB/REGEXP/MATCH [ESCAPE], [NOT] BETWEEN,
// ISNULL, NOTNULL, NOT NULL.
func (p *parser) cmpExpr() (*expr, error) {
	l, err := p.relExpr()
	if err != nil {
		return nil, err
	}
	for {
		neg := false
		start := p.pos
		if p.is("not") && (p.isAt(1, "in") || p.isAt(1, "like") || p.isAt(1, "glob") ||
			p.isAt(1, "regexp") || p.isAt(1, "match") || p.isAt(1, "between") || p.isAt(1, "null")) {
			p.pos++
			neg = true
		}
		t := p.peek(0)
		if t == nil {
			return l, nil
		}
		switch op := t.low; {
		case op == "=" || op == "==" || op == "!=" || op == "<>":
			p.pos++
			r, err := p.relExpr()
			if err != nil {
				return nil, err
			}
			l = &expr{kind: eCmp, op: canonicalEq(op), kids: []*expr{l, r}}
		case op == "is" && t.Kind == KindKeyword:
			p.pos++
			neg = p.accept("not")
			if p.is("distinct") && p.isAt(1, "from") {
				p.pos += 2
			}
			r, err := p.relExpr()
			if err != nil {
				return nil, err
			}
			l = &expr{kind: eCmp, op: "is", neg: neg, kids: []*expr{l, r}}
		case op == "in" && t.Kind == KindKeyword:
			p.pos++
			r, err := p.inTarget()
			if err != nil {
				return nil, err
			}
			l = &expr{kind: eCmp, op: "in", neg: neg, kids: []*expr{l, r}}
		case (op == "like" || op == "glob" || op == "regexp" || op == "match") && t.Kind == KindKeyword:
			p.pos++
			r, err := p.relExpr()
			if err != nil {
				return nil, err
			}
			kids := []*expr{l, r}
			if p.accept("escape") {
				esc, err := p.relExpr()
				if err != nil {
					return nil, err
				}
				kids = append(kids, esc)
			}
			l = &expr{kind: eCmp, op: op, neg: neg, kids: kids}
		case op == "between" && t.Kind == KindKeyword:
			p.pos++
			lo, err := p.relExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("and"); err != nil {
				return nil, err
			}
			hi, err := p.relExpr()
			if err != nil {
				return nil, err
			}
			l = &expr{kind: eCmp, op: "between", neg: neg, kids: []*expr{l, lo, hi}}
		case op == "isnull" || op == "notnull" || (op == "null" && neg):
			p.pos++
			l = &expr{kind: eCmp, op: "is", neg: op != "isnull", kids: []*expr{l, {kind: eLeaf, op: "null"}}}
		default:
			p.pos = start
			return l, nil
		}
	}
}

// canonicalEq spells SQLite's equality operators the way process_sql does.
func canonicalEq(op string) string {
	switch op {
	case "==":
		return "="
	case "<>":
		return "!="
	}
	return op
}

// inTarget parses what follows IN: (SELECT ...), (list), () or a table name.
func (p *parser) inTarget() (*expr, error) {
	if !p.is("(") {
		if _, ok := p.name(); !ok {
			return nil, p.errorf("'(' or table name expected after IN")
		}
		if p.accept(".") {
			if _, ok := p.name(); !ok {
				return nil, p.errorf("table name expected after '.'")
			}
		}
		if p.is("(") {
			if err := p.skipParens(); err != nil {
				return nil, err
			}
		}
		return &expr{kind: eLeaf}, nil
	}
	if p.isAt(1, ")") {
		p.pos += 2
		return &expr{kind: eList}, nil
	}
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	if e.kind == eParen {
		e = &expr{kind: eList, kids: e.kids}
	}
	return e, nil
}

func (p *parser) relExpr() (*expr, error) {
	return p.binaryLevel(p.bitExpr, "<", "<=", ">", ">=")
}

func (p *parser) bitExpr() (*expr, error) {
	return p.binaryLevel(p.addExpr, "&", "|", "<<", ">>")
}

func (p *parser) addExpr() (*expr, error) {
	return p.binaryLevel(p.mulExpr, "+", "-")
}

func (p *parser) mulExpr() (*expr, error) {
	return p.binaryLevel(p.concatExpr, "*", "/", "%")
}

func (p *parser) concatExpr() (*expr, error) {
	return p.binaryLevel(p.unaryExpr, "||", "->", "->>")
}

// binaryLevel parses a left-associative chain of the given operators over
// operands parsed by next. Relational operators build comparisons; the others
// build arithmetic nodes.
func (p *parser) binaryLevel(next func() (*expr, error), ops ...string) (*expr, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek(0)
		if t == nil || t.Kind != KindOperator || !contains(ops, t.low) {
			return l, nil
		}
		p.pos++
		r, err := next()
		if err != nil {
			return nil, err
		}
		kind := eBinary
		if t.low == "<" || t.low == "<=" || t.low == ">" || t.low == ">=" {
			kind = eCmp
		}
		l = &expr{kind: kind, op: t.low, kids: []*expr{l, r}}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) unaryExpr() (*expr, error) {
	if p.is("-") || p.is("+") || p.is("~") {
		op := p.toks[p.pos].low
		p.pos++
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &expr{kind: eUnary, op: op, kids: []*expr{e}}, nil
	}
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.accept("collate") {
		if _, ok := p.name(); !ok {
			return nil, p.errorf("collation name expected")
		}
		e = &expr{kind: eCollate, kids: []*expr{e}}
	}
	return e, nil
}

// primary parses literals, names, function calls, CASE, CAST, EXISTS,
// parenthesised expressions, lists and subqueries.
func (p *parser) primary() (*expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek(0)
	if t == nil {
		return nil, p.errorf("expression expected")
	}
	switch t.Kind {
	case KindNumber, KindString, KindBlob, KindParameter:
		p.pos++
		return &expr{kind: eLeaf}, nil
	case KindIllegal:
		return nil, p.errorf("unexpected %q", t.Text)
	}
	switch t.low {
	case "*":
		p.pos++
		return &expr{kind: eLeaf}, nil
	case "(":
		p.pos++
		if p.is("select") || p.is("with") || p.is("values") {
			sub, err := p.selectStmt()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return &expr{kind: eSub, sub: sub}, nil
		}
		first, err := p.expr()
		if err != nil {
			return nil, err
		}
		kids := []*expr{first}
		for p.accept(",") {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			kids = append(kids, e)
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		if len(kids) > 1 {
			return &expr{kind: eList, kids: kids}, nil
		}
		return &expr{kind: eParen, kids: kids}, nil
	case "null", "current_date", "current_time", "current_timestamp":
		if t.Kind == KindKeyword {
			p.pos++
			return &expr{kind: eLeaf}, nil
		}
	case "case":
		if t.Kind == KindKeyword {
			return p.caseExpr()
		}
	case "cast":
		if t.Kind == KindKeyword {
			return p.castExpr()
		}
	case "exists":
		if t.Kind == KindKeyword {
			p.pos++
			if err := p.expect("("); err != nil {
				return nil, err
			}
			sub, err := p.selectStmt()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return &expr{kind: eExists, kids: []*expr{{kind: eSub, sub: sub}}}, nil
		}
	case "raise":
		if t.Kind == KindKeyword && p.isAt(1, "(") {
			p.pos++
			return &expr{kind: eLeaf}, p.skipParens()
		}
	}
	if !isNameToken(t) {
		return nil, p.errorf("expression expected, found %q", t.Text)
	}
	p.pos++
	if p.is("(") && t.Kind != KindQuotedIdentifier {
		return p.functionCall(t.low)
	}
	// Qualified name: [schema.]table.column or table.*.
	for i := 0; i < 2 && p.is("."); i++ {
		p.pos++
		if p.accept("*") {
			break
		}
		if _, ok := p.name(); !ok {
			return nil, p.errorf("name expected after '.'")
		}
	}
	return &expr{kind: eLeaf}, nil
}

// functionCall parses the argument list and any FILTER / OVER clause of a call
// to name, whose name token has been consumed.
func (p *parser) functionCall(name string) (*expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	e := &expr{kind: eFunc, op: name}
	if !p.accept(")") {
		if !p.accept("distinct") {
			p.accept("all")
		}
		if p.accept("*") {
			e.kids = append(e.kids, &expr{kind: eLeaf})
		} else {
			for {
				a, err := p.expr()
				if err != nil {
					return nil, err
				}
				e.kids = append(e.kids, a)
				if !p.accept(",") {
					break
				}
			}
			if p.is("order") && p.isAt(1, "by") { // group_concat(x ORDER BY y)
				p.pos += 2
				for {
					if _, err := p.expr(); err != nil {
						return nil, err
					}
					if !p.accept("asc") {
						p.accept("desc")
					}
					if !p.accept(",") {
						break
					}
				}
			}
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if p.is("filter") && p.isAt(1, "(") {
		p.pos++
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if err := p.expect("where"); err != nil {
			return nil, err
		}
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if p.accept("over") {
		if p.is("(") {
			if err := p.skipParens(); err != nil {
				return nil, err
			}
		} else if _, ok := p.name(); !ok {
			return nil, p.errorf("window expected after OVER")
		}
	}
	return e, nil
}

func (p *parser) caseExpr() (*expr, error) {
	p.pos++ // CASE
	e := &expr{kind: eCase}
	if !p.is("when") {
		base, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.kids = append(e.kids, base)
	}
	if !p.is("when") {
		return nil, p.errorf("WHEN expected in CASE")
	}
	for p.accept("when") {
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect("then"); err != nil {
			return nil, err
		}
		val, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.kids = append(e.kids, cond, val)
	}
	if p.accept("else") {
		val, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.kids = append(e.kids, val)
	}
	return e, p.expect("end")
}

func (p *parser) castExpr() (*expr, error) {
	p.pos++ // CAST
	if err := p.expect("("); err != nil {
		return nil, err
	}
	inner, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expect("as"); err != nil {
		return nil, err
	}
	// Type name: one or more words, optionally with (n) or (n, m).
	if _, ok := p.typeWord(); !ok {
		return nil, p.errorf("type name expected in CAST")
	}
	for {
		if _, ok := p.typeWord(); !ok {
			break
		}
	}
	if p.is("(") {
		if err := p.skipParens(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return &expr{kind: eCast, kids: []*expr{inner}}, nil
}

// typeWord consumes one word of a type name; any identifier or keyword other
// than the closing parenthesis qualifies ("DOUBLE PRECISION", "VARCHAR").
func (p *parser) typeWord() (string, bool) {
	t := p.peek(0)
	if t == nil || !(t.Kind == KindIdentifier || t.Kind == KindKeyword || t.Kind == KindQuotedIdentifier) {
		return "", false
	}
	p.pos++
	return t.low, true
}

// conditionOf flattens a boolean expression into process_sql's condition list.
func conditionOf(e *expr) condition {
	var c condition
	flattenCondition(e, false, &c)
	return c
}

func flattenCondition(e *expr, neg bool, c *condition) {
	switch e.kind {
	case eParen:
		flattenCondition(e.kids[0], neg, c)
	case eAnd, eOr:
		flattenCondition(e.kids[0], neg, c)
		if e.kind == eAnd {
			c.conns = append(c.conns, "and")
		} else {
			c.conns = append(c.conns, "or")
		}
		flattenCondition(e.kids[1], neg, c)
	case eNot:
		flattenCondition(e.kids[0], !neg, c)
	default:
		u := condUnit{not: neg}
		if e.kind == eCmp || e.kind == eExists {
			u.not = neg != e.neg
			u.like = e.kind == eCmp && e.op == "like"
		}
		u.nested = countSubqueries(e)
		c.units = append(c.units, u)
	}
}

// countSubqueries counts the subqueries in e, not looking inside them.
func countSubqueries(e *expr) int {
	if e.kind == eSub {
		return 1
	}
	n := 0
	for _, k := range e.kids {
		n += countSubqueries(k)
	}
	return n
}

// containsAgg reports whether e calls one of Spider's aggregates (count, sum,
// avg, min, max) outside any subquery. min and max with several arguments are
// SQLite's scalar functions and do not count.
func containsAgg(e *expr) bool {
	if e.kind == eSub {
		return false
	}
	if e.kind == eFunc {
		switch e.op {
		case "count", "sum", "avg":
			return true
		case "min", "max":
			if len(e.kids) <= 1 {
				return true
			}
		}
	}
	for _, k := range e.kids {
		if containsAgg(k) {
			return true
		}
	}
	return false
}

// valUnitOf maps an ORDER BY expression onto process_sql's value unit: the
// top-level arithmetic operands, the first as col_unit1 and the rest as
// col_unit2.
func valUnitOf(e *expr) valUnit {
	for e.kind == eParen {
		e = e.kids[0]
	}
	var ops []*expr
	var walk func(*expr)
	walk = func(x *expr) {
		if x.kind == eBinary {
			walk(x.kids[0])
			walk(x.kids[1])
			return
		}
		ops = append(ops, x)
	}
	walk(e)
	vu := valUnit{col1: colUnit{agg: containsAgg(ops[0])}}
	if len(ops) > 1 {
		c2 := colUnit{}
		for _, o := range ops[1:] {
			c2.agg = c2.agg || containsAgg(o)
		}
		vu.col2 = &c2
	}
	return vu
}
