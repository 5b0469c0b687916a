package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Tier is a BIRD difficulty level.
type Tier int

// The three BIRD tiers. Simple questions read one table (filters, counts,
// top-1, LIKE, dates); moderate ones join, group, aggregate, filter groups,
// deduplicate or branch with CASE; challenging ones span three or more
// tables, nest subqueries, compute ratios and percentages with CAST, or
// compare against an aggregate.
const (
	Simple Tier = iota
	Moderate
	Challenging
	numTiers
)

var tierNames = [numTiers]string{"simple", "moderate", "challenging"}

// tierShare is BIRD dev's mix (925/465/144 of 1534), rounded: 60/30/10.
var tierShare = [numTiers]float64{0.6, 0.3, 0.1}

// String returns BIRD's name of the tier, as written in the difficulty field.
func (t Tier) String() string {
	if t < 0 || t >= numTiers {
		return "tier(" + strconv.Itoa(int(t)) + ")"
	}
	return tierNames[t]
}

// family is one question intent: it samples slot values from the database,
// words the question (several wordings each), writes evidence where the
// question needs outside knowledge, and writes the gold SQL.
type family struct {
	name string
	tier Tier
	gen  func(q *candidate)
}

// defaultMaxRows bounds list answers: a question whose honest answer is a
// page of rows is a poor test and a worse training target.
const defaultMaxRows = 40

// candidate is the context a family fills in for one candidate question. Its
// methods record the first error (a template bug) or a skip (the sampled
// values do not make a good question) instead of returning them, so that a
// family reads like the question it writes; the caller checks afterwards.
type candidate struct {
	a        *asker
	r        *rand.Rand
	question string
	evidence []string
	sql      string
	tie      string
	one      bool
	maxRows  int
	skip     bool
	err      error
}

func (q *candidate) fail(err error) {
	if q.err == nil {
		q.err = err
	}
}

// Skip abandons the candidate: the sampled values do not make a good
// question. The generator draws again.
func (q *candidate) Skip() { q.skip = true }

func (q *candidate) live() bool { return q.err == nil && !q.skip }

// render resolves {table}/{table.column} names, then replaces each ? outside
// quotes with the next argument as an SQL literal. Values are spliced as
// literals, not bound, because the gold SQL is a text that must run alone.
func (q *candidate) render(format string, args []any) string {
	s, err := q.a.inst.names.render(format)
	if err != nil {
		q.fail(err)
		return ""
	}
	var b strings.Builder
	inQuote := false
	k := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
			b.WriteByte(c)
		case c == '?' && !inQuote:
			if k >= len(args) {
				q.fail(fmt.Errorf("too few arguments for %q", format))
				return ""
			}
			lit, err := literal(args[k])
			if err != nil {
				q.fail(fmt.Errorf("%q: argument %d: %w", format, k+1, err))
				return ""
			}
			b.WriteString(lit)
			k++
		default:
			b.WriteByte(c)
		}
	}
	if k != len(args) {
		q.fail(fmt.Errorf("%d arguments for %d placeholders in %q", len(args), k, format))
		return ""
	}
	return b.String()
}

// literal writes v as an SQL literal.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'", nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("unsupported literal type %T", v)
}

// SQL sets the gold query.
func (q *candidate) SQL(format string, args ...any) {
	if q.live() {
		q.sql = q.render(format, args)
	}
}

// Tie sets a query that returns the ranking value of the top two
// candidates of a top-1 question, best first. The question is kept only if
// the best is strictly better than the runner-up, so LIMIT 1 never breaks a
// tie arbitrarily.
func (q *candidate) Tie(format string, args ...any) {
	if q.live() {
		q.tie = q.render(format, args)
	}
}

// Top writes a top-1 gold query and its tie check together:
// SELECT sel <from> ORDER BY expr [DESC] LIMIT 1, where from holds the FROM,
// WHERE and GROUP BY clauses and args fill its placeholders.
func (q *candidate) Top(sel, from, expr string, desc bool, args ...any) {
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	q.SQL("SELECT "+sel+" "+from+" ORDER BY "+expr+dir+" LIMIT 1", args...)
	q.Tie("SELECT "+expr+" "+from+" ORDER BY "+expr+dir+" LIMIT 2", args...)
}

// One requires the gold to return exactly one row; questions worded in the
// singular ("What is the email of ...") use it.
func (q *candidate) One() { q.one = true }

// MaxRows overrides the bound on the number of rows a gold may return.
func (q *candidate) MaxRows(n int) { q.maxRows = n }

// Ev appends a BIRD-style evidence clause ("premium customer refers to
// tier = 'gold'"); names and placeholders work as in SQL.
func (q *candidate) Ev(format string, args ...any) {
	if q.live() {
		q.evidence = append(q.evidence, q.render(format, args))
	}
}

// Ask words the question: one of wordings, chosen at random, with each
// {key} replaced by its value from the key, value pairs in kv.
func (q *candidate) Ask(wordings []string, kv ...string) {
	if !q.live() {
		return
	}
	if len(wordings) < 3 {
		q.fail(fmt.Errorf("only %d wordings; every intent needs at least 3", len(wordings)))
		return
	}
	if len(kv)%2 != 0 {
		q.fail(errors.New("Ask: odd number of key/value arguments"))
		return
	}
	s := wordings[q.r.IntN(len(wordings))]
	for i := 0; i < len(kv); i += 2 {
		s = strings.ReplaceAll(s, "{"+kv[i]+"}", kv[i+1])
	}
	if i := strings.IndexByte(s, '{'); i >= 0 {
		q.fail(fmt.Errorf("unfilled slot in %q", s))
		return
	}
	q.question = s
}

// Intn returns a random int in [0, n).
func (q *candidate) Intn(n int) int {
	if n <= 0 {
		q.fail(fmt.Errorf("Intn(%d)", n))
		return 0
	}
	return q.r.IntN(n)
}

// Coin returns true half the time.
func (q *candidate) Coin() bool { return q.r.IntN(2) == 0 }

// Choose returns one of xs at random.
func (q *candidate) Choose(xs ...string) string {
	if len(xs) == 0 {
		q.fail(errors.New("Choose: no choices"))
		return ""
	}
	return xs[q.r.IntN(len(xs))]
}

// row is one row of a slot query, with typed accessors that record a
// template bug instead of panicking on a wrong index or type.
type row struct {
	q *candidate
	v []sqlexec.Value
}

func (r row) at(i int) (sqlexec.Value, bool) {
	if i < 0 || i >= len(r.v) {
		if r.q.live() {
			r.q.fail(fmt.Errorf("slot column %d out of range (%d columns)", i, len(r.v)))
		}
		return sqlexec.Value{}, false
	}
	return r.v[i], true
}

// S returns column i as text.
func (r row) S(i int) string {
	v, ok := r.at(i)
	if !ok {
		return ""
	}
	switch v.Kind {
	case sqlexec.KindText:
		return v.S
	case sqlexec.KindInt:
		return strconv.FormatInt(v.I, 10)
	case sqlexec.KindNull:
		r.q.Skip()
		return ""
	}
	r.q.fail(fmt.Errorf("slot column %d is %s, want text", i, v.Kind))
	return ""
}

// I returns column i as an integer.
func (r row) I(i int) int64 {
	v, ok := r.at(i)
	if !ok {
		return 0
	}
	switch v.Kind {
	case sqlexec.KindInt:
		return v.I
	case sqlexec.KindNull:
		r.q.Skip()
		return 0
	}
	r.q.fail(fmt.Errorf("slot column %d is %s, want integer", i, v.Kind))
	return 0
}

// F returns column i as a float.
func (r row) F(i int) float64 {
	v, ok := r.at(i)
	if !ok {
		return 0
	}
	switch v.Kind {
	case sqlexec.KindInt:
		return float64(v.I)
	case sqlexec.KindFloat:
		return v.F
	case sqlexec.KindNull:
		r.q.Skip()
		return 0
	}
	r.q.fail(fmt.Errorf("slot column %d is %s, want a number", i, v.Kind))
	return 0
}

// All runs a slot query (cached per database) and returns its rows.
func (q *candidate) All(format string, args ...any) []row {
	if !q.live() {
		return nil
	}
	sql := q.render(format, args)
	if !q.live() {
		return nil
	}
	rows, err := q.a.slotRows(sql)
	if err != nil {
		q.fail(err)
		return nil
	}
	out := make([]row, len(rows))
	for i, v := range rows {
		out[i] = row{q, v}
	}
	return out
}

// Pick runs a slot query and returns one of its rows at random; an empty
// pool skips the candidate.
func (q *candidate) Pick(format string, args ...any) row {
	rows := q.All(format, args...)
	if len(rows) == 0 {
		q.Skip()
		return row{q: q}
	}
	return rows[q.r.IntN(len(rows))]
}

// draft is an accepted question before it is numbered.
type draft struct {
	tier     Tier
	family   string
	question string
	evidence string
	sql      string
}

// asker generates the questions of one database instance.
type asker struct {
	ctx   context.Context
	eng   *sqlexec.SQLite
	inst  *instance
	cache map[string][][]sqlexec.Value
	stats map[string]*FamilyStats
}

// FamilyStats counts what happened to one question family's candidates:
// a family that is tried often but rarely accepted has a slot space too
// small for the preset, and tests use it to find families that never
// produce a question.
type FamilyStats struct {
	Tries, Accepted, Skipped, Duplicate int
}

func (a *asker) slotRows(sql string) ([][]sqlexec.Value, error) {
	if rows, ok := a.cache[sql]; ok {
		return rows, nil
	}
	res, err := a.eng.Query(a.ctx, a.inst.id, sql)
	if err != nil {
		return nil, fmt.Errorf("slot query %s: %w", sql, err)
	}
	a.cache[sql] = res.Rows
	return res.Rows, nil
}

// accept executes a candidate's gold (and tie check). A gold that fails to
// run is a template bug and stops the generator; one whose result cannot
// grade an answer is skipped.
func (a *asker) accept(q *candidate) (bool, error) {
	res, err := a.eng.Query(a.ctx, a.inst.id, q.sql)
	if err != nil {
		return false, fmt.Errorf("gold does not execute: %w: %s", err, q.sql)
	}
	if !sqlgen.Informative(res) || len(res.Rows) > q.maxRows || (q.one && len(res.Rows) != 1) {
		return false, nil
	}
	if q.tie == "" {
		return true, nil
	}
	t, err := a.eng.Query(a.ctx, a.inst.id, q.tie)
	if err != nil {
		return false, fmt.Errorf("tie check does not execute: %w: %s", err, q.tie)
	}
	if len(t.Rows) == 0 || len(t.Rows[0]) == 0 || t.Rows[0][0].Kind == sqlexec.KindNull {
		return false, nil
	}
	if len(t.Rows) >= 2 && len(t.Rows[1]) > 0 && nearlyEqual(t.Rows[0][0], t.Rows[1][0]) {
		return false, nil
	}
	return true, nil
}

// nearlyEqual treats numbers within a relative 1e-9 as equal. Two averages
// that differ only in rounding are a tie to any reader, and to another
// correct query (SUM/COUNT instead of AVG) that rounds the other way; and
// SQLite versions differ in how they round float sums, so an exact
// comparison would make the output depend on the SQLite library.
func nearlyEqual(a, b sqlexec.Value) bool {
	num := func(v sqlexec.Value) (float64, bool) {
		switch v.Kind {
		case sqlexec.KindInt:
			return float64(v.I), true
		case sqlexec.KindFloat:
			return v.F, true
		}
		return 0, false
	}
	x, okx := num(a)
	y, oky := num(b)
	if !okx || !oky {
		return a.Equal(b)
	}
	return math.Abs(x-y) <= 1e-9*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
}

// maxFails is how many candidates in a row a family may waste (skipped or
// duplicate) before it is retired for this database: its slot space is
// exhausted.
const maxFails = 30

// run generates inst.quota questions per tier.
func (a *asker) run(r *rand.Rand) ([]draft, error) {
	seenQ := map[string]bool{}
	seenSQL := map[string]bool{}
	var out []draft
	for tier := Simple; tier < numTiers; tier++ {
		var fams []family
		for _, f := range a.inst.dom.families {
			if f.tier == tier {
				fams = append(fams, f)
			}
		}
		fails := make([]int, len(fams))
		alive := make([]int, len(fams))
		for i := range alive {
			alive[i] = i
		}
		got := 0
		for got < a.inst.quota[tier] && len(alive) > 0 {
			if err := a.ctx.Err(); err != nil {
				return nil, err
			}
			var next []int
			for _, fi := range shuffled(r, alive) {
				if got >= a.inst.quota[tier] {
					next = append(next, fi)
					continue
				}
				f := fams[fi]
				st := a.stats[f.name]
				if st == nil {
					st = &FamilyStats{}
					a.stats[f.name] = st
				}
				st.Tries++
				q := &candidate{a: a, r: r, maxRows: defaultMaxRows}
				f.gen(q)
				if q.err != nil {
					return nil, fmt.Errorf("family %s: %w", f.name, q.err)
				}
				ok := false
				if !q.skip {
					if q.question == "" || q.sql == "" {
						return nil, fmt.Errorf("family %s: no question or no SQL", f.name)
					}
					dup := seenQ[q.question] || seenSQL[q.sql]
					if dup {
						st.Duplicate++
					} else {
						acc, err := a.accept(q)
						if err != nil {
							return nil, fmt.Errorf("family %s: %w", f.name, err)
						}
						ok = acc
						if !acc {
							st.Skipped++
						}
					}
				} else {
					st.Skipped++
				}
				if ok {
					st.Accepted++
					seenQ[q.question], seenSQL[q.sql] = true, true
					out = append(out, draft{tier: tier, family: f.name, question: q.question, evidence: strings.Join(q.evidence, "; "), sql: q.sql})
					got++
					fails[fi] = 0
				} else {
					fails[fi]++
				}
				if fails[fi] < maxFails {
					next = append(next, fi)
				}
			}
			alive = next
			// Keep the rotation order stable between rounds.
			slices.Sort(alive)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

// tableOf returns the table part of "table.column".
func tableOf(col string) string {
	t, _, _ := strings.Cut(col, ".")
	return t
}

// Distinct picks one distinct text value of col ("table.column").
func (q *candidate) Distinct(col string) string {
	return q.Pick("SELECT DISTINCT {" + col + "} FROM {" + tableOf(col) + "} WHERE {" + col + "} IS NOT NULL ORDER BY 1").S(0)
}

// DistinctInt picks one distinct integer value of col.
func (q *candidate) DistinctInt(col string) int64 {
	return q.Pick("SELECT DISTINCT {" + col + "} FROM {" + tableOf(col) + "} WHERE {" + col + "} IS NOT NULL ORDER BY 1").I(0)
}

// Year picks a year ("2023") that occurs in the date column col.
func (q *candidate) Year(col string) string {
	return q.Pick("SELECT DISTINCT strftime('%Y', {" + col + "}) FROM {" + tableOf(col) + "} WHERE {" + col + "} IS NOT NULL ORDER BY 1").S(0)
}

// Month picks a month ("2023-03") that occurs in the date column col.
func (q *candidate) Month(col string) string {
	return q.Pick("SELECT DISTINCT strftime('%Y-%m', {" + col + "}) FROM {" + tableOf(col) + "} WHERE {" + col + "} IS NOT NULL ORDER BY 1").S(0)
}

// Person picks a first and last name that occurs exactly once in table t,
// so that "the customer Maria Lopez" names one row, and in no other table
// of people in the database, so that a question naming "Maria Lopez"
// without a role word ("How much has Maria Lopez been fined?") cannot be
// read as asking about an author or a doctor of the same name.
func (q *candidate) Person(t string) (first, last, full string) {
	var others strings.Builder
	for _, o := range q.a.inst.dom.tables {
		if o.name == t || !hasColumn(o, "first_name") || !hasColumn(o, "last_name") {
			continue
		}
		others.WriteString(" AND NOT EXISTS (SELECT 1 FROM {" + o.name + "} AS o WHERE o.{" + o.name + ".first_name} = p.{" + t + ".first_name} AND o.{" + o.name + ".last_name} = p.{" + t + ".last_name})")
	}
	r := q.Pick("SELECT p.{" + t + ".first_name}, p.{" + t + ".last_name} FROM {" + t + "} AS p GROUP BY p.{" + t + ".first_name}, p.{" + t + ".last_name} HAVING COUNT(*) = 1" + others.String() + " ORDER BY 1, 2")
	first, last = r.S(0), r.S(1)
	return first, last, first + " " + last
}

// Unique picks a value of col that occurs in exactly one row.
func (q *candidate) Unique(col string) string {
	return q.Pick("SELECT {" + col + "} FROM {" + tableOf(col) + "} GROUP BY {" + col + "} HAVING COUNT(*) = 1 ORDER BY 1").S(0)
}

// Threshold picks a round number near a value of the numeric column col,
// so comparisons ("priced above $250") split the data somewhere real.
func (q *candidate) Threshold(col string) float64 {
	return nice(q.Pick("SELECT {" + col + "} FROM {" + tableOf(col) + "} WHERE {" + col + "} IS NOT NULL ORDER BY 1").F(0))
}

// hasColumn reports whether table t has the logical column name.
func hasColumn(t table, name string) bool {
	for _, c := range t.cols {
		if c.name == name {
			return true
		}
	}
	return false
}
