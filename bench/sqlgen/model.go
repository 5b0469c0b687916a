package sqlgen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/bench/schemagen"
)

// model is what the grammar knows about one database: its tables, the
// columns a question can talk about (with the SQL expressions that read
// them correctly despite dirt) and the foreign-key graph. It is built from
// the rows in memory, so slot values (a category, a year, a threshold) cost
// no query; only golds are executed.
type model struct {
	db     *schemagen.DB
	tables []*tbl
	byName map[string]*tbl
}

type tbl struct {
	t     *schemagen.Table
	pk    string // single-column primary key, "" when none
	name  *col   // the column that names a row, nil when none
	cols  []*col // usable columns (not id/fk)
	edges []*edge
	// uniqueNames: every non-null name is distinct after canonicalising,
	// so a list of names identifies rows (set operations compare names).
	uniqueNames bool
}

// Column kinds as the grammar uses them.
const (
	kCat  = "cat"  // category, code, flag: equality and IN, GROUP BY
	kNum  = "num"  // measure, count: comparisons, aggregates
	kDate = "date" // year and month filters
	kText = "text" // name, text: LIKE, listing
)

type col struct {
	tb   *tbl
	c    *schemagen.Column
	i    int
	kind string
	// dirtyText: values differ in case or surrounding spaces, so the
	// gold compares LOWER(TRIM(col)).
	dirtyText bool
	nulls     int
	// cat: canonical values with their counts, sorted by value.
	vals   []string
	counts map[string]int
	isInt  bool // cat values stored as integers
	// num: parsed values, sorted; strip lists the characters REPLACEd
	// away before CAST when numbers are stored as text.
	nums     []float64
	textNum  bool
	strip    []string
	intNums  bool
	numByRow []float64 // NaN where NULL
	// date: one layout per stored format; years and months present.
	layouts     []dateLayout
	years       []string
	months      []string
	dateByRow   []string // "YYYY-MM" or "" where NULL/unusable
	words       []string // text: words usable in LIKE '%w%'
	textByRow   []string
	canonByRow  []string // cat canonical value per row, "" for NULL
	hasNullRows bool
}

// dateLayout is one stored date format: its LIKE pattern and where the year
// and month start (1-based, as substr counts).
type dateLayout struct {
	layout  string
	pattern string
	y, m    int
}

// An edge joins two tables along one foreign key. forward: from holds the
// key (many-to-one); backward: to holds it (one-to-many). ambiguous: another
// edge leads from the same table to the same table, so the wording must
// name the key.
type edge struct {
	from, to        *tbl
	fromCol, toCol  string
	fk              schemagen.FK
	fkCol           *schemagen.Column
	forward         bool
	ambiguous, self bool
}

func (e *edge) link() bool { return e.to.t.Kind == schemagen.KindLink }

func colByName(t *schemagen.Table, name string) (*schemagen.Column, int) {
	for i, c := range t.Columns {
		if c.Name == name {
			return c, i
		}
	}
	return nil, -1
}

func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// canon is how a dirty text value is compared: trimmed, lower-cased.
func canon(s string, dirty bool) string {
	if dirty {
		return strings.ToLower(strings.TrimSpace(s))
	}
	return s
}

func buildModel(db *schemagen.DB) (*model, error) {
	m := &model{db: db, byName: map[string]*tbl{}}
	for _, t := range db.Tables {
		tb := &tbl{t: t}
		if len(t.PK) == 1 {
			tb.pk = t.PK[0]
		}
		for i, c := range t.Columns {
			for _, r := range t.Rows {
				if len(r) != len(t.Columns) {
					return nil, fmt.Errorf("table %s: row of %d values for %d columns", t.Name, len(r), len(t.Columns))
				}
			}
			cl := &col{tb: tb, c: c, i: i}
			cl.dirtyText = has(c.Dirty, "case") || has(c.Dirty, "space")
			switch c.Role {
			case schemagen.RoleCategory, schemagen.RoleCode, schemagen.RoleFlag:
				cl.kind = kCat
				cl.initCat(t)
			case schemagen.RoleMeasure, schemagen.RoleCount:
				cl.kind = kNum
				cl.initNum(t)
			case schemagen.RoleDate:
				cl.kind = kDate
				cl.initDate(t)
			case schemagen.RoleName, schemagen.RoleText:
				cl.kind = kText
				cl.initText(t)
			default:
				continue
			}
			if cl.kind == "" {
				continue // unusable: formats the gold cannot read safely
			}
			// A bookkeeping column (the clerk who entered the record)
			// names a person, not the row: "Name the data session"
			// answered with its clerk is wrong.
			if c.Role == schemagen.RoleName && tb.name == nil && !c.Bookkeeping {
				tb.name = cl
			}
			tb.cols = append(tb.cols, cl)
		}
		if tb.name != nil {
			seen := map[string]bool{}
			tb.uniqueNames = true
			for _, v := range tb.name.textByRow {
				if v == "" {
					continue
				}
				k := canon(v, true)
				if seen[k] {
					tb.uniqueNames = false
				}
				seen[k] = true
			}
		}
		m.tables = append(m.tables, tb)
		m.byName[t.Name] = tb
	}
	for _, tb := range m.tables {
		for _, fk := range tb.t.FKs {
			to := m.byName[fk.RefTable]
			if to == nil {
				return nil, fmt.Errorf("table %s: foreign key %s references unknown table %s", tb.t.Name, fk.Column, fk.RefTable)
			}
			fc, _ := colByName(tb.t, fk.Column)
			if fc == nil {
				return nil, fmt.Errorf("table %s: foreign key column %s missing", tb.t.Name, fk.Column)
			}
			self := to == tb
			tb.edges = append(tb.edges, &edge{from: tb, to: to, fromCol: fk.Column, toCol: fk.RefColumn, fk: fk, fkCol: fc, forward: true, self: self})
			if !self {
				to.edges = append(to.edges, &edge{from: to, to: tb, fromCol: fk.RefColumn, toCol: fk.Column, fk: fk, fkCol: fc})
			}
		}
	}
	for _, tb := range m.tables {
		n := map[string]int{}
		for _, e := range tb.edges {
			n[fmt.Sprint(e.to.t.Name, e.forward)]++
		}
		for _, e := range tb.edges {
			e.ambiguous = n[fmt.Sprint(e.to.t.Name, e.forward)] > 1
		}
	}
	return m, nil
}

func (c *col) initCat(t *schemagen.Table) {
	c.counts = map[string]int{}
	c.canonByRow = make([]string, len(t.Rows))
	ints, texts := 0, 0
	for ri, r := range t.Rows {
		switch v := r[c.i].(type) {
		case nil:
			c.nulls++
		case int64:
			ints++
			s := strconv.FormatInt(v, 10)
			c.counts[s]++
			c.canonByRow[ri] = s
		case string:
			texts++
			s := canon(v, c.dirtyText)
			if s == "" {
				continue
			}
			c.counts[s]++
			c.canonByRow[ri] = s
		default:
			c.kind = ""
			return
		}
	}
	if ints > 0 && texts > 0 {
		c.kind = "" // mixed storage: a literal of one type misses the other
		return
	}
	c.isInt = ints > 0
	for v := range c.counts {
		c.vals = append(c.vals, v)
	}
	sort.Strings(c.vals)
	if len(c.vals) < 2 {
		c.kind = ""
	}
}

// numStrip returns the characters to remove from a number stored as text
// in the given formats, or ok=false when a format cannot be read by
// removing characters (a decimal comma).
func numStrip(formats []string) (strip []string, ok bool) {
	set := map[string]bool{}
	for _, f := range formats {
		if i := strings.LastIndexAny(f, ".,"); i >= 0 && f[i] == ',' && len(f)-i-1 != 3 {
			return nil, false // decimal comma
		}
		if strings.Contains(f, ",") && strings.Contains(f, ".") && strings.LastIndex(f, ",") > strings.LastIndex(f, ".") {
			return nil, false
		}
		for _, r := range f {
			if (r >= '0' && r <= '9') || r == '.' || r == '-' {
				continue
			}
			set[string(r)] = true
		}
	}
	for s := range set {
		strip = append(strip, s)
	}
	sort.Strings(strip)
	return strip, true
}

func stripNum(s string, strip []string) (float64, bool) {
	s = strings.TrimSpace(s)
	for _, x := range strip {
		s = strings.ReplaceAll(s, x, "")
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func (c *col) initNum(t *schemagen.Table) {
	c.numByRow = make([]float64, len(t.Rows))
	c.intNums = true
	for ri, r := range t.Rows {
		c.numByRow[ri] = math.NaN()
		switch v := r[c.i].(type) {
		case nil:
			c.nulls++
		case int64:
			c.nums = append(c.nums, float64(v))
			c.numByRow[ri] = float64(v)
		case float64:
			c.intNums = false
			c.nums = append(c.nums, v)
			c.numByRow[ri] = v
		case string:
			if !c.textNum {
				c.textNum = true
				strip, ok := numStrip(c.c.Formats)
				if !ok {
					c.kind = ""
					return
				}
				c.strip = strip
			}
			f, ok := stripNum(v, c.strip)
			if !ok {
				c.kind = ""
				return
			}
			if f != math.Trunc(f) {
				c.intNums = false
			}
			c.nums = append(c.nums, f)
			c.numByRow[ri] = f
		}
	}
	sort.Float64s(c.nums)
	if len(c.nums) < 4 || c.nums[0] == c.nums[len(c.nums)-1] {
		c.kind = ""
	}
}

// layoutOf reads a Go time layout as positions for substr, or ok=false
// for layouts a fixed-position read cannot handle (month names, no
// zero padding).
func layoutOf(l string) (dateLayout, bool) {
	y := strings.Index(l, "2006")
	m := strings.Index(l, "01")
	if y < 0 || m < 0 || strings.Contains(l, "Jan") || strings.Contains(l, "_2") {
		return dateLayout{}, false
	}
	var p strings.Builder
	for _, r := range l {
		if r >= '0' && r <= '9' {
			p.WriteByte('_')
		} else {
			if r == '%' || r == '_' {
				return dateLayout{}, false
			}
			p.WriteRune(r)
		}
	}
	return dateLayout{layout: l, pattern: p.String(), y: y + 1, m: m + 1}, true
}

func (c *col) initDate(t *schemagen.Table) {
	formats := c.c.Formats
	if len(formats) == 0 {
		formats = []string{"2006-01-02"}
	}
	seenPat := map[string]bool{}
	for _, f := range formats {
		l, ok := layoutOf(f)
		if !ok || seenPat[l.pattern] {
			c.kind = "" // two formats look alike: no gold can tell them apart
			return
		}
		seenPat[l.pattern] = true
		c.layouts = append(c.layouts, l)
	}
	ys, ms := map[string]bool{}, map[string]bool{}
	c.dateByRow = make([]string, len(t.Rows))
	for ri, r := range t.Rows {
		v, isStr := r[c.i].(string)
		if r[c.i] == nil {
			c.nulls++
			continue
		}
		if !isStr {
			c.kind = ""
			return
		}
		found := false
		for _, l := range c.layouts {
			if likeMatch(l.pattern, v, len(c.layouts) == 1) {
				y, mo := v[l.y-1:l.y+3], v[l.m-1:l.m+1]
				ys[y], ms[y+"-"+mo] = true, true
				c.dateByRow[ri] = y + "-" + mo
				found = true
				break
			}
		}
		if !found {
			c.kind = "" // a value in no known format: avoid the column
			return
		}
	}
	for y := range ys {
		c.years = append(c.years, y)
	}
	for m := range ms {
		c.months = append(c.months, m)
	}
	sort.Strings(c.years)
	sort.Strings(c.months)
	if len(c.years) == 0 {
		c.kind = ""
	}
}

// likeMatch matches a pattern of '_' and literal separators. With prefix,
// the value may continue (a datetime in a date layout).
func likeMatch(p, v string, prefix bool) bool {
	if len(v) < len(p) || (!prefix && len(v) != len(p)) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '_' {
			if v[i] < '0' || v[i] > '9' {
				return false
			}
		} else if p[i] != v[i] {
			return false
		}
	}
	return true
}

func (c *col) initText(t *schemagen.Table) {
	c.textByRow = make([]string, len(t.Rows))
	wc := map[string]int{}
	for ri, r := range t.Rows {
		v, ok := r[c.i].(string)
		if r[c.i] == nil {
			c.nulls++
			continue
		}
		if !ok {
			c.kind = ""
			return
		}
		c.textByRow[ri] = v
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
			return !(r >= 'a' && r <= 'z')
		}) {
			if len(w) >= 4 && !seen[w] {
				seen[w] = true
				wc[w]++
			}
		}
	}
	n := len(t.Rows) - c.nulls
	for w, k := range wc {
		if k >= 1 && k <= n/3 {
			c.words = append(c.words, w)
		}
	}
	sort.Strings(c.words)
}

// ident quotes a name when SQLite would not read it bare.
func ident(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			ok = false
		}
	}
	if ok && !keywords[strings.ToLower(s)] {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`abort action add after all alter analyze and as asc attach autoincrement before begin between by cascade case cast check collate column commit conflict constraint create cross current current_date current_time current_timestamp database default deferrable deferred delete desc detach distinct do drop each else end escape except exclude exists explain fail filter first following for foreign from full glob group groups having if ignore immediate in index indexed initially inner insert instead intersect into is isnull join key last left like limit match natural no not nothing notnull null nulls of offset on or order others outer over partition plan pragma preceding primary query raise range recursive references regexp reindex release rename replace restrict right rollback row rows savepoint select set table temp temporary then ties to transaction trigger unbounded union unique update using vacuum values view virtual when where window with without`) {
		keywords[k] = true
	}
}

func (c *col) ref(a string) string { return a + "." + ident(c.c.Name) }

// catExpr reads a category for comparison and grouping.
func (c *col) catExpr(a string) string {
	if c.dirtyText {
		return "LOWER(TRIM(" + c.ref(a) + "))"
	}
	return c.ref(a)
}

// catLit is a canonical category value as an SQL literal.
func (c *col) catLit(v string) string {
	if c.isInt {
		return v
	}
	return sqlString(v)
}

// numExpr reads a number, casting one stored as text.
func (c *col) numExpr(a string) string {
	if !c.textNum {
		return c.ref(a)
	}
	e := "TRIM(" + c.ref(a) + ")"
	for _, s := range c.strip {
		e = "REPLACE(" + e + ", " + sqlString(s) + ", '')"
	}
	return "CAST(" + e + " AS REAL)"
}

// yearExpr and monthExpr read a date's year ("2021") and month
// ("2021-03") in every stored format.
func (c *col) yearExpr(a string) string  { return c.datePart(a, false) }
func (c *col) monthExpr(a string) string { return c.datePart(a, true) }

func (c *col) datePart(a string, month bool) string {
	r := c.ref(a)
	if len(c.layouts) == 1 && c.layouts[0].y == 1 && c.layouts[0].m == 6 && c.c.Type != "TEXT" {
		if month {
			return "strftime('%Y-%m', " + r + ")"
		}
		return "strftime('%Y', " + r + ")"
	}
	part := func(l dateLayout) string {
		s := fmt.Sprintf("substr(%s, %d, 4)", r, l.y)
		if month {
			s += fmt.Sprintf(" || '-' || substr(%s, %d, 2)", r, l.m)
		}
		return s
	}
	if len(c.layouts) == 1 {
		return part(c.layouts[0])
	}
	var b strings.Builder
	b.WriteString("CASE")
	for _, l := range c.layouts {
		fmt.Fprintf(&b, " WHEN %s LIKE '%s' THEN %s", r, l.pattern+"%", part(l))
	}
	b.WriteString(" END")
	return b.String()
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// meaning is how a canonical category value is spoken of: a code's
// meaning, else the value itself.
func (c *col) meaning(v string) string {
	for k, m := range c.c.Codes {
		if canon(k, c.dirtyText) == v {
			return m
		}
	}
	return v
}
