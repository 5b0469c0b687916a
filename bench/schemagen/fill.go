package schemagen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxRows bounds a database's rows so that its file stays well under 1 MB.
const maxRows = 4500

// zipf draws indexes 0..n-1 with weight 1/(i+1)^s: real data is skewed,
// and skew gives "which X has the most Y" a single answer.
type zipf struct{ cum []float64 }

func newZipf(n int, s float64) *zipf {
	z := &zipf{cum: make([]float64, n)}
	t := 0.0
	for i := range n {
		t += 1 / math.Pow(float64(i+1), s)
		z.cum[i] = t
	}
	return z
}

func (z *zipf) draw(r *rand.Rand) int {
	x := r.Float64() * z.cum[len(z.cum)-1]
	return sort.SearchFloat64s(z.cum, x)
}

// order returns tables so that every referenced table comes first.
func order(db *DB) []*Table {
	done := map[*Table]bool{}
	var out []*Table
	var visit func(t *Table)
	visit = func(t *Table) {
		if done[t] {
			return
		}
		done[t] = true
		for _, c := range t.Columns {
			if c.refTable != nil && c.refTable != t && !c.spec.optional {
				visit(c.refTable)
			}
		}
		out = append(out, t)
	}
	for _, t := range db.Tables {
		visit(t)
	}
	return out
}

// rowCtx ties one row's values together: first name and sex, city and
// state, a category and the measures it scales.
type rowCtx struct {
	sex         int // -1 unknown, 0 female, 1 male
	first, last string
	place       int
	cat         int
	dates       map[string]time.Time
}

// colGen is one column's drawing state.
type colGen struct {
	z      *zipf
	perm   []int
	p      float64
	parent *zipf // FK: skew over parent rows
	pperm  []int
	style  int
}

func poolOf(c *Column) int {
	a := c.spec
	if a == nil {
		return 0
	}
	switch a.kind {
	case "cat", "code", "text", "sex":
		return len(a.pool)
	case "city", "state":
		return len(places)
	case "name":
		if len(a.args) == 0 {
			return len(a.pool)
		}
	}
	return 0
}

func fill(db *DB, r, dr *rand.Rand) error {
	tables := order(db)
	rows := map[*Table]int{}
	total := 0
	for _, t := range tables {
		ts := t.spec
		n := int(float64(ts.rows) * (0.65 + 0.7*r.Float64()))
		if ts.kind == KindLookup {
			n = max(n, 3)
		} else {
			n = max(n, 20)
		}
		for _, c := range t.Columns {
			if c.Role == RoleName && c.spec.kind == "name" && len(c.spec.args) == 0 {
				n = min(n, len(c.spec.pool))
			}
		}
		rows[t] = n
		total += n
	}
	if total > maxRows {
		f := float64(maxRows) / float64(total)
		for _, t := range tables {
			if t.Kind != KindLookup {
				rows[t] = max(20, int(float64(rows[t])*f))
			}
		}
	}
	for _, t := range tables {
		if t.Kind == KindLink {
			prod := 1
			for _, c := range t.Columns {
				if c.Role == RoleFK && !c.spec.optional {
					prod *= len(c.refTable.Rows)
				}
			}
			rows[t] = min(rows[t], prod/2)
		}
		if err := fillTable(t, rows[t], r); err != nil {
			return fmt.Errorf("fill %s: %w", t.Name, err)
		}
	}
	fillDeferred(db, r)
	dirty(db, dr)
	for _, t := range db.Tables {
		describeValues(t)
	}
	return nil
}

func fillTable(t *Table, n int, r *rand.Rand) error {
	gens := make([]*colGen, len(t.Columns))
	catFactor := make([]float64, 64)
	for i := range catFactor {
		catFactor[i] = 0.6 + r.Float64()
	}
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[c.Name] = i
		g := &colGen{}
		if k := poolOf(c); k > 0 {
			g.z = newZipf(k, 0.3+r.Float64()*0.9)
			g.perm = r.Perm(k)
		}
		switch c.Role {
		case RoleFK:
			if c.refTable != t && len(c.refTable.Rows) > 0 {
				k := len(c.refTable.Rows)
				g.parent = newZipf(k, 0.2+r.Float64()*0.7)
				g.pperm = r.Perm(k)
			}
			g.p = 0.1 + 0.2*r.Float64() // self reference: share of roots
		case RoleFlag:
			g.p = 0.1 + 0.6*r.Float64()
			g.style = r.IntN(4)
		case RoleCode:
			if c.spec.kind == "sex" && r.Float64() < 0.3 {
				g.style = 1
			}
		}
		gens[i] = g
	}
	setCodes(t, gens)
	seenName := map[int]map[string]bool{}
	seenPair := map[string]bool{}
	var linkCols []int
	for i, c := range t.Columns {
		if t.Kind == KindLink && c.Role == RoleFK && !c.spec.optional {
			linkCols = append(linkCols, i)
		}
	}
	for row := 0; row < n; row++ {
		ctx := &rowCtx{sex: -1, place: -1, cat: -1, dates: map[string]time.Time{}}
		vals := make([]any, len(t.Columns))
		if len(linkCols) == 2 {
			ok := false
			for try := 0; try < 50 && !ok; try++ {
				a, b := drawParent(gens[linkCols[0]], r), drawParent(gens[linkCols[1]], r)
				key := fmt.Sprint(a, "/", b)
				if !seenPair[key] {
					seenPair[key] = true
					vals[linkCols[0]], vals[linkCols[1]] = a, b
					ok = true
				}
			}
			if !ok {
				break
			}
		}
		for i, c := range t.Columns {
			if vals[i] != nil {
				continue
			}
			v, err := draw(t, c, gens[i], ctx, row, r, catFactor, seenName, i, seenPair)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		t.Rows = append(t.Rows, vals)
	}
	if len(t.Rows) == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

// fillDeferred fills optional keys into tables filled after their own
// (department.chair_id -> faculty, faculty.department_id -> department).
func fillDeferred(db *DB, r *rand.Rand) {
	for _, t := range db.Tables {
		for i, c := range t.Columns {
			if c.Role != RoleFK || c.refTable == t {
				continue
			}
			empty := true
			for _, row := range t.Rows {
				empty = empty && row[i] == nil
			}
			if !empty {
				continue
			}
			k := len(c.refTable.Rows)
			g := &colGen{parent: newZipf(k, 0.2+r.Float64()*0.7), pperm: r.Perm(k)}
			for _, row := range t.Rows {
				row[i] = drawParent(g, r)
			}
		}
	}
}

func drawParent(g *colGen, r *rand.Rand) int64 {
	return int64(g.pperm[g.parent.draw(r)] + 1)
}

// setCodes fills Codes and the value descriptions that list them.
func setCodes(t *Table, gens []*colGen) {
	for i, c := range t.Columns {
		a := c.spec
		switch {
		case c.Role == RoleFlag:
			yes, no := flagStyles[gens[i].style][0], flagStyles[gens[i].style][1]
			c.Codes = map[string]string{yes: "yes", no: "no"}
			c.ValueDescription = fmt.Sprintf("%s: yes, %s; %s: no", yes, c.Phrase, no)
			// Letter flags are text: without a declared type the DDL and
			// the description's data_format were empty.
			c.Type = "TEXT"
			if gens[i].style == 0 {
				c.Type = "INTEGER"
			}
		case a != nil && a.kind == "sex":
			if gens[i].style == 1 {
				c.Type = "INTEGER"
				c.Codes = map[string]string{"1": "male", "2": "female"}
				c.ValueDescription = "1: male; 2: female"
			} else {
				c.Codes = map[string]string{"F": "female", "M": "male"}
				c.ValueDescription = "F: female; M: male"
			}
		case a != nil && a.kind == "code":
			c.Codes = map[string]string{}
			var parts []string
			allInt := true
			for j, k := range a.pool {
				c.Codes[k] = a.meanings[j]
				parts = append(parts, k+": "+a.meanings[j])
				if _, err := strconv.Atoi(k); err != nil {
					allInt = false
				}
			}
			if allInt {
				c.Type = "INTEGER"
			}
			c.ValueDescription = strings.Join(parts, "; ")
		case a != nil && a.kind == "state":
			c.Codes = map[string]string{}
			c.ValueDescription = "two-letter US state code"
		}
	}
}

var flagStyles = [][2]string{{"1", "0"}, {"Y", "N"}, {"T", "F"}, {"yes", "no"}}

func (ctx *rowCtx) pickSex(r *rand.Rand) int {
	if ctx.sex < 0 {
		ctx.sex = r.IntN(2)
	}
	return ctx.sex
}

func (ctx *rowCtx) pickPlace(g *colGen, r *rand.Rand) place {
	if ctx.place < 0 {
		ctx.place = g.perm[g.z.draw(r)]
	}
	return places[ctx.place]
}

func (ctx *rowCtx) pickPerson(r *rand.Rand, seen map[string]bool) {
	if ctx.first != "" {
		return
	}
	for try := 0; ; try++ {
		names := firstNamesF
		if ctx.pickSex(r) == 1 {
			names = firstNamesM
		}
		f, l := names[r.IntN(len(names))], lastNames[r.IntN(len(lastNames))]
		if !seen[f+" "+l] || try > 100 {
			seen[f+" "+l] = true
			ctx.first, ctx.last = f, l
			return
		}
	}
}

func draw(t *Table, c *Column, g *colGen, ctx *rowCtx, row int, r *rand.Rand, catFactor []float64, seenName map[int]map[string]bool, col int, seenPair map[string]bool) (any, error) {
	a := c.spec
	if c.Role == RoleID {
		return int64(row + 1), nil
	}
	switch a.kind {
	case "ref":
		if c.refTable == t {
			if row == 0 || r.Float64() < g.p {
				return nil, nil
			}
			return int64(r.IntN(max(1, row/3)) + 1), nil
		}
		if g.parent == nil {
			return nil, nil // filled by fillDeferred once the parent is
		}
		return drawParent(g, r), nil
	case "name":
		if seenName[col] == nil {
			seenName[col] = map[string]bool{}
		}
		seen := seenName[col]
		if len(a.args) == 0 {
			// A pool: every row takes the next unused value, most common first.
			for _, i := range g.perm {
				if !seen[a.pool[i]] {
					seen[a.pool[i]] = true
					return a.pool[i], nil
				}
			}
			return nil, fmt.Errorf("column %s: pool exhausted", c.Name)
		}
		switch a.args[1] {
		case "first":
			ctx.pickPerson(r, seenPair)
			return ctx.first, nil
		case "last":
			ctx.pickPerson(r, seenPair)
			return ctx.last, nil
		}
		for try := 0; ; try++ {
			var s string
			switch a.args[1] {
			case "company":
				s = companyStems[r.IntN(len(companyStems))] + " " + companySuffixes[r.IntN(len(companySuffixes))]
			case "person":
				names := firstNamesF
				if r.IntN(2) == 1 {
					names = firstNamesM
				}
				s = names[r.IntN(len(names))] + " " + lastNames[r.IntN(len(lastNames))]
			case "title":
				s = a.pool[r.IntN(len(a.pool))] + " " + a.pool2[r.IntN(len(a.pool2))]
			case "serial":
				s = fmt.Sprintf("%s%04d", a.args[2], 100+r.IntN(9900))
			}
			if try > 30 {
				s = fmt.Sprintf("%s %d", s, try)
			}
			if !seen[s] {
				seen[s] = true
				return s, nil
			}
		}
	case "text":
		switch a.args[0] {
		case "email":
			ctx.pickPerson(r, seenPair)
			doms := []string{"example.com", "mail.example.org", "example.net"}
			return strings.ToLower(ctx.first+"."+ctx.last) + fmt.Sprint(r.IntN(90)+10) + "@" + doms[r.IntN(len(doms))], nil
		case "phone":
			return fmt.Sprintf(phoneFormats[row%len(phoneFormats)], 200+r.IntN(700), 200+r.IntN(700), r.IntN(10000)), nil
		}
		return a.pool[g.perm[g.z.draw(r)]], nil
	case "cat":
		i := g.perm[g.z.draw(r)]
		if ctx.cat < 0 {
			ctx.cat = i
		}
		return a.pool[i], nil
	case "code":
		k := a.pool[g.perm[g.z.draw(r)]]
		if c.Type == "INTEGER" {
			n, _ := strconv.Atoi(k)
			return int64(n), nil
		}
		return k, nil
	case "sex":
		s := ctx.pickSex(r)
		if g.style == 1 {
			return int64(2 - s), nil
		}
		return []string{"F", "M"}[s], nil
	case "city":
		return ctx.pickPlace(g, r).city, nil
	case "state":
		st := ctx.pickPlace(g, r).state
		c.Codes[st] = stateNames[st]
		return st, nil
	case "money", "measure":
		lo, hi := a.lo, a.hi
		var v float64
		if a.kind == "money" {
			lo = math.Max(lo, 1)
			v = math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*math.Pow(r.Float64(), 1.3))
		} else {
			v = lo + (hi-lo)*(r.Float64()+r.Float64())/2
		}
		if ctx.cat >= 0 {
			v = math.Min(hi, math.Max(lo, v*catFactor[ctx.cat%len(catFactor)]))
		}
		return math.Round(v*100) / 100, nil
	case "count":
		return int64(a.lo) + int64(float64(int64(a.hi)-int64(a.lo)+1)*math.Pow(r.Float64(), 1.7)), nil
	case "date":
		start := time.Date(int(a.lo), 1, 1, 0, 0, 0, 0, time.UTC)
		end := time.Date(int(a.hi), 12, 31, 0, 0, 0, 0, time.UTC)
		d := start.AddDate(0, 0, r.IntN(int(end.Sub(start).Hours()/24)+1))
		ctx.dates[a.name] = d
		return d.Format(FormatISODate), nil
	case "after":
		base, ok := ctx.dates[a.ref]
		if !ok {
			return nil, nil
		}
		d := base.AddDate(0, 0, int(a.lo)+r.IntN(int(a.hi-a.lo)+1))
		ctx.dates[a.name] = d
		return d.Format(FormatISODate), nil
	case "flag":
		v := flagStyles[g.style][1]
		if r.Float64() < g.p {
			v = flagStyles[g.style][0]
		}
		if g.style == 0 {
			n, _ := strconv.Atoi(v)
			return int64(n), nil
		}
		return v, nil
	}
	return nil, fmt.Errorf("column %s: kind %s", c.Name, a.kind)
}

// describeValues records what a filled column holds: its categories by
// frequency and its share of NULLs.
func describeValues(t *Table) {
	for i, c := range t.Columns {
		nulls := 0
		counts := map[string]int{}
		for _, row := range t.Rows {
			if row[i] == nil {
				nulls++
			} else if c.Role == RoleCategory {
				counts[canonical(row[i].(string))]++
			}
		}
		c.NullShare = float64(nulls) / float64(len(t.Rows))
		if c.Role == RoleCategory {
			vals := sortedKeys(counts)
			// The canonical spelling is the pool's, not a dirty variant.
			canon := map[string]string{}
			pool := c.spec.pool
			if c.spec.kind == "city" {
				pool = nil
				for _, p := range places {
					pool = append(pool, p.city)
				}
			}
			for _, p := range pool {
				canon[strings.ToLower(p)] = p
			}
			sort.SliceStable(vals, func(a, b int) bool { return counts[vals[a]] > counts[vals[b]] })
			c.Values = nil
			for _, v := range vals {
				c.Values = append(c.Values, canon[v])
			}
		}
		if c.NullShare > 0 {
			if c.ValueDescription != "" {
				c.ValueDescription += "; "
			}
			c.ValueDescription += "NULL when not recorded"
		}
	}
}

// canonical undoes case and whitespace dirt.
func canonical(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
