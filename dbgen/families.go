package dbgen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// family is one kind of question: build fills a candidate's gold and
// wording, or reports that the base table cannot carry it.
type family struct {
	name   string
	weight int
	build  func(c *cand) bool
}

// families and their weights: entity lookups, lists and counts first, as
// in human questions. The weights were set against the aggregate per-tier
// feature shares bench stats prints for the BIRD sample, never against its
// questions (docs/dbgen.md).
var families = []family{
	{"lookup", 16, (*cand).lookup},
	{"lookup_multi", 6, (*cand).lookupMulti},
	{"list", 12, (*cand).list},
	{"list_or", 2, (*cand).listOr},
	{"list_ordered", 1, (*cand).listOrdered},
	{"count", 8, (*cand).count},
	{"count_in", 2, (*cand).countIn},
	{"count_threshold", 3, (*cand).countThreshold},
	{"aggregate", 8, (*cand).aggregate},
	{"top", 10, (*cand).top},
	{"top_k", 4, (*cand).topK},
	{"most_referenced", 3, (*cand).mostReferenced},
	{"group_top", 2, (*cand).groupTop},
	{"group_average", 2, (*cand).groupAverage},
	{"having", 1, (*cand).having},
	{"percentage", 6, (*cand).percentage},
	{"ratio", 2, (*cand).ratio},
	{"max_subquery", 1, (*cand).maxSubquery},
	{"difference", 2, (*cand).difference},
	{"above_average", 7, (*cand).aboveAverage},
	{"not_exists", 1, (*cand).notExists},
	{"left_join", 1, (*cand).leftJoin},
	{"date", 3, (*cand).date},
	{"distinct", 1, (*cand).distinct},
}

var familyTotal = func() int {
	n := 0
	for _, f := range families {
		n += f.weight
	}
	return n
}()

func pickFamily(r *rand.Rand) family {
	x := r.IntN(familyTotal)
	for _, f := range families {
		if x -= f.weight; x < 0 {
			return f
		}
	}
	return families[0]
}

// fromWords are labels whose values a question introduces with "from".
var fromWords = map[string]bool{"publisher": true, "country": true, "city": true, "state": true, "county": true, "college": true,
	"department": true, "team": true, "school": true, "region": true, "company": true, "club": true, "league": true, "nation": true,
	"district": true, "university": true, "source": true, "place": true, "location": true, "origin": true}

// pickAttr draws one of the base's attributes with a role in roles,
// joined ones preferred (human questions reach lookup tables by value).
func (c *cand) pickAttr(ok func(attr) bool) (attr, bool) {
	var own, joined []attr
	for _, a := range c.b.attrs {
		// A path that fans out (a hero's many powers) is kept a tenth of
		// the time: most human questions follow keys to one row.
		if !ok(a) || a.many() && c.r.IntN(10) > 0 {
			continue
		}
		if len(a.path) > 0 {
			joined = append(joined, a)
		} else {
			own = append(own, a)
		}
	}
	switch {
	case len(joined) > 0 && (len(own) == 0 || c.r.IntN(20) < 17):
		return joined[c.r.IntN(len(joined))], true
	case len(own) > 0:
		return own[c.r.IntN(len(own))], true
	}
	return attr{}, false
}

// filterable: a category, a flag, or a joined table's name column.
func filterable(a attr) bool {
	s := a.col.Stats
	if s.NullShare() > 0.8 || len(s.Top) < 2 {
		return false
	}
	switch a.col.Role {
	case RoleCategory:
		return true
	case RoleName:
		return len(a.path) > 0
	}
	return false
}

func measurable(a attr) bool {
	return a.col.Role == RoleMeasure && !a.many() && a.col.Stats.NullShare() < 0.8 && a.col.Stats.Distinct > 3
}

// value draws a word-valued literal of the attribute that does not fill
// the whole column.
func (c *cand) value(a attr, avoid ...string) (sqlexec.Value, bool) {
	top := a.values()
	if len(top) == 0 {
		return sqlexec.Value{}, false
	}
	for range 8 {
		// Frequent values first, as people ask about what is common.
		i := c.r.IntN(len(top))
		if c.r.IntN(2) == 0 {
			i = c.r.IntN(min(len(top), 10))
		}
		v := top[i]
		if !wordValued(v.Value) || len(a.path) == 0 && v.Count >= a.col.Stats.NonNull && a.col.Stats.NullShare() == 0 {
			continue
		}
		dup := false
		for _, x := range avoid {
			dup = dup || x == v.Value.S
		}
		if !dup {
			c.values = append(c.values, v.Value.S)
			return v.Value, true
		}
	}
	return sqlexec.Value{}, false
}

// filter adds a condition on a category or a joined name and returns the
// base's plural as the filter narrows it ("superheroes from Marvel
// Comics"); evidence maps the words to the condition.
func (c *cand) filter() (cond, np string, ok bool) {
	// Flags only here: the families that name a value ("Y customers",
	// "the ratio of 1 to 0") would read badly with a flag's raw values.
	a, ok := c.pickAttr(func(a attr) bool {
		return filterable(a) || a.col.Role == RoleFlag && !a.many() && len(a.col.Stats.Top) == 2
	})
	if !ok {
		return "", "", false
	}
	if a.col.Role == RoleFlag {
		return c.flagFilter(a)
	}
	v, ok := c.value(a)
	if !ok {
		return "", "", false
	}
	ref := c.q.ref(a)
	cond = ref + " = " + lit(v)
	c.filters++
	c.lookups++
	c.use(a.col)
	P, p := c.b.t.Plural, c.phrase(a)
	forms := []string{"{P} whose {p} is {v}", "{v} {P}", "{P} with {v} as their {p}", "{P} with the {v} {p}"}
	if fromWords[lastWord(p)] {
		forms = append(forms, "{P} from {v}", "{P} from {v}")
	}
	// Through a table of records (not a lookup list), the question names
	// those records: "expenses of members whose t-shirt size is Large",
	// "majors with members whose county is Vanderburgh County".
	via := firstSubject(c.g, a.path)
	switch {
	case via != nil && a.many():
		forms = []string{"{P} with {K} whose {p} is {v}", "{P} that have {K} with {v} as their {p}", "{P} with {v} {K}"}
	case via != nil && a.col.Table == via && nameColumn(via) == a.col:
		forms = []string{"{P} of the {k} {v}", "{P} of {v}", "{v} {P}"}
	case via != nil:
		forms = []string{"{P} of {K} whose {p} is {v}", "{P} of {K} with {v} as their {p}", "{P} whose {k}'s {p} is {v}", "{P} of {v} {K}", "{P} of {v} {K}"}
	case a.many():
		forms = []string{"{P} with the {v} {p}", "{P} that have {v} as a {p}", "{P} with {v}"}
	}
	if via != nil {
		for i := range forms {
			forms[i] = strings.NewReplacer("{K}", via.Plural, "{k}", via.Noun).Replace(forms[i])
		}
	}
	form := forms[c.r.IntN(len(forms))]
	np = strings.NewReplacer("{P}", P, "{p}", p, "{v}", v.S).Replace(form)
	if !strings.Contains(form, "{p}") || c.r.IntN(3) > 0 {
		c.ev("%s refers to %s = %s", v.S, ident(a.col.Name), lit(v))
	}
	return cond, np, true
}

// flagFilter keeps the rows a yes/no column marks or does not mark,
// named by the column's label alone ("active members", "members that are
// not active"), with evidence giving the value that means yes or no.
func (c *cand) flagFilter(a attr) (cond, np string, ok bool) {
	top := a.col.Stats.Top
	if len(top) != 2 {
		return "", "", false
	}
	v := top[c.r.IntN(2)].Value
	cond = c.q.ref(a) + " = " + lit(v)
	c.filters++
	c.use(a.col)
	w := flagWord(c.phrase(a))
	forms := []string{"{P} that are {w}", "{w} {P}", "{P} marked {w}"}
	said := w
	if !truthy(v) {
		forms = []string{"{P} that are not {w}", "{P} not marked {w}", "non-{w} {P}"}
		said = "not " + w
	}
	np = strings.NewReplacer("{P}", c.b.t.Plural, "{w}", w).Replace(forms[c.r.IntN(len(forms))])
	c.ev("%s refers to %s = %s", said, ident(a.col.Name), lit(v))
	return cond, np, true
}

// flagWord turns a flag's label into the word that describes a marked row
// ("is active" -> "active", "vip flag" -> "vip").
func flagWord(label string) string {
	for _, p := range []string{"is ", "has ", "flag "} {
		label = strings.TrimPrefix(label, p)
	}
	return strings.TrimSuffix(label, " flag")
}

// truthy reports whether a flag's value means yes.
func truthy(v sqlexec.Value) bool {
	switch strings.ToLower(v.Display()) {
	case "1", "y", "yes", "true", "t":
		return true
	}
	return false
}

// threshold adds a comparison of a measure with one of its quantiles.
func (c *cand) threshold() (cond, np string, ok bool) {
	a, ok := c.pickAttr(measurable)
	if !ok {
		return "", "", false
	}
	s := a.col.Stats
	x := s.Quantiles[1+c.r.IntN(3)]
	if x <= s.Min || x >= s.Max {
		return "", "", false
	}
	more := c.r.IntN(2) == 0
	op, word := ">", "more than"
	if !more {
		op, word = "<", "less than"
	}
	cond = c.q.ref(a) + " " + op + " " + fmtNum(x)
	c.filters++
	c.use(a.col)
	P, p := c.b.t.Plural, c.phrase(a)
	if w, ok := measureWord(a.col); ok && c.r.IntN(3) > 0 {
		cmp := w[2]
		if !more {
			cmp = w[3]
		}
		np = fmt.Sprintf("%s %s %s", P, cmp, fmtNum(x))
		c.ev("%s %s refers to %s %s %s", cmp, fmtNum(x), ident(a.col.Name), op, fmtNum(x))
		return cond, np, true
	}
	np = c.pickWord(fmt.Sprintf("%s with a %s of %s %s", P, p, word, fmtNum(x)), fmt.Sprintf("%s whose %s is %s %s", P, p, word, fmtNum(x)))
	if c.r.IntN(2) == 0 {
		c.ev("%s %s %s refers to %s %s %s", p, word, fmtNum(x), ident(a.col.Name), op, fmtNum(x))
	}
	return cond, np, true
}

func (c *cand) pickWord(xs ...string) string { return xs[c.r.IntN(len(xs))] }

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// countExpr counts base rows, DISTINCT when a join fans out.
func (c *cand) countExpr() string {
	if len(c.b.t.PrimaryKey) != 1 {
		if c.q.fanout {
			return ""
		}
		return "COUNT(*)"
	}
	k := c.q.self(c.b.t.Column(c.b.t.PrimaryKey[0]))
	if c.q.fanout {
		return "COUNT(DISTINCT " + k + ")"
	}
	return "COUNT(" + k + ")"
}

// lookupName draws a named entity of the base: its name column and a value
// that names one row.
func (c *cand) lookupName() (sqlexec.Value, bool) {
	if c.b.name == nil {
		return sqlexec.Value{}, false
	}
	top := c.b.name.Stats.Top
	for range 6 {
		v := top[c.r.IntN(len(top))]
		if v.Count == 1 && wordValued(v.Value) {
			c.values = append(c.values, v.Value.S)
			return v.Value, true
		}
	}
	return sqlexec.Value{}, false
}

func (c *cand) entityEvidence(v sqlexec.Value) {
	if c.r.IntN(3) > 0 {
		c.ev("%s refers to %s = %s", v.S, ident(c.b.name.Name), lit(v))
	}
}

// lookup: one attribute of one named entity.
func (c *cand) lookup() bool {
	v, ok := c.lookupName()
	if !ok {
		return false
	}
	a, ok := c.pickAttr(func(a attr) bool {
		return a.col != c.b.name && (a.col.Role == RoleCategory || a.col.Role == RoleMeasure || a.col.Role == RoleName || a.col.Role == RoleDate || a.col.Role == RoleFlag)
	})
	if !ok {
		return false
	}
	sel := c.q.ref(a)
	where := c.q.self(c.b.name) + " = " + lit(v)
	c.filters++
	c.lookups++
	c.use(a.col, c.b.name)
	N, p := c.b.t.Noun, c.phrase(a)
	if a.many() {
		c.maxRows = 30
		c.minRows = 1
		c.sql = c.q.finish("SELECT " + sel + " " + c.q.from() + " WHERE " + where)
		frames := []string{"List the {pp} of {v}.", "What are the {pp} of {v}?", "Name the {pp} of the {N} {v}.", "Which {pp} does {v} have?",
			"Please list all the {pp} of {v}.", "Give the {pp} that {v} has."}
		if k := firstSubject(c.g, a.path); k != nil {
			// Through a table of records: say whose values they are.
			frames = []string{"List the {pp} of the {K} of {v}.", "What are the {pp} of {v}'s {K}?", "Name the {pp} of the {K} of the {N} {v}.",
				"Which {pp} do the {K} of {v} have?", "Please list the {pp} of all {K} of {v}.", "Give the {pp} of the {K} that {v} has."}
		}
		K := ""
		if k := firstSubject(c.g, a.path); k != nil {
			K = k.Plural
		}
		c.say(c.pick(frames...), "{pp}", plural(p), "{v}", v.S, "{N}", N, "{K}", K)
	} else {
		c.sql = c.q.finish("SELECT " + sel + " " + c.q.from() + " WHERE " + where)
		frames := []string{"What is the {p} of {v}?", "Please provide the {p} of {v}.", "State the {p} of the {N} {v}.", "What {p} does {v} have?",
			"What is {v}'s {p}?", "Give the {p} of {v}.", "What is the {p} of the {N} {v}?", "Which {p} is {v}'s?"}
		c.say(c.pick(frames...), "{p}", p, "{v}", v.S, "{N}", N)
	}
	c.entityEvidence(v)
	return true
}

// lookupMulti: two or three attributes of one named entity.
func (c *cand) lookupMulti() bool {
	v, ok := c.lookupName()
	if !ok {
		return false
	}
	var sel, names []string
	used := map[*Column]bool{c.b.name: true}
	for range 2 + c.r.IntN(2) {
		a, ok := c.pickAttr(func(a attr) bool {
			return !used[a.col] && !a.many() && (a.col.Role == RoleCategory || a.col.Role == RoleMeasure || a.col.Role == RoleName || a.col.Role == RoleDate)
		})
		if !ok {
			break
		}
		used[a.col] = true
		sel = append(sel, c.q.ref(a))
		names = append(names, c.phrase(a))
		c.use(a.col)
	}
	if len(sel) < 2 {
		return false
	}
	c.use(c.b.name)
	c.filters++
	c.lookups++
	c.sql = c.q.finish("SELECT " + strings.Join(sel, ", ") + " " + c.q.from() + " WHERE " + c.q.self(c.b.name) + " = " + lit(v))
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	c.say(c.pick("What are the {l} of {v}?", "Give the {l} of {v}.", "List the {l} of the {N} {v}.", "Provide {v}'s {l}.",
		"State the {l} of {v}.", "Please list the {l} of the {N} {v}."), "{l}", list, "{v}", v.S, "{N}", c.b.t.Noun)
	c.entityEvidence(v)
	return true
}

// listNames selects the base's names, DISTINCT when a join fans out.
func (c *cand) listNames() string {
	if c.q.fanout {
		return "SELECT DISTINCT " + c.q.self(c.b.name)
	}
	return "SELECT " + c.q.self(c.b.name)
}

// list: the names of the rows a filter keeps.
func (c *cand) list() bool {
	if c.b.name == nil {
		return false
	}
	cond, np, ok := c.filter()
	if ok && c.r.IntN(4) == 0 {
		if c2, np2, ok2 := c.filter(); ok2 && c2 != cond {
			cond += " AND " + c2
			np += " and " + strings.TrimPrefix(np2, c.b.t.Plural+" ")
		}
	} else if ok && c.r.IntN(4) == 0 {
		if c2, np2, ok2 := c.threshold(); ok2 {
			cond += " AND " + c2
			np += " and " + strings.TrimPrefix(np2, c.b.t.Plural+" ")
		}
	} else if !ok || c.r.IntN(5) == 0 {
		cond, np, ok = c.threshold()
	}
	if !ok {
		return false
	}
	c.use(c.b.name)
	c.maxRows, c.minRows = 40, 1
	extra, more := "", ""
	if !c.q.fanout {
		extra, more, _ = c.also(len(c.q.joins), false, true)
	}
	c.sql = c.q.finish(c.listNames() + extra + " " + c.q.from() + " WHERE " + cond)
	c.say(c.pick("List the {n} of {np}.", "Name the {np}.", "Which {np} are there? Give their {n}.", "Please list the {n} of all {np}.",
		"What are the {n} of the {np}?", "Give the {n} of {np}.", "Show the {np}.", "Who are the {np}?"), "{n}", plural(shortLabel(c.b.name)), "{np}", np)
	if more != "" {
		c.text += " " + more
	}
	return true
}

// listOr: names of rows matching either of two values.
func (c *cand) listOr() bool {
	if c.b.name == nil {
		return false
	}
	a, ok := c.pickAttr(filterable)
	if !ok {
		return false
	}
	v1, ok1 := c.value(a)
	v2, ok2 := c.value(a, v1.S)
	if !ok1 || !ok2 {
		return false
	}
	ref := c.q.ref(a)
	c.filters += 2
	c.lookups += 2
	c.use(a.col, c.b.name)
	c.maxRows, c.minRows = 40, 1
	c.sql = c.q.finish(c.listNames() + " " + c.q.from() + " WHERE " + ref + " = " + lit(v1) + " OR " + ref + " = " + lit(v2))
	c.say(c.pick("List the {n} of {P} whose {p} is {v1} or {v2}.", "Name the {P} with {v1} or {v2} as their {p}.",
		"Which {P} are {v1} or {v2}? List their {n}.", "Give the {n} of the {P} of {p} {v1} or {v2}."),
		"{n}", plural(shortLabel(c.b.name)), "{P}", c.b.t.Plural, "{p}", c.phrase(a), "{v1}", v1.S, "{v2}", v2.S)
	c.ev("%s or %s refers to %s = %s OR %s = %s", v1.S, v2.S, ident(a.col.Name), lit(v1), ident(a.col.Name), lit(v2))
	return true
}

// count: how many rows a filter keeps.
func (c *cand) count() bool {
	cond, np, ok := c.filter()
	if ok && c.r.IntN(6) == 0 {
		if c2, np2, ok2 := c.filter(); ok2 && c2 != cond {
			cond += " AND " + c2
			np += " and " + strings.TrimPrefix(np2, c.b.t.Plural+" ")
		}
	}
	if !ok {
		return false
	}
	e := c.countExpr()
	if e == "" {
		return false
	}
	c.notTotal = c.b.t.Rows
	c.sql = c.q.finish("SELECT " + e + " " + c.q.from() + " WHERE " + cond)
	c.say(c.pick("How many {np} are there?", "Count the {np}.", "What is the number of {np}?", "How many {np} does the database hold?",
		"How many {np} are recorded?", "Please count the {np}.", "Among the {P}, how many are {rest}?", "Find how many {np} there are."),
		"{np}", np, "{P}", c.b.t.Plural, "{rest}", strings.TrimPrefix(np, c.b.t.Plural+" "))
	if strings.Contains(c.text, "how many are "+c.b.t.Plural) {
		return false
	}
	return true
}

// countIn: rows whose value is one of two (IN).
func (c *cand) countIn() bool {
	a, ok := c.pickAttr(filterable)
	if !ok {
		return false
	}
	v1, ok1 := c.value(a)
	v2, ok2 := c.value(a, v1.S)
	e := ""
	ref := c.q.ref(a)
	if e = c.countExpr(); e == "" || !ok1 || !ok2 {
		return false
	}
	c.filters++
	c.lookups++
	c.use(a.col)
	c.notTotal = c.b.t.Rows
	c.sql = c.q.finish("SELECT " + e + " " + c.q.from() + " WHERE " + ref + " IN (" + lit(v1) + ", " + lit(v2) + ")")
	c.say(c.pick("How many {P} are {v1} or {v2}?", "Count the {P} whose {p} is either {v1} or {v2}.", "What is the total number of {v1} and {v2} {P}?",
		"How many {P} have {v1} or {v2} as their {p}?"), "{P}", c.b.t.Plural, "{p}", c.phrase(a), "{v1}", v1.S, "{v2}", v2.S)
	c.ev("%s or %s refers to %s IN (%s, %s)", v1.S, v2.S, ident(a.col.Name), lit(v1), lit(v2))
	return true
}

// countThreshold: rows past a quantile of a measure.
func (c *cand) countThreshold() bool {
	cond, np, ok := c.threshold()
	if !ok {
		return false
	}
	if c.r.IntN(2) == 0 {
		if c2, np2, ok2 := c.filter(); ok2 {
			cond += " AND " + c2
			np = np2 + " " + strings.TrimPrefix(np, c.b.t.Plural+" ")
		}
	}
	e := c.countExpr()
	if e == "" {
		return false
	}
	c.notTotal = c.b.t.Rows
	c.sql = c.q.finish("SELECT " + e + " " + c.q.from() + " WHERE " + cond)
	c.say(c.pick("How many {np} are there?", "Count the {np}.", "What is the number of {np}?", "How many {np} can be found?"), "{np}", np)
	return true
}

// aggregate: AVG, SUM, MIN or MAX of a measure over the rows a filter keeps.
func (c *cand) aggregate() bool {
	m, ok := c.pickAttr(measurable)
	if !ok {
		return false
	}
	cond, np, ok := c.filter()
	if !ok || c.q.fanout {
		return false
	}
	ref := c.q.ref(m)
	c.use(m.col)
	p := c.phrase(m)
	fns := []struct{ fn, word string }{{"AVG", "average"}, {"SUM", "total"}, {"MAX", "highest"}, {"MIN", "lowest"}}
	f := fns[c.r.IntN(len(fns))]
	if f.fn == "SUM" && !strings.Contains(strings.ToLower(c.b.t.Name+" "+m.col.Name), "amount") && c.r.IntN(2) == 0 {
		f = fns[0]
	}
	c.sql = c.q.finish("SELECT " + f.fn + "(" + ref + ") " + c.q.from() + " WHERE " + cond)
	c.say(c.pick("What is the {w} {p} of {np}?", "Calculate the {w} {p} of {np}.", "Please calculate the {w} {p} of the {np}.", "What is the {w} {p} among {np}?",
		"Among the {np}, what is the {w} {p}?", "Find the {w} {p} of {np}."), "{w}", f.word, "{p}", p, "{np}", np)
	if f.fn == "AVG" && c.r.IntN(2) == 0 {
		c.ev("%s %s = AVG(%s)", f.word, p, ident(m.col.Name))
	}
	return true
}

// superlative words for a measure: (most, least).
func superlative(m attr) (string, string, bool) {
	if w, ok := measureWord(m.col); ok {
		return w[0], w[1], true
	}
	p := m.phrase()
	return "with the highest " + p, "with the lowest " + p, false
}

// top: the named row with the highest or lowest measure.
func (c *cand) top() bool {
	shown := c.shown()
	if shown == nil {
		return false
	}
	m, ok := c.pickAttr(measurable)
	if !ok {
		return false
	}
	var cond, np string
	if c.r.IntN(3) > 0 {
		if cond, np, ok = c.filter(); !ok || c.q.fanout {
			return false
		}
	}
	ref := c.q.ref(m)
	desc := c.r.IntN(3) > 0
	most, least, implicit := superlative(m)
	word, dir, fn := most, "DESC", "MAX"
	if !desc {
		word, dir, fn = least, "ASC", "MIN"
	}
	where := " WHERE " + ref + " IS NOT NULL"
	if cond != "" {
		where += " AND " + cond
	}
	sel, label := c.q.self(shown), shortLabel(shown)
	// Half the time the answer is something the top row links to ("the
	// publisher of the tallest female superhero").
	if cond != "" && c.r.IntN(2) == 0 {
		a, ok := c.pickAttr(func(a attr) bool {
			return len(a.path) > 0 && !a.many() && (a.col.Role == RoleName || a.col.Role == RoleCategory) && !c.q.joined(a.path)
		})
		if !ok {
			return false
		}
		sel, label, shown = c.q.ref(a), c.phrase(a), a.col
	}
	c.use(m.col, shown)
	extra, more, _ := c.also(len(c.q.joins), false, false)
	c.sql = c.q.finish("SELECT " + sel + extra + " " + c.q.from() + where + " ORDER BY " + ref + " " + dir + " LIMIT 1")
	c.tie = c.q.finish("SELECT " + ref + " " + c.q.from() + where + " ORDER BY " + ref + " " + dir + " LIMIT 2")
	N := c.b.t.Noun
	if np == "" {
		np = c.b.t.Plural
	}
	if implicit {
		frames := []string{"Who is the {w} {N}?", "Name the {w} among the {np}.", "Which of the {np} is the {w}?", "What is the {n} of the {w} of the {np}?",
			"Give the {n} of the {w} {N}."}
		if shown != c.b.name {
			frames = []string{"What is the {n} of the {w} {N}?", "Give the {n} of the {w} among the {np}.", "State the {n} of the {w} of the {np}.", "Which {n} does the {w} {N} have?"}
		}
		c.say(c.pick(frames...), "{w}", word, "{N}", N, "{np}", np, "{n}", label)
		c.ev("%s refers to %s(%s)", word, fn, ident(m.col.Name))
	} else {
		frames := []string{"Which {N} has the {hl} {p} among the {np}?", "Name the {N} {w}.", "Among the {np}, which one has the {hl} {p}?",
			"What is the {n} of the {N} {w}?"}
		if shown != c.b.name {
			frames = []string{"What is the {n} of the {N} {w} among the {np}?", "Give the {n} of the {N} {w}.", "Among the {np}, what is the {n} of the one {w}?", "State the {n} of the {N} {w}."}
		}
		c.say(c.pick(frames...), "{hl}", strings.Fields(word)[2], "{p}", c.phrase(m), "{w}", word, "{N}", N, "{np}", np, "{n}", label)
		if c.r.IntN(2) == 0 {
			c.ev("%s %s refers to %s(%s)", strings.Fields(word)[2], c.phrase(m), fn, ident(m.col.Name))
		}
	}
	if more != "" {
		c.text += " " + more
	}
	return true
}

// topK: the k named rows with the highest or lowest measure.
func (c *cand) topK() bool {
	if c.b.name == nil {
		return false
	}
	m, ok := c.pickAttr(measurable)
	if !ok {
		return false
	}
	k := 2 + c.r.IntN(4)
	var cond, np string
	if c.r.IntN(2) == 0 {
		if cond, np, ok = c.filter(); !ok {
			return false
		}
	}
	ref := c.q.ref(m)
	if c.q.fanout {
		return false
	}
	desc := c.r.IntN(3) > 0
	most, least, _ := superlative(m)
	word, dir := most, "DESC"
	if !desc {
		word, dir = least, "ASC"
	}
	where := " WHERE " + ref + " IS NOT NULL"
	if cond != "" {
		where += " AND " + cond
	}
	if np == "" {
		np = c.b.t.Plural
	}
	c.use(m.col, c.b.name)
	c.maxRows, c.minRows = k, k
	c.sql = c.q.finish("SELECT " + c.q.self(c.b.name) + " " + c.q.from() + where + " ORDER BY " + ref + " " + dir + " LIMIT " + fmt.Sprint(k))
	c.tie = c.q.finish("SELECT " + ref + " " + c.q.from() + where + " ORDER BY " + ref + " " + dir + fmt.Sprintf(" LIMIT 2 OFFSET %d", k-1))
	frames := []string{"List the {k} {w} {P}.", "Name the top {k} {P} {w2}.", "Which {k} {P} are the {w}?", "Give the {n} of the {k} {w} {P}."}
	if cond != "" {
		frames = []string{"List the {k} {w} of the {np}.", "Among the {np}, name the top {k} {w2}.", "Which {k} of the {np} are the {w}?", "Give the {n} of the {k} {w} {np}."}
	}
	c.say(c.pick(frames...), "{k}", fmt.Sprint(k), "{w}", strings.TrimPrefix(word, "with the "), "{w2}", word, "{P}", c.b.t.Plural, "{np}", np, "{n}", plural(shortLabel(c.b.name)))
	return true
}

// groupTop: the category with the most rows.
func (c *cand) groupTop() bool {
	a, ok := c.pickAttr(filterable)
	if !ok {
		return false
	}
	ref := c.q.ref(a)
	e := c.countExpr()
	if e == "" {
		return false
	}
	desc := c.r.IntN(4) > 0
	dir, word := "DESC", "most"
	if !desc {
		dir, word = "ASC", "fewest"
	}
	c.use(a.col)
	c.sql = c.q.finish("SELECT " + ref + " " + c.q.from() + " GROUP BY " + ref + " ORDER BY " + e + " " + dir + " LIMIT 1")
	c.tie = c.q.finish("SELECT " + e + " " + c.q.from() + " GROUP BY " + ref + " ORDER BY " + e + " " + dir + " LIMIT 2")
	c.say(c.pick("Which {p} has the {w} {P}?", "What is the {p} with the {w} {P}?", "Name the {p} that the {w} {P} have.", "Which {p} do the {w} {P} belong to?"),
		"{p}", c.phrase(a), "{w}", word, "{P}", c.b.t.Plural)
	if strings.HasPrefix(c.text, "Which "+c.phrase(a)+" do") || strings.HasPrefix(c.text, "Name the") {
		c.text = fmt.Sprintf("Which %s is the most common among %s?", c.phrase(a), c.b.t.Plural)
		if !desc {
			c.text = fmt.Sprintf("Which %s is the least common among %s?", c.phrase(a), c.b.t.Plural)
		}
	}
	return true
}

// having: the categories with more than a number of rows.
func (c *cand) having() bool {
	a, ok := c.pickAttr(filterable)
	if !ok {
		return false
	}
	ref := c.q.ref(a)
	e := c.countExpr()
	if e == "" {
		return false
	}
	// The threshold sits between the group sizes: from the column's top
	// counts when it is the base's own, else a small number the verify
	// step checks (an empty or all-groups answer is refused).
	n := int64(2 + c.r.IntN(8))
	if len(a.path) == 0 && len(a.col.Stats.Top) > 3 {
		n = a.col.Stats.Top[len(a.col.Stats.Top)/3].Count
	}
	c.use(a.col)
	c.maxRows, c.minRows = 30, 1
	c.sql = c.q.finish("SELECT " + ref + " " + c.q.from() + " GROUP BY " + ref + " HAVING " + e + " > " + fmt.Sprint(n))
	c.whole = c.q.finish("SELECT COUNT(*) FROM (SELECT 1 " + c.q.from() + " GROUP BY " + ref + ")")
	c.say(c.pick("List the {pp} with more than {n} {P}.", "Which {pp} have over {n} {P}?", "Name the {pp} that more than {n} {P} have.", "Give the {pp} shared by more than {n} {P}."),
		"{pp}", plural(c.phrase(a)), "{n}", fmt.Sprint(n), "{P}", c.b.t.Plural)
	c.ev("more than %d %s refers to %s > %d", n, c.b.t.Plural, e, n)
	return true
}

// percentage: the share of rows with a value, BIRD's CAST/SUM/CASE idiom.
func (c *cand) percentage() bool {
	a, ok := c.pickAttr(filterable)
	if !ok || a.many() {
		return false
	}
	v, ok := c.value(a)
	if !ok {
		return false
	}
	ref := c.q.ref(a)
	var cond, np string
	if c.r.IntN(4) > 0 {
		cond, np, ok = c.filter()
		if !ok || strings.Contains(cond, ref+" ") || c.q.fanout {
			return false
		}
	}
	e := c.countExpr()
	if e == "" || c.q.fanout || len(c.q.joins) == 0 && c.r.IntN(4) > 0 {
		// Human percentages nearly always reach another table.
		return false
	}
	c.use(a.col)
	c.lookups++
	c.filters++
	sql := "SELECT CAST(SUM(CASE WHEN " + ref + " = " + lit(v) + " THEN 1 ELSE 0 END) AS REAL) * 100 / " + e + " " + c.q.from()
	if cond != "" {
		sql += " WHERE " + cond
	}
	c.sql = c.q.finish(sql)
	if np == "" {
		np = "all " + c.b.t.Plural
	}
	c.say(c.pick("What is the percentage of {v} {P} among {np}?", "Calculate the percentage of {np} whose {p} is {v}.", "Among the {np}, what percentage are {v}?",
		"What percent of {np} have {v} as their {p}?", "Find the proportion, in percent, of {np} with {p} {v}."), "{v}", v.S, "{P}", c.b.t.Plural, "{np}", np, "{p}", c.phrase(a))
	c.ev("percentage = MULTIPLY(DIVIDE(SUM(%s = %s), COUNT(%s)), 100)", ident(a.col.Name), lit(v), strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e, "COUNT("), "DISTINCT "), ")"))
	return true
}

// ratio: how many times more rows have one value than another.
func (c *cand) ratio() bool {
	a, ok := c.pickAttr(filterable)
	if !ok || a.many() {
		return false
	}
	v1, ok1 := c.value(a)
	v2, ok2 := c.value(a, v1.S)
	if !ok1 || !ok2 {
		return false
	}
	ref := c.q.ref(a)
	var cond, np string
	if c.r.IntN(4) > 0 {
		var ok bool
		if cond, np, ok = c.filter(); !ok || c.q.fanout || strings.HasPrefix(cond, ref+" ") {
			return false
		}
		np = " among " + np
	}
	c.use(a.col)
	c.lookups += 2
	c.filters += 2
	sql := "SELECT CAST(SUM(CASE WHEN " + ref + " = " + lit(v1) + " THEN 1 ELSE 0 END) AS REAL) / SUM(CASE WHEN " + ref + " = " + lit(v2) + " THEN 1 ELSE 0 END) " + c.q.from()
	if cond != "" {
		sql += " WHERE " + cond
	}
	c.sql = c.q.finish(sql)
	c.say(c.pick("How many times more {v1} {P} are there than {v2} {P}{np}?", "What is the ratio of {v1} {P} to {v2} {P}{np}?",
		"Calculate the ratio between {P} whose {p} is {v1} and those whose {p} is {v2}{np}.", "By what factor do {v1} {P} outnumber {v2} ones{np}?"),
		"{v1}", v1.S, "{v2}", v2.S, "{P}", c.b.t.Plural, "{p}", c.phrase(a), "{np}", np)
	c.ev("ratio = DIVIDE(SUM(%s = %s), SUM(%s = %s))", ident(a.col.Name), lit(v1), ident(a.col.Name), lit(v2))
	return true
}

// aboveAverage: named rows whose measure beats the average (a subquery).
func (c *cand) aboveAverage() bool {
	shown := c.shown()
	if shown == nil {
		return false
	}
	m, ok := c.pickAttr(func(a attr) bool { return measurable(a) && len(a.path) == 0 })
	if !ok {
		return false
	}
	cond, np, ok := c.filter()
	if !ok || c.q.fanout || len(c.q.joins) > 1 {
		return false
	}
	// Below the average half the time: an outlier (a 90,000,000 kg hero)
	// can leave nothing above it.
	op, word, more := ">", "above", "higher"
	if c.r.IntN(2) == 0 {
		op, word, more = "<", "below", "lower"
	}
	ref := c.q.ref(m)
	c.use(m.col, shown)
	c.maxRows, c.minRows = 40, 1
	extra, more, _ := c.also(len(c.q.joins), true, true)
	c.sql = c.q.finish("SELECT " + c.q.self(shown) + extra + " " + c.q.from() + " WHERE " + cond + " AND " + ref + " " + op + " (SELECT AVG(" + ident(m.col.Name) + ") FROM " + ident(c.b.t.Name) + ")")
	c.say(c.pick("Among the {np}, which have a {p} {w} the average of all {P}? Give their {n}.", "List the {n} of the {np} whose {p} is {more} than the average {p}.",
		"Name the {np} with a {p} {w} the average {N}'s.", "Which {np} have a {p} {w} the average of the {P}? List their {n}."),
		"{np}", np, "{p}", c.phrase(m), "{P}", c.b.t.Plural, "{N}", c.b.t.Noun, "{w}", word, "{more}", more, "{n}", plural(shortLabel(shown)))
	c.ev("%s the average refers to %s %s AVG(%s)", word, ident(m.col.Name), op, ident(m.col.Name))
	if more != "" {
		c.text += " " + more
	}
	return true
}

// notExists: rows no other table refers to.
func (c *cand) notExists() bool {
	t, kid, fk, ok := c.parentLink(false, 0)
	if !ok {
		return false
	}
	c.notTotal = t.Rows
	c.sql = "SELECT COUNT(*) FROM " + ident(t.Name) + " AS T1 WHERE NOT EXISTS (SELECT 1 FROM " + ident(kid.Name) + " AS T2 WHERE T2." + ident(fk.Column) + " = T1." + ident(fk.RefColumn) + ")"
	c.say(c.pick("How many {P} have no {K}?", "Count the {P} without any {K}.", "How many {P} are not linked to any {k}?", "Find the number of {P} that no {k} refers to."),
		"{P}", t.Plural, "{K}", kid.Plural, "{k}", kid.Noun)
	return true
}

// parentLink draws a table that another table refers to by a single
// foreign key (a publisher and its superheroes), from the whole database:
// lookup lists included, which are never question subjects themselves.
func (c *cand) parentLink(needName bool, maxRows int64) (parent, child *Table, fk ForeignKey, ok bool) {
	type link struct {
		p, c *Table
		fk   ForeignKey
	}
	var links []link
	for _, o := range c.g.d.Tables {
		refs := map[string]int{}
		for _, f := range o.ForeignKeys {
			refs[strings.ToLower(f.RefTable)]++
		}
		for _, f := range o.ForeignKeys {
			p := c.g.d.Table(f.RefTable)
			if p == nil || p == o || o.Rows == 0 || p.Rows == 0 || len(p.PrimaryKey) != 1 || refs[strings.ToLower(f.RefTable)] > 1 ||
				needName && nameColumn(p) == nil || maxRows > 0 && p.Rows > maxRows {
				continue
			}
			links = append(links, link{p, o, f})
		}
	}
	if len(links) == 0 {
		return nil, nil, ForeignKey{}, false
	}
	l := links[c.r.IntN(len(links))]
	return l.p, l.c, l.fk, true
}

// leftJoin: every named row of a small table with the number of rows
// that refer to it, zero included.
func (c *cand) leftJoin() bool {
	t, o, fk, ok := c.parentLink(true, 40)
	if !ok {
		return false
	}
	name := nameColumn(t)
	n := shortLabel(name)
	if strings.EqualFold(n, t.Noun) {
		n = "name" // not "each alignment and its alignment"
	}
	c.maxRows, c.minRows = 40, 2
	c.use(name)
	c.distinctRows = true
	c.sql = "SELECT T1." + ident(name.Name) + ", COUNT(T2." + ident(fk.Column) + ") FROM " + ident(t.Name) + " AS T1 LEFT JOIN " + ident(o.Name) + " AS T2 ON T1." + ident(fk.RefColumn) + " = T2." + ident(fk.Column) + " GROUP BY T1." + ident(fk.RefColumn)
	c.say(c.pick("For each {N}, give its {n} and the number of {K}, counting those with none.", "List every {N} with how many {K} it has, zero included.",
		"How many {K} does each {N} have? Include those without any.", "Give each {N}'s {n} and its count of {K}."),
		"{N}", t.Noun, "{n}", n, "{K}", o.Plural)
	return true
}

// date: rows in one year, one month or a range of days of a date column
// (strftime, BETWEEN), years half the time as in human questions.
func (c *cand) date() bool {
	a, ok := c.pickAttr(func(a attr) bool { return a.col.Role == RoleDate && !a.many() && len(a.col.Stats.Top) > 0 })
	if !ok {
		return false
	}
	top := a.col.Stats.Top
	v := top[c.r.IntN(len(top))].Value
	if v.Kind != sqlexec.KindText || !isoDate.MatchString(v.S) {
		return false
	}
	ref, name := c.q.ref(a), ident(a.col.Name)
	var cond, when, evidence string
	switch mode := c.r.IntN(4); {
	case mode < 2:
		y := v.S[:4]
		cond, when = "strftime('%Y', "+ref+") = '"+y+"'", "in "+y
		evidence = fmt.Sprintf("%s refers to strftime('%%Y', %s) = '%s'", when, name, y)
	case mode == 2:
		ym := v.S[:7]
		m := int(ym[5]-'0')*10 + int(ym[6]-'0')
		if m < 1 || m > 12 {
			return false
		}
		cond, when = "strftime('%Y-%m', "+ref+") = '"+ym+"'", "in "+monthNames[m-1]+" "+ym[:4]
		c.spoken = map[string]string{ym: monthNames[m-1] + " " + ym[:4]}
		evidence = fmt.Sprintf("%s refers to strftime('%%Y-%%m', %s) = '%s'", when, name, ym)
	default:
		w := top[c.r.IntN(len(top))].Value
		if w.Kind != sqlexec.KindText || !isoDate.MatchString(w.S) || w.S[:10] == v.S[:10] {
			return false
		}
		lo, hi := v.S[:10], w.S[:10]
		if hi < lo {
			lo, hi = hi, lo
		}
		cond, when = "date("+ref+") BETWEEN '"+lo+"' AND '"+hi+"'", "between "+lo+" and "+hi
		evidence = fmt.Sprintf("%s refers to date(%s) BETWEEN '%s' AND '%s'", when, name, lo, hi)
	}
	c.filters++
	c.use(a.col)
	P := c.b.t.Plural
	if c.b.name != nil && c.r.IntN(2) == 0 {
		c.use(c.b.name)
		c.maxRows, c.minRows = 40, 1
		c.sql = c.q.finish(c.listNames() + " " + c.q.from() + " WHERE " + cond)
		c.say(c.pick("List the {P} with a {p} {when}.", "Which {P} have their {p} {when}?", "Name the {P} dated {when}.", "Give the {n} of the {P} dated {when}."),
			"{P}", P, "{p}", c.phrase(a), "{when}", when, "{n}", plural(shortLabel(c.b.name)))
	} else {
		e := c.countExpr()
		if e == "" {
			return false
		}
		c.notTotal = c.b.t.Rows
		c.sql = c.q.finish("SELECT " + e + " " + c.q.from() + " WHERE " + cond)
		c.say(c.pick("How many {P} have a {p} {when}?", "Count the {P} dated {when}.", "How many {P} were there {when}?", "{when}, how many {P} were recorded?"),
			"{P}", P, "{p}", c.phrase(a), "{when}", when)
	}
	c.ev("%s", evidence)
	return true
}

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// distinct: the different values of a category among filtered rows.
func (c *cand) distinct() bool {
	if c.r.IntN(2) == 0 {
		return false // half the family's weight: it rarely fails
	}
	a, ok := c.pickAttr(func(a attr) bool { return filterable(a) && !a.many() })
	if !ok {
		return false
	}
	cond, np, ok := c.filter()
	if !ok {
		return false
	}
	ref := c.q.ref(a)
	if strings.HasPrefix(cond, ref+" ") {
		return false
	}
	c.use(a.col)
	c.maxRows, c.minRows = 30, 2
	c.sql = c.q.finish("SELECT DISTINCT " + ref + " " + c.q.from() + " WHERE " + cond)
	c.say(c.pick("What are the different {pp} of {np}?", "List the distinct {pp} of the {np}.", "Which {pp} do {np} have?", "Name all {pp} found among {np}."),
		"{pp}", plural(c.phrase(a)), "{np}", np)
	return true
}

// shown is the column a top question answers with: the base's name, or
// for a table of records without one, another of its own columns.
func (c *cand) shown() *Column {
	if c.b.name != nil {
		return c.b.name
	}
	var xs []*Column
	for _, col := range c.b.t.Columns {
		if col.Role == RoleCategory || col.Role == RoleDate {
			xs = append(xs, col)
		}
	}
	if len(xs) == 0 {
		return nil
	}
	return xs[c.r.IntN(len(xs))]
}

// mostReferenced: the named row that the most rows of another table refer
// to ("the event with the most attendances").
func (c *cand) mostReferenced() bool {
	t := c.b.t
	if c.b.name == nil || len(t.PrimaryKey) != 1 {
		return false
	}
	var kids []*Table
	var fks []ForeignKey
	for _, o := range c.g.d.Tables {
		for _, fk := range o.ForeignKeys {
			if strings.EqualFold(fk.RefTable, t.Name) && o != t && o.Rows > 0 {
				kids, fks = append(kids, o), append(fks, fk)
			}
		}
	}
	if len(kids) == 0 {
		return false
	}
	i := c.r.IntN(len(kids))
	kid, fk := kids[i], fks[i]
	desc := c.r.IntN(4) > 0
	dir, word := "DESC", "most"
	if !desc {
		dir, word = "ASC", "fewest"
	}
	from := "FROM " + ident(t.Name) + " AS T1 INNER JOIN " + ident(kid.Name) + " AS T2 ON T1." + ident(fk.RefColumn) + " = T2." + ident(fk.Column) + " GROUP BY T1." + ident(fk.RefColumn)
	c.use(c.b.name)
	c.sql = "SELECT T1." + ident(c.b.name.Name) + " " + from + " ORDER BY COUNT(T2." + ident(fk.Column) + ") " + dir + " LIMIT 1"
	c.tie = "SELECT COUNT(T2." + ident(fk.Column) + ") " + from + " ORDER BY COUNT(T2." + ident(fk.Column) + ") " + dir + " LIMIT 2"
	c.say(c.pick("Which {N} has the {w} {K}?", "Name the {N} with the {w} {K}.", "What is the {n} of the {N} with the {w} {K}?", "Among all {P}, which one has the {w} {K}?"),
		"{N}", t.Noun, "{P}", t.Plural, "{w}", word, "{K}", kid.Plural, "{n}", shortLabel(c.b.name))
	return true
}

// difference: how many more rows have one value than another (CASE and
// arithmetic without a CAST).
func (c *cand) difference() bool {
	a, ok := c.pickAttr(func(a attr) bool { return filterable(a) && !a.many() })
	if !ok {
		return false
	}
	v1, ok1 := c.value(a)
	v2, ok2 := c.value(a, v1.S)
	if !ok1 || !ok2 {
		return false
	}
	ref := c.q.ref(a)
	var cond, np string
	if c.r.IntN(4) > 0 {
		var ok bool
		if cond, np, ok = c.filter(); !ok || c.q.fanout || strings.HasPrefix(cond, ref+" ") {
			return false
		}
	}
	c.use(a.col)
	c.lookups += 2
	c.filters += 2
	sql := "SELECT SUM(CASE WHEN " + ref + " = " + lit(v1) + " THEN 1 ELSE 0 END) - SUM(CASE WHEN " + ref + " = " + lit(v2) + " THEN 1 ELSE 0 END) " + c.q.from()
	if cond != "" {
		sql += " WHERE " + cond
	}
	c.sql = c.q.finish(sql)
	if np == "" {
		np = c.b.t.Plural
	}
	c.say(c.pick("How many more {v1} than {v2} {np} are there?", "Among the {np}, how many more are {v1} than {v2}?",
		"What is the difference between the number of {v1} and {v2} {np}?", "By how many do {v1} {np} outnumber {v2} ones?"),
		"{v1}", v1.S, "{v2}", v2.S, "{np}", np)
	c.ev("difference = SUBTRACT(SUM(%s = %s), SUM(%s = %s))", ident(a.col.Name), lit(v1), ident(a.col.Name), lit(v2))
	return true
}

// also adds a second answer column to a question that joins three tables
// beyond its base, or two and nests a query: BIRD's train questions ask
// for more than one column more often the more tables they join
// (docs/dbgen.md). It draws one of the base's own columns not yet used
// and returns its SELECT item and a sentence asking for it, or ok false
// a quarter of the time and when there is none. joins counts the gold's
// joins, subqueries' included.
func (c *cand) also(joins int, nested, their bool) (sel, sentence string, ok bool) {
	if joins < 3 && !(nested && joins >= 2) || c.r.IntN(4) == 0 {
		return "", "", false
	}
	used := map[*Column]bool{}
	for _, col := range c.cols {
		used[col] = true
	}
	var own []attr
	for _, a := range c.b.attrs {
		r := a.col.Role
		if len(a.path) == 0 && !used[a.col] && a.col.Stats.NullShare() < 0.2 && (r == RoleCategory || r == RoleMeasure || r == RoleDate || r == RoleName) {
			own = append(own, a)
		}
	}
	if len(own) == 0 {
		return "", "", false
	}
	a := own[c.r.IntN(len(own))]
	c.use(a.col)
	its := "its"
	if their {
		its = "their"
	}
	sentence = strings.NewReplacer("{its}", its, "{p}", c.phrase(a)).Replace(c.pickWord("Also give {its} {p}.", "State {its} {p} as well.", "Indicate {its} {p} too.", "Include {its} {p}."))
	return ", " + c.q.self(a.col), sentence, true
}

// phrase names an attribute in a question, with a synonym for some of its
// words half the time: people say "surname" as often as "last name".
func (c *cand) phrase(a attr) string {
	p := a.phrase()
	if c.r.IntN(2) == 0 {
		return p
	}
	if s, ok := synonyms[p]; ok {
		return s[c.r.IntN(len(s))]
	}
	ws := strings.Fields(p)
	for i, w := range ws {
		if s, ok := synonyms[w]; ok {
			ws[i] = s[c.r.IntN(len(s))]
		}
	}
	return strings.Join(ws, " ")
}

// maxSubquery: the named rows whose measure equals the filtered maximum
// or minimum, found by a nested query (ties all answer).
func (c *cand) maxSubquery() bool {
	shown := c.shown()
	if shown == nil {
		return false
	}
	m, ok := c.pickAttr(func(a attr) bool { return measurable(a) && len(a.path) == 0 })
	if !ok {
		return false
	}
	cond, np, ok := c.filter()
	if !ok || c.q.fanout {
		return false
	}
	ref := c.q.ref(m)
	fn, word := "MAX", "highest"
	if c.r.IntN(3) == 0 {
		fn, word = "MIN", "lowest"
	}
	most, least, implicit := superlative(m)
	w := "with the " + word + " " + c.phrase(m)
	if implicit {
		w = most
		if fn == "MIN" {
			w = least
		}
	}
	c.use(m.col, shown)
	c.maxRows, c.minRows = 10, 1
	extra, more, _ := c.also(2*len(c.q.joins), true, false)
	c.sql = c.q.finish("SELECT " + c.q.self(shown) + extra + " " + c.q.from() + " WHERE " + cond + " AND " + ref + " = (SELECT " + fn + "(" + ref + ") " + c.q.from() + " WHERE " + cond + ")")
	c.say(c.pick("Which of the {np} is the {w}? Give the {n}.", "Among the {np}, name the {w} one.", "List the {n} of the {w} of the {np}.", "What is the {n} of the {np} {w}?"),
		"{np}", np, "{w}", strings.TrimPrefix(w, "with the "), "{n}", shortLabel(shown))
	if strings.Contains(c.text, "the with") {
		return false
	}
	c.ev("%s refers to %s(%s)", strings.TrimPrefix(w, "with the "), fn, ident(m.col.Name))
	if more != "" {
		c.text += " " + more
	}
	return true
}

// groupAverage: the category whose rows have the highest or lowest
// average measure.
func (c *cand) groupAverage() bool {
	m, ok := c.pickAttr(measurable)
	if !ok {
		return false
	}
	a, ok := c.pickAttr(func(a attr) bool { return filterable(a) && !a.many() && a.col != m.col })
	if !ok {
		return false
	}
	ref, mref := c.q.ref(a), c.q.ref(m)
	dir, word := "DESC", "highest"
	if c.r.IntN(3) == 0 {
		dir, word = "ASC", "lowest"
	}
	c.use(a.col, m.col)
	c.sql = c.q.finish("SELECT " + ref + " " + c.q.from() + " GROUP BY " + ref + " ORDER BY AVG(" + mref + ") " + dir + " LIMIT 1")
	c.tie = c.q.finish("SELECT AVG(" + mref + ") " + c.q.from() + " GROUP BY " + ref + " ORDER BY AVG(" + mref + ") " + dir + " LIMIT 2")
	c.say(c.pick("Which {p} has the {w} average {m}?", "Among all {pp}, which one has {P} with the {w} average {m}?", "Name the {p} whose {P} have the {w} average {m}.",
		"What is the {p} with the {w} average {m} of {P}?"), "{p}", c.phrase(a), "{pp}", plural(c.phrase(a)), "{w}", word, "{m}", c.phrase(m), "{P}", c.b.t.Plural)
	c.ev("%s average %s refers to %s(AVG(%s))", word, c.phrase(m), map[string]string{"DESC": "MAX", "ASC": "MIN"}[dir], ident(m.col.Name))
	return true
}

// isSubject reports whether t is a table questions are about (a base).
func isSubject(g *gen, t *Table) bool {
	for _, b := range g.bases {
		if b.t == t {
			return true
		}
	}
	return false
}

// firstSubject is the first table along path that questions are about
// (not a lookup list or a bridge), nil when none.
func firstSubject(g *gen, path []hop) *Table {
	for _, h := range path {
		if isSubject(g, h.to) {
			return h.to
		}
	}
	return nil
}

// listOrdered: the names a filter keeps, in the order of a measure
// (ORDER BY without LIMIT).
func (c *cand) listOrdered() bool {
	if c.b.name == nil {
		return false
	}
	m, ok := c.pickAttr(func(a attr) bool { return measurable(a) && len(a.path) == 0 })
	if !ok {
		return false
	}
	cond, np, ok := c.filter()
	if !ok || c.q.fanout {
		return false
	}
	dir, order := "DESC", "from the highest %s to the lowest"
	if c.r.IntN(2) == 0 {
		dir, order = "ASC", "from the lowest %s to the highest"
	}
	if w, ok := measureWord(m.col); ok {
		order = "from the " + w[0] + " to the " + w[1]
		if dir == "ASC" {
			order = "from the " + w[1] + " to the " + w[0]
		}
	} else {
		order = fmt.Sprintf(order, c.phrase(m))
	}
	c.use(c.b.name, m.col)
	c.maxRows, c.minRows = 40, 2
	c.sql = c.q.finish("SELECT " + c.q.self(c.b.name) + " " + c.q.from() + " WHERE " + cond + " ORDER BY " + c.q.ref(m) + " " + dir)
	c.say(c.pick("List the {np} {o}.", "Name the {np}, {o}.", "Sort the {np} {o} and give their {n}.", "Give the {n} of the {np} ordered {o}."),
		"{np}", np, "{o}", order, "{n}", plural(shortLabel(c.b.name)))
	return true
}
