package sqlgen

import (
	"fmt"
	"sort"
	"strings"
)

// A construct composes one candidate question of a tier from the parts in
// parts.go, or returns nil when the drawn parts do not fit the database.
type construct struct {
	name string
	w    float64
	f    func(x *g) *cand
}

// constructs per tier, with weights tuned so that each tier's feature mix
// is near the target table in the package doc.
var constructs = [numTiers][]construct{
	Simple: {
		{"plain", 0.09, func(x *g) *cand { return x.plain(0, false) }},
		{"plain_join", 0.71, func(x *g) *cand { return x.plain(1, false) }},
		{"top", 0.10, func(x *g) *cand { return x.top(x.r.IntN(2)) }},
		{"group", 0.07, func(x *g) *cand { return x.group(false) }},
		// On a single table, BIRD's simple tier has a few computed
		// values and subqueries (see Tier).
		{"percentage0", 0.012, func(x *g) *cand { return x.percentage(0) }},
		{"ratio0", 0.01, func(x *g) *cand { return x.ratio(0) }},
		{"arith0", 0.014, func(x *g) *cand { return x.arith(0) }},
		{"in_sub", 0.016, (*g).inSub},
	},
	Moderate: {
		{"plain_join2", 0.26, func(x *g) *cand { return x.plain(2, false) }},
		{"group_join", 0.08, func(x *g) *cand { return x.group(true) }},
		{"having", 0.08, (*g).having},
		{"percentage", 0.09, func(x *g) *cand { return x.percentage(1) }},
		{"ratio", 0.02, func(x *g) *cand { return x.ratio(1) }},
		{"arith", 0.03, func(x *g) *cand { return x.arith(1) }},
		{"above_avg", 0.05, (*g).aboveAvg},
		{"top_agg", 0.14, (*g).topAgg},
		{"plain_join1_agg", 0.11, func(x *g) *cand { return x.plain(1, true) }},
	},
	Challenging: {
		{"percentage2", 0.33, func(x *g) *cand { return x.percentage(2 + x.r.IntN(2)) }},
		{"diff2", 0.14, func(x *g) *cand { return x.diff(2 + x.r.IntN(2)) }},
		{"ratio2", 0.03, func(x *g) *cand { return x.ratio(2) }},
		{"long_chain", 0.30, func(x *g) *cand { return x.plain(3+x.r.IntN(4), false) }},
		{"set_op", 0.04, (*g).setOp},
		{"window", 0.025, (*g).window},
		{"correlated", 0.025, (*g).correlated},
		{"nested", 0.015, (*g).nested},
		{"arith2", 0.01, func(x *g) *cand { return x.arith(2) }},
	},
}

func (x *g) table(ok func(t *tbl) bool) *tbl {
	var ts []*tbl
	for _, t := range x.m.tables {
		if ok(t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return ts[x.r.IntN(len(ts))]
}

func anyTable(*tbl) bool { return true }

func pluralPhrase(p string) string {
	switch {
	case strings.HasSuffix(p, "s"), strings.HasSuffix(p, "x"), strings.HasSuffix(p, "ch"), strings.HasSuffix(p, "sh"):
		return p + "es"
	case strings.HasSuffix(p, "y") && !strings.HasSuffix(p, "ay") && !strings.HasSuffix(p, "ey") && !strings.HasSuffix(p, "oy"):
		return p[:len(p)-1] + "ies"
	}
	return p + "s"
}

// plain: a count, a list of names or an aggregate over a subject reached
// through n joins. agg forces an aggregate of a measure.
func (x *g) plain(n int, agg bool) *cand {
	fwd := agg && x.coin(0.9)
	s := x.withPaths(n, fwd, func(t *tbl) bool { return !agg || len(t.ofKind(kNum)) > 0 })
	if s == nil {
		return nil
	}
	sub, ok := x.compose(s, n, fwd, 0.25)
	if !ok {
		return nil
	}
	c := newCand()
	c.take(sub)
	nums := s.ofKind(kNum)
	mode := x.r.IntN(3)
	if agg {
		mode = 2
	}
	if mode == 1 && s.name == nil {
		mode = 0
	}
	if mode == 2 && len(nums) == 0 {
		if agg {
			return nil
		}
		mode = 0
	}
	switch mode {
	case 0:
		sel := "COUNT(*)"
		if sub.dup {
			if s.pk == "" {
				return nil
			}
			sel = "COUNT(DISTINCT T1." + ident(s.pk) + ")"
			c.feat("count_distinct")
		}
		c.feat("count")
		c.sql = "SELECT " + sel + " " + sub.from + sub.whereSQL()
		c.question = fill(x.pick([]string{"How many {np} are there?", "Count the {np}.", "What is the number of {np}?", "Give the total number of {np}."}), "np", sub.np)
	case 1:
		d := ""
		if sub.dup {
			d = "DISTINCT "
			c.feat("distinct")
		}
		c.feat("list")
		c.sql = "SELECT " + d + s.name.ref("T1") + " " + sub.from + sub.whereSQL()
		c.question = fill(x.pick(named(s, []string{"List the {n} of the {np}.", "What is the {n} of each of the {np}?", "Show the {ns} of all {np}.", "Name the {ns} of the {np}."})), "np", sub.np, "n", s.name.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase))
	case 2:
		m := nums[x.r.IntN(len(nums))]
		fn := x.pick([]string{"AVG", "SUM", "MIN", "MAX"})
		if m.c.Role == "count" && fn == "AVG" && x.coin(0.5) {
			fn = "SUM"
		}
		words := map[string][]string{
			"AVG": {"What is the average {p} of {np}?", "Find the mean {p} among {np}.", "On average, what is the {p} of {np}?"},
			"SUM": {"What is the total {p} of {np}?", "Sum up the {p} of {np}.", "What is the combined {p} of all {np}?"},
			"MIN": {"What is the lowest {p} among {np}?", "Find the minimum {p} of {np}.", "What is the smallest {p} of {np}?"},
			"MAX": {"What is the highest {p} among {np}?", "Find the maximum {p} of {np}.", "What is the largest {p} of {np}?"},
		}[fn]
		c.feat(strings.ToLower(fn))
		if m.textNum {
			c.feat("dirty_number")
			c.opt = append(c.opt, fmt.Sprintf("%s is stored as text with currency signs or thousands separators.", capital(m.c.Phrase)))
		}
		if sub.dup && (fn == "AVG" || fn == "SUM") {
			// Joins to many rows repeat a subject row: aggregate over the
			// subject table, restricted by a subquery.
			if s.pk == "" {
				return nil
			}
			c.sql = fmt.Sprintf("SELECT %s(%s) FROM %s WHERE %s IN (SELECT T1.%s %s%s)", fn, m.numExpr(ident(s.t.Name)), ident(s.t.Name), ident(s.t.Name)+"."+ident(s.pk), ident(s.pk), sub.from, sub.whereSQL())
			c.feat("subquery_in")
		} else {
			c.sql = fmt.Sprintf("SELECT %s(%s) %s%s", fn, m.numExpr("T1"), sub.from, sub.whereSQL())
		}
		c.question = fill(x.pick(words), "p", m.c.Phrase, "np", sub.np)
	}
	return c
}

// top: the one subject with the highest or lowest measure.
func (x *g) top(n int) *cand {
	s := x.table(func(t *tbl) bool { return t.name != nil && len(t.ofKind(kNum)) > 0 })
	if s == nil {
		return nil
	}
	var sub *subject
	var ok bool
	if n == 0 {
		sub = &subject{s: s, from: joinSQL(s, nil), np: s.t.Noun.Many}
	} else if sub, ok = x.compose(s, n, true, 0); !ok {
		return nil
	}
	nums := s.ofKind(kNum)
	m := nums[x.r.IntN(len(nums))]
	c := newCand()
	c.take(sub)
	desc := x.coin(0.6)
	dir, hi := " DESC", x.pick([]string{"highest", "largest", "greatest"})
	if !desc {
		dir, hi = "", x.pick([]string{"lowest", "smallest", "least"})
	}
	e := m.numExpr("T1")
	where := append([]string(nil), sub.where...)
	if m.nulls > 0 {
		where = append(where, e+" IS NOT NULL")
	}
	w := ""
	if len(where) > 0 {
		w = " WHERE " + strings.Join(where, " AND ")
	}
	c.ordered("SELECT "+s.name.ref("T1")+" "+sub.from+w, e+dir, 1, 1)
	if n == 0 {
		c.question = fill(x.pick(named(s, []string{"Which {one} has the {hi} {p}? Give the {n}.", "What is the {n} of the {one} with the {hi} {p}?", "Name the {one} with the {hi} {p}."})), "one", s.t.Noun.One, "hi", hi, "p", m.c.Phrase, "n", s.name.c.Phrase)
	} else {
		c.question = fill(x.pick(named(s, []string{"Among the {np}, which one has the {hi} {p}? Give the {n}.", "What is the {n} of the {one} with the {hi} {p} among {np}?", "Name the {one} with the {hi} {p} among the {np}."})), "np", sub.np, "one", s.t.Noun.One, "hi", hi, "p", m.c.Phrase, "n", s.name.c.Phrase)
	}
	return c
}

// group: a count per category, of the subject's own category or (join)
// of a table it references.
func (x *g) group(join bool) *cand {
	s := x.table(anyTable)
	if s == nil {
		return nil
	}
	c := newCand()
	c.feat("group_by", "count")
	var gc *col
	from := joinSQL(s, nil)
	a := "T1"
	label := ""
	if join {
		var es []*edge
		for _, e := range s.edges {
			if e.forward && !e.self && len(e.to.ofKind(kCat)) > 0 {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			return nil
		}
		e := es[x.r.IntN(len(es))]
		cs := e.to.ofKind(kCat)
		gc = cs[x.r.IntN(len(cs))]
		from = joinSQL(s, path{e})
		a = "T2"
		h, fs := x.hop(e, true)
		c.feat(fs...)
		label = "the " + gc.c.Phrase + " of the " + e.to.t.Noun.One + " they are " + strings.TrimPrefix(h, "whose ")
		if strings.HasPrefix(h, "whose ") {
			label = "the " + gc.c.Phrase + " of their " + e.fkCol.Phrase
		}
	} else {
		cs := s.ofKind(kCat)
		if len(cs) == 0 {
			return nil
		}
		gc = cs[x.r.IntN(len(cs))]
		label = gc.c.Phrase
	}
	if len(gc.vals) > 25 {
		return nil
	}
	ge := gc.catExpr(a)
	w := ""
	if gc.nulls > 0 {
		w = " WHERE " + gc.ref(a) + " IS NOT NULL"
	}
	if gc.dirtyText {
		c.feat("dirty_text")
		c.opt = append(c.opt, fmt.Sprintf("%s values are not written consistently: letter case and surrounding spaces vary.", capital(gc.c.Phrase)))
	}
	c.sql = fmt.Sprintf("SELECT %s, COUNT(*) %s%s GROUP BY %s", ge, from, w, ge)
	c.question = fill(x.pick([]string{"For each {g}, how many {many} are there?", "How many {many} are there per {g}?", "Count the {many} for each {g}.", "Break down the number of {many} by {g}."}), "g", label, "many", s.t.Noun.Many)
	c.question = strings.NewReplacer("each the ", "each ", "per the ", "per ", "For each the ", "For each ").Replace(c.question)
	if gc.nulls > 0 {
		// The gold leaves out the rows without a value; a plain GROUP
		// BY would add a NULL group, so the question says so.
		l := label
		if !join {
			l = "the " + label
		}
		c.question += " " + fill(x.pick([]string{"Leave out {many} for which {l} is not recorded.", "Ignore {many} where {l} is not recorded."}), "many", s.t.Noun.Many, "l", l)
	}
	return c
}

// backEdge draws a one-to-many edge from a table with names.
func (x *g) backEdge(needName bool) *edge {
	var es []*edge
	for _, t := range x.m.tables {
		if t.pk == "" || (needName && t.name == nil) {
			continue
		}
		for _, e := range t.edges {
			if !e.forward && !e.self {
				es = append(es, e)
			}
		}
	}
	if len(es) == 0 {
		return nil
	}
	return es[x.r.IntN(len(es))]
}

// ofWords words "with more than k orders" for a one-to-many edge.
func (x *g) manyWords(e *edge) string {
	if e.ambiguous {
		return "as " + e.fkCol.Phrase + " of"
	}
	return x.pick([]string{"with", "having"})
}

// having: subjects with more than k related rows.
func (x *g) having() *cand {
	e := x.backEdge(true)
	if e == nil {
		return nil
	}
	s := e.from
	counts := map[any]int{}
	_, fi := colByName(e.to.t, e.toCol)
	for _, r := range e.to.t.Rows {
		if r[fi] != nil {
			counts[fmt.Sprint(r[fi])]++
		}
	}
	var cs []int
	for _, n := range counts {
		cs = append(cs, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(cs)))
	if len(cs) < 3 {
		return nil
	}
	j := 1 + x.r.IntN(min(8, len(cs)-1))
	k := cs[j]
	if k >= cs[0] || k < 1 {
		return nil
	}
	c := newCand()
	c.feat("group_by", "having", "count", "list")
	h, fs := x.hop(e, true)
	c.feat(fs...)
	c.sql = fmt.Sprintf("SELECT %s %s GROUP BY T1.%s HAVING COUNT(*) > %d", s.name.ref("T1"), joinSQL(s, path{e}), ident(s.pk), k)
	_ = h
	c.question = fill(x.pick(named(s, []string{"Which {many} have more than {k} {emany}? List their {n}.", "List the {ns} of {many} {w} over {k} {emany}.", "Name the {many} {w} more than {k} {emany}."})),
		"many", s.t.Noun.Many, "k", fmt.Sprint(k), "emany", e.to.t.Noun.Many, "n", s.name.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase), "w", x.manyWords(e))
	if e.ambiguous {
		c.question = fill(x.pick(named(s, []string{"Which {many} appear as {fk} of more than {k} {emany}? List their {n}.", "List the {ns} of {many} that are the {fk} of over {k} {emany}.", "Name the {many} that act as {fk} of more than {k} {emany}."})),
			"many", s.t.Noun.Many, "k", fmt.Sprint(k), "emany", e.to.t.Noun.Many, "n", s.name.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase), "fk", e.fkCol.Phrase)
	}
	return c
}

// percentage: the share of the subjects that meet a condition, by CASE
// and CAST, over a subject reached by n many-to-one joins.
func (x *g) percentage(n int) *cand {
	s := x.withPaths(n, true, func(t *tbl) bool { return len(filterable(t)) > 0 })
	if s == nil {
		return nil
	}
	sub, ok := x.compose(s, n, true, 0)
	if !ok {
		return nil
	}
	fc := filterable(s)
	f, ok := x.filterOn(fc[x.r.IntN(len(fc))], "T1")
	if !ok {
		return nil
	}
	for _, w := range sub.where {
		if w == f.sql {
			return nil
		}
	}
	c := newCand()
	c.take(sub)
	c.feat(f.feats...)
	c.need = append(c.need, f.need...)
	c.opt = append(c.opt, f.opt...)
	c.feat("case", "percentage", "arithmetic")
	// BIRD's challenging percentages nearly always CAST; its moderate
	// ones, over a join, less often.
	castP := 0.45
	if n >= 2 {
		castP = 0.6
	}
	if x.coin(castP) {
		c.feat("cast")
		c.sql = fmt.Sprintf("SELECT CAST(SUM(CASE WHEN %s THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) %s%s", f.sql, sub.from, sub.whereSQL())
	} else {
		c.sql = fmt.Sprintf("SELECT SUM(CASE WHEN %s THEN 1 ELSE 0 END) * 100.0 / COUNT(*) %s%s", f.sql, sub.from, sub.whereSQL())
	}
	c.question = fill(x.pick([]string{"Among {np}, what percentage are the ones {f}?", "What percentage of {np} are {many} {f}?", "Among the {np}, what is the percentage of those {f}?", "Calculate the percentage of {many} {f} among the {np}."}), "np", sub.np, "many", s.t.Noun.Many, "f", f.words)
	c.opt = append(c.opt, fmt.Sprintf("The percentage is the number of %s %s divided by the number of %s, times 100.", s.t.Noun.Many, f.words, sub.np))
	return c
}

// twoValues starts a candidate that compares the subjects with value va
// of category column cc against those with vb (ratio, diff): the subjects
// composed from s, the features, what the codes mean, and the column's
// expression (cleaned when its text is dirty).
func (x *g) twoValues(s *tbl, n int, cc *col, va, vb string, feats ...string) (*cand, *subject, string, bool) {
	sub, ok := x.compose(s, n, true, 0)
	if !ok {
		return nil, nil, "", false
	}
	c := newCand()
	c.take(sub)
	c.feat(feats...)
	if len(cc.c.Codes) > 0 {
		c.feat("code")
		c.opt = append(c.opt, x.codeKnow(cc, va), x.codeKnow(cc, vb))
	}
	if cc.dirtyText {
		c.feat("dirty_text")
	}
	return c, sub, cc.catExpr("T1"), true
}

// ratio: how many subjects of one category per subject of another.
func (x *g) ratio(n int) *cand {
	s := x.withPaths(n, true, func(t *tbl) bool { return len(t.ofKind(kCat)) > 0 })
	if s == nil {
		return nil
	}
	cs := s.ofKind(kCat)
	cc := cs[x.r.IntN(len(cs))]
	i := x.r.IntN(len(cc.vals))
	j := x.r.IntN(len(cc.vals))
	if i == j {
		return nil
	}
	va, vb := cc.vals[i], cc.vals[j]
	c, sub, e, ok := x.twoValues(s, n, cc, va, vb, "cast", "ratio", "arithmetic")
	if !ok {
		return nil
	}
	c.sql = fmt.Sprintf("SELECT CAST(SUM(%s = %s) AS REAL) / SUM(%s = %s) %s%s", e, cc.catLit(va), e, cc.catLit(vb), sub.from, sub.whereSQL())
	c.question = fill(x.pick([]string{"Among {np}, what is the ratio of those whose {p} is {a} to those whose {p} is {b}?", "For {np}, how many with {p} {a} are there for each one with {p} {b}?", "What is the ratio between {a} and {b} {p} among {np}?"}), "np", sub.np, "p", cc.c.Phrase, "a", cc.meaning(va), "b", cc.meaning(vb))
	c.opt = append(c.opt, fmt.Sprintf("The ratio is the number with %s %s divided by the number with %s %s.", cc.c.Phrase, cc.meaning(va), cc.c.Phrase, cc.meaning(vb)))
	return c
}

// diff: how many more subjects have one category value than another, by
// two CASE counts subtracted: BIRD's "how many more ... than ..." asks.
func (x *g) diff(n int) *cand {
	s := x.withPaths(n, true, func(t *tbl) bool { return len(t.ofKind(kCat)) > 0 })
	if s == nil {
		return nil
	}
	cs := s.ofKind(kCat)
	cc := cs[x.r.IntN(len(cs))]
	if len(cc.vals) < 2 {
		return nil
	}
	i := x.r.IntN(len(cc.vals))
	j := (i + 1 + x.r.IntN(len(cc.vals)-1)) % len(cc.vals)
	va, vb := cc.vals[i], cc.vals[j]
	c, sub, e, ok := x.twoValues(s, n, cc, va, vb, "case", "difference", "arithmetic")
	if !ok {
		return nil
	}
	c.sql = fmt.Sprintf("SELECT SUM(CASE WHEN %s = %s THEN 1 ELSE 0 END) - SUM(CASE WHEN %s = %s THEN 1 ELSE 0 END) %s%s", e, cc.catLit(va), e, cc.catLit(vb), sub.from, sub.whereSQL())
	// "How many more" reads wrong with a negative answer: keep only the
	// draws where the first value is the more frequent.
	c.check = func(rows [][]string) bool { return len(rows) == 1 && !strings.Contains(rows[0][0], ":-") }
	c.question = fill(x.pick([]string{"Among {np}, how many more have {p} {a} than {p} {b}?", "For {np}, what is the number of those whose {p} is {a} minus the number whose {p} is {b}?", "Among the {np}, by how much does the count with {p} {a} exceed the count with {p} {b}?"}), "np", sub.np, "p", cc.c.Phrase, "a", cc.meaning(va), "b", cc.meaning(vb))
	c.opt = append(c.opt, fmt.Sprintf("The difference is the number with %s %s minus the number with %s %s.", cc.c.Phrase, cc.meaning(va), cc.c.Phrase, cc.meaning(vb)))
	return c
}

// arith: the spread of a measure, or the sum of a product of two.
func (x *g) arith(n int) *cand {
	s := x.withPaths(n, false, func(t *tbl) bool { return len(t.ofKind(kNum)) > 0 })
	if s == nil {
		return nil
	}
	nums := s.ofKind(kNum)
	two := len(nums) >= 2 && x.coin(0.5)
	sub, ok := x.compose(s, n, two, 0.2)
	if !ok {
		return nil
	}
	c := newCand()
	c.take(sub)
	c.feat("arithmetic")
	if two {
		i := x.r.IntN(len(nums))
		j := (i + 1 + x.r.IntN(len(nums)-1)) % len(nums)
		a, b := nums[i], nums[j]
		c.feat("sum")
		c.sql = fmt.Sprintf("SELECT SUM(%s * %s) %s%s", a.numExpr("T1"), b.numExpr("T1"), sub.from, sub.whereSQL())
		term := "weighted " + a.c.Phrase
		c.question = fill(x.pick([]string{"What is the total {t} of {np}?", "Sum the {t} over all {np}.", "What is the {t}, summed over the {np}?"}), "t", term, "np", sub.np)
		c.need = append(c.need, fill(x.pick([]string{"The {t} of {an} is its {a} multiplied by its {b}.", "{T} means {a} times {b}.", "A {one}'s {t} is the product of its {a} and its {b}."}), "t", term, "T", capital(term), "an", an(s.t.Noun.One), "one", s.t.Noun.One, "a", a.c.Phrase, "b", b.c.Phrase))
		return c
	}
	m := nums[x.r.IntN(len(nums))]
	c.feat("max", "min")
	c.sql = fmt.Sprintf("SELECT MAX(%s) - MIN(%s) %s%s", m.numExpr("T1"), m.numExpr("T1"), sub.from, sub.whereSQL())
	c.question = fill(x.pick([]string{"What is the difference between the highest and the lowest {p} of {np}?", "How far apart are the largest and the smallest {p} among {np}?", "By how much does the maximum {p} of {np} exceed the minimum?"}), "p", m.c.Phrase, "np", sub.np)
	return c
}

// aboveAvg: subjects whose measure is above the table's average.
func (x *g) aboveAvg() *cand {
	s := x.withPaths(1, true, func(t *tbl) bool { return len(t.ofKind(kNum)) > 0 })
	if s == nil {
		return nil
	}
	sub, ok := x.compose(s, 1, true, 0.3)
	if !ok {
		return nil
	}
	nums := s.ofKind(kNum)
	m := nums[x.r.IntN(len(nums))]
	c := newCand()
	c.take(sub)
	c.feat("subquery_scalar", "avg")
	above, op := x.pick([]string{"above", "higher than"}), ">"
	if x.coin(0.4) {
		above, op = x.pick([]string{"below", "lower than"}), "<"
	}
	where := append(append([]string(nil), sub.where...), fmt.Sprintf("%s %s (SELECT AVG(%s) FROM %s)", m.numExpr("T1"), op, m.numExpr(ident(s.t.Name)), ident(s.t.Name)))
	w := " WHERE " + strings.Join(where, " AND ")
	if s.name != nil && x.coin(0.5) {
		c.feat("list")
		c.sql = "SELECT " + s.name.ref("T1") + " " + sub.from + w
		c.question = fill(x.pick(named(s, []string{"List the {n} of {np} whose {p} is {above} the average {p} of all {many}.", "Which {np} have a {p} {above} the average over all {many}? Give their {ns}.", "Name the {np} with a {p} {above} the mean {p} of all {many}."})), "n", s.name.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase), "np", sub.np, "p", m.c.Phrase, "above", above, "many", s.t.Noun.Many)
	} else {
		c.feat("count")
		c.sql = "SELECT COUNT(*) " + sub.from + w
		c.question = fill(x.pick([]string{"How many {np} have a {p} {above} the average {p} of all {many}?", "Count the {np} whose {p} is {above} the average over all {many}.", "What is the number of {np} with a {p} {above} the mean {p} of all {many}?"}), "np", sub.np, "p", m.c.Phrase, "above", above, "many", s.t.Noun.Many)
	}
	return c
}

// topAgg: the subject with the most related rows, or the largest total.
func (x *g) topAgg() *cand {
	e := x.backEdge(true)
	if e == nil {
		return nil
	}
	s := e.from
	c := newCand()
	c.feat("group_by")
	from := joinSQL(s, path{e})
	nums := e.to.ofKind(kNum)
	w := x.manyWords(e)
	if len(nums) > 0 && x.coin(0.5) {
		m := nums[x.r.IntN(len(nums))]
		c.feat("sum")
		c.ordered(fmt.Sprintf("SELECT %s %s GROUP BY T1.%s", s.name.ref("T1"), from, ident(s.pk)), "SUM("+m.numExpr("T2")+") DESC", 1, 1)
		c.question = fill(x.pick(named(s, []string{"Which {one} has the highest total {p} of {emany}? Give the {n}.", "Name the {one} whose {emany} add up to the largest {p}.", "What is the {n} of the {one} with the greatest combined {p} over its {emany}?"})), "one", s.t.Noun.One, "p", m.c.Phrase, "emany", e.to.t.Noun.Many, "n", s.name.c.Phrase)
		if e.ambiguous {
			c.question += " Count only the " + e.to.t.Noun.Many + " where it is the " + e.fkCol.Phrase + "."
		}
		return c
	}
	c.feat("count")
	c.ordered(fmt.Sprintf("SELECT %s %s GROUP BY T1.%s", s.name.ref("T1"), from, ident(s.pk)), "COUNT(*) DESC", 1, 1)
	c.question = fill(x.pick(named(s, []string{"Which {one} has the most {emany}? Give the {n}.", "Name the {one} {w} the largest number of {emany}.", "What is the {n} of the {one} {w} the most {emany}?"})), "one", s.t.Noun.One, "emany", e.to.t.Noun.Many, "n", s.name.c.Phrase, "w", w)
	return c
}

// inSub: subjects that have (or never have) a related row meeting a
// condition, by IN / NOT IN.
func (x *g) inSub() *cand {
	e := x.backEdge(false)
	if e == nil {
		return nil
	}
	s := e.from
	fc := filterable(e.to)
	if len(fc) == 0 {
		return nil
	}
	f, ok := x.filterOn(fc[x.r.IntN(len(fc))], "T2")
	if !ok {
		return nil
	}
	c := newCand()
	c.feat(f.feats...)
	c.need, c.opt = append(c.need, f.need...), append(c.opt, f.opt...)
	c.feat("count")
	inner := fmt.Sprintf("SELECT T2.%s FROM %s AS T2 WHERE T2.%s IS NOT NULL AND %s", ident(e.toCol), ident(e.to.t.Name), ident(e.toCol), f.sql)
	rel := x.pick([]string{"with", "that have"})
	if e.ambiguous {
		rel = "that are the " + e.fkCol.Phrase + " of"
	}
	if x.coin(0.5) {
		c.feat("subquery_not_in", "not_null")
		c.sql = fmt.Sprintf("SELECT COUNT(*) FROM %s AS T1 WHERE T1.%s NOT IN (%s)", ident(s.t.Name), ident(s.pk), inner)
		neg := "with no"
		if e.ambiguous {
			neg = "that are not the " + e.fkCol.Phrase + " of any"
		}
		c.question = fill(x.pick([]string{"How many {many} are there {neg} {eone} {f}?", "Count the {many} {neg} {eone} {f}.", "What is the number of {many} {neg} {eone} {f}?"}), "many", s.t.Noun.Many, "neg", neg, "eone", e.to.t.Noun.One, "f", f.words)
		return c
	}
	c.feat("subquery_in")
	c.sql = fmt.Sprintf("SELECT COUNT(*) FROM %s AS T1 WHERE T1.%s IN (%s)", ident(s.t.Name), ident(s.pk), inner)
	c.question = fill(x.pick([]string{"How many {many} are there {rel} at least one {eone} {f}?", "Count the {many} {rel} some {eone} {f}.", "What is the number of {many} {rel} any {eone} {f}?"}), "many", s.t.Noun.Many, "rel", rel, "eone", e.to.t.Noun.One, "f", f.words)
	return c
}

// setOp: names in one subject set and (or, but not) another.
func (x *g) setOp() *cand {
	s := x.table(func(t *tbl) bool { return t.name != nil && t.uniqueNames })
	if s == nil {
		return nil
	}
	a, ok := x.compose(s, 1, false, 0)
	if !ok {
		return nil
	}
	b, ok := x.compose(s, x.r.IntN(2), false, 0.5)
	if !ok || a.np == b.np {
		return nil
	}
	c := newCand()
	c.take(a)
	c.take(b)
	op := x.pick([]string{"INTERSECT", "EXCEPT", "UNION"})
	c.feat(strings.ToLower(op), "list")
	sel := "SELECT " + s.name.ref("T1") + " "
	c.sql = sel + a.from + a.whereSQL() + " " + op + " " + sel + b.from + b.whereSQL()
	words := map[string][]string{
		"INTERSECT": {"Which {many} are both among the {a} and among the {b}? List their {ns}.", "List the {ns} common to the {a} and the {b}.", "Give the {n} of every {one} found among the {a} as well as among the {b}."},
		"EXCEPT":    {"List the {ns} of the {a}, leaving out the {b}.", "Which {a} are not among the {b}? Give their {ns}.", "Give the {ns} of the {a}, excluding any of the {b}."},
		"UNION":     {"List the {ns} of the {a} together with those of the {b}.", "Which {many} are either {a} or {b}? Give their {ns}.", "Combine the {ns} of the {a} with the {ns} of the {b}."},
	}[op]
	c.question = fill(x.pick(words), "many", s.t.Noun.Many, "one", s.t.Noun.One, "a", a.np, "b", b.np, "n", s.name.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase))
	return c
}

// window: per category, the subject ranked first by a measure.
func (x *g) window() *cand {
	s := x.withPaths(1, true, func(t *tbl) bool { return t.name != nil && len(t.ofKind(kNum)) > 0 && len(t.ofKind(kCat)) > 0 })
	if s == nil {
		return nil
	}
	cs, nums := s.ofKind(kCat), s.ofKind(kNum)
	gc, m := cs[x.r.IntN(len(cs))], nums[x.r.IntN(len(nums))]
	if len(gc.vals) > 25 {
		return nil
	}
	sub, ok := x.compose(s, 1, true, 0)
	if !ok {
		return nil
	}
	c := newCand()
	c.take(sub)
	c.feat("window_rank", "subquery_from")
	if gc.dirtyText {
		c.feat("dirty_text")
	}
	if m.textNum {
		c.feat("dirty_number")
	}
	fn := x.pick([]string{"RANK()", "DENSE_RANK()"})
	desc, hi := " DESC", x.pick([]string{"highest", "largest"})
	if x.coin(0.35) {
		desc, hi = "", x.pick([]string{"lowest", "smallest"})
	}
	where := append(append([]string(nil), sub.where...), m.numExpr("T1")+" IS NOT NULL", gc.ref("T1")+" IS NOT NULL")
	c.sql = fmt.Sprintf("SELECT grp, name FROM (SELECT %s AS grp, %s AS name, %s OVER (PARTITION BY %s ORDER BY %s%s) AS rk %s WHERE %s) WHERE rk = 1",
		gc.catExpr("T1"), s.name.ref("T1"), fn, gc.catExpr("T1"), m.numExpr("T1"), desc, sub.from, strings.Join(where, " AND "))
	c.check = func(rows [][]string) bool {
		seen := map[string]bool{}
		for _, r := range rows {
			if seen[r[0]] {
				return false // a tie for first place
			}
			seen[r[0]] = true
		}
		return true
	}
	c.question = fill(x.pick(named(s, []string{"Among the {np}, which one has the {hi} {p} in each {g}? Give the {g} and the {n}.", "For every {g}, name the {one} with the {hi} {p} among the {np}, along with the {g}.", "Considering only {np}, list each {g} with the {n} of the {one} whose {p} ranks first ({hi}) within it."})), "np", sub.np, "g", gc.c.Phrase, "one", s.t.Noun.One, "hi", hi, "p", m.c.Phrase, "n", s.name.c.Phrase)
	return c
}

// correlated: subjects above the average of their own category.
func (x *g) correlated() *cand {
	s := x.withPaths(1, true, func(t *tbl) bool { return len(t.ofKind(kNum)) > 0 && len(t.ofKind(kCat)) > 0 })
	if s == nil {
		return nil
	}
	cs, nums := s.ofKind(kCat), s.ofKind(kNum)
	gc, m := cs[x.r.IntN(len(cs))], nums[x.r.IntN(len(nums))]
	sub, ok := x.compose(s, 1, true, 0)
	if !ok {
		return nil
	}
	c := newCand()
	c.take(sub)
	c.correlated = true
	c.feat("subquery_correlated", "avg")
	if gc.dirtyText {
		c.feat("dirty_text")
	}
	// The inner query's alias is past the outer path's.
	in := alias(len(sub.p) + 2)
	cond := fmt.Sprintf("%s > (SELECT AVG(%s) FROM %s AS %s WHERE %s = %s)", m.numExpr("T1"), m.numExpr(in), ident(s.t.Name), in, gc.catExpr(in), gc.catExpr("T1"))
	w := " WHERE " + strings.Join(append(append([]string(nil), sub.where...), cond), " AND ")
	if s.name != nil && x.coin(0.5) {
		c.feat("list")
		c.sql = fmt.Sprintf("SELECT %s %s%s", s.name.ref("T1"), sub.from, w)
		c.question = fill(x.pick(named(s, []string{"Which {np} have a {p} above the average {p} of all {many} with the same {g}? List their {ns}.", "List the {ns} of {np} whose {p} exceeds the average for their {g}.", "Name the {np} with a higher {p} than the mean {p} of all {many} of their {g}."})), "np", sub.np, "many", s.t.Noun.Many, "p", m.c.Phrase, "g", gc.c.Phrase, "ns", pluralPhrase(s.name.c.Phrase))
		return c
	}
	c.feat("count")
	c.sql = fmt.Sprintf("SELECT COUNT(*) %s%s", sub.from, w)
	c.question = fill(x.pick([]string{"How many {np} have a {p} above the average {p} of all {many} with the same {g}?", "Count the {np} whose {p} exceeds the average for their {g}.", "What is the number of {np} with a higher {p} than the mean {p} of all {many} of their {g}?"}), "np", sub.np, "many", s.t.Noun.Many, "p", m.c.Phrase, "g", gc.c.Phrase)
	return c
}

// nested: subjects related to a row whose measure is above that table's
// average (IN around a scalar subquery).
func (x *g) nested() *cand {
	var es []*edge
	for _, t := range x.m.tables {
		if t.pk == "" {
			continue
		}
		for _, e := range t.edges {
			if !e.forward && !e.self && len(e.to.ofKind(kNum)) > 0 {
				es = append(es, e)
			}
		}
	}
	if len(es) == 0 {
		return nil
	}
	e := es[x.r.IntN(len(es))]
	s := e.from
	nums := e.to.ofKind(kNum)
	m := nums[x.r.IntN(len(nums))]
	c := newCand()
	c.feat("subquery_in", "subquery_nested", "subquery_scalar", "avg")
	et := ident(e.to.t.Name)
	inner := fmt.Sprintf("SELECT T2.%s FROM %s AS T2 WHERE %s > (SELECT AVG(%s) FROM %s)", ident(e.toCol), et, m.numExpr("T2"), m.numExpr(et), et)
	rel := x.pick([]string{"with", "that have"})
	if e.ambiguous {
		rel = "that are the " + e.fkCol.Phrase + " of"
	}
	if s.name != nil && x.coin(0.5) {
		c.feat("list")
		c.sql = fmt.Sprintf("SELECT %s FROM %s AS T1 WHERE T1.%s IN (%s)", s.name.ref("T1"), ident(s.t.Name), ident(s.pk), inner)
		c.question = fill(x.pick(named(s, []string{"List the {ns} of {many} {rel} {an} whose {p} is above the average {p} of all {emany}.", "Which {many} have {an} with {p} higher than the average over all {emany}? Give their {ns}.", "Name the {many} {rel} {an} whose {p} beats the mean {p} of {emany}."})), "ns", pluralPhrase(s.name.c.Phrase), "many", s.t.Noun.Many, "rel", rel, "an", an(e.to.t.Noun.One), "p", m.c.Phrase, "emany", e.to.t.Noun.Many)
		return c
	}
	c.feat("count")
	c.sql = fmt.Sprintf("SELECT COUNT(*) FROM %s AS T1 WHERE T1.%s IN (%s)", ident(s.t.Name), ident(s.pk), inner)
	c.question = fill(x.pick([]string{"How many {many} {rel} {an} whose {p} is above the average {p} of all {emany}?", "Count the {many} {rel} {an} with {p} higher than the average over all {emany}.", "What is the number of {many} {rel} {an} whose {p} beats the mean {p} of {emany}?"}), "many", s.t.Noun.Many, "rel", rel, "an", an(e.to.t.Noun.One), "p", m.c.Phrase, "emany", e.to.t.Noun.Many)
	return c
}
