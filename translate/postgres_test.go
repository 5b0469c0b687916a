package translate_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

// These tests run the BIRD sample's gold SQL, and the mutated predictions
// whose official verdicts internal/testkit/testdata/official holds, on SQLite and,
// translated, on a real PostgreSQL copy of the same databases.

type engines struct {
	sqlite *sqlexec.SQLite
	pg     *sqlexec.Postgres
	opts   map[string]translate.Options
}

// setup copies the sample and reads each schema's names and types through
// translate.Catalog, as `sqlrl eval --engine postgres` does.
func setup(t *testing.T) *engines {
	t.Helper()
	d := pgtest.CopySample(t)
	e := &engines{
		sqlite: sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Join(pgtest.SampleDir(t), "dev_databases"), Limits: sqlexec.Limits{Timeout: 30 * time.Second}}),
		pg:     d.Postgres(t, sqlexec.PostgresOptions{Limits: sqlexec.Limits{Timeout: 30 * time.Second}}),
		opts:   map[string]translate.Options{},
	}
	t.Cleanup(func() { e.sqlite.Close() })
	cat := translate.NewCatalog(e.pg)
	for _, db := range []string{"student_club", "superhero"} {
		opts, err := cat.Options(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if len(opts.Names) == 0 || len(opts.Types) == 0 {
			t.Fatalf("schema %s: no names or types read: %+v", db, opts)
		}
		e.opts[db] = *opts
	}
	return e
}

func (e *engines) translate(db, sql string) translate.Result {
	return translate.ToPostgres(sql, e.opts[db])
}

// parallel runs f(i) for i in [0, n) on a few goroutines.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// TestGoldSQLSameRowsOnPostgres: every gold query of the sample, translated,
// runs on PostgreSQL and returns the same rows as on SQLite, as a bag (so
// BIRD EX and Spider's unordered match agree), and in the same order when the
// gold has ORDER BY.
func TestGoldSQLSameRowsOnPostgres(t *testing.T) {
	e := setup(t)
	b, err := dataset.Load(pgtest.SampleDir(t), "dev")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var mu sync.Mutex
	var failures []string
	var orderOnly, floatOnly []int
	applied := map[string]int{}
	parallel(len(b.Examples), func(i int) {
		ex := b.Examples[i]
		tr := e.translate(ex.DBID, ex.SQL)
		want, err := e.sqlite.Query(ctx, ex.DBID, ex.SQL)
		if err != nil {
			mu.Lock()
			failures = append(failures, fmt.Sprintf("question %d: SQLite: %v", ex.QuestionID, err))
			mu.Unlock()
			return
		}
		got, err := e.pg.Query(ctx, ex.DBID, tr.SQL)
		mu.Lock()
		defer mu.Unlock()
		for _, a := range tr.Applied {
			applied[a]++
		}
		switch {
		case err != nil:
			failures = append(failures, fmt.Sprintf("question %d: PostgreSQL: %v\n  gold:       %s\n  translated: %s", ex.QuestionID, err, ex.SQL, tr.SQL))
		case (!eval.SpiderMatch(want.Rows, got.Rows, false) || !eval.BirdEX(got.Rows, want.Rows)) && sameRounded(want.Rows, got.Rows):
			// Float sums in another order or algorithm: SQLite 3.43+
			// (the pure-Go build's) sums with Kahan-Babuska-Neumaier,
			// 3.40 (the cgo build's, and the official evaluator's) and
			// PostgreSQL do not. Logged, not failed: SQL fixes neither.
			floatOnly = append(floatOnly, ex.QuestionID)
		case !eval.SpiderMatch(want.Rows, got.Rows, false) || !eval.BirdEX(got.Rows, want.Rows):
			failures = append(failures, fmt.Sprintf("question %d: different rows\n  gold:       %s\n  translated: %s\n  SQLite:     %v\n  PostgreSQL: %v",
				ex.QuestionID, ex.SQL, tr.SQL, head(want.Rows), head(got.Rows)))
		case strings.Contains(strings.ToLower(ex.SQL), "order by") && !eval.SpiderMatch(want.Rows, got.Rows, true):
			// Rows that tie on the sort key come in an order neither
			// database defines.
			orderOnly = append(orderOnly, ex.QuestionID)
		}
	})
	sort.Strings(failures)
	for _, f := range failures {
		t.Error(f)
	}
	var rules []string
	for r, n := range applied {
		rules = append(rules, fmt.Sprintf("%4d  %s", n, r))
	}
	sort.Strings(rules)
	sort.Ints(orderOnly)
	sort.Ints(floatOnly)
	t.Logf("%d gold queries (SQLite %s, %s), %d differ, %d only in the last digits of a float (questions %v), %d only in the order of rows that tie on ORDER BY (questions %v); rules applied (queries):\n%s",
		len(b.Examples), sqlexec.Version, sqlexec.Driver, len(failures), len(floatOnly), floatOnly, len(orderOnly), orderOnly, strings.Join(rules, "\n"))
}

// sameRounded compares two results as bags, numbers equal when they are
// within floatTol of each other. Rounding both sides to a number of digits
// instead would call two values that straddle a rounding boundary
// (0.4999999999996 and 0.5000000000003) different.
func sameRounded(a, b [][]sqlexec.Value) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, compareRows)
	slices.SortFunc(b, compareRows)
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k := range a[i] {
			x, xn := number(a[i][k])
			y, yn := number(b[i][k])
			switch {
			case xn && yn:
				if math.Abs(x-y) > floatTol(x, y) {
					return false
				}
			case xn || yn || string(a[i][k].AppendKey(nil)) != string(b[i][k].AppendKey(nil)):
				return false
			}
		}
	}
	return true
}

// floatTol is the difference allowed between one float64 aggregate
// computed by two engines (another summation order, or SQLite 3.43+'s
// Kahan-Babuska-Neumaier sums): relative 1e-9, the error of a float64 sum
// of up to about 10⁶ terms (n·ε₆₄ ≈ 2e-10 of their absolute sum), plus
// 1e-12 for results that cancel to about zero.
func floatTol(x, y float64) float64 { return 1e-9*math.Max(math.Abs(x), math.Abs(y)) + 1e-12 }

// number returns v's numeric value, integers as floats.
func number(v sqlexec.Value) (float64, bool) {
	switch v.Kind {
	case sqlexec.KindFloat:
		return v.F, true
	case sqlexec.KindInt:
		return float64(v.I), true
	}
	return 0, false
}

// compareRows orders rows so that two bags that match up to floatTol line
// up: numbers by value (before everything else), other values by their key.
func compareRows(a, b []sqlexec.Value) int {
	for k := range min(len(a), len(b)) {
		x, xn := number(a[k])
		y, yn := number(b[k])
		var c int
		switch {
		case xn && yn:
			c = cmp.Compare(x, y)
		case xn:
			c = -1
		case yn:
			c = 1
		default:
			c = strings.Compare(string(a[k].AppendKey(nil)), string(b[k].AppendKey(nil)))
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func TestSameRounded(t *testing.T) {
	f, n, s := sqlexec.Float, sqlexec.Int, sqlexec.Text
	row := func(v ...sqlexec.Value) []sqlexec.Value { return v }
	for _, c := range []struct {
		name string
		a, b [][]sqlexec.Value
		want bool
	}{
		{"straddles a 12-digit rounding boundary", [][]sqlexec.Value{row(f(0.12345678901250001))}, [][]sqlexec.Value{row(f(0.12345678901249998))}, true},
		{"last digits of a sum", [][]sqlexec.Value{row(s("a"), f(1234.5600000000002)), row(s("b"), f(7))}, [][]sqlexec.Value{row(s("b"), n(7)), row(s("a"), f(1234.56))}, true},
		{"cancels to about zero", [][]sqlexec.Value{row(f(1.1102230246251565e-16))}, [][]sqlexec.Value{row(f(0))}, true},
		{"another value", [][]sqlexec.Value{row(f(0.5))}, [][]sqlexec.Value{row(f(0.5001))}, false},
		{"another text", [][]sqlexec.Value{row(s("a"), f(1))}, [][]sqlexec.Value{row(s("b"), f(1))}, false},
		{"a number for a text", [][]sqlexec.Value{row(s("1"))}, [][]sqlexec.Value{row(n(1))}, false},
		{"a row more", [][]sqlexec.Value{row(f(1)), row(f(1))}, [][]sqlexec.Value{row(f(1))}, false},
		{"bags, not sets", [][]sqlexec.Value{row(f(1)), row(f(1)), row(f(2))}, [][]sqlexec.Value{row(f(1)), row(f(2)), row(f(2))}, false},
	} {
		if got := sameRounded(c.a, c.b); got != c.want {
			t.Errorf("%s: sameRounded = %v, want %v", c.name, got, c.want)
		}
	}
}

func head(rows [][]sqlexec.Value) string {
	var b strings.Builder
	for i, r := range rows {
		if i == 3 {
			fmt.Fprintf(&b, " ... (%d rows)", len(rows))
			break
		}
		b.WriteString("(")
		for k, v := range r {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s:%v", v.Kind, v.Any())
		}
		b.WriteString(")")
	}
	return b.String()
}

// nondeterministic are the pairs whose verdict depends on an order that SQL
// leaves undefined, so either verdict is right on either engine.
var nondeterministic = map[int]string{
	766:  "DISTINCT ... LIMIT 5 without ORDER BY: which 5 rows is up to the database",
	1642: "ORDER BY SUM(amount) DESC LIMIT 1: two groups tie at 100",
	1757: "ORDER BY COUNT(DISTINCT t_shirt_size) DESC LIMIT 1: every group ties at 1",
}

// TestMutatedVerdictsAgree scores the 2296 mutated predictions of
// testkit.Official("bird_ex.jsonl") on PostgreSQL (gold and prediction
// translated) and compares BIRD EX with the official verdict, wherever both
// queries run on both engines.
func TestMutatedVerdictsAgree(t *testing.T) {
	e := setup(t)
	pairs := testkit.Official(t, "bird_ex.jsonl")
	ctx := context.Background()
	type outcome struct {
		valid, agree bool
		why          string
		// Classes of the prediction's failure on each engine, when the
		// gold ran on both and the prediction failed on both.
		liteClass, pgClass sqlexec.Class
	}
	out := make([]outcome, len(pairs))
	parallel(len(pairs), func(i int) {
		p := pairs[i]
		sg, err1 := e.sqlite.Query(ctx, p.DBID, p.Gold)
		sp, err2 := e.sqlite.Query(ctx, p.DBID, p.Pred)
		tg, tp := e.translate(p.DBID, p.Gold), e.translate(p.DBID, p.Pred)
		pg, err3 := e.pg.Query(ctx, p.DBID, tg.SQL)
		pp, err4 := e.pg.Query(ctx, p.DBID, tp.SQL)
		if err1 == nil && err3 == nil && err2 != nil && err4 != nil {
			out[i].liteClass, out[i].pgClass = sqlexec.ClassOf(err2), sqlexec.ClassOf(err4)
		}
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			out[i].why = fmt.Sprintf("sqlite gold %v, pred %v; postgres gold %v, pred %v", err1, err2, err3, err4)
			if (err1 == nil) != (err3 == nil) || (err2 == nil) != (err4 == nil) {
				out[i].why += "\n  translated: " + tp.SQL
			}
			return
		}
		out[i].valid = true
		sqliteEX := eval.BirdEX(sp.Rows, sg.Rows)
		pgEX := eval.BirdEX(pp.Rows, pg.Rows)
		out[i].agree = pgEX == (p.EX == 1)
		if !out[i].agree {
			out[i].why = fmt.Sprintf("official ex=%d, sqlrl on SQLite %v, on PostgreSQL %v\n  pred:       %s\n  translated: %s\n  SQLite:     %s\n  PostgreSQL: %s",
				p.EX, sqliteEX, pgEX, p.Pred, tp.SQL, head(sp.Rows), head(pp.Rows))
		}
	})
	valid, agree := 0, 0
	bothFail, sameClass := 0, 0
	invalidByKind := map[string]int{}
	for i, o := range out {
		if o.liteClass != "" {
			bothFail++
			if o.liteClass == o.pgClass {
				sameClass++
			} else {
				t.Errorf("pair %d (%s): fails as %s on SQLite, as %s on PostgreSQL", pairs[i].Index, pairs[i].Kind, o.liteClass, o.pgClass)
			}
		}
		if !o.valid {
			invalidByKind[pairs[i].Kind]++
			if testing.Verbose() {
				t.Logf("pair %d (%s) not valid on both: %s", pairs[i].Index, pairs[i].Kind, o.why)
			}
			continue
		}
		valid++
		switch why, known := nondeterministic[pairs[i].Index]; {
		case o.agree:
			agree++
		case known:
			t.Logf("pair %d (%s) differs, as expected: %s", pairs[i].Index, pairs[i].Kind, why)
		default:
			t.Errorf("pair %d (%s, %s): %s", pairs[i].Index, pairs[i].Kind, pairs[i].DBID, o.why)
		}
	}
	var kinds []string
	for k, n := range invalidByKind {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("EX verdicts agree on %d of %d pairs valid on both engines (%d pairs; not valid on both: %s); predictions failing on both engines fail with the same class on %d of %d",
		agree, valid, len(pairs), strings.Join(kinds, ", "), sameClass, bothFail)
}
