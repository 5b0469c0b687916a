package sqlgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/bench/schemagen"
)

// cand is one composed question before verification.
type cand struct {
	sql      string
	question string
	need     []string // knowledge the question cannot be answered without
	opt      []string // knowledge that helps but is in the schema's descriptions
	feats    map[string]bool
	maxRows  int
	// ordered queries: the gold is orderBase + " ORDER BY " + orderKey +
	// " LIMIT n"; verification re-runs it with every output column as a
	// secondary key, ascending and descending.
	orderBase, orderKey string
	limit, ncols        int
	correlated          bool
	// check is an extra test of the gold's result (no ties in a window).
	check func(rows [][]string) bool
}

func newCand() *cand { return &cand{feats: map[string]bool{}, maxRows: 30} }

func (c *cand) feat(fs ...string) {
	for _, f := range fs {
		c.feats[f] = true
	}
}

// ordered sets an ORDER BY ... LIMIT gold.
func (c *cand) ordered(base, key string, limit, ncols int) {
	c.orderBase, c.orderKey, c.limit, c.ncols = base, key, limit, ncols
	c.sql = fmt.Sprintf("%s ORDER BY %s LIMIT %d", base, key, limit)
	c.feat("order_limit")
}

// tieVariants are the gold with ties broken both ways.
func (c *cand) tieVariants() []string {
	if c.orderBase == "" {
		return nil
	}
	var asc, desc []string
	for i := 1; i <= c.ncols; i++ {
		asc = append(asc, strconv.Itoa(i))
		desc = append(desc, strconv.Itoa(i)+" DESC")
	}
	return []string{
		fmt.Sprintf("%s ORDER BY %s, %s LIMIT %d", c.orderBase, c.orderKey, strings.Join(asc, ", "), c.limit),
		fmt.Sprintf("%s ORDER BY %s, %s LIMIT %d", c.orderBase, c.orderKey, strings.Join(desc, ", "), c.limit),
	}
}

// g holds the random source and the model while composing.
type g struct {
	m     *model
	r     *rand.Rand
	cache map[pathKey][]path
}

type pathKey struct {
	t   *tbl
	n   int
	fwd bool
}

// withPaths picks a table that has walks of n edges (and passes ok).
func (x *g) withPaths(n int, fwd bool, ok func(*tbl) bool) *tbl {
	return x.table(func(t *tbl) bool { return ok(t) && len(x.paths(t, n, fwd)) > 0 })
}

func (x *g) pick(ws []string) string { return ws[x.r.IntN(len(ws))] }
func (x *g) coin(p float64) bool     { return x.r.Float64() < p }

func article(w string) string {
	if w == "" {
		return "a"
	}
	switch strings.ToLower(w[:1]) {
	case "a", "e", "i", "o", "u":
		return "an"
	}
	return "a"
}

func an(w string) string { return article(w) + " " + w }

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fill replaces {k} slots.
func fill(s string, kv ...string) string {
	for i := 0; i+1 < len(kv); i += 2 {
		s = strings.ReplaceAll(s, "{"+kv[i]+"}", kv[i+1])
	}
	return s
}

// fmtNum writes a number for a question: integers plainly, others with up
// to two decimals.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// niceNum rounds x to a number a person would write: two significant
// digits.
func niceNum(x float64, integer bool) float64 {
	if x == 0 {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-1)
	v := math.Round(x/mag) * mag
	if integer || math.Abs(v) >= 10 {
		v = math.Round(v)
	} else {
		v = math.Round(v*100) / 100
	}
	return v
}

func (c *col) withUnit(x float64) string {
	s := fmtNum(x)
	if u := c.c.Unit; u != "" {
		if u == "USD" {
			return "$" + s
		}
		return s + " " + u
	}
	return s
}

// threshold picks a round number inside the column's range (between the
// 20th and 80th percentile), so a comparison splits the rows.
func (x *g) threshold(c *col) (float64, bool) {
	n := len(c.nums)
	lo, hi := n/5, n*4/5
	if hi <= lo {
		return 0, false
	}
	v := niceNum(c.nums[lo+x.r.IntN(hi-lo)], c.intNums)
	if v <= c.nums[0] || v >= c.nums[n-1] {
		return 0, false
	}
	return v, true
}

// humanLayout writes a Go layout as YYYY-MM-DD.
func humanLayout(l string) string {
	return strings.NewReplacer("2006", "YYYY", "01", "MM", "02", "DD", "15", "hh", "04", "mm", "05", "ss").Replace(l)
}

func monthWords(ym string) string {
	t, err := time.Parse("2006-01", ym)
	if err != nil {
		return ym
	}
	return t.Format("January 2006")
}

// filter is one condition on a column with its English relative clause
// ("whose sex is female"), usable after a plural or a singular noun.
type filter struct {
	sql, words string
	need, opt  []string
	feats      []string
	// keep reports, from the rows in memory, whether a row passes; nil
	// when not computed.
	keep func(row int) bool
}

// filterOn draws a condition on column c read through alias a.
func (x *g) filterOn(c *col, a string) (filter, bool) {
	p := c.c.Phrase
	var f filter
	if k := colKnow(c); k != "" {
		f.opt = append(f.opt, k)
	}
	switch c.kind {
	case kCat:
		if c.dirtyText {
			f.feats = append(f.feats, "dirty_text")
			f.opt = append(f.opt, fmt.Sprintf("%s values are not written consistently: letter case and surrounding spaces vary.", capital(p)))
		}
		codes := len(c.c.Codes) > 0
		if c.nulls > 0 && x.coin(0.12) {
			if x.coin(0.5) {
				f.sql = c.ref(a) + " IS NULL"
				f.words = fill(x.pick([]string{"with no {p} recorded", "whose {p} is unknown", "without a recorded {p}"}), "p", p)
				if c.c.Role == schemagen.RoleFlag {
					f.words = fill(x.pick([]string{"whose {p} flag is not recorded", "with no value recorded for {p}"}), "p", p)
				}
				f.feats = append(f.feats, "is_null")
				f.keep = func(r int) bool { return c.tb.t.Rows[r][c.i] == nil }
			} else {
				f.sql = c.ref(a) + " IS NOT NULL"
				f.words = fill(x.pick([]string{"with a recorded {p}", "whose {p} is known", "having a {p} on record"}), "p", p)
				if c.c.Role == schemagen.RoleFlag {
					f.words = fill(x.pick([]string{"whose {p} flag is recorded", "with a value recorded for {p}"}), "p", p)
				}
				f.feats = append(f.feats, "not_null")
				f.keep = func(r int) bool { return c.tb.t.Rows[r][c.i] != nil }
			}
			return f, true
		}
		if len(c.vals) >= 3 && x.coin(0.15) {
			i := x.r.IntN(len(c.vals) - 1)
			v1, v2 := c.vals[i], c.vals[i+1+x.r.IntN(len(c.vals)-1-i)]
			f.sql = fmt.Sprintf("%s IN (%s, %s)", c.catExpr(a), c.catLit(v1), c.catLit(v2))
			m1, m2 := c.meaning(v1), c.meaning(v2)
			f.words = fill(x.pick([]string{"whose {p} is {a} or {b}", "with {p} either {a} or {b}", "whose {p} is one of {a} and {b}", "with {p} of {a} or {b}"}), "p", p, "a", m1, "b", m2)
			f.feats = append(f.feats, "in_list")
			if codes {
				f.feats = append(f.feats, "code")
				f.opt = append(f.opt, x.codeKnow(c, v1), x.codeKnow(c, v2))
			}
			f.keep = func(r int) bool { return c.canonByRow[r] == v1 || c.canonByRow[r] == v2 }
			return f, true
		}
		v := c.vals[x.r.IntN(len(c.vals))]
		m := c.meaning(v)
		f.sql = fmt.Sprintf("%s = %s", c.catExpr(a), c.catLit(v))
		f.words = fill(x.pick([]string{"whose {p} is {v}", "with {p} {v}", "with {p} of {v}", "having {v} as {p}"}), "p", p, "v", m)
		if c.c.Role == schemagen.RoleFlag && (m == "yes" || m == "no") {
			// "with has drive thru of no", "having yes as delayed" read
			// badly; the description says "Whether the X is marked p".
			// "not marked" would also cover rows with no value, so no
			// is said as a recorded no.
			ws := []string{"marked {p}", "whose {p} flag is yes"}
			if m == "no" {
				ws = []string{"whose {p} flag is recorded as no", "recorded as not {p}"}
			}
			f.words = fill(x.pick(ws), "p", p)
		}
		f.feats = append(f.feats, "eq")
		if codes {
			f.feats = append(f.feats, "code")
			f.opt = append(f.opt, x.codeKnow(c, v))
		}
		f.keep = func(r int) bool { return c.canonByRow[r] == v }
		return f, true
	case kNum:
		if c.textNum {
			f.feats = append(f.feats, "dirty_number")
			f.opt = append(f.opt, fmt.Sprintf("%s is stored as text with currency signs or thousands separators.", capital(p)))
		}
		if c.nulls > 0 && x.coin(0.08) {
			f.sql = c.ref(a) + " IS NULL"
			f.words = fill(x.pick([]string{"with no {p} recorded", "whose {p} is unknown", "without a recorded {p}"}), "p", p)
			f.feats = append(f.feats, "is_null")
			f.keep = func(r int) bool { return c.tb.t.Rows[r][c.i] == nil }
			return f, true
		}
		t, ok := x.threshold(c)
		if !ok {
			return f, false
		}
		e := c.numExpr(a)
		if x.coin(0.15) {
			t2, ok := x.threshold(c)
			if !ok || t2 == t {
				return f, false
			}
			lo, hi := math.Min(t, t2), math.Max(t, t2)
			f.sql = fmt.Sprintf("%s BETWEEN %s AND %s", e, fmtNum(lo), fmtNum(hi))
			f.words = fill(x.pick([]string{"whose {p} is between {a} and {b}", "with {p} from {a} to {b} inclusive", "with {p} in the range {a} to {b}", "whose {p} lies between {a} and {b}"}), "p", p, "a", c.withUnit(lo), "b", c.withUnit(hi))
			f.feats = append(f.feats, "between")
			f.keep = func(r int) bool { v := c.numByRow[r]; return v >= lo && v <= hi }
			return f, true
		}
		gt := x.coin(0.5)
		op, ws, feat := ">", []string{"whose {p} is above {t}", "with {p} greater than {t}", "with {p} over {t}", "whose {p} exceeds {t}"}, "gt"
		term := "high"
		if !gt {
			op, ws, feat, term = "<", []string{"whose {p} is below {t}", "with {p} less than {t}", "with {p} under {t}", "whose {p} is lower than {t}"}, "lt", "low"
		}
		f.sql = fmt.Sprintf("%s %s %s", e, op, fmtNum(t))
		if x.coin(0.3) {
			// A defined term: the threshold is knowledge, given only in
			// the evidence.
			f.words = fill(x.pick([]string{"with a {term} {p}", "whose {p} counts as {term}", "having a {term} {p}"}), "p", p, "term", term)
			cmp := "above"
			if !gt {
				cmp = "below"
			}
			f.need = append(f.need, fmt.Sprintf("A %s %s is one %s %s.", term, p, cmp, c.withUnit(t)))
			f.feats = append(f.feats, "defined_term")
		} else {
			f.words = fill(x.pick(ws), "p", p, "t", c.withUnit(t))
		}
		f.feats = append(f.feats, feat)
		f.keep = func(r int) bool {
			v := c.numByRow[r]
			if gt {
				return v > t
			}
			return v < t
		}
		return f, true
	case kDate:
		if len(c.layouts) > 1 {
			f.feats = append(f.feats, "dirty_date")
			var ls []string
			for _, l := range c.layouts {
				ls = append(ls, humanLayout(l.layout))
			}
			f.opt = append(f.opt, fmt.Sprintf("%s is written in more than one format: %s.", capital(p), strings.Join(ls, " or ")))
		}
		if strings.HasPrefix(c.yearExpr(a), "strftime") {
			f.feats = append(f.feats, "date_func")
		}
		if x.coin(0.6) || len(c.months) == 0 {
			y := c.years[x.r.IntN(len(c.years))]
			f.sql = fmt.Sprintf("%s = '%s'", c.yearExpr(a), y)
			f.words = fill(x.pick([]string{"whose {p} is in {y}", "with {p} in {y}", "whose {p} falls in the year {y}", "with {p} during {y}"}), "p", p, "y", y)
			f.feats = append(f.feats, "year")
			f.keep = func(r int) bool { return strings.HasPrefix(c.dateByRow[r], y+"-") }
			return f, true
		}
		mo := c.months[x.r.IntN(len(c.months))]
		f.sql = fmt.Sprintf("%s = '%s'", c.monthExpr(a), mo)
		f.words = fill(x.pick([]string{"whose {p} is in {m}", "with {p} in {m}", "whose {p} falls in {m}", "with {p} during {m}"}), "p", p, "m", monthWords(mo))
		f.feats = append(f.feats, "month")
		f.keep = func(r int) bool { return c.dateByRow[r] == mo }
		return f, true
	case kText:
		if c.nulls > 0 && x.coin(0.2) {
			f.sql = c.ref(a) + " IS NULL"
			f.words = fill(x.pick([]string{"with no {p} recorded", "that lack " + an(p), "without any {p}"}), "p", p)
			f.feats = append(f.feats, "is_null")
			f.keep = func(r int) bool { return c.tb.t.Rows[r][c.i] == nil }
			return f, true
		}
		if len(c.words) == 0 {
			return f, false
		}
		w := c.words[x.r.IntN(len(c.words))]
		f.sql = fmt.Sprintf("%s LIKE '%%%s%%'", c.ref(a), w)
		f.words = fill(x.pick([]string{"whose {p} contains '{w}'", "with the word '{w}' in the {p}", "whose {p} includes '{w}'", "with '{w}' somewhere in the {p}"}), "p", p, "w", w)
		f.feats = append(f.feats, "like")
		f.keep = func(r int) bool {
			v := c.textByRow[r]
			return v != "" && strings.Contains(strings.ToLower(v), w)
		}
		return f, true
	}
	return f, false
}

// colKnow is what the schema's descriptions say of a column, as a
// sentence of evidence: its value description, else its unit or its date
// format.
func colKnow(c *col) string {
	switch {
	case c.c.ValueDescription != "":
		return capital(strings.TrimSuffix(c.c.ValueDescription, ".")) + "."
	case c.c.Unit != "":
		return fmt.Sprintf("%s is given in %s.", capital(c.c.Phrase), c.c.Unit)
	case c.kind == kDate && len(c.layouts) == 1:
		return fmt.Sprintf("%s is written as %s.", capital(c.c.Phrase), humanLayout(c.layouts[0].layout))
	case c.c.Description != "":
		return capital(strings.TrimSuffix(c.c.Description, ".")) + "."
	}
	return ""
}

// codeKnow states what a stored code means, in words.
func (x *g) codeKnow(c *col, v string) string {
	code := v
	keys := make([]string, 0, len(c.c.Codes))
	for k := range c.c.Codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if canon(k, c.dirtyText) == v {
			code = k
			break
		}
	}
	return fill(x.pick([]string{"In {p}, '{c}' stands for {m}.", "A {p} of '{c}' means {m}.", "The {p} code '{c}' denotes {m}."}), "p", c.c.Phrase, "c", code, "m", c.meaning(v))
}

// filterable lists the columns of t a condition can be put on.
func filterable(t *tbl) []*col {
	var out []*col
	for _, c := range t.cols {
		if c.kind == kText && len(c.words) == 0 && c.nulls == 0 {
			continue
		}
		out = append(out, c)
	}
	return out
}

func (t *tbl) ofKind(kinds ...string) []*col {
	var out []*col
	for _, c := range t.cols {
		if has(kinds, c.kind) {
			out = append(out, c)
		}
	}
	return out
}

// path is a walk along foreign keys from a subject table.
type path []*edge

func (p path) forwardOnly() bool {
	for _, e := range p {
		if !e.forward {
			return false
		}
	}
	return true
}

func (p path) end(s *tbl) *tbl {
	if len(p) == 0 {
		return s
	}
	return p[len(p)-1].to
}

// paths lists the simple walks of exactly n edges from s (a table is not
// revisited, except by a self reference taken once).
func (x *g) paths(s *tbl, n int, forwardOnly bool) []path {
	k := pathKey{s, n, forwardOnly}
	if ps, ok := x.cache[k]; ok {
		return ps
	}
	var out []path
	defer func() { x.cache[k] = out }()
	var walk func(t *tbl, p path, seen map[*tbl]bool, selfUsed bool)
	walk = func(t *tbl, p path, seen map[*tbl]bool, selfUsed bool) {
		if len(p) == n {
			out = append(out, append(path(nil), p...))
			return
		}
		for _, e := range t.edges {
			if forwardOnly && !e.forward {
				continue
			}
			if e.self {
				if selfUsed {
					continue
				}
				walk(t, append(p, e), seen, true)
				continue
			}
			if seen[e.to] {
				continue
			}
			seen[e.to] = true
			walk(e.to, append(p, e), seen, selfUsed)
			delete(seen, e.to)
		}
	}
	walk(s, nil, map[*tbl]bool{s: true}, false)
	return out
}

// joinSQL writes FROM s AS T1 JOIN ... along p; the end table is T<len+1>.
func joinSQL(s *tbl, p path) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s AS T1", ident(s.t.Name))
	for i, e := range p {
		fmt.Fprintf(&b, " INNER JOIN %s AS T%d ON T%d.%s = T%d.%s", ident(e.to.t.Name), i+2, i+1, ident(e.fromCol), i+2, ident(e.toCol))
	}
	return b.String()
}

func alias(i int) string { return "T" + strconv.Itoa(i) }

// hop words one edge of a path, ending where the next noun phrase starts
// ("placed by", "with", "whose admitting doctor is").
func (x *g) hop(e *edge, plural bool) (string, []string) {
	var feats []string
	if e.ambiguous {
		feats = append(feats, "multi_path")
	}
	if e.self {
		feats = append(feats, "self_ref")
	}
	if e.link() || e.from.t.Kind == "link" {
		feats = append(feats, "link")
	}
	if e.forward {
		if e.fk.Phrase != "" && !e.ambiguous {
			return relPhrase(e.fk.Phrase, true), feats
		}
		return "whose " + e.fkCol.Phrase + " is", feats
	}
	if e.ambiguous {
		be := "is"
		if plural {
			be = "are"
		}
		return x.pick([]string{"that " + be + " the " + e.fkCol.Phrase + " of", "acting as " + e.fkCol.Phrase + " of", "named as the " + e.fkCol.Phrase + " of"}), feats
	}
	have := "has"
	if plural {
		have = "have"
	}
	return x.pick([]string{"with", "that " + have, "having"}), feats
}

func (x *g) hopPhrase(e *edge) string {
	if e.fk.Phrase != "" {
		return relPhrase(e.fk.Phrase, false)
	}
	return "linked to"
}

// relFix rewrites schemagen relation phrases that do not read after a
// noun ("health checks examined an animal", "copies a copy of a book"):
// [0] the reduced relative, [1] the form after "Each X is".
var relFix = map[string][2]string{
	"examined":       {"examining", "examining"},
	"lent":           {"lending", "lending"},
	"cleaned":        {"cleaning", "cleaning"},
	"a copy of":      {"of", "a copy of"},
	"a unit of":      {"of", "a unit of"},
	"a duplicate of": {"duplicating", "a duplicate of"},
	"an input of":    {"going into", "an input of"},
}

// relPhrase is a relation phrase as it reads after a plural or singular
// noun (relative true) or after "Each X is" (false).
func relPhrase(p string, relative bool) string {
	f, ok := relFix[p]
	if !ok {
		return p
	}
	if relative {
		return f[0]
	}
	return f[1]
}

// chain words a path followed by a clause on its end table: "placed by a
// customer whose city is Lyon". Every intermediate table is named, so
// two paths between the same tables never read alike.
func (x *g) chain(p path, clause string) (string, []string) {
	s := clause
	var feats []string
	for i := len(p) - 1; i >= 0; i-- {
		h, fs := x.hop(p[i], i == 0)
		feats = append(feats, fs...)
		s = h + " " + an(p[i].to.t.Noun.One) + " " + s
	}
	return s, feats
}

// subject is a noun phrase with its SQL: FROM/JOIN text and conditions.
type subject struct {
	s      *tbl
	p      path
	from   string
	where  []string
	np     string // "orders placed by a customer whose city is Lyon"
	dup    bool   // the joins can repeat a subject row
	need   []string
	opt    []string
	feats  []string
	joined bool
}

func (s *subject) whereSQL() string {
	if len(s.where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(s.where, " AND ")
}

// compose draws a subject: table s, a path of n joins ending in a filter,
// and maybe a filter on s itself. forwardOnly keeps every subject row once.
func (x *g) compose(s *tbl, n int, forwardOnly bool, ownFilter float64) (*subject, bool) {
	sub := &subject{s: s}
	var clauses []string
	if n > 0 {
		ps := x.paths(s, n, forwardOnly)
		if len(ps) == 0 {
			return nil, false
		}
		p := ps[x.r.IntN(len(ps))]
		end := p.end(s)
		fc := filterable(end)
		if len(fc) == 0 {
			return nil, false
		}
		f, ok := x.filterOn(fc[x.r.IntN(len(fc))], alias(n+1))
		if !ok {
			return nil, false
		}
		for _, e := range p {
			if e.forward {
				sub.opt = append(sub.opt, fmt.Sprintf("Each %s is %s one %s.", e.from.t.Noun.One, x.hopPhrase(e), e.to.t.Noun.One))
			}
		}
		words, feats := x.chain(p, f.words)
		clauses = append(clauses, words)
		sub.p = p
		sub.where = append(sub.where, f.sql)
		sub.need = append(sub.need, f.need...)
		sub.opt = append(sub.opt, f.opt...)
		sub.feats = append(sub.feats, f.feats...)
		sub.feats = append(sub.feats, feats...)
		sub.dup = !p.forwardOnly()
		sub.joined = true
	}
	if n == 0 || x.coin(ownFilter) {
		fc := filterable(s)
		if len(fc) == 0 {
			return nil, false
		}
		f, ok := x.filterOn(fc[x.r.IntN(len(fc))], "T1")
		if !ok {
			return nil, false
		}
		for _, w := range sub.where {
			if w == f.sql {
				return nil, false
			}
		}
		clauses = append([]string{f.words}, clauses...)
		sub.where = append([]string{f.sql}, sub.where...)
		sub.need = append(sub.need, f.need...)
		sub.opt = append(sub.opt, f.opt...)
		sub.feats = append(sub.feats, f.feats...)
	}
	sub.from = joinSQL(s, sub.p)
	sub.np = s.t.Noun.Many + " " + strings.Join(clauses, " and ")
	return sub, true
}

func (c *cand) take(s *subject) {
	c.need = append(c.need, s.need...)
	c.opt = append(c.opt, s.opt...)
	c.feat(s.feats...)
}

// namesItself reports whether a table's name column is what a reader
// means by "the name" of one of its rows: "name", "title", or a name
// phrase that repeats the noun ("project name" of a project). A first
// name, a stage name or a tracking code is not: "Name the producer" read
// as a full name, or as the row's id, differs from a gold that returns the
// first name alone, so such tables are asked for the column by its phrase.
func namesItself(t *tbl) bool {
	if t.name == nil {
		return false
	}
	p := t.name.c.Phrase
	if p == "name" || p == "title" {
		return true
	}
	w, rest, ok := strings.Cut(p, " ")
	if !ok || (rest != "name" && rest != "title") {
		return false
	}
	return slices.Contains(strings.Fields(t.t.Noun.One), w)
}

// named keeps the wordings that say which column answers: a wording that
// asks to "name" the rows without {n} or {ns} only where the table's name
// column is its name (namesItself), and never "Name the {ns}" of a name
// phrase ("Name the first names").
func named(t *tbl, ws []string) []string {
	var out []string
	for _, w := range ws {
		says := strings.Contains(w, "{n}") || strings.Contains(w, "{ns}")
		if !says && !namesItself(t) {
			continue
		}
		if strings.HasPrefix(w, "Name the {ns}") && strings.Contains(t.name.c.Phrase, "name") {
			continue
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return ws
	}
	return out
}
