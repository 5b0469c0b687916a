package sqlgen

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// fixture is a generated fixture database with its engine.
type fixture struct {
	db  *schemagen.DB
	eng *sqlexec.SQLite
	qs  []Question
	st  *Stats
}

const perDB = 500

var (
	fixOnce sync.Once
	fixs    []*fixture
	fixErr  error
	fixRoot string
)

// fixtures writes the fixture databases once per test binary and
// generates perDB questions on each.
func fixtures(t *testing.T) []*fixture {
	t.Helper()
	fixOnce.Do(func() {
		root, err := os.MkdirTemp("", "sqlgen")
		if err != nil {
			fixErr = err
			return
		}
		fixRoot = root
		for _, db := range []*schemagen.DB{shopDB(), clinicDB()} {
			writeDB(t, root, db)
			eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
			qs, st, err := generate(context.Background(), db, eng, Options{Seed: 7, N: perDB})
			if err != nil {
				fixErr = err
				return
			}
			fixs = append(fixs, &fixture{db: db, eng: eng, qs: qs, st: st})
		}
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fixs
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range fixs {
		f.eng.Close()
	}
	if fixRoot != "" {
		os.RemoveAll(fixRoot)
	}
	os.Exit(code)
}

func TestDump(t *testing.T) {
	if os.Getenv("SQLGEN_DUMP") == "" {
		t.Skip("set SQLGEN_DUMP=1 to print the fixtures' questions")
	}
	for _, f := range fixtures(t) {
		for _, q := range f.qs {
			t.Logf("[%s] %s\n  EV: %s\n  SQL: %s\n  %v", q.Difficulty, q.Question, q.Evidence, q.SQL, q.Features)
		}
		t.Logf("tried %v\nkept %v\nnofit %v\nwrongtier %v\ndup %v\nrejected %v", f.st.Tried, f.st.Kept, f.st.NoFit, f.st.WrongTier, f.st.Duplicate, f.st.Rejected)
	}
}

var orderLimit = regexp.MustCompile(`^(.*) ORDER BY (.*) LIMIT (\d+)$`)

// TestGoldsVerify re-checks every kept gold independently of Generate:
// it runs, returns informative rows, and ties broken both ways give the
// same rows.
func TestGoldsVerify(t *testing.T) {
	ctx := context.Background()
	for _, f := range fixtures(t) {
		if len(f.qs) < perDB*9/10 {
			t.Errorf("%s: %d questions, want at least %d", f.db.ID, len(f.qs), perDB*9/10)
		}
		for _, q := range f.qs {
			res, err := f.eng.Query(ctx, f.db.ID, q.SQL)
			if err != nil {
				t.Fatalf("%s: %v", q.SQL, err)
			}
			if !Informative(res) {
				t.Errorf("uninformative gold %s", q.SQL)
			}
			sh, err := sqlparse.Analyze(q.SQL)
			if err != nil || sh.Skeleton != q.Skeleton {
				t.Errorf("skeleton of %s: %v", q.SQL, err)
			}
			m := orderLimit.FindStringSubmatch(q.SQL)
			if m == nil {
				continue
			}
			want := sortedRows(display(res.Rows))
			for _, dir := range []string{"", " DESC"} {
				var keys []string
				for i := range res.Columns {
					keys = append(keys, strconv.Itoa(i+1)+dir)
				}
				v := m[1] + " ORDER BY " + m[2] + ", " + strings.Join(keys, ", ") + " LIMIT " + m[3]
				r, err := f.eng.Query(ctx, f.db.ID, v)
				if err != nil {
					t.Fatalf("%s: %v", v, err)
				}
				if !reflect.DeepEqual(sortedRows(display(r.Rows)), want) {
					t.Errorf("tie decides %s", q.SQL)
				}
			}
		}
	}
}

// TestConstructs: every construct of the grammar appears in the fixtures
// or the schemagen domains.
func TestConstructs(t *testing.T) {
	seen := map[string]int{}
	qs := domainMix(t).qs
	for _, f := range fixtures(t) {
		qs = append(qs, f.qs...)
	}
	for _, q := range qs {
		for _, ft := range q.Features {
			seen[ft]++
		}
	}
	want := []string{"join1", "join2", "join3", "join4", "link", "self_ref", "multi_path",
		"count", "count_distinct", "list", "distinct", "sum", "avg", "min", "max",
		"eq", "lt", "gt", "between", "like", "in_list", "is_null", "not_null", "code", "year", "month", "date_func", "defined_term",
		"group_by", "having", "order_limit", "subquery_scalar", "subquery_in", "subquery_not_in", "subquery_correlated", "subquery_nested",
		"union", "intersect", "except", "window_rank", "case", "cast", "percentage", "ratio", "difference", "arithmetic",
		"dirty_text", "dirty_date", "dirty_number", "evidence", "no_evidence"}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("construct %s never appears", w)
		}
	}
	if testing.Verbose() {
		var ks []string
		for k := range seen {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			t.Logf("%-22s %d", k, seen[k])
		}
	}
}

// mixTolerance is how far a tier's feature share may be from the target
// table (package doc) over the schemagen domains (domainMix): 400
// challenging questions, so about three standard errors on that tier's
// shares near one half.
const mixTolerance = 0.07

// target is the package doc's table: tier share and BIRDMix's feature
// shares.
var target = func() (out [numTiers]map[string]float64) {
	for t, share := range [numTiers]float64{0.60, 0.30, 0.10} {
		m := BIRDMix[t]
		out[t] = map[string]float64{"share": share, "join": m.Join, "subquery": m.Subquery, "case": m.Case, "cast": m.Cast, "arithmetic": m.Arithmetic, "set_op": 0, "window": 0}
	}
	return out
}()

// measuredMix is the mix of qs per tier: the share of each feature.
func measuredMix(t *testing.T, qs []Question) (mix [numTiers]map[string]float64, n [numTiers]int) {
	total := 0
	for t := range numTiers {
		mix[t] = map[string]float64{}
	}
	for _, q := range qs {
		tier := tierOf(q.Difficulty)
		if tier < 0 {
			t.Fatalf("difficulty %q", q.Difficulty)
		}
		n[tier]++
		total++
		for _, ft := range q.Features {
			mix[tier][ft]++
		}
	}
	for tier := range numTiers {
		for k := range mix[tier] {
			mix[tier][k] /= float64(max(n[tier], 1))
		}
		mix[tier]["share"] = float64(n[tier]) / float64(total)
	}
	return mix, n
}

// TestTierMix: the mix per tier over the schemagen domains, which is what
// benchmark v2 is made of, is within mixTolerance of the target on the
// features the issue names; set operations and windows, which BIRD's
// sample barely has, must appear in challenging only. (The fixtures are
// two small hand-written designs with few long join paths: their
// challenging tier is mostly computed values, so they are no measure of
// v2's mix.)
func TestTierMix(t *testing.T) {
	mix, n := measuredMix(t, domainMix(t).qs)
	keys := []string{"share", "join", "subquery", "case", "cast", "arithmetic"}
	for tier := range numTiers {
		row := TierNames[tier] + ":"
		for _, k := range append(keys, "set_op", "window", "aggregate", "group_by", "order_limit", "no_evidence") {
			row += " " + k + "=" + strconv.FormatFloat(100*mix[tier][k], 'f', 0, 64) + "%"
		}
		t.Logf("%s (n=%d)", row, n[tier])
		for _, k := range keys {
			if d := mix[tier][k] - target[tier][k]; d > mixTolerance || d < -mixTolerance {
				t.Errorf("%s %s: %.0f%%, target %.0f%% +- %.0f", TierNames[tier], k, 100*mix[tier][k], 100*target[tier][k], 100*mixTolerance)
			}
		}
	}
	for _, k := range []string{"set_op", "window"} {
		if mix[Simple][k] > 0 || mix[Moderate][k] > 0 || mix[Challenging][k] == 0 {
			t.Errorf("%s: simple %.2f, moderate %.2f, challenging %.2f; want only challenging", k, mix[Simple][k], mix[Moderate][k], mix[Challenging][k])
		}
	}
}

// TestTierRule: the rule on hand-written SQL.
func TestTierRule(t *testing.T) {
	for _, tc := range []struct {
		sql        string
		correlated bool
		want       int
	}{
		{"SELECT COUNT(*) FROM a WHERE x = 1", false, Simple},
		{"SELECT COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a WHERE T2.x = 1", false, Simple},
		{"SELECT T1.x, COUNT(*) FROM a AS T1 GROUP BY T1.x", false, Simple},
		{"SELECT T2.x, COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.b = T2.id GROUP BY T2.x", false, Moderate},
		{"SELECT COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a JOIN c AS T3 ON T2.c = T3.id", false, Moderate},
		// A computed value or a subquery on one table is simple (BIRD's
		// "percentage of budgets that went over"); over a join, with a
		// GROUP BY or both together, moderate.
		{"SELECT CAST(SUM(CASE WHEN x = 1 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM a", false, Simple},
		{"SELECT MAX(x) - MIN(x) FROM a WHERE y = 2", false, Simple},
		{"SELECT CAST(SUM(CASE WHEN T1.x = 1 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.b = T2.id", false, Moderate},
		{"SELECT COUNT(*) FROM a WHERE id IN (SELECT a FROM b WHERE CAST(y AS REAL) > 3)", false, Moderate},
		{"SELECT x, SUM(y * z) FROM a GROUP BY x", false, Moderate},
		{"SELECT COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a WHERE T2.x > (SELECT AVG(x) FROM b)", false, Moderate},
		{"SELECT CAST(SUM(CASE WHEN T1.x = 1 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM a AS T1 JOIN b AS T2 ON T1.b = T2.id JOIN c AS T3 ON T2.c = T3.id", false, Challenging},
		{"SELECT name FROM a WHERE x > (SELECT AVG(x) FROM a)", false, Simple},
		{"SELECT name FROM a AS T1 WHERE x > (SELECT AVG(x) FROM a AS T2 WHERE T2.g = T1.g)", true, Challenging},
		{"SELECT name FROM a WHERE x = 1 INTERSECT SELECT name FROM a WHERE y = 2", false, Challenging},
		{"SELECT name FROM (SELECT name, RANK() OVER (ORDER BY x) AS rk FROM a) WHERE rk = 1", false, Challenging},
	} {
		sh, err := sqlparse.Analyze(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := Tier(sh, tc.correlated); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.sql, TierNames[got], TierNames[tc.want])
		}
	}
}

// TestDeterministic: the same seed gives the same questions; another seed
// other ones.
func TestDeterministic(t *testing.T) {
	f := fixtures(t)[1]
	a, err := Generate(context.Background(), f.db, f.eng, Options{Seed: 7, N: perDB})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, f.qs) {
		t.Error("same seed, different questions")
	}
	b, err := Generate(context.Background(), f.db, f.eng, Options{Seed: 8, N: perDB})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, b) {
		t.Error("another seed gave the same questions")
	}
}

// TestUniqueWording: no two questions of a database share a wording or a
// gold.
func TestUniqueWording(t *testing.T) {
	for _, f := range fixtures(t) {
		seen, sqls := map[string]bool{}, map[string]bool{}
		for _, q := range f.qs {
			k := strings.ToLower(strings.Join(strings.Fields(q.Question), " "))
			if seen[k] {
				t.Errorf("%s: %q asked twice", f.db.ID, q.Question)
			}
			if sqls[q.SQL] {
				t.Errorf("%s: gold %s twice", f.db.ID, q.SQL)
			}
			seen[k], sqls[q.SQL] = true, true
		}
	}
}

// TestEvidence: a share of questions has no evidence; evidence is
// knowledge, not SQL (no comparison operators, no column names with _).
func TestEvidence(t *testing.T) {
	bare, n := 0, 0
	sqlish := regexp.MustCompile(`[<>=]|\b[a-z]+_[a-z_]+\b|\bSELECT\b`)
	for _, f := range fixtures(t) {
		for _, q := range f.qs {
			n++
			if q.Evidence == "" {
				bare++
				continue
			}
			if sqlish.MatchString(q.Evidence) {
				t.Errorf("evidence reads as SQL: %q", q.Evidence)
			}
		}
	}
	share := float64(bare) / float64(n)
	t.Logf("no evidence: %.1f%%", 100*share)
	if share < 0.20 || share > 0.30 {
		t.Errorf("%.1f%% of questions without evidence, want 20-30%%", 100*share)
	}
}

// TestCodesFromNaturalTerms: a question speaks of a code by its meaning
// ("female"), and its gold compares the stored code ('F').
func TestCodesFromNaturalTerms(t *testing.T) {
	found := 0
	for _, f := range fixtures(t) {
		for _, q := range f.qs {
			if !slicesContains(q.Features, "code") || !strings.Contains(q.Question, "female") || strings.Contains(q.Question, "male or") || strings.Contains(q.Question, "male and") {
				continue
			}
			found++
			if !strings.Contains(q.SQL, "'F'") {
				t.Errorf("question %q: gold %s does not compare the code 'F'", q.Question, q.SQL)
			}
			if strings.Contains(q.Question, "'F'") {
				t.Errorf("question %q names the stored code", q.Question)
			}
		}
	}
	if found == 0 {
		t.Error("no question about female patients or customers")
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// queryLog is an engine that records the SQL it is asked to run.
type queryLog struct {
	sqlexec.Engine
	mu  sync.Mutex
	sql []string
}

func (e *queryLog) Query(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	e.mu.Lock()
	e.sql = append(e.sql, sql)
	e.mu.Unlock()
	return e.Engine.Query(ctx, db, sql)
}

// TestSkip: questions Skip drops are neither returned nor run, each is
// counted once, and Generate composes on until N have passed (benchmark
// v2's dev_compositional drops most composed questions this way).
func TestSkip(t *testing.T) {
	f := fixtures(t)[0]
	skip := map[string]bool{}
	for _, q := range f.qs[:perDB/2] {
		skip[q.Skeleton] = true
	}
	eng := &queryLog{Engine: f.eng}
	const n = 60
	asked := map[string]int{}
	qs, st, err := generate(context.Background(), f.db, eng, Options{Seed: 7, N: n, Skip: func(question, skeleton string) bool {
		asked[question]++
		return skip[skeleton]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != n {
		t.Errorf("%d questions, want %d", len(qs), n)
	}
	for _, q := range qs {
		if skip[q.Skeleton] {
			t.Errorf("skipped skeleton returned: %s", q.SQL)
		}
	}
	skipped := 0
	for _, v := range st.Skipped {
		skipped += v
	}
	if skipped == 0 {
		t.Fatal("nothing skipped: the test skips nothing")
	}
	for q, k := range asked {
		if k > 1 {
			t.Errorf("%q passed to Skip %d times", q, k)
		}
	}
	for _, sql := range eng.sql {
		sh, err := sqlparse.Analyze(sql)
		if err == nil && skip[sh.Skeleton] {
			t.Errorf("ran a skipped gold: %s", sql)
		}
	}
}
