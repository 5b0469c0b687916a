package sqlparse

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// goldenEntry is one line of testdata/hardness_golden.jsonl: a query and the
// answer of the official Python evaluator (see testdata/README.md).
type goldenEntry struct {
	SQL      string `json:"sql"`
	Hardness string `json:"hardness"`
	C1       int    `json:"c1"`
	C2       int    `json:"c2"`
	Others   int    `json:"others"`
	Source   string `json:"source"`
	DBID     string `json:"db_id"`
	Count    int    `json:"count"`
}

// unparsedEntry is one line of testdata/hardness_official_unparsed.jsonl: a
// valid SQLite query the official parser raises on.
type unparsedEntry struct {
	SQL           string `json:"sql"`
	Source        string `json:"source"`
	DBID          string `json:"db_id"`
	OfficialError string `json:"official_error"`
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

func loadGolden(t testing.TB) []goldenEntry {
	return readJSONL[goldenEntry](t, "testdata/hardness_golden.jsonl")
}

func loadUnparsed(t testing.TB) []unparsedEntry {
	return readJSONL[unparsedEntry](t, "testdata/hardness_official_unparsed.jsonl")
}

// TestSpiderHardnessGolden asserts agreement with the official evaluator on
// every golden query: the bucket, all three counts, and that the query took
// the process_sql-compatible path.
func TestSpiderHardnessGolden(t *testing.T) {
	golden := loadGolden(t)
	if len(golden) < 600 {
		t.Fatalf("golden file has %d entries, want the full set", len(golden))
	}
	for i, g := range golden {
		t.Run(fmt.Sprintf("%s/%d", g.Source, i), func(t *testing.T) {
			got, err := SpiderHardnessCounts(g.SQL)
			if err != nil {
				t.Fatalf("SpiderHardnessCounts(%q): %v", g.SQL, err)
			}
			want := HardnessCounts{Component1: g.C1, Component2: g.C2, Others: g.Others, Compatible: true}
			if got != want || got.Hardness() != g.Hardness {
				t.Errorf("SpiderHardnessCounts(%q) = %+v (%s), official %+v (%s)",
					g.SQL, got, got.Hardness(), want, g.Hardness)
			}
			h, err := SpiderHardness(g.SQL)
			if err != nil || h != g.Hardness {
				t.Errorf("SpiderHardness(%q) = %q, %v; official %q", g.SQL, h, err, g.Hardness)
			}
		})
	}
}

// TestSpiderDevDistribution checks the golden Spider dev queries, weighted by
// how often each occurs in dev, against the published split (field guide §2).
func TestSpiderDevDistribution(t *testing.T) {
	got := map[string]int{}
	total := 0
	for _, g := range loadGolden(t) {
		if g.Source != "spider-dev" {
			continue
		}
		h, err := SpiderHardness(g.SQL)
		if err != nil {
			t.Fatalf("SpiderHardness(%q): %v", g.SQL, err)
		}
		got[h] += g.Count
		total += g.Count
	}
	want := map[string]int{HardnessEasy: 248, HardnessMedium: 446, HardnessHard: 174, HardnessExtra: 166}
	if total != 1034 {
		t.Fatalf("spider-dev golden covers %d questions, want 1034", total)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Spider dev %s = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

// quirkQueries are golden queries whose official counts come from process_sql
// swallowing everything after a column-valued comparison up to the next AND,
// clause keyword, ',' or ')'. The general parser reads them as written, so it
// is expected to disagree on exactly these.
var quirkQueries = map[string]bool{
	"SELECT superhero_name FROM superhero WHERE height_cm > weight_kg OR race_id = 1":                                                                   true,
	"SELECT superhero_name FROM superhero WHERE height_cm > weight_kg OR id IN (SELECT hero_id FROM hero_power) ORDER BY height_cm":                     true,
	"SELECT superhero_name FROM superhero WHERE height_cm BETWEEN 100 AND weight_kg OR race_id = 1":                                                     true,
	"SELECT T1.superhero_name FROM superhero AS T1 JOIN colour AS T2 ON T1.eye_colour_id = T2.id OR T1.hair_colour_id = T2.id WHERE T2.colour = 'Blue'": true,
	// Spider dev (flight_2): the OR inside ON is swallowed; the bucket is "extra" either way.
	"SELECT T1.AirportCode FROM AIRPORTS AS T1 JOIN FLIGHTS AS T2 ON T1.AirportCode  =  T2.DestAirport OR T1.AirportCode  =  T2.SourceAirport GROUP BY T1.AirportCode ORDER BY count(*) DESC LIMIT 1": true,
	"SELECT T1.AirportCode FROM AIRPORTS AS T1 JOIN FLIGHTS AS T2 ON T1.AirportCode  =  T2.DestAirport OR T1.AirportCode  =  T2.SourceAirport GROUP BY T1.AirportCode ORDER BY count(*) LIMIT 1":      true,
}

// TestGeneralParserOnGolden runs the fallback parser alone on the golden set:
// it must agree with the official answer everywhere except on the documented
// process_sql quirks, which is what makes its answers on SQL the official
// parser rejects trustworthy.
func TestGeneralParserOnGolden(t *testing.T) {
	seenQuirks := 0
	for _, g := range loadGolden(t) {
		q, err := parseGeneral(Tokenize(g.SQL))
		if err != nil {
			t.Errorf("parseGeneral(%q): %v", g.SQL, err)
			continue
		}
		c := q.counts()
		agree := c.Component1 == g.C1 && c.Component2 == g.C2 && c.Others == g.Others
		switch {
		case quirkQueries[g.SQL]:
			seenQuirks++
			if agree {
				t.Errorf("parseGeneral(%q) unexpectedly reproduces the process_sql quirk", g.SQL)
			}
		case !agree:
			t.Errorf("parseGeneral(%q) = %+v, official (%d,%d,%d)", g.SQL, c, g.C1, g.C2, g.Others)
		}
	}
	if seenQuirks != len(quirkQueries) {
		t.Errorf("found %d of %d quirk queries in the golden file", seenQuirks, len(quirkQueries))
	}
}

// TestSpiderHardnessOfficialUnparsed covers valid SQLite the official parser
// rejects (INNER JOIN, CAST, CASE, IS NULL, IN lists, aliases, ...): every
// query must get an answer from the general parser.
func TestSpiderHardnessOfficialUnparsed(t *testing.T) {
	entries := loadUnparsed(t)
	if len(entries) < 250 {
		t.Fatalf("unparsed file has %d entries, want the full set", len(entries))
	}
	for _, u := range entries {
		if _, err := SpiderHardness(u.SQL); err != nil {
			t.Errorf("SpiderHardness(%q) (official: %s): %v", u.SQL, u.OfficialError, err)
		}
	}
}

// TestSpiderHardnessBeyondOfficial pins the general parser's readings of SQL
// the official parser rejects, so changes to them are deliberate.
func TestSpiderHardnessBeyondOfficial(t *testing.T) {
	tests := []struct {
		sql        string
		c1, c2, o  int
		hardness   string
		compatible bool
	}{
		// INNER JOIN counts like JOIN.
		{"SELECT T1.a FROM t AS T1 INNER JOIN u AS T2 ON T1.id = T2.id WHERE T2.b = 'x'", 2, 0, 0, "medium", false},
		// Comma joins and aliases without AS are table units too.
		{"SELECT a FROM t x, u y, v WHERE x.id = y.id", 3, 0, 0, "hard", false},
		{"SELECT a FROM t LEFT OUTER JOIN u USING (id) NATURAL JOIN v CROSS JOIN w", 3, 0, 0, "hard", false},
		// Parenthesised conditions are flattened; the OR counts.
		{"SELECT a FROM t WHERE b = 1 AND (c = 2 OR d = 3)", 2, 0, 1, "medium", false},
		// IN lists are plain values; IS NULL / IS NOT NULL are conditions and IS NOT is a NOT.
		{"SELECT a FROM t WHERE b IN (1, 2, 3)", 1, 0, 0, "easy", false},
		{"SELECT count(*) FROM t WHERE b IS NOT NULL", 1, 0, 1, "medium", false},
		{"SELECT count(*) FROM t WHERE b IS NULL", 1, 0, 0, "easy", false},
		// EXISTS is a nested query; NOT EXISTS also negates.
		{"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)", 1, 1, 0, "hard", false},
		{"SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u)", 1, 1, 0, "hard", false},
		// CAST and CASE around aggregates: one aggregated SELECT item.
		{"SELECT CAST(SUM(CASE WHEN a = 1 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(b) FROM t", 0, 0, 0, "easy", false},
		{"SELECT CAST(SUM(a) AS REAL) / COUNT(b), max(c) FROM t", 0, 0, 2, "medium", false},
		// Select aliases do not create columns.
		{"SELECT count(*) AS n FROM t", 0, 0, 0, "easy", false},
		// Subqueries in the SELECT list or FROM do not count; in conditions they do, also inside arithmetic.
		{"SELECT (SELECT max(a) FROM u) - (SELECT min(a) FROM u)", 0, 0, 0, "easy", false},
		{"SELECT a FROM t WHERE b * 100 > (SELECT avg(b) FROM t) * 79", 1, 1, 0, "hard", false},
		// CTE bodies are not counted.
		{"WITH x AS (SELECT a FROM t WHERE b = 1 OR c = 2) SELECT count(*) FROM x", 0, 0, 0, "easy", false},
		// LIMIT with OFFSET, ORDER BY with NULLS LAST, window functions, backquoted names.
		{"SELECT `a` FROM `t` ORDER BY `a` DESC NULLS LAST LIMIT 5 OFFSET 10", 2, 0, 0, "medium", false},
		{"SELECT a, RANK() OVER (ORDER BY count(b) DESC) FROM t GROUP BY a", 1, 0, 1, "medium", false},
		// Scalar two-argument max() is not an aggregate.
		{"SELECT max(a, b), count(*) FROM t", 0, 0, 1, "medium", false},
		// UNION ALL is a union.
		{"SELECT a FROM t UNION ALL SELECT a FROM u", 0, 1, 0, "hard", false},
		// "> =" is read as ">=", as process_sql and the test-suite postprocess do.
		{"SELECT a FROM t WHERE b > = 1", 1, 0, 0, "easy", true},
		{"SELECT a FROM t WHERE b ! = 1", 1, 0, 0, "easy", true},
	}
	for _, tc := range tests {
		got, err := SpiderHardnessCounts(tc.sql)
		if err != nil {
			t.Errorf("SpiderHardnessCounts(%q): %v", tc.sql, err)
			continue
		}
		want := HardnessCounts{Component1: tc.c1, Component2: tc.c2, Others: tc.o, Compatible: tc.compatible}
		if got != want || got.Hardness() != tc.hardness {
			t.Errorf("SpiderHardnessCounts(%q) = %+v (%s), want %+v (%s)", tc.sql, got, got.Hardness(), want, tc.hardness)
		}
	}
}

func TestSpiderHardnessErrors(t *testing.T) {
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	for _, sql := range []string{
		"",
		"   ",
		"-- only a comment",
		"SELECT",
		"SELECT FROM t",
		"SELECT a FROM",
		"SELECT a FROM t WHERE",
		"SELECT a FROM t WHERE b =",
		"SELECT a FROM t WHERE b = 'unterminated",
		"SELECT a FROM (SELECT b FROM t",
		"SELECT a FROM t GROUP BY",
		"SELECT a FROM t ORDER BY",
		"SELECT a FROM t) x",
		"SELECT a FROM t; DROP TABLE t",
		"SELECT a FROM t WHERE a = 1 AND",
		"SELECT a b c FROM t",
		"DROP TABLE t",
		"UPDATE t SET a = 1",
		"hello world",
		"SELECT CASE WHEN a THEN b FROM t",
		"SELECT CAST(a) FROM t",
		"SELECT a FROM t WHERE b BETWEEN 1",
		"SELECT " + deep,
		"SELECT a FROM t WHERE " + strings.Repeat("NOT ", 5000) + "b",
		"SELECT a FROM t WHERE b IN " + strings.Repeat("(", 3000),
	} {
		h, err := SpiderHardness(sql)
		if err == nil {
			t.Errorf("SpiderHardness(%.60q) = %q, want an error", sql, h)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("SpiderHardness(%.60q) error %v does not wrap ErrSyntax", sql, err)
		}
		if !strings.HasPrefix(err.Error(), "sqlparse: spider hardness: ") {
			t.Errorf("SpiderHardness error lacks context: %v", err)
		}
	}
}

func TestHardnessBuckets(t *testing.T) {
	tests := []struct {
		c1, c2, o int
		want      string
	}{
		{0, 0, 0, "easy"}, {1, 0, 0, "easy"},
		{2, 0, 0, "medium"}, {1, 0, 1, "medium"}, {1, 0, 2, "medium"}, {2, 0, 1, "medium"}, {0, 0, 2, "medium"},
		{2, 0, 2, "extra"}, {3, 0, 0, "hard"}, {3, 0, 2, "hard"}, {1, 0, 3, "hard"}, {2, 0, 3, "hard"},
		{0, 1, 0, "hard"}, {1, 1, 0, "hard"},
		{4, 0, 0, "extra"}, {3, 0, 3, "extra"}, {2, 1, 0, "extra"}, {1, 1, 1, "extra"}, {0, 2, 0, "extra"},
	}
	for _, tc := range tests {
		c := HardnessCounts{Component1: tc.c1, Component2: tc.c2, Others: tc.o}
		if got := c.Hardness(); got != tc.want {
			t.Errorf("Hardness(c1=%d, c2=%d, others=%d) = %s, want %s", tc.c1, tc.c2, tc.o, got, tc.want)
		}
	}
}

func FuzzSpiderHardness(f *testing.F) {
	for _, g := range loadGolden(f)[:50] {
		f.Add(g.SQL)
	}
	for _, u := range loadUnparsed(f)[:50] {
		f.Add(u.SQL)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		c, err := SpiderHardnessCounts(sql)
		if err != nil {
			return
		}
		if c.Component1 < 0 || c.Component2 < 0 || c.Others < 0 || c.Others > 4 {
			t.Fatalf("SpiderHardnessCounts(%q) = %+v: counts out of range", sql, c)
		}
	})
}
