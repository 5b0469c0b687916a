package sqlparse

import (
	"fmt"
	"strings"
)

// This file replays Spider's process_sql.get_sql without a schema. The
// official parser has quirks that change hardness on queries it accepts (a
// column-valued comparison swallows everything up to the next AND, clause
// keyword, ',' or ')', so "a = b OR c = 1" is ONE condition; anything after a
// complete query is ignored; ORDER BY/LIMIT after a set operation belong to
// its last arm), so agreement with it needs its algorithm, not just its
// grammar. Each function below mirrors the Python function of the same name;
// where Python would raise (assert, IndexError, KeyError) these return an error
// and the caller falls back to the general parser.
//
// Without a schema, "is a column of a FROM table" becomes "is a plain name
// that is not an SQL word and not followed by '('"; "is a table or alias"
// becomes "is a plain name". A few cases where process_sql only succeeds thanks
// to a lucky schema lookup are rejected here on purpose (marked "stricter"),
// because the general parser gives the sensible reading of them.

// ctKind classifies a token as process_sql's tokenize() would see it.
type ctKind int

const (
	ctOther     ctKind = iota // operators, punctuation, anything unusual
	ctWord                    // a bare word, lower-cased
	ctQualified               // "alias.column" written without spaces
	ctString                  // '...' or "..." (both are string values there)
	ctNumber                  // something Python's float() accepts
)

// ctok is one process_sql token: s is the token string the Python code
// compares against ('select', '>=', 't1.name', ...).
type ctok struct {
	s    string
	kind ctKind
}

// compatReserved lists words process_sql can never resolve as a column or
// table name (they are not in any schema); accepting them would let this
// replay succeed where the official parser fails.
var compatReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`select from where group order limit intersect union except
		join on as not between in like is exists and or distinct by having asc desc case when
		then else end cast null inner left right outer cross natural using all with glob regexp
		escape collate offset values isnull notnull true false current_date current_time
		current_timestamp match window over filter`) {
		m[w] = true
	}
	return m
}()

var (
	ctClauseKeywords = map[string]bool{"select": true, "from": true, "where": true, "group": true,
		"order": true, "limit": true, "intersect": true, "union": true, "except": true}
	ctJoinKeywords = map[string]bool{"join": true, "on": true, "as": true}
	ctWhereOps     = map[string]bool{"not": true, "between": true, "=": true, ">": true, "<": true,
		">=": true, "<=": true, "!=": true, "in": true, "like": true, "is": true, "exists": true}
	ctUnitOps = map[string]bool{"none": true, "-": true, "+": true, "*": true, "/": true}
	ctAggOps  = map[string]bool{"none": true, "max": true, "min": true, "count": true, "sum": true, "avg": true}
	ctSQLOps  = map[string]bool{"intersect": true, "union": true, "except": true}
)

// compatTokens turns lexer tokens into process_sql tokens: trivia dropped,
// words lower-cased, "t1.name" joined, "- 1"-style signs glued to numbers as
// nltk leaves them, and split comparison operators ("> =") merged as
// process_sql's tokenize() merges them.
func compatTokens(toks []Token) []ctok {
	var nt []Token
	for _, t := range toks {
		if !t.IsTrivia() {
			nt = append(nt, t)
		}
	}
	out := make([]ctok, 0, len(nt))
	for i := 0; i < len(nt); i++ {
		t := nt[i]
		switch t.Kind {
		case KindKeyword, KindIdentifier:
			low := strings.ToLower(t.Text)
			if i+2 < len(nt) && nt[i+1].Text == "." && t.End() == nt[i+1].Offset &&
				nt[i+1].End() == nt[i+2].Offset &&
				(nt[i+2].Kind == KindIdentifier || nt[i+2].Kind == KindKeyword) {
				q := ctok{s: low + "." + strings.ToLower(nt[i+2].Text), kind: ctQualified}
				i += 2
				if i+1 < len(nt) && nt[i+1].Text == "." && nt[i].End() == nt[i+1].Offset {
					q.kind = ctOther // a.b.c: process_sql's split('.') raises
				}
				out = append(out, q)
				continue
			}
			switch low {
			case "inf", "nan", "infinity":
				out = append(out, ctok{s: low, kind: ctNumber})
			default:
				out = append(out, ctok{s: low, kind: ctWord})
			}
		case KindString:
			out = append(out, ctok{s: t.Text, kind: ctString})
		case KindQuotedIdentifier:
			if t.Text[0] == '"' {
				out = append(out, ctok{s: t.Text, kind: ctString})
			} else {
				out = append(out, ctok{s: t.Text, kind: ctOther})
			}
		case KindNumber:
			if len(t.Text) > 1 && (t.Text[1] == 'x' || t.Text[1] == 'X') {
				out = append(out, ctok{s: t.Text, kind: ctOther}) // float('0x1') raises
			} else {
				out = append(out, ctok{s: strings.ToLower(t.Text), kind: ctNumber})
			}
		case KindOperator, KindIllegal:
			s := t.Text
			if (s == "-" || s == "+") && i+1 < len(nt) && nt[i+1].Kind == KindNumber &&
				t.End() == nt[i+1].Offset && !strings.ContainsAny(nt[i+1].Text, "xX") {
				out = append(out, ctok{s: s + strings.ToLower(nt[i+1].Text), kind: ctNumber})
				i++
				continue
			}
			if (s == "!" || s == ">" || s == "<") && i+1 < len(nt) && nt[i+1].Text == "=" {
				out = append(out, ctok{s: s + "=", kind: ctOther})
				i++
				continue
			}
			out = append(out, ctok{s: s, kind: ctOther})
		default:
			out = append(out, ctok{s: t.Text, kind: ctOther})
		}
	}
	return out
}

// parseCompat is get_sql: check aliases, then parse_sql from the first token;
// whatever follows the first complete query is ignored, as in the reference.
func parseCompat(toks []Token) (*query, error) {
	ct := compatTokens(toks)
	if err := compatCheckAliases(ct); err != nil {
		return nil, err
	}
	_, q, err := cpSQL(ct, 0, 0)
	return q, err
}

func cpErr(toks []ctok, idx int, what string) error {
	if idx < len(toks) {
		return fmt.Errorf("%w: process_sql: %s at token %d %q", ErrSyntax, what, idx, toks[idx].s)
	}
	return fmt.Errorf("%w: process_sql: %s at end of query", ErrSyntax, what)
}

// compatCheckAliases mirrors scan_alias and get_tables_with_alias: every AS
// needs a following token, and an alias may not be spelled like a table (here:
// a name that follows FROM or JOIN somewhere in the query).
func compatCheckAliases(toks []ctok) error {
	tables := map[string]bool{}
	for i := 0; i+1 < len(toks); i++ {
		if (toks[i].s == "from" || toks[i].s == "join") && toks[i+1].kind == ctWord {
			tables[toks[i+1].s] = true
		}
	}
	for i, t := range toks {
		if t.s != "as" {
			continue
		}
		if i+1 >= len(toks) {
			return cpErr(toks, i, "AS without alias")
		}
		if tables[toks[i+1].s] {
			return cpErr(toks, i+1, "alias has the same name as a table")
		}
	}
	return nil
}

func at(toks []ctok, idx int) string {
	if idx < len(toks) {
		return toks[idx].s
	}
	return ""
}

// cpCol is parse_col.
func cpCol(toks []ctok, idx, defaultTables int) (int, error) {
	if idx >= len(toks) {
		return idx, cpErr(toks, idx, "column expected")
	}
	t := toks[idx]
	switch {
	case t.s == "*":
		return idx + 1, nil
	case t.kind == ctQualified:
		if compatReserved[t.s[:strings.IndexByte(t.s, '.')]] {
			return idx, cpErr(toks, idx, "unknown table alias")
		}
		return idx + 1, nil
	case defaultTables == 0:
		return idx, cpErr(toks, idx, "column without default tables")
	case t.kind != ctWord || compatReserved[t.s] || at(toks, idx+1) == "(":
		return idx, cpErr(toks, idx, "not a column")
	}
	return idx + 1, nil
}

// cpColUnit is parse_col_unit. Note that a parenthesised aggregate returns
// without consuming its closing parenthesis, as in the reference.
func cpColUnit(toks []ctok, idx, defaultTables int) (int, colUnit, error) {
	if idx >= len(toks) {
		return idx, colUnit{}, cpErr(toks, idx, "column unit expected")
	}
	isBlock := toks[idx].s == "("
	if isBlock {
		idx++
	}
	if idx >= len(toks) {
		return idx, colUnit{}, cpErr(toks, idx, "column unit expected")
	}
	if ctAggOps[toks[idx].s] {
		cu := colUnit{agg: toks[idx].s != "none"}
		idx++
		if at(toks, idx) != "(" {
			return idx, cu, cpErr(toks, idx, "'(' expected after aggregate")
		}
		idx++
		if idx >= len(toks) {
			return idx, cu, cpErr(toks, idx, "aggregate argument expected")
		}
		if toks[idx].s == "distinct" {
			idx++
		}
		idx, err := cpCol(toks, idx, defaultTables)
		if err != nil {
			return idx, cu, err
		}
		if at(toks, idx) != ")" {
			return idx, cu, cpErr(toks, idx, "')' expected after aggregate")
		}
		return idx + 1, cu, nil
	}
	if toks[idx].s == "distinct" {
		idx++
	}
	idx, err := cpCol(toks, idx, defaultTables)
	if err != nil {
		return idx, colUnit{}, err
	}
	if isBlock {
		if idx >= len(toks) || toks[idx].s != ")" {
			return idx, colUnit{}, cpErr(toks, idx, "')' expected")
		}
		idx++
	}
	return idx, colUnit{}, nil
}

// cpValUnit is parse_val_unit.
func cpValUnit(toks []ctok, idx, defaultTables int) (int, valUnit, error) {
	var vu valUnit
	if idx >= len(toks) {
		return idx, vu, cpErr(toks, idx, "value unit expected")
	}
	isBlock := toks[idx].s == "("
	if isBlock {
		idx++
	}
	idx, c1, err := cpColUnit(toks, idx, defaultTables)
	if err != nil {
		return idx, vu, err
	}
	vu.col1 = c1
	if idx < len(toks) && ctUnitOps[toks[idx].s] {
		var c2 colUnit
		idx, c2, err = cpColUnit(toks, idx+1, defaultTables)
		if err != nil {
			return idx, vu, err
		}
		vu.col2 = &c2
	}
	if isBlock {
		if idx >= len(toks) || toks[idx].s != ")" {
			return idx, vu, cpErr(toks, idx, "')' expected")
		}
		idx++
	}
	return idx, vu, nil
}

// cpTableUnit is parse_table_unit.
func cpTableUnit(toks []ctok, idx int) (int, error) {
	if idx >= len(toks) || toks[idx].kind != ctWord || compatReserved[toks[idx].s] {
		return idx, cpErr(toks, idx, "table expected")
	}
	if idx+1 < len(toks) && toks[idx+1].s == "as" {
		return idx + 3, nil
	}
	return idx + 1, nil
}

// cpValue is parse_value; it reports whether the value is a subquery. A value
// that is neither a subquery, a string nor a number is parsed as a column
// unit from a slice that runs to the next ',', ')', AND, clause keyword or
// JOIN/ON/AS, and parsing resumes after that slice: this is the swallowing
// quirk described at the top of the file.
func cpValue(toks []ctok, idx, defaultTables, depth int) (int, bool, error) {
	start := idx
	if idx >= len(toks) {
		return idx, false, cpErr(toks, idx, "value expected")
	}
	isBlock := toks[idx].s == "("
	if isBlock {
		idx++
	}
	if idx >= len(toks) {
		return idx, false, cpErr(toks, idx, "value expected")
	}
	isSub := false
	switch t := toks[idx]; {
	case t.s == "select":
		var err error
		idx, _, err = cpSQL(toks, idx, depth+1)
		if err != nil {
			return idx, false, err
		}
		isSub = true
	case t.kind == ctString || t.kind == ctNumber:
		idx++
	default:
		end := idx
		for end < len(toks) {
			s := toks[end].s
			if s == "," || s == ")" || s == "and" || ctClauseKeywords[s] || ctJoinKeywords[s] {
				break
			}
			end++
		}
		if _, _, err := cpColUnit(toks[start:end], 0, defaultTables); err != nil {
			return idx, false, err
		}
		idx = end
	}
	if isBlock {
		if idx >= len(toks) || toks[idx].s != ")" {
			return idx, false, cpErr(toks, idx, "')' expected after value")
		}
		idx++
	}
	return idx, isSub, nil
}

// cpCondition is parse_condition.
func cpCondition(toks []ctok, idx, defaultTables, depth int) (int, condition, error) {
	var c condition
	for idx < len(toks) {
		var err error
		idx, _, err = cpValUnit(toks, idx, defaultTables)
		if err != nil {
			return idx, c, err
		}
		var u condUnit
		if idx >= len(toks) {
			return idx, c, cpErr(toks, idx, "condition operator expected")
		}
		if toks[idx].s == "not" {
			u.not = true
			idx++
		}
		if idx >= len(toks) || !ctWhereOps[toks[idx].s] {
			return idx, c, cpErr(toks, idx, "condition operator expected")
		}
		op := toks[idx].s
		u.like = op == "like"
		idx++
		var sub bool
		idx, sub, err = cpValue(toks, idx, defaultTables, depth)
		if err != nil {
			return idx, c, err
		}
		if sub {
			u.nested++
		}
		if op == "between" {
			if at(toks, idx) != "and" {
				return idx, c, cpErr(toks, idx, "AND expected in BETWEEN")
			}
			idx, sub, err = cpValue(toks, idx+1, defaultTables, depth)
			if err != nil {
				return idx, c, err
			}
			if sub {
				u.nested++
			}
		}
		c.units = append(c.units, u)
		if idx >= len(toks) {
			break
		}
		s := toks[idx].s
		if ctClauseKeywords[s] || s == ")" || s == ";" || ctJoinKeywords[s] {
			break
		}
		if s != "and" && s != "or" {
			// Stricter: process_sql would start another condition with no
			// connector in between, which only happens in broken SQL.
			return idx, c, cpErr(toks, idx, "AND/OR expected")
		}
		c.conns = append(c.conns, s)
		idx++
		if idx >= len(toks) {
			return idx, c, cpErr(toks, idx, "condition expected after AND/OR") // stricter
		}
	}
	if len(c.units) == 0 {
		return idx, c, cpErr(toks, idx, "condition expected") // stricter
	}
	return idx, c, nil
}

// cpSelect is parse_select.
func cpSelect(toks []ctok, idx, defaultTables int) ([]selectItem, error) {
	if at(toks, idx) != "select" {
		return nil, cpErr(toks, idx, "SELECT expected")
	}
	idx++
	if at(toks, idx) == "distinct" {
		idx++
	}
	var items []selectItem
	for idx < len(toks) && !ctClauseKeywords[toks[idx].s] {
		var it selectItem
		if ctAggOps[toks[idx].s] {
			it.agg = toks[idx].s != "none"
			idx++
		}
		var err error
		idx, _, err = cpValUnit(toks, idx, defaultTables)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if at(toks, idx) == "," {
			idx++
		} else if idx < len(toks) && !ctClauseKeywords[toks[idx].s] {
			// Stricter: process_sql reads "count(*) cnt" as a second column
			// when a column "cnt" exists; an alias is the sensible reading.
			return nil, cpErr(toks, idx, "',' expected in SELECT list")
		}
	}
	return items, nil
}

// cpFrom is parse_from. It returns the end index, the number of table units,
// the join conditions and the number of default tables (plain table units,
// which is all parse_col needs to know about them).
func cpFrom(toks []ctok, start, depth int) (int, int, condition, int, error) {
	var conds condition
	idx := -1
	for i := start; i < len(toks); i++ {
		if toks[i].s == "from" {
			idx = i + 1
			break
		}
	}
	if idx < 0 {
		return start, 0, conds, 0, cpErr(toks, start, "FROM not found")
	}
	units, defaultTables := 0, 0
	for idx < len(toks) {
		isBlock := toks[idx].s == "("
		if isBlock {
			idx++
		}
		if idx >= len(toks) {
			return idx, 0, conds, 0, cpErr(toks, idx, "table expected")
		}
		var err error
		if toks[idx].s == "select" {
			idx, _, err = cpSQL(toks, idx, depth+1)
			if err != nil {
				return idx, 0, conds, 0, err
			}
		} else {
			joined := toks[idx].s == "join"
			if joined {
				idx++
			}
			if !joined && units > 0 {
				// Stricter: process_sql would take the word as another
				// table; in real SQL it is an alias written without AS.
				return idx, 0, conds, 0, cpErr(toks, idx, "JOIN expected")
			}
			idx, err = cpTableUnit(toks, idx)
			if err != nil {
				return idx, 0, conds, 0, err
			}
			defaultTables++
		}
		units++
		if at(toks, idx) == "on" {
			var c condition
			idx, c, err = cpCondition(toks, idx+1, defaultTables, depth)
			if err != nil {
				return idx, 0, conds, 0, err
			}
			conds.add(c, "and")
		}
		if isBlock {
			if at(toks, idx) != ")" {
				return idx, 0, conds, 0, cpErr(toks, idx, "')' expected in FROM")
			}
			idx++
		}
		if idx < len(toks) && (ctClauseKeywords[toks[idx].s] || toks[idx].s == ")" || toks[idx].s == ";") {
			break
		}
	}
	return idx, units, conds, defaultTables, nil
}

const maxCompatDepth = 100

// cpSQL is parse_sql.
func cpSQL(toks []ctok, start, depth int) (int, *query, error) {
	if depth > maxCompatDepth {
		return start, nil, cpErr(toks, start, "query nested too deeply")
	}
	idx := start
	if idx >= len(toks) {
		return idx, nil, cpErr(toks, idx, "query expected")
	}
	isBlock := toks[idx].s == "("
	if isBlock {
		idx++
	}
	q := &query{}
	fromEnd, units, fromConds, defaultTables, err := cpFrom(toks, start, depth)
	if err != nil {
		return idx, nil, err
	}
	q.tableUnits, q.fromConds = units, fromConds
	if q.selectItems, err = cpSelect(toks, idx, defaultTables); err != nil {
		return idx, nil, err
	}
	idx = fromEnd

	if at(toks, idx) == "where" {
		if idx, q.where, err = cpCondition(toks, idx+1, defaultTables, depth); err != nil {
			return idx, nil, err
		}
	}
	if at(toks, idx) == "group" {
		idx++
		if at(toks, idx) != "by" {
			return idx, nil, cpErr(toks, idx, "BY expected after GROUP")
		}
		idx++
		for idx < len(toks) && !(ctClauseKeywords[toks[idx].s] || toks[idx].s == ")" || toks[idx].s == ";") {
			var cu colUnit
			if idx, cu, err = cpColUnit(toks, idx, defaultTables); err != nil {
				return idx, nil, err
			}
			q.groupBy = append(q.groupBy, cu)
			if at(toks, idx) != "," {
				break
			}
			idx++
		}
	}
	if at(toks, idx) == "having" {
		if idx, q.having, err = cpCondition(toks, idx+1, defaultTables, depth); err != nil {
			return idx, nil, err
		}
	}
	if at(toks, idx) == "order" {
		idx++
		if at(toks, idx) != "by" {
			return idx, nil, cpErr(toks, idx, "BY expected after ORDER")
		}
		idx++
		q.hasOrder = true
		for idx < len(toks) && !(ctClauseKeywords[toks[idx].s] || toks[idx].s == ")" || toks[idx].s == ";") {
			var vu valUnit
			if idx, vu, err = cpValUnit(toks, idx, defaultTables); err != nil {
				return idx, nil, err
			}
			q.orderBy = append(q.orderBy, vu)
			if s := at(toks, idx); s == "asc" || s == "desc" {
				idx++
			}
			if at(toks, idx) != "," {
				break
			}
			idx++
		}
	}
	if at(toks, idx) == "limit" {
		idx += 2
		if idx-1 >= len(toks) || !isPythonInt(toks[idx-1]) {
			return idx, nil, cpErr(toks, idx-1, "integer expected after LIMIT")
		}
		q.hasLimit = true
	}
	for at(toks, idx) == ";" {
		idx++
	}
	if isBlock {
		if at(toks, idx) != ")" {
			return idx, nil, cpErr(toks, idx, "')' expected after query")
		}
		idx++
	}
	for at(toks, idx) == ";" {
		idx++
	}
	if op := at(toks, idx); ctSQLOps[op] {
		var rhs *query
		if idx, rhs, err = cpSQL(toks, idx+1, depth+1); err != nil {
			return idx, nil, err
		}
		switch op {
		case "intersect":
			q.intersect = rhs
		case "union":
			q.union = rhs
		default:
			q.except = rhs
		}
	}
	return idx, q, nil
}

// isPythonInt reports whether int(tok) succeeds in Python: an optionally
// signed run of decimal digits, '_' allowed between digits.
func isPythonInt(t ctok) bool {
	if t.kind != ctNumber {
		return false
	}
	s := strings.TrimLeft(t.s, "+-")
	if s == "" || len(t.s)-len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && i > 0 && i+1 < len(s) && isDigit(s[i+1]) {
			continue
		}
		if !isDigit(c) {
			return false
		}
	}
	return true
}
