package reward

import (
	"context"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Analytic is the built-in judge: deterministic, free, and calibrated so
// that points order answers the way a grader would.
//
//   - An answer whose result matches the gold (BIRD EX) gets 50.
//   - An answer that executes but is wrong gets 5 + 40 * (0.5 result +
//     0.25 schema + 0.25 structure), so between 5 and 45: result is the
//     best of Soft-F1 (mini-dev's, rows paired by position) and the F1 of
//     the row sets (order-free); schema is the Jaccard similarity of the
//     tables and of the columns used; structure is the multiset Jaccard of
//     clauses, aggregates and operators, averaged with that of literals.
//   - An answer that fails gets at most 4 (4 * the mean of schema and
//     structure): below any answer that executes, so a near miss beats an
//     unrelated query, which beats an error.
//   - Blind (no results): 50 for the gold's token sequence up to case and
//     spacing, else 45 * (0.5 schema + 0.5 structure).
type Analytic struct{}

// Weights and bands of the analytic judge (see Analytic).
const (
	analyticExecBase   = 5
	analyticExecSpan   = 40
	analyticErrorSpan  = 4
	analyticBlindSpan  = 45
	weightResult       = 0.5
	weightSchema       = 0.25
	weightStructure    = 0.25
	maxOverlapRows     = 5000
	componentResult    = "judge_result"
	componentSchema    = "judge_schema"
	componentStructure = "judge_structure"
)

// Grade implements Judge.
func (Analytic) Grade(_ context.Context, v View) (Grade, error) {
	pf, gf := features(v.SQL), features(v.GoldSQL)
	schema := (jaccard(pf.tables, gf.tables) + jaccard(pf.columns, gf.columns)) / 2
	structure := (jaccard(pf.clauses, gf.clauses) + jaccard(pf.literals, gf.literals)) / 2
	c := map[string]float64{componentSchema: schema, componentStructure: structure}
	var pts float64
	switch o := v.Outcome; {
	case o == nil:
		if sameTokens(v.SQL, v.GoldSQL) {
			pts = MaxPoints
		} else {
			pts = analyticBlindSpan * (schema + structure) / 2
		}
	case o.Correct:
		pts = MaxPoints
		c[componentResult] = 1
	case executed(*o):
		r := o.SoftF1
		if v.Pred != nil && v.Gold != nil {
			r = resultOverlap(v.Pred.Rows, v.Gold.Rows)
		}
		c[componentResult] = r
		pts = analyticExecBase + analyticExecSpan*(weightResult*r+weightSchema*schema+weightStructure*structure)
	default:
		c[componentResult] = 0
		pts = analyticErrorSpan * (schema + structure) / 2
	}
	return Grade{Points: clampPoints(pts), Components: c}, nil
}

// resultOverlap is the partial credit for a wrong result: the better of
// mini-dev's Soft-F1 and the F1 of the row sets. Large results are compared
// on their first maxOverlapRows rows so that a runaway answer cannot make
// grading expensive.
func resultOverlap(pred, gold [][]sqlexec.Value) float64 {
	pred, gold = pred[:min(len(pred), maxOverlapRows)], gold[:min(len(gold), maxOverlapRows)]
	return max(eval.SoftF1(pred, gold), rowSetF1(pred, gold))
}

// rowSetF1 is the F1 of set(pred) against set(gold), rows compared as BIRD
// compares them (Python tuples).
func rowSetF1(pred, gold [][]sqlexec.Value) float64 {
	if len(pred) == 0 && len(gold) == 0 {
		return 1
	}
	ps, gs := keySet(pred), keySet(gold)
	var tp int
	for k := range ps {
		if _, ok := gs[k]; ok {
			tp++
		}
	}
	if tp == 0 {
		return 0
	}
	p, r := float64(tp)/float64(len(ps)), float64(tp)/float64(len(gs))
	return 2 * p * r / (p + r)
}

func keySet(rows [][]sqlexec.Value) map[string]struct{} {
	set := make(map[string]struct{}, len(rows))
	var buf []byte
	for _, r := range rows {
		buf = buf[:0]
		for _, v := range r {
			buf = v.AppendKey(buf)
		}
		set[string(buf)] = struct{}{}
	}
	return set
}

// sqlFeatures are what the analytic judge compares, all lower-cased.
type sqlFeatures struct {
	tables, columns   map[string]int
	clauses, literals map[string]int
}

// aggregates are the aggregate functions structure counts.
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true, "group_concat": true}

// structureKeywords are the keywords that shape a query.
var structureKeywords = map[string]bool{
	"SELECT": true, "DISTINCT": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "JOIN": true, "LEFT": true, "UNION": true, "INTERSECT": true,
	"EXCEPT": true, "CASE": true, "CAST": true, "LIKE": true, "BETWEEN": true, "IN": true, "IS": true,
	"NOT": true, "AND": true, "OR": true, "DESC": true, "ASC": true, "EXISTS": true, "NULL": true,
	"WITH": true, "GLOB": true, "IIF": true,
}

// features reads tables, columns, structure and literals off the token
// stream. It knows no schema: a name after FROM/JOIN (or a comma in a FROM
// list) is a table, a name after AS or right after a table is an alias, a
// name before "(" is a function, "x.y" names column y, and every other bare
// name is a column. Good enough to tell a near miss from an unrelated query.
func features(sql string) sqlFeatures {
	f := sqlFeatures{tables: map[string]int{}, columns: map[string]int{}, clauses: map[string]int{}, literals: map[string]int{}}
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(sql) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	isName := func(t sqlparse.Token) bool {
		return t.Kind == sqlparse.KindIdentifier || t.Kind == sqlparse.KindQuotedIdentifier
	}
	upper := func(i int) string {
		if i < 0 || i >= len(toks) || toks[i].Kind != sqlparse.KindKeyword {
			return ""
		}
		return strings.ToUpper(toks[i].Text)
	}
	// Pass 1: tables and aliases.
	aliases := map[string]bool{}
	role := make([]byte, len(toks)) // 't' table, 'a' alias, 'f' function, 'q' qualifier
	inFrom, fromDepth, depth := false, 0, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Text {
		case "(":
			depth++
		case ")":
			depth--
			if depth < fromDepth {
				inFrom = false
			}
		}
		switch u := upper(i); u {
		case "FROM", "JOIN":
			inFrom, fromDepth = true, depth
			if i+1 < len(toks) && isName(toks[i+1]) {
				i++
				role[i] = 't'
				f.tables[name(toks[i])]++
				i = markAlias(toks, i, role, aliases, isName)
			}
			continue
		case "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "SELECT":
			if depth <= fromDepth {
				inFrom = false
			}
		}
		if t.Text == "," && inFrom && depth == fromDepth && i+1 < len(toks) && isName(toks[i+1]) {
			i++
			role[i] = 't'
			f.tables[name(toks[i])]++
			i = markAlias(toks, i, role, aliases, isName)
			continue
		}
		if upper(i) == "AS" && i+1 < len(toks) && isName(toks[i+1]) && role[i+1] == 0 {
			role[i+1] = 'a'
			aliases[name(toks[i+1])] = true
		}
	}
	// Pass 2: columns, functions, structure, literals.
	for i, t := range toks {
		switch {
		case role[i] != 0:
		case isName(t) || t.Kind == sqlparse.KindKeyword && i+1 < len(toks) && toks[i+1].Text == "(" && aggregates[strings.ToLower(t.Text)]:
			n := name(t)
			switch {
			case i+1 < len(toks) && toks[i+1].Text == "(":
				if aggregates[n] {
					f.clauses["agg:"+n]++
				} else {
					f.clauses["fn:"+n]++
				}
			case i+1 < len(toks) && toks[i+1].Text == ".":
				// qualifier (alias or table): not a column
			case aliases[n] || t.Kind == sqlparse.KindKeyword:
			default:
				f.columns[n]++
			}
		case t.Kind == sqlparse.KindKeyword:
			if u := strings.ToUpper(t.Text); structureKeywords[u] {
				f.clauses[u]++
			}
		case t.Kind == sqlparse.KindOperator:
			f.clauses["op:"+t.Text]++
		case t.Kind == sqlparse.KindString:
			f.literals["s:"+t.Text]++
		case t.Kind == sqlparse.KindNumber:
			if x, err := strconv.ParseFloat(t.Text, 64); err == nil {
				f.literals["n:"+strconv.FormatFloat(x, 'g', -1, 64)]++
			} else {
				f.literals["n:"+t.Text]++
			}
		}
		if t.Text == "(" && i+1 < len(toks) && upper(i+1) == "SELECT" {
			f.clauses["subquery"]++
		}
	}
	return f
}

// markAlias marks the alias after the table at i ("t AS x" or "t x") and
// returns the index of the last token consumed.
func markAlias(toks []sqlparse.Token, i int, role []byte, aliases map[string]bool, isName func(sqlparse.Token) bool) int {
	j := i + 1
	if j < len(toks) && toks[j].Kind == sqlparse.KindKeyword && strings.EqualFold(toks[j].Text, "AS") {
		j++
	}
	if j < len(toks) && isName(toks[j]) {
		role[j] = 'a'
		aliases[name(toks[j])] = true
		return j
	}
	return i
}

// name is an identifier's lower-cased name, without quotes.
func name(t sqlparse.Token) string {
	s := t.Text
	if t.Kind == sqlparse.KindQuotedIdentifier && len(s) >= 2 {
		s = s[1 : len(s)-1]
	}
	return strings.ToLower(s)
}

// jaccard is the multiset Jaccard similarity; two empty sets are equal.
func jaccard(a, b map[string]int) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	var inter, union int
	for k, x := range a {
		y := b[k]
		inter += min(x, y)
		union += max(x, y)
	}
	for k, y := range b {
		if _, ok := a[k]; !ok {
			union += y
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// sameTokens reports whether two queries have the same tokens up to case,
// spacing, comments and a trailing semicolon.
func sameTokens(a, b string) bool {
	return strings.Join(canonTokens(a), " ") == strings.Join(canonTokens(b), " ")
}

func canonTokens(sql string) []string {
	var out []string
	for _, t := range sqlparse.Tokenize(sql) {
		if t.IsTrivia() {
			continue
		}
		s := t.Text
		if t.Kind == sqlparse.KindKeyword || t.Kind == sqlparse.KindIdentifier {
			s = strings.ToLower(s)
		}
		out = append(out, s)
	}
	for len(out) > 0 && out[len(out)-1] == ";" {
		out = out[:len(out)-1]
	}
	return out
}
