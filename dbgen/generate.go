package dbgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Question is one verified question with its gold.
type Question struct {
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
	Difficulty string `json:"difficulty"`
	// Family is the question family; Frame its sentence frame's number
	// within the family, HeldOut whether that frame is kept out of train.
	Family  string `json:"family"`
	Frame   int    `json:"frame"`
	HeldOut bool   `json:"held_out_frame,omitempty"`
	// Columns counts the gold's non-key columns the question refers to;
	// Verbatim how many of them it names by their label word for word
	// (outside the values it quotes).
	Columns  int `json:"-"`
	Verbatim int `json:"-"`
	// Filters counts the gold's WHERE conditions; Lookups those that are
	// = or IN on a word-valued literal (an entity lookup).
	Filters int `json:"-"`
	Lookups int `json:"-"`
}

// Options configure Generate.
type Options struct {
	// N is the number of questions over all splits.
	N    int
	Seed uint64
	// DevShare and TestShare are the shares of N for dev and test.
	DevShare, TestShare float64
	// Workers run candidates in parallel; 0 means GOMAXPROCS.
	Workers int
	// MaxAttempts bounds the candidates tried; 0 means 40 per question.
	MaxAttempts int
	Progress    progress.Func
}

// Splits are the generated questions by split.
type Splits struct {
	Train, Dev, Test []Question
	// Attempts is the number of candidates built; Rejected counts the
	// ones dropped, by reason.
	Attempts int
	Rejected map[string]int
	// Families counts the kept questions by family.
	Families map[string]int
}

// Generate builds o.N verified questions over d, each gold executed
// through eng and kept only when its answer passes the plausibility
// filters. The same database, options and seed give the same questions
// whatever the number of workers.
func Generate(ctx context.Context, eng sqlexec.Engine, d *Database, o Options) (*Splits, error) {
	if o.N <= 0 {
		return nil, fmt.Errorf("generate: want at least one question, got %d", o.N)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 40 * o.N
	}
	g, err := newGen(ctx, eng, d)
	if err != nil {
		return nil, fmt.Errorf("generate over %s: %w", d.Path, err)
	}
	if len(g.bases) == 0 {
		return nil, fmt.Errorf("generate over %s: no table has both rows and a column a question can name (every column is a key, free text, constant or NULL)", d.Path)
	}
	nDev := int(float64(o.N)*o.DevShare + 0.5)
	nTest := int(float64(o.N)*o.TestShare + 0.5)
	want := [3]int{o.N - nDev - nTest, nDev, nTest}
	out := &Splits{Rejected: map[string]int{}, Families: map[string]int{}}
	seenSQL, seenQ := map[string]bool{}, map[string]bool{}
	done := 0
	next := 0
	for done < o.N && next < o.MaxAttempts {
		batch := max(256, 2*(o.N-done))
		batch = min(batch, o.MaxAttempts-next)
		start := next
		res, err := parallel.Map(ctx, batch, o.Workers, func(ctx context.Context, i int) (attempt, error) {
			return g.attempt(ctx, eng, o.Seed, start+i, o.DevShare, o.TestShare)
		})
		if err != nil {
			return nil, fmt.Errorf("generate over %s: %w", d.Path, err)
		}
		next += batch
		for _, a := range res {
			out.Attempts++
			if a.q == nil {
				out.Rejected[a.reject]++
				continue
			}
			if done >= o.N {
				break
			}
			s := a.split
			if len(splitOf(out, s)) >= want[s] {
				out.Rejected["split full"]++
				continue
			}
			key := strings.ToLower(a.q.Question)
			if seenSQL[a.q.SQL] || seenQ[key] {
				out.Rejected["duplicate"]++
				continue
			}
			seenSQL[a.q.SQL], seenQ[key] = true, true
			switch s {
			case 0:
				out.Train = append(out.Train, *a.q)
			case 1:
				out.Dev = append(out.Dev, *a.q)
			default:
				out.Test = append(out.Test, *a.q)
			}
			out.Families[a.q.Family]++
			done++
		}
		o.Progress.Report(done, o.N)
	}
	if done == 0 {
		return nil, fmt.Errorf("generate over %s: no candidate passed the checks in %d attempts (rejected: %v)", d.Path, out.Attempts, out.Rejected)
	}
	return out, nil
}

// splitOf is split i of s: 0 train, 1 dev, 2 test.
func splitOf(s *Splits, i int) []Question {
	switch i {
	case 0:
		return s.Train
	case 1:
		return s.Dev
	}
	return s.Test
}

// attempt is one candidate's outcome.
type attempt struct {
	q      *Question
	split  int
	reject string
}

// gen holds what every candidate draws from.
type gen struct {
	d     *Database
	bases []*base
	total float64
}

// base is a table questions can be about, with what it reaches.
type base struct {
	t      *Table
	name   *Column // nil: no name column (a fact table)
	attrs  []attr
	weight float64
}

func newGen(ctx context.Context, eng sqlexec.Engine, d *Database) (*gen, error) {
	g := &gen{d: d}
	for _, t := range d.Tables {
		if t.Rows == 0 {
			continue
		}
		b := &base{t: t, name: nameColumn(t), attrs: attrs(d, t)}
		if len(b.attrs) == 0 || !subject(d, t, b.name) {
			continue
		}
		if err := joinedValues(ctx, eng, d, b); err != nil {
			return nil, err
		}
		// A table with many rows and much around it is what questions are
		// about; a lookup table of a handful of rows is reached by joins.
		b.weight = float64(len(b.attrs))
		if t.Rows < 10 {
			b.weight /= 4
		}
		g.bases = append(g.bases, b)
		g.total += b.weight
	}
	return g, nil
}

// maxJoinedAttrs bounds the joined attributes of one base whose values
// are counted (one query each), so that a wide schema stays quick.
const maxJoinedAttrs = 40

// joinedValues counts, for each filterable attribute a base reaches by a
// join, how many base rows hold each value: entity lookups then draw
// values that occur on the base's side, the frequent ones first, and
// never one that every base row holds.
func joinedValues(ctx context.Context, eng sqlexec.Engine, d *Database, b *base) error {
	n := 0
	for i := range b.attrs {
		a := &b.attrs[i]
		if len(a.path) == 0 || !filterable(*a) {
			continue
		}
		if n++; n > maxJoinedAttrs {
			a.top = []ValueCount{}
			continue
		}
		q := newQuery(b.t)
		ref := q.ref(*a)
		res, err := eng.Query(ctx, d.Path, "SELECT "+ref+", COUNT(*) "+q.from()+" WHERE "+ref+" IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 200")
		if err != nil {
			return fmt.Errorf("values of %s.%s from %s: %w", a.col.Table.Name, a.col.Name, b.t.Name, err)
		}
		a.top = []ValueCount{}
		for _, r := range res.Rows {
			if r[1].I < b.t.Rows || a.many() {
				a.top = append(a.top, ValueCount{r[0], r[1].I})
			}
		}
	}
	return nil
}

// subject reports whether questions can be about t's rows: a table with
// a name column that is more than a lookup list (a table others reference
// holding nothing but that name: colours, genders), or a table of records
// with at least two columns of its own to ask about (expenses with a date
// and a cost). A bridge of keys alone is only joined through.
func subject(d *Database, t *Table, name *Column) bool {
	own := 0
	for _, c := range t.Columns {
		if c.Role != RoleKey && c.Role != RoleBookkeeping && c.Role != RoleText {
			own++
		}
	}
	if name != nil {
		referenced := false
		for _, o := range d.Tables {
			for _, fk := range o.ForeignKeys {
				referenced = referenced || strings.EqualFold(fk.RefTable, t.Name) && o != t
			}
		}
		return own > 1 || !referenced
	}
	return own >= 2
}

func (g *gen) pickBase(r *rand.Rand) *base {
	x := r.Float64() * g.total
	for _, b := range g.bases {
		if x -= b.weight; x < 0 {
			return b
		}
	}
	return g.bases[len(g.bases)-1]
}

// attempt builds and verifies candidate i: its random stream depends on
// the seed and i only.
func (g *gen) attempt(ctx context.Context, eng sqlexec.Engine, seed uint64, i int, devShare, testShare float64) (attempt, error) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	split := 0
	if u := r.Float64(); u < devShare {
		split = 1
	} else if u < devShare+testShare {
		split = 2
	}
	f := pickFamily(r)
	b := g.pickBase(r)
	c := &cand{g: g, r: r, b: b, q: newQuery(b.t), family: f.name, split: split, maxRows: 1}
	if !f.build(c) {
		return attempt{reject: "no " + f.name + " over " + b.t.Name}, nil
	}
	if v := missingValue(c.sql, c.text, c.spoken); v != "" {
		// A frame that drops a filter's words would ask another question.
		return attempt{reject: f.name + ": value " + v + " not in the question"}, nil
	}
	reason, err := c.verify(ctx, eng)
	if err != nil {
		return attempt{}, err
	}
	if reason != "" {
		return attempt{reject: f.name + ": " + reason}, nil
	}
	return attempt{q: c.question(), split: split}, nil
}

// cand is a candidate question under construction.
type cand struct {
	g      *gen
	r      *rand.Rand
	b      *base
	q      *query
	family string
	split  int

	sql      string
	text     string
	frame    int
	heldOut  bool
	evidence []string
	cols     []*Column
	// values are the literals the question quotes; a label inside one
	// ("Orange County" for county) names the value, not the column.
	values []string
	// spoken maps a literal of the gold to the words the question says it
	// with when they differ ('2019-10' is "October 2019").
	spoken  map[string]string
	filters int
	lookups int

	minRows, maxRows int
	// tie is a query whose two rows are equal when a tie under LIMIT
	// decides the answer.
	tie string
	// notTotal: a one-number answer equal to it (the whole table's count)
	// means the filter kept every row.
	notTotal int64
	// distinctRows: a list whose rows repeat is refused.
	distinctRows bool
	// whole counts the groups a HAVING chooses from: keeping them all
	// means the condition filters nothing.
	whole string
}

// frames picks one of a family's sentence frames: every fourth frame is
// held out of train, and dev and test use held-out frames half the time,
// so dev measures paraphrase as well as new values.
func (c *cand) pick(frames ...string) string {
	var ok []int
	held := c.split != 0 && len(frames) >= 4 && c.r.IntN(2) == 0
	for i := range frames {
		h := len(frames) >= 4 && i%4 == 3
		if c.split == 0 && h || held && !h {
			continue
		}
		ok = append(ok, i)
	}
	i := ok[c.r.IntN(len(ok))]
	c.frame, c.heldOut = i, len(frames) >= 4 && i%4 == 3
	return frames[i]
}

// say fills a frame's {key} slots.
func (c *cand) say(frame string, kv ...string) {
	s := strings.NewReplacer(kv...).Replace(frame)
	s = strings.Join(strings.Fields(s), " ")
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	c.text = s
}

func (c *cand) ev(format string, args ...any) {
	e := fmt.Sprintf(format, args...)
	for _, x := range c.evidence {
		if x == e {
			return
		}
	}
	c.evidence = append(c.evidence, e)
}

func (c *cand) use(cols ...*Column) {
	for _, col := range cols {
		if col != nil && col.Role != RoleKey {
			c.cols = append(c.cols, col)
		}
	}
}

// verify runs the gold and its checks; it returns the reason for a
// rejection, or an error when a gold the generator wrote does not run.
func (c *cand) verify(ctx context.Context, eng sqlexec.Engine) (string, error) {
	res, err := eng.Query(ctx, c.g.d.Path, c.sql)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		switch sqlexec.ClassOf(err) {
		case sqlexec.ClassTimeout:
			return "slow gold", nil
		case sqlexec.ClassTooLarge: // over the engine's row cap: over any family's too
			return "too many rows", nil
		}
		return "", fmt.Errorf("family %s: gold does not run: %w: %s", c.family, err, c.sql)
	}
	switch {
	case !sqlgen.Informative(res):
		return "empty, NULL or zero answer", nil
	case len(res.Rows) > c.maxRows:
		return "too many rows", nil
	case len(res.Rows) < c.minRows:
		return "too few rows", nil
	}
	if c.notTotal > 0 && len(res.Rows) == 1 && res.Rows[0][0].Kind == sqlexec.KindInt && res.Rows[0][0].I == c.notTotal {
		return "filter keeps every row", nil
	}
	for _, row := range res.Rows {
		for _, v := range row {
			if v.Kind == sqlexec.KindNull && len(row) == 1 {
				return "NULL in answer", nil
			}
		}
	}
	if c.distinctRows {
		seen := map[string]bool{}
		for _, row := range res.Rows {
			k := rowKey(row)
			if seen[k] {
				return "repeated rows", nil
			}
			seen[k] = true
		}
	}
	if c.whole != "" {
		wr, err := eng.Query(ctx, c.g.d.Path, c.whole)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			return "", fmt.Errorf("family %s: group count does not run: %w: %s", c.family, err, c.whole)
		}
		if len(wr.Rows) == 1 && wr.Rows[0][0].I == int64(len(res.Rows)) {
			return "filter keeps every row", nil
		}
	}
	if c.tie != "" {
		tr, err := eng.Query(ctx, c.g.d.Path, c.tie)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			return "", fmt.Errorf("family %s: tie check does not run: %w: %s", c.family, err, c.tie)
		}
		if len(tr.Rows) == 2 && rowKey(tr.Rows[0]) == rowKey(tr.Rows[1]) {
			return "tie under LIMIT", nil
		}
	}
	return "", nil
}

func rowKey(row []sqlexec.Value) string {
	var b strings.Builder
	for _, v := range row {
		b.WriteString(v.Kind.String())
		b.WriteByte(':')
		b.WriteString(v.Display())
		b.WriteByte(0)
	}
	return b.String()
}

// question finishes a verified candidate: tier from the gold's structure,
// realism counts from what the question names.
func (c *cand) question() *Question {
	q := &Question{DBID: c.g.d.ID, Question: c.text, Evidence: strings.Join(c.evidence, "; "), SQL: c.sql,
		Family: c.family, Frame: c.frame, HeldOut: c.heldOut, Filters: c.filters, Lookups: c.lookups}
	tier := 0
	if sh, err := sqlparse.Analyze(c.sql); err == nil {
		tier = sqlgen.Tier(sh, strings.Contains(c.sql, "NOT EXISTS"))
	}
	q.Difficulty = [...]string{"simple", "moderate", "challenging"}[tier]
	lower := strings.ToLower(c.text)
	for _, v := range c.values {
		lower = strings.ReplaceAll(lower, strings.ToLower(v), "\x00")
	}
	seen := map[*Column]bool{}
	for _, col := range c.cols {
		if seen[col] {
			continue
		}
		seen[col] = true
		q.Columns++
		if strings.Contains(lower, strings.ToLower(col.Label)) {
			q.Verbatim++
		}
	}
	return q
}

// Realism sums, over questions, the figures the realism targets
// are stated in.
type Realism struct {
	Questions int
	// GoldColumns and Verbatim: non-key gold columns, and those the
	// question names by their label word for word.
	GoldColumns, Verbatim int
	// Filters and Lookups: WHERE conditions, and those that are entity
	// lookups (= or IN on a word-valued literal).
	Filters, Lookups int
	// Tiers counts questions by difficulty.
	Tiers map[string]int
}

// MeasureRealism sums qs's realism counts.
func MeasureRealism(qs []Question) Realism {
	r := Realism{Questions: len(qs), Tiers: map[string]int{}}
	for _, q := range qs {
		r.GoldColumns += q.Columns
		r.Verbatim += q.Verbatim
		r.Filters += q.Filters
		r.Lookups += q.Lookups
		r.Tiers[q.Difficulty]++
	}
	return r
}

// sortedFamilies lists family counts for a summary, largest first.
func sortedFamilies(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// missingValue returns the first string literal of sql (strftime formats
// aside) that the question does not hold, any case; "" when all are there.
func missingValue(sql, question string, spoken map[string]string) string {
	q := strings.ToLower(question)
	for i := 0; i < len(sql); i++ {
		if sql[i] != '\'' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(sql); j++ {
			if sql[j] == '\'' {
				if j+1 < len(sql) && sql[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			b.WriteByte(sql[j])
		}
		v := b.String()
		if w, ok := spoken[v]; ok {
			v = w
		}
		if !strings.HasPrefix(v, "%") && !strings.Contains(q, strings.ToLower(v)) {
			return v
		}
		i = j
	}
	return ""
}
