package schemagen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
)

// Limits of one database design (issue 11: BIRD dev averages 6.8 tables
// and 72.5 columns).
const (
	MinTables, MaxTables   = 6, 15
	MinColumns, MaxColumns = 40, 150
)

// Domains lists the vocabulary's domains in a stable (sorted) order.
func Domains() []string {
	v, err := loadVocab()
	if err != nil {
		return nil
	}
	out := make([]string, len(v))
	for i, d := range v {
		out[i] = d.name
	}
	return out
}

// VocabSize is how much of a domain's vocabulary exists to draw from, for
// the benchmark's report: a design uses a sample of it.
type VocabSize struct {
	Domain, Title                   string
	Tables, OptionalTables, Columns int
	Relations                       int // foreign keys, self references included
}

// Vocabulary reports every domain's size, in Domains' order.
func Vocabulary() ([]VocabSize, error) {
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	var out []VocabSize
	for _, d := range v {
		s := VocabSize{Domain: d.name, Title: d.title, Tables: len(d.tables)}
		for _, t := range d.tables {
			if t.optional {
				s.OptionalTables++
			}
			s.Columns += len(t.attrs)
			if t.kind != KindLink {
				s.Columns++
			}
			for _, a := range t.attrs {
				if a.kind == "ref" {
					s.Relations++
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func domainSpecByName(name string) (*domainSpec, error) {
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	for _, d := range v {
		if d.name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("schemagen: unknown domain %q", name)
}

// newRand returns the generator of one purpose of one database, so that
// designs can be drawn in any order and on any number of cores.
func newRand(domain string, seed uint64, purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(domain + "/" + purpose))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Design draws database seed of domain: its tables and columns, names,
// descriptions, dirt and rows. ID is "<domain>_<seed>"; the caller may
// rename it before writing.
func Design(domain string, seed uint64) (*DB, error) {
	d, err := domainSpecByName(domain)
	if err != nil {
		return nil, err
	}
	r := newRand(domain, seed, "design")
	tables, attrs := choose(d, r)
	db := &DB{ID: fmt.Sprintf("%s_%d", domain, seed), Domain: domain}
	nm := newNamer(r)
	byName := map[string]*Table{}
	for _, ts := range tables {
		t := &Table{Kind: ts.kind, Noun: Noun{One: strings.ReplaceAll(ts.name, "_", " "), Many: strings.ReplaceAll(ts.plural, "_", " ")}, spec: ts}
		t.Name = nm.table(ts)
		t.Description = ts.desc
		if t.Description == "" {
			t.Description = "One row per " + t.Noun.One + "."
		}
		byName[ts.name] = t
		db.Tables = append(db.Tables, t)
	}
	for _, t := range db.Tables {
		ts := t.spec
		if ts.kind != KindLink {
			id := &Column{Name: nm.idName(ts), Phrase: t.Noun.One + " id", Type: "INTEGER", Role: RoleID,
				Description: "Unique identifier of the " + t.Noun.One + "."}
			id.Abbreviated = id.Name != "id" && id.Name != ts.name+"_id"
			if id.Abbreviated {
				id.Description = "Unique identifier of the " + t.Noun.One + " (" + id.Name + " abbreviates " + id.Phrase + ")."
			}
			t.Columns = append(t.Columns, id)
			t.PK = []string{id.Name}
		}
		used := map[string]bool{}
		for _, c := range t.Columns {
			used[c.Name] = true
		}
		for _, a := range attrs[ts] {
			c := newColumn(t, a, byName)
			c.Name = nm.column(ts, a, used)
			used[c.Name] = true
			c.Abbreviated = c.Name != a.name
			if c.Abbreviated {
				c.Description = strings.TrimSuffix(c.Description, ".") + " (" + c.Name + " abbreviates " + c.Phrase + ")."
			}
			t.Columns = append(t.Columns, c)
		}
		if ts.kind == KindLink {
			for _, c := range t.Columns {
				if c.Role == RoleFK && !c.spec.optional {
					t.PK = append(t.PK, c.Name)
				}
			}
		}
	}
	// Foreign keys name the referenced table's key, known once every table is named.
	for _, t := range db.Tables {
		for _, c := range t.Columns {
			if c.Role != RoleFK {
				continue
			}
			rt := byName[c.spec.ref]
			t.FKs = append(t.FKs, FK{Column: c.Name, RefTable: rt.Name, RefColumn: rt.PK[0], Phrase: strings.Join(c.spec.args[1:], " ")})
			c.Description = fmt.Sprintf("The %s this %s is %s; references %s.%s.", rt.Noun.One, t.Noun.One, strings.Join(c.spec.args[1:], " "), rt.Name, rt.PK[0])
			if c.Abbreviated {
				c.Description = strings.TrimSuffix(c.Description, ".") + " (" + c.Name + " abbreviates " + c.Phrase + ")."
			}
			c.refTable = rt
		}
	}
	if err := fill(db, newRand(domain, seed, "data"), newRand(domain, seed, "dirt")); err != nil {
		return nil, fmt.Errorf("design %s: %w", db.ID, err)
	}
	return db, nil
}

func newColumn(t *Table, a *attrSpec, byName map[string]*Table) *Column {
	c := &Column{Role: a.role(), spec: a, Unit: a.unit, Bookkeeping: a.bookkeeping}
	c.Phrase = a.phrase
	if c.Phrase == "" {
		c.Phrase = strings.ReplaceAll(strings.TrimSuffix(a.name, "_id"), "_", " ")
	}
	c.Description = "The " + c.Phrase + " of the " + t.Noun.One + "."
	switch c.Role {
	case RoleID, RoleFK, RoleCount:
		c.Type = "INTEGER"
	case RoleMeasure:
		c.Type = "REAL"
		c.Description = "The " + c.Phrase + " of the " + t.Noun.One + ", in " + a.unit + "."
		c.ValueDescription = "unit: " + a.unit
	case RoleFlag:
		c.Description = "Whether the " + t.Noun.One + " is marked " + c.Phrase + "."
	case RoleDate:
		c.Type = "DATE"
		c.Formats = []string{FormatISODate}
	default:
		c.Type = "TEXT"
	}
	return c
}

// choose samples a domain's optional tables and columns, keeping each
// design within the table and column limits.
func choose(d *domainSpec, r *rand.Rand) ([]*tableSpec, map[*tableSpec][]*attrSpec) {
	in := map[*tableSpec]bool{}
	for _, t := range d.tables {
		in[t] = !t.optional || r.Float64() < 0.65
	}
	byName := map[string]*tableSpec{}
	for _, t := range d.tables {
		byName[t.name] = t
	}
	closure := func() {
		for changed := true; changed; {
			changed = false
			for _, t := range d.tables {
				if !in[t] {
					continue
				}
				for _, a := range t.attrs {
					if a.kind == "ref" && !a.optional && !in[byName[a.ref]] {
						in[byName[a.ref]], changed = true, true
					}
				}
			}
		}
	}
	closure()
	count := func() int {
		n := 0
		for _, t := range d.tables {
			if in[t] {
				n++
			}
		}
		return n
	}
	// Too many: drop optional tables nothing included requires, last first.
	for i := len(d.tables) - 1; i >= 0 && count() > MaxTables; i-- {
		t := d.tables[i]
		if in[t] && t.optional && !required(d, in, t) {
			in[t] = false
		}
	}
	opt := []*tableSpec{}
	for _, t := range d.tables {
		if t.optional && !in[t] {
			opt = append(opt, t)
		}
	}
	r.Shuffle(len(opt), func(i, j int) { opt[i], opt[j] = opt[j], opt[i] })
	for len(opt) > 0 && count() < MinTables {
		in[opt[0]], opt = true, opt[1:]
		closure()
	}
	for {
		tables, attrs, cols := chooseAttrs(d, r, in, byName)
		if cols >= MinColumns || len(opt) == 0 || len(tables) >= MaxTables {
			return tables, attrs
		}
		in[opt[0]], opt = true, opt[1:]
		closure()
	}
}

// chooseAttrs samples the optional columns of the chosen tables.
func chooseAttrs(d *domainSpec, r *rand.Rand, in map[*tableSpec]bool, byName map[string]*tableSpec) ([]*tableSpec, map[*tableSpec][]*attrSpec, int) {
	attrs := map[*tableSpec][]*attrSpec{}
	var optAttrs []*attrSpec
	// Databases differ in how much of the vocabulary they keep: some are
	// lean, some carry every optional column.
	keepP, bookP := 0.7+0.3*r.Float64(), 0.3+0.6*r.Float64()
	owner := map[*attrSpec]*tableSpec{}
	keep := map[*attrSpec]bool{}
	cols := 0
	for _, t := range d.tables {
		if !in[t] {
			continue
		}
		if t.kind != KindLink {
			cols++
		}
		for _, a := range t.attrs {
			if a.kind == "ref" && !in[byName[a.ref]] {
				continue
			}
			owner[a] = t
			if !a.optional {
				keep[a] = true
				cols++
			} else if p := keepP; (a.bookkeeping && r.Float64() < bookP) || (!a.bookkeeping && r.Float64() < p) {
				keep[a] = true
				cols++
				optAttrs = append(optAttrs, a)
			} else {
				optAttrs = append(optAttrs, a)
			}
		}
	}
	r.Shuffle(len(optAttrs), func(i, j int) { optAttrs[i], optAttrs[j] = optAttrs[j], optAttrs[i] })
	for _, a := range optAttrs {
		if cols < MinColumns && !keep[a] {
			keep[a] = true
			cols++
		}
		if cols > MaxColumns && keep[a] && !dependedOn(owner[a], a) {
			keep[a] = false
			cols--
		}
	}
	var tables []*tableSpec
	for _, t := range d.tables {
		if !in[t] {
			continue
		}
		tables = append(tables, t)
		for _, a := range t.attrs {
			if keep[a] {
				attrs[t] = append(attrs[t], a)
			}
		}
	}
	return tables, attrs, cols
}

// dependedOn says whether an "after" column of t is computed from a.
func dependedOn(t *tableSpec, a *attrSpec) bool {
	for _, b := range t.attrs {
		if b.kind == "after" && b.ref == a.name {
			return true
		}
	}
	return false
}

// required says whether an included table refers to t by a required key.
func required(d *domainSpec, in map[*tableSpec]bool, t *tableSpec) bool {
	for _, u := range d.tables {
		if !in[u] || u == t {
			continue
		}
		for _, a := range u.attrs {
			if a.kind == "ref" && !a.optional && a.ref == t.name {
				return true
			}
		}
	}
	return false
}

// namer decides one database's naming style: how often names are
// abbreviated, whether keys are "id" or "<table>_id", whether abbreviated
// columns carry their table's prefix (pt_adm_dt).
type namer struct {
	r                  *rand.Rand
	colRate, tableRate float64
	plainID, prefix    bool
}

func newNamer(r *rand.Rand) *namer {
	rates := []float64{0.05, 0.15, 0.25, 0.4}
	n := &namer{r: r, colRate: rates[r.IntN(len(rates))], plainID: r.Float64() < 0.3, prefix: r.Float64() < 0.35}
	n.tableRate = n.colRate / 2
	return n
}

// abbrevWord shortens one word: from the dictionary, or by dropping inner
// vowels ("region" -> "rgn").
func abbrevWord(w string) string {
	if a, ok := abbrevs[w]; ok {
		return a
	}
	if len(w) <= 4 {
		return w
	}
	var b strings.Builder
	b.WriteByte(w[0])
	for i := 1; i < len(w) && b.Len() < 4; i++ {
		if !strings.ContainsRune("aeiou", rune(w[i])) && w[i] != w[i-1] {
			b.WriteByte(w[i])
		}
	}
	return b.String()
}

func abbrevName(s string) string {
	ws := strings.Split(s, "_")
	for i, w := range ws {
		ws[i] = abbrevWord(w)
	}
	return strings.Join(ws, "_")
}

func (n *namer) tableAbbr(t *tableSpec) string {
	if t.abbr != "" {
		return t.abbr
	}
	return abbrevName(t.name)
}

func (n *namer) table(t *tableSpec) string {
	if n.r.Float64() < n.tableRate {
		if a := n.tableAbbr(t); !reserved[a] && a != t.name {
			return a
		}
	}
	return t.name
}

func (n *namer) idName(t *tableSpec) string {
	switch {
	case n.plainID:
		return "id"
	case n.r.Float64() < n.colRate:
		return n.tableAbbr(t) + "_id"
	}
	return t.name + "_id"
}

func (n *namer) column(t *tableSpec, a *attrSpec, used map[string]bool) string {
	name := a.name
	if n.r.Float64() < n.colRate {
		ab := abbrevName(a.name)
		if a.kind == "money" && n.r.Float64() < 0.5 {
			ab += "_usd"
		}
		if n.prefix && a.kind != "ref" {
			ab = n.tableAbbr(t) + "_" + ab
		}
		if !used[ab] && !reserved[ab] {
			name = ab
		}
	}
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s_%d", a.name, i)
	}
	return name
}

// reserved are SQL keywords a generated name must not be.
var reserved = map[string]bool{"order": true, "group": true, "table": true, "index": true, "check": true, "default": true,
	"references": true, "transaction": true, "select": true, "from": true, "where": true, "by": true, "to": true, "in": true,
	"is": true, "as": true, "on": true, "and": true, "or": true, "not": true, "end": true, "case": true, "when": true,
	"limit": true, "offset": true, "union": true, "values": true, "set": true, "primary": true, "key": true, "desc": true, "asc": true}

// sortedKeys returns m's keys sorted, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
