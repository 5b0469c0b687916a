package prompt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

const birdDir = "../datasets/bird-dev-sample"

var (
	benchOnce sync.Once
	bench     *dataset.Benchmark
	benchErr  error
)

// sample loads the BIRD dev sample once for all tests.
func sample(t testing.TB) *dataset.Benchmark {
	t.Helper()
	benchOnce.Do(func() { bench, benchErr = dataset.LoadBIRD(birdDir, "dev") })
	if benchErr != nil {
		t.Fatalf("load BIRD sample: %v", benchErr)
	}
	return bench
}

func question(t testing.TB, qid int) dataset.Example {
	t.Helper()
	for _, ex := range sample(t).Examples {
		if ex.QuestionID == qid {
			return ex
		}
	}
	t.Fatalf("no question %d in the BIRD sample", qid)
	return dataset.Example{}
}

// countingEngine counts the queries that reach the database.
type countingEngine struct {
	sqlexec.Engine
	n atomic.Int64
}

func (e *countingEngine) Query(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	e.n.Add(1)
	return e.Engine.Query(ctx, db, sql)
}

func newBuilder(t testing.TB, opts Options) (*Builder, *countingEngine) {
	t.Helper()
	b := sample(t)
	eng := &countingEngine{Engine: sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})}
	t.Cleanup(func() { eng.Close() })
	bl, err := NewBuilder(NewCatalog(eng, CatalogOptions{DescriptionRoot: b.DBRoot}), opts)
	if err != nil {
		t.Fatal(err)
	}
	return bl, eng
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		qid  int
		opts Options
		keep []string // the gold SQL's tables
	}{
		{name: "superhero_717", qid: 717},
		{name: "student_club_1448_budget", qid: 1448, opts: Options{Budget: 1400}},
		{name: "student_club_1339_keep_gold", qid: 1339, opts: Options{Budget: 1100}, keep: []string{"member", "expense"}},
		{name: "superhero_717_postgresql", qid: 717, opts: Options{Dialect: PostgreSQL, Budget: 1400}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _ := newBuilder(t, c.opts)
			ex := question(t, c.qid)
			in := Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence, Keep: c.keep}
			p, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if c.opts.Budget > 0 && p.Tokens > c.opts.Budget {
				t.Errorf("prompt costs %d tokens, budget %d", p.Tokens, c.opts.Budget)
			}
			head := fmt.Sprintf("tables: %s\npruned: %s\ntokens: %d\nover budget: %v\n----\n",
				strings.Join(p.Tables(), ", "), strings.Join(p.Pruned, ", "), p.Tokens, p.OverBudget)
			testkit.Golden(t, filepath.Join("testdata", c.name+".plain.golden"), []byte(head+p.Plain()))
			var chat bytes.Buffer
			enc := json.NewEncoder(&chat)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(p.Conversation(ex.SQL)); err != nil {
				t.Fatal(err)
			}
			testkit.Golden(t, filepath.Join("testdata", c.name+".chat.golden"), chat.Bytes())
		})
	}
}

func TestDeterministic(t *testing.T) {
	ex := question(t, 1448)
	in := Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence}
	var first string
	for i := 0; i < 3; i++ {
		b, _ := newBuilder(t, Options{Budget: 1000})
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = p.Plain()
		} else if p.Plain() != first {
			t.Fatalf("build %d differs from build 0", i)
		}
	}
}

// TestPrune checks, over every sample question and several budgets, that
// pruning drops whole tables only, reports each dropped table, fits the
// budget unless it says it cannot, and keeps the tables named in Keep.
func TestPrune(t *testing.T) {
	full, _ := newBuilder(t, Options{})
	for _, budget := range []int{400, 900, 1500, 2500} {
		b, _ := newBuilder(t, Options{Budget: budget})
		for _, ex := range sample(t).Examples {
			in := Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence}
			all, err := full.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			p, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			blocks := map[string]string{}
			for _, bl := range all.Blocks {
				blocks[bl.Table] = bl.Text
			}
			for _, bl := range p.Blocks {
				if blocks[bl.Table] != bl.Text {
					t.Fatalf("q%d budget %d: block of %s is not the full table's block", ex.QuestionID, budget, bl.Table)
				}
			}
			if got := len(p.Blocks) + len(p.Pruned); got != len(all.Blocks) {
				t.Fatalf("q%d budget %d: %d shown + %d pruned != %d tables", ex.QuestionID, budget, len(p.Blocks), len(p.Pruned), len(all.Blocks))
			}
			if p.Tokens > budget && !p.OverBudget {
				t.Fatalf("q%d budget %d: %d tokens and not marked over budget", ex.QuestionID, budget, p.Tokens)
			}
			if len(p.Blocks) == 0 {
				t.Fatalf("q%d budget %d: no table kept", ex.QuestionID, budget)
			}
			// Shown tables keep schema order.
			pos := map[string]int{}
			for i, bl := range all.Blocks {
				pos[bl.Table] = i
			}
			for i := 1; i < len(p.Blocks); i++ {
				if pos[p.Blocks[i-1].Table] > pos[p.Blocks[i].Table] {
					t.Fatalf("q%d budget %d: tables out of schema order: %v", ex.QuestionID, budget, p.Tables())
				}
			}
		}
	}
}

func TestPruneRanking(t *testing.T) {
	cases := []struct {
		name     string
		qid      int
		budget   int
		keep     []string
		want     []string // tables that must be shown
		wantGone []string // tables that must be pruned
	}{
		// The evidence names superhero_name and power_name; hero_power joins
		// them and comes in as their foreign-key neighbour.
		{name: "evidence columns and bridge", qid: 717, budget: 1400, want: []string{"superhero", "superpower", "hero_power"}},
		// Pizza expenses per event: event and expense match the words,
		// budget joins them.
		{name: "bridge table", qid: 1448, budget: 1400, want: []string{"event", "expense", "budget"}, wantGone: []string{"zip_code"}},
		{name: "keep wins", qid: 1448, budget: 700, keep: []string{"zip_code"}, want: []string{"zip_code"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _ := newBuilder(t, Options{Budget: c.budget})
			ex := question(t, c.qid)
			p, err := b.Build(context.Background(), Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence, Keep: c.keep})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !slices.Contains(p.Tables(), w) {
					t.Errorf("table %s pruned; shown %v, pruned %v", w, p.Tables(), p.Pruned)
				}
			}
			for _, w := range c.wantGone {
				if !slices.Contains(p.Pruned, w) {
					t.Errorf("table %s shown; shown %v", w, p.Tables())
				}
			}
		})
	}
}

func TestOverBudget(t *testing.T) {
	b, _ := newBuilder(t, Options{Budget: 50})
	ex := question(t, 717)
	p, err := b.Build(context.Background(), Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence})
	if err != nil {
		t.Fatal(err)
	}
	if !p.OverBudget || len(p.Blocks) != 1 {
		t.Fatalf("budget 50: over budget %v with %d tables, want true with 1", p.OverBudget, len(p.Blocks))
	}
}

func TestReorder(t *testing.T) {
	b, _ := newBuilder(t, Options{})
	ex := question(t, 717)
	p, err := b.Build(context.Background(), Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence})
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Blocks)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = n - 1 - i
	}
	q, err := b.Reorder(p, perm, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range perm {
		if q.Blocks[k].Text != p.Blocks[i].Text {
			t.Fatalf("block %d is not block %d of the original", k, i)
		}
	}
	if q.Plain() == p.Plain() || !strings.HasSuffix(q.Plain(), "Question: "+ex.Question+"\nEvidence: "+ex.Evidence+"\n\nSQL:\n") {
		t.Fatalf("reordered prompt lost its question or did not change:\n%s", q.Plain())
	}
	// Column orders: reverse the columns of the superhero block.
	cols := make([][]int, n)
	counts := p.ColumnCounts()
	for i, bl := range p.Blocks {
		if bl.Table == "superhero" {
			for c := counts[i] - 1; c >= 0; c-- {
				cols[i] = append(cols[i], c)
			}
		}
	}
	r, err := b.Reorder(p, perm, cols)
	if err != nil {
		t.Fatal(err)
	}
	for _, bl := range r.Blocks {
		if bl.Table == "superhero" && strings.Index(bl.Text, "weight_kg") > strings.Index(bl.Text, "superhero_name") {
			t.Errorf("superhero columns not reversed:\n%s", bl.Text)
		}
	}

	bad := []struct {
		name   string
		tables []int
		cols   [][]int
	}{
		{"short", perm[1:], nil},
		{"repeat", append([]int{0}, perm[1:]...), nil},
		{"out of range", append([]int{n}, perm[1:]...), nil},
		{"column count", perm, make([][]int, n+1)},
		{"bad column order", perm, append([][]int{{0, 0}}, make([][]int, n-1)...)},
	}
	for _, c := range bad {
		if _, err := b.Reorder(p, c.tables, c.cols); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestCatalogCachesSchemas(t *testing.T) {
	b, eng := newBuilder(t, Options{})
	ex := question(t, 717)
	in := Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Build(context.Background(), in); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	n := eng.n.Load()
	if n == 0 {
		t.Fatal("no query reached the database")
	}
	if _, err := b.Build(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	// Another builder on the same catalog reads nothing either.
	b2, err := NewBuilder(b.cat, Options{Dialect: PostgreSQL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b2.Build(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if got := eng.n.Load(); got != n {
		t.Fatalf("%d queries after the first read, want 0", got-n)
	}
}

func TestCatalogErrors(t *testing.T) {
	b, _ := newBuilder(t, Options{})
	_, err := b.Build(context.Background(), Input{DBID: "no_such_db", Question: "q"})
	if err == nil || !strings.Contains(err.Error(), "no_such_db") {
		t.Fatalf("missing database: error %v, want one naming it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Build(ctx, Input{DBID: "superhero", Question: "q"}); err == nil {
		t.Fatal("canceled context: no error")
	}
	// The failed read was not cached.
	if _, err := b.Build(context.Background(), Input{DBID: "superhero", Question: "q"}); err != nil {
		t.Fatalf("after a canceled read: %v", err)
	}
}

func TestNewBuilderOptions(t *testing.T) {
	cat := NewCatalog(nil, CatalogOptions{})
	for _, o := range []Options{{Dialect: "oracle"}, {Budget: -1}} {
		if _, err := NewBuilder(cat, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := NewBuilder(nil, Options{}); err == nil {
		t.Error("nil catalog: no error")
	}
}

func TestQuoteIdent(t *testing.T) {
	cases := []struct {
		d        Dialect
		in, want string
	}{
		{SQLite, "superhero_name", "superhero_name"},
		{SQLite, "CDSCode", "CDSCode"},
		{PostgreSQL, "CDSCode", `"CDSCode"`},
		{SQLite, "order", `"order"`},
		{SQLite, "type", "type"},
		{SQLite, "Percent (%) Eligible Free (K-12)", `"Percent (%) Eligible Free (K-12)"`},
		{SQLite, `a"b`, `"a""b"`},
		{SQLite, "1st", `"1st"`},
		{SQLite, "", `""`},
	}
	for _, c := range cases {
		if got := c.d.QuoteIdent(c.in); got != c.want {
			t.Errorf("%s.QuoteIdent(%q) = %s, want %s", c.d, c.in, got, c.want)
		}
	}
}

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]Dialect{"sqlite": SQLite, "SQLite3": SQLite, "postgres": PostgreSQL, "PostgreSQL": PostgreSQL} {
		if got, err := ParseDialect(in); err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseDialect("tsql"); err == nil {
		t.Error("tsql: no error")
	}
}

func TestApprox(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"SELECT", 1},
		{"superhero_name", 4}, // superhe|ro, _, name
		{"1234567", 3},
		{"a, b", 3},
		{"x\n\n  y", 3},
		{"é", 1},
		{"日本", 2},
	}
	for _, c := range cases {
		if got := (Approx{}).Count(c.in); got != c.want {
			t.Errorf("Count(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestLiteral(t *testing.T) {
	cases := []struct {
		v    sqlexec.Value
		want string
		ok   bool
	}{
		{sqlexec.Int(42), "42", true},
		{sqlexec.Float(3), "3.0", true},
		{sqlexec.Float(0.25), "0.25", true},
		{sqlexec.Float(1e20), "1e+20", true},
		{sqlexec.Text("O'Brien"), "'O''Brien'", true},
		{sqlexec.Text("two\nlines"), "'two lines'", true},
		{sqlexec.Text("abcdefghijklmnopq"), "'abcdefghij...'", true},
		{sqlexec.Text("  "), "", false},
		{sqlexec.Blob([]byte{1}), "", false},
		{sqlexec.Null(), "", false},
	}
	for _, c := range cases {
		got, ok := literal(c.v, 10)
		if got != c.want || ok != c.ok {
			t.Errorf("literal(%v) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestTerms(t *testing.T) {
	got := map[string]bool{}
	terms("The superpowers of 3-D Man; eyeColourId in CDSCode, the Categories", got)
	want := []string{"superpower", "man", "eye", "colour", "cdscode", "category"}
	for _, w := range want {
		if !got[w] {
			t.Errorf("term %q missing from %v", w, got)
		}
	}
	for _, w := range []string{"the", "of", "3", "d", "id", "in"} {
		if got[w] {
			t.Errorf("term %q should be left out", w)
		}
	}
}

// BenchmarkBuild measures prompts per second over the BIRD sample with
// schemas cached (the steady state of a long run); pruned adds a budget that
// prunes most prompts.
func BenchmarkBuild(b *testing.B) {
	for _, budget := range []int{0, 1200} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			bl, _ := newBuilder(b, Options{Budget: budget})
			exs := sample(b).Examples
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ex := exs[i%len(exs)]
				p, err := bl.Build(ctx, Input{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence})
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Plain()
				_ = p.Messages()
			}
		})
	}
}

func TestInstruction(t *testing.T) {
	tests := []struct {
		d      Dialect
		layout string
		want   string
	}{
		{SQLite, "", "You are an expert SQLite developer. Given a database schema, a question and evidence (hints that tie the question's words to the schema), write one SQLite query that answers the question. Reply with the SQL query only."},
		{PostgreSQL, "one table a line", "You are an expert PostgreSQL developer. Given a database schema (one table a line), a question and evidence (hints that tie the question's words to the schema), write one PostgreSQL query that answers the question. Reply with the SQL query only."},
	}
	for _, tc := range tests {
		if got := Instruction(tc.d, tc.layout); got != tc.want {
			t.Errorf("Instruction(%s, %q) =\n%s\nwant\n%s", tc.d, tc.layout, got, tc.want)
		}
	}
}
