package agents

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/textclip"
)

// This file writes the feedback a validator should have given, without a
// teacher model: the gold query and its result are known for every training
// question, so comparing a candidate's structure (sqlparse.Analyze) and
// result with the gold's says what is wrong in the words a small model can
// learn to produce. Texts are one short line, deterministic, and end in the
// conclusion ParseVerdict reads.

// Derived is what a validator should have said about a candidate, derived
// from the gold: the SFT target of a native validator.
type Derived struct {
	// Kind is the validator (ValidateSelection, ValidateCondition,
	// ValidateJoin).
	Kind string
	// Correct is the conclusion; Text ends in "Conclude: correct." or
	// "Conclude: incorrect." accordingly.
	Correct bool
	Text    string
}

// maxNamed bounds the text quoted from a query in one finding, so that a
// feedback stays within what a small model with a short context can write.
const maxNamed = 40

// maxFindings bounds the findings of one feedback for the same reason.
const maxFindings = 2

// DeriveFeedback says what validator kind should conclude about a
// candidate. The conclusion is about the validator's own aspect:
//
//   - a candidate that failed to execute is incorrect for every kind;
//   - a candidate with the gold's result (candCorrect) is correct for every
//     kind, however differently it is written, so validators never learn
//     to reject equivalent SQL;
//   - otherwise a kind says incorrect when its aspect differs from the
//     gold's (selection: the SELECT list; condition: WHERE, HAVING, GROUP
//     BY, ORDER BY with LIMIT; join: the tables and join keys) and correct
//     when it matches, leaving the fault to another validator. When no
//     aspect differs (or either query cannot be parsed), the result
//     comparison ("returns 12 rows where 1 is expected") is the finding for
//     every kind, so a wrong candidate is never called right by all three.
//
// question is accepted for future use by findings that quote it.
func DeriveFeedback(kind string, question, candSQL string, cand Execution, goldSQL string, gold Execution, candCorrect bool) Derived {
	if !cand.OK {
		return conclude(kind, "The query fails: "+shortError(cand.Error), false)
	}
	cs, cerr := sqlparse.Analyze(candSQL)
	gs, gerr := sqlparse.Analyze(goldSQL)
	if candCorrect {
		return conclude(kind, praise(kind, cs), true)
	}
	if cerr != nil || gerr != nil {
		return conclude(kind, resultFinding(cand, gold), false)
	}
	if f := aspectFindings(kind, cs, gs, cand, gold); len(f) > 0 {
		for i := 1; i < len(f); i++ {
			f[i] = strings.ToLower(f[i][:1]) + f[i][1:]
		}
		return conclude(kind, strings.Join(f, "; "), false)
	}
	for _, k := range ValidatorKinds {
		if len(aspectFindings(k, cs, gs, cand, gold)) > 0 {
			return conclude(kind, praise(kind, cs), true) // another validator's fault
		}
	}
	return conclude(kind, resultFinding(cand, gold), false)
}

// quotedVerdict matches what a reader of the feedback would take for a
// conclusion; one quoted from a query's literal is defused.
var quotedVerdict = regexp.MustCompile(`(?i)(conclude)\s*:`)

// conclude writes the finding and the conclusion as one capitalised line.
func conclude(kind, finding string, correct bool) Derived {
	finding = quotedVerdict.ReplaceAllString(finding, "$1")
	finding = strings.TrimRight(strings.Join(strings.Fields(finding), " "), ".")
	if finding != "" {
		finding = strings.ToUpper(finding[:1]) + finding[1:]
	}
	verdict := "Conclude: incorrect."
	if correct {
		verdict = "Conclude: correct."
	}
	return Derived{Kind: kind, Correct: correct, Text: finding + ". " + verdict}
}

// shortError keeps the first line of an engine message, clipped.
func shortError(msg string) string {
	msg = strings.TrimSpace(msg)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		return "unknown error"
	}
	return clip(msg, 2*maxNamed)
}

// clip shortens text quoted from a query or a result to one line of at
// most n runes, the mark included.
func clip(s string, n int) string {
	if s = strings.Join(strings.Fields(s), " "); utf8.RuneCountInString(s) > n {
		return textclip.Clip(s, n-len(textclip.Mark))
	}
	return s
}

func named(s string) string { return clip(s, maxNamed) }

// contrast names two differing expressions so that the difference shows
// even when both are longer than maxNamed: the words they share before the
// first difference and after the last are elided, one kept for context.
func contrast(a, b string) (string, string) {
	if len(a) <= maxNamed && len(b) <= maxNamed {
		return a, b
	}
	wa, wb := strings.Fields(a), strings.Fields(b)
	p := 0
	for p < len(wa) && p < len(wb) && wa[p] == wb[p] {
		p++
	}
	n := 0
	for n < len(wa)-p && n < len(wb)-p && wa[len(wa)-1-n] == wb[len(wb)-1-n] {
		n++
	}
	cut := func(w []string) string {
		lo, hi := max(p-1, 0), len(w)-n
		if n > 0 {
			hi++
		}
		out := strings.Join(w[lo:hi], " ")
		if lo > 0 {
			out = "..." + out
		}
		if hi < len(w) && len([]rune(out)) <= maxNamed-3 {
			out += "..."
		}
		return clip(out, maxNamed)
	}
	return cut(wa), cut(wb)
}

// praise is a validator's finding when its aspect is right.
func praise(kind string, s *sqlparse.Shape) string {
	switch kind {
	case ValidateSelection:
		if s == nil || len(s.Select) == 0 {
			return "The selected columns match what is asked"
		}
		return fmt.Sprintf("It selects %s as asked", listNamed(s.Select))
	case ValidateCondition:
		if s == nil {
			return "The filters keep the rows asked for"
		}
		conds := filters(s)
		if len(conds) == 0 {
			return "It uses no filter, and none is needed"
		}
		return fmt.Sprintf("Its filters (%s) keep the rows asked for", listNamed(conds))
	case ValidateJoin:
		if s == nil || len(s.Tables) == 0 {
			return "It reads the tables needed"
		}
		if len(s.Tables) == 1 {
			return "It reads the one table needed, " + named(s.Tables[0])
		}
		return fmt.Sprintf("It joins %s on the right keys", listNamed(s.Tables))
	}
	return "It looks right"
}

// listNamed names at most two items and counts the rest: "a", "a and b",
// "a, b and 3 more".
func listNamed(items []string) string {
	var parts []string
	for i, it := range items {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("%d more", len(items)-2))
			break
		}
		parts = append(parts, named(it))
	}
	if n := len(parts); n > 1 {
		return strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	return strings.Join(parts, "")
}

func aspectFindings(kind string, c, g *sqlparse.Shape, cand, gold Execution) []string {
	var f []string
	switch kind {
	case ValidateSelection:
		f = selectionFindings(c, g, cand, gold)
	case ValidateCondition:
		f = conditionFindings(c, g)
	case ValidateJoin:
		f = joinFindings(c, g)
	default:
		if r := resultFinding(cand, gold); r != "" {
			f = []string{r}
		}
	}
	if len(f) > maxFindings {
		f = f[:maxFindings]
	}
	return f
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func selectionFindings(c, g *sqlparse.Shape, cand, gold Execution) []string {
	nc, ng := len(c.Select), len(g.Select)
	if cand.OK && gold.OK && len(cand.Columns) > 0 && len(gold.Columns) > 0 {
		nc, ng = len(cand.Columns), len(gold.Columns) // SELECT * counts here
	}
	missing, extra := diff(c.Select, g.Select)
	if nc != ng {
		f := fmt.Sprintf("Returns %s where %d %s asked", plural(nc, "column", "columns"), ng, isAre(ng))
		switch {
		case nc > ng && len(extra) > 0:
			f += fmt.Sprintf(": %s is not asked for", named(extra[0]))
		case nc < ng && len(missing) > 0:
			f += fmt.Sprintf(": it misses %s", named(missing[0]))
		}
		return []string{f}
	}
	if len(missing) == 0 && len(extra) == 0 {
		for i := range c.Select {
			if i < len(g.Select) && !same(c.Select[i], g.Select[i]) {
				return []string{fmt.Sprintf("Returns the right columns in the wrong order: %s where %s is asked first", named(c.Select[i]), named(g.Select[i]))}
			}
		}
		return nil
	}
	var f []string
	for i := 0; i < len(missing) && i < len(extra); i++ {
		f = append(f, selectionMismatch(extra[i], missing[i]))
	}
	for i := len(extra); i < len(missing); i++ {
		f = append(f, fmt.Sprintf("Misses the column %s", named(missing[i])))
	}
	for i := len(missing); i < len(extra); i++ {
		f = append(f, fmt.Sprintf("Selects %s, which is not asked for", named(extra[i])))
	}
	return f
}

// selectionMismatch names one selected expression against the one asked.
func selectionMismatch(c, g string) string {
	gd := strings.Contains(g, "(distinct ")
	cd := strings.Contains(c, "(distinct ")
	switch {
	case gd && !cd && same(strings.Replace(g, "(distinct ", "(", 1), c):
		return fmt.Sprintf("Uses %s, which counts every row, where the question asks for distinct values", named(c))
	case cd && !gd && same(strings.Replace(c, "(distinct ", "(", 1), g):
		return fmt.Sprintf("Uses %s, which counts distinct values, where the question asks for every row", named(c))
	}
	c, g = contrast(c, g)
	return fmt.Sprintf("Selects %s but the question asks for %s", c, g)
}

// joinKey reports whether a WHERE condition is really a join key
// ("a.x = b.y" across two tables): comma joins put their keys there.
func joinKey(cond string) bool {
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(cond) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	if len(toks) != 7 || toks[3].Text != "=" || toks[1].Text != "." || toks[5].Text != "." {
		return false
	}
	for _, i := range []int{0, 2, 4, 6} {
		if k := toks[i].Kind; k != sqlparse.KindIdentifier && k != sqlparse.KindQuotedIdentifier && k != sqlparse.KindKeyword {
			return false
		}
	}
	return !strings.EqualFold(toks[0].Text, toks[4].Text)
}

// filters are a query's WHERE and HAVING conditions less its join keys.
func filters(s *sqlparse.Shape) []string {
	var out []string
	for _, c := range s.Conditions {
		if !joinKey(c) {
			out = append(out, c)
		}
	}
	return out
}

// joinKeys are a query's ON conditions and the join keys in its WHERE,
// each with its sides sorted.
func joinKeys(s *sqlparse.Shape) []string {
	keys := append([]string(nil), s.JoinOn...)
	for _, c := range s.Conditions {
		if joinKey(c) {
			l, r, _ := strings.Cut(c, " = ")
			if r < l {
				l, r = r, l
			}
			keys = append(keys, l+" = "+r)
		}
	}
	return keys
}

func conditionFindings(c, g *sqlparse.Shape) []string {
	var f []string
	missing, extra := diff(filters(c), filters(g))
	used := make([]bool, len(extra))
	for _, m := range missing {
		pair := -1
		for j, e := range extra {
			if !used[j] && subject(e) != "" && subject(e) == subject(m) {
				pair = j
				break
			}
		}
		if pair < 0 && len(missing) == 1 && len(extra) == 1 {
			pair = 0 // one filter written differently
		}
		if pair >= 0 {
			used[pair] = true
			e, m := contrast(extra[pair], m)
			f = append(f, fmt.Sprintf("Filters %s where %s is needed", e, m))
		} else {
			f = append(f, fmt.Sprintf("Misses the filter %s", named(m)))
		}
	}
	for j, e := range extra {
		if !used[j] {
			f = append(f, fmt.Sprintf("Adds the filter %s, which the question does not ask for", named(e)))
		}
	}
	if c.TopLimit != g.TopLimit || c.TopLimit != "" && !sameList(c.OrderByCols, g.OrderByCols) {
		switch {
		case g.TopLimit == "":
			f = append(f, fmt.Sprintf("Keeps only the top %s rows where all are asked", named(c.TopLimit)))
		case c.TopLimit == "":
			f = append(f, fmt.Sprintf("Lacks the ORDER BY %s LIMIT %s that picks the rows asked", listNamed(g.OrderByCols), named(g.TopLimit)))
		case c.TopLimit != g.TopLimit:
			f = append(f, fmt.Sprintf("Uses LIMIT %s where LIMIT %s is needed", named(c.TopLimit), named(g.TopLimit)))
		case len(c.OrderByCols) == 0:
			f = append(f, fmt.Sprintf("Takes rows without ORDER BY where ORDER BY %s is needed", listNamed(g.OrderByCols)))
		default:
			f = append(f, fmt.Sprintf("Orders by %s where %s is needed", listNamed(c.OrderByCols), listNamed(g.OrderByCols)))
		}
	}
	if !sameList(c.GroupByCols, g.GroupByCols) {
		switch {
		case len(g.GroupByCols) == 0:
			f = append(f, fmt.Sprintf("Groups by %s, which the question does not ask for", listNamed(c.GroupByCols)))
		case len(c.GroupByCols) == 0:
			f = append(f, fmt.Sprintf("Misses GROUP BY %s", listNamed(g.GroupByCols)))
		default:
			f = append(f, fmt.Sprintf("Groups by %s where %s is needed", listNamed(c.GroupByCols), listNamed(g.GroupByCols)))
		}
	}
	return f
}

func joinFindings(c, g *sqlparse.Shape) []string {
	var f []string
	missing, extra := diffExact(c.Tables, g.Tables)
	switch len(missing) {
	case 0:
	case 1:
		f = append(f, fmt.Sprintf("Does not read table %s, which the question needs", named(missing[0])))
	default:
		f = append(f, fmt.Sprintf("Does not read tables %s, which the question needs", listNamed(missing)))
	}
	switch len(extra) {
	case 0:
	case 1:
		f = append(f, fmt.Sprintf("Reads table %s, which is not needed", named(extra[0])))
	default:
		f = append(f, fmt.Sprintf("Reads tables %s, which are not needed", listNamed(extra)))
	}
	if len(f) > 0 {
		return f
	}
	mk, ek := diff(joinKeys(c), joinKeys(g))
	switch {
	case len(mk) > 0 && len(ek) > 0:
		e, m := contrast(ek[0], mk[0])
		f = append(f, fmt.Sprintf("Joins on %s where %s is needed", e, m))
	case len(mk) > 0:
		f = append(f, fmt.Sprintf("Misses the join key %s", named(mk[0])))
	case len(ek) > 0:
		f = append(f, fmt.Sprintf("Joins on %s, which is not needed", named(ek[0])))
	case c.Joins != g.Joins:
		f = append(f, fmt.Sprintf("Makes %s where %d %s needed", plural(c.Joins, "join", "joins"), g.Joins, isAre(g.Joins)))
	}
	return f
}

// resultFinding compares results when structure says nothing: column
// count, row count, then the first shown row the gold does not have.
func resultFinding(cand, gold Execution) string {
	if !gold.OK {
		return "Its result cannot be checked against the expected one"
	}
	nc, ng := len(cand.Columns), len(gold.Columns)
	switch {
	case nc != ng && nc > 0 && ng > 0:
		return fmt.Sprintf("Returns %s where %d %s expected", plural(nc, "column", "columns"), ng, isAre(ng))
	case cand.NRows == 0 && gold.NRows > 0:
		return fmt.Sprintf("Returns no rows where %d %s expected", gold.NRows, isAre(gold.NRows))
	case cand.NRows != gold.NRows:
		return fmt.Sprintf("Returns %s where %d %s expected", plural(cand.NRows, "row", "rows"), gold.NRows, isAre(gold.NRows))
	}
	want := map[string]bool{}
	for _, r := range gold.Rows {
		want[rowText(r)] = true
	}
	for _, r := range cand.Rows {
		if !want[rowText(r)] && len(gold.Rows) > 0 {
			return fmt.Sprintf("Returns %s where %s is expected", named(rowText(r)), named(rowText(gold.Rows[0])))
		}
	}
	return "Returns other rows than expected"
}

func rowText(r []string) string {
	if len(r) == 1 {
		return r[0]
	}
	return "(" + strings.Join(r, ", ") + ")"
}

// diff returns the gold items the candidate lacks and the candidate's
// items the gold lacks, as multisets, matching items by same.
func diff(cand, gold []string) (missing, extra []string) {
	used := make([]bool, len(cand))
	for _, g := range gold {
		found := false
		for i, c := range cand {
			if !used[i] && same(c, g) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, g)
		}
	}
	for i, c := range cand {
		if !used[i] {
			extra = append(extra, c)
		}
	}
	return missing, extra
}

func diffExact(cand, gold []string) (missing, extra []string) {
	in := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	for _, g := range gold {
		if !in(cand, g) {
			missing = append(missing, g)
		}
	}
	for _, c := range cand {
		if !in(gold, c) {
			extra = append(extra, c)
		}
	}
	return missing, extra
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// same reports whether two normalised expressions mean the same for
// feedback: equal text, or equal once table qualifiers are dropped when
// one side has none (Analyze cannot qualify a bare column of a join), or
// LIKE without wildcards against =.
func same(a, b string) bool {
	if a == b {
		return true
	}
	ka, qa := looseKey(a)
	kb, qb := looseKey(b)
	return ka == kb && (!qa || !qb || a == b)
}

// looseKey drops table qualifiers and spells LIKE with a pattern without
// wildcards as =; qualified reports whether a was qualified.
func looseKey(s string) (key string, qualified bool) {
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(s) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i+1 < len(toks) && toks[i+1].Text == "." && t.Kind != sqlparse.KindString && t.Kind != sqlparse.KindNumber {
			qualified = true
			i++
			continue
		}
		text := t.Text
		if strings.EqualFold(text, "like") && i+1 < len(toks) && toks[i+1].Kind == sqlparse.KindString &&
			!strings.ContainsAny(toks[i+1].Text, "%_") && (i == 0 || !strings.EqualFold(toks[i-1].Text, "not")) {
			text = "="
		}
		b.WriteString(text)
		b.WriteByte(' ')
	}
	return b.String(), qualified
}

// subject is the left-hand side of a condition (its column), qualifiers
// dropped: two conditions on the same subject are one filter written two
// ways ("year = 2010" where "year = 2011" is needed).
func subject(cond string) string {
	low := strings.ToLower(cond)
	cut := len(low)
	for _, op := range []string{" = ", " != ", " < ", " > ", " <= ", " >= ", " like ", " not ", " between ", " in ", " is ", " glob "} {
		if i := strings.Index(low, op); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut == len(low) {
		return ""
	}
	k, _ := looseKey(cond[:cut])
	return k
}
