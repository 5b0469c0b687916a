package translate

import (
	"strings"
	"testing"
)

var testOpts = Options{
	Names: []string{"superhero", "full_name", "height_cm", "weight_kg", "CDSCode", "Percent (%) Eligible", "user", "event_date", "amount", "name", "cost"},
	Types: map[string]string{"height_cm": "bigint", "weight_kg": "bigint", "amount": "bigint", "cost": "double precision", "full_name": "text", "name": "", "id": "bigint"},
}

// TestToPostgres pins each rule's output (docs/postgres.md lists them).
func TestToPostgres(t *testing.T) {
	cases := []struct{ in, want string }{
		// Types and arithmetic.
		{"SELECT CAST(COUNT(*) AS REAL) * 100 / COUNT(id) FROM t",
			"SELECT CAST(COUNT(*) AS DOUBLE PRECISION) * 100 / NULLIF(COUNT(id), 0) FROM t"},
		{"SELECT CAST(x AS FLOAT), CAST(x AS double)", "SELECT CAST(x AS DOUBLE PRECISION), CAST(x AS DOUBLE PRECISION)"},
		{"SELECT CAST(2.7 AS INTEGER)", "SELECT CAST(TRUNC(CAST(CAST(2.7 AS DOUBLE PRECISION) AS NUMERIC)) AS BIGINT)"},
		{"SELECT CAST(x AS VARCHAR(10)), CAST(x AS TEXT), CAST(x AS BLOB)", "SELECT CAST(x AS TEXT), CAST(x AS TEXT), CAST(x AS BYTEA)"},
		{"SELECT a / 2, a / 0, a % b, a / -b", "SELECT a / 2, a / NULLIF(0, 0), a % NULLIF(b, 0), a / NULLIF(-b, 0)"},
		{"SELECT a / (b - c) * 2, a / T1.b, a / f(x) OVER (w)", "SELECT a / NULLIF((b - c), 0) * 2, a / NULLIF(T1.b, 0), a / NULLIF(f(x) OVER (w), 0)"},
		{"SELECT a / CASE WHEN b THEN 1 ELSE 0 END", "SELECT a / NULLIF(CASE WHEN b THEN 1 ELSE 0 END, 0)"},
		{"SELECT 1.0 * x, 1e3, 0x1F, 10", "SELECT CAST(1.0 AS DOUBLE PRECISION) * x, CAST(1e3 AS DOUBLE PRECISION), 0x1F, 10"},
		{"SELECT SUM(height_cm) / COUNT(id), SUM(cost), SUM(CASE WHEN x THEN amount ELSE 0 END), SUM(name)",
			"SELECT CAST(SUM(height_cm) AS BIGINT) / NULLIF(COUNT(id), 0), SUM(cost), CAST(SUM(CASE WHEN x THEN amount ELSE 0 END) AS BIGINT), SUM(name)"},
		{"SELECT SUM(T1.weight_kg * 2 - 1), SUM(weight_kg * 1.5)",
			"SELECT CAST(SUM(T1.weight_kg * 2 - 1) AS BIGINT), SUM(weight_kg * CAST(1.5 AS DOUBLE PRECISION))"},
		{"SELECT AVG(height_cm), AVG(DISTINCT x), TOTAL(x)",
			"SELECT AVG(CAST(height_cm AS DOUBLE PRECISION)), AVG(DISTINCT CAST(x AS DOUBLE PRECISION)), COALESCE(SUM(CAST(x AS DOUBLE PRECISION)), 0)"},
		{"SELECT ROUND(x, 2), ROUND(y)", "SELECT ROUND(CAST(x AS NUMERIC), 2), ROUND(CAST(y AS NUMERIC))"},
		{"SELECT MAX(a, b), MIN(a, b, c), MAX(a)", "SELECT GREATEST(a, b), LEAST(a, b, c), MAX(a)"},
		// Text.
		{"SELECT * FROM t WHERE a LIKE 'x%' AND b NOT LIKE '%y'", "SELECT * FROM t WHERE a ILIKE 'x%' AND b NOT ILIKE '%y'"},
		{`SELECT * FROM t WHERE a LIKE 'C:\%'`, `SELECT * FROM t WHERE a ILIKE 'C:\%' ESCAPE ''`},
		{`SELECT * FROM t WHERE a LIKE '%\_%' ESCAPE '\'`, `SELECT * FROM t WHERE a ILIKE '%\_%' ESCAPE '\'`},
		{"SELECT * FROM t WHERE a GLOB 'J*n?' AND b NOT GLOB '[a-c]*.txt'", `SELECT * FROM t WHERE a ~ '^J.*n.$' AND b !~ '^[a-c].*\.txt$'`},
		{"SELECT SUBSTR(d, 1, 4), SUBSTRING(d, 6), SUBSTR(d, -3)",
			"SELECT SUBSTR(CAST(d AS TEXT), 1, 4), SUBSTR(CAST(d AS TEXT), 6), SUBSTR(CAST(d AS TEXT), LENGTH(CAST(d AS TEXT)) - 2)"},
		{"SELECT INSTR(a, 'x'), LENGTH(a), UPPER(a), REPLACE(a, 'x', 'y')",
			"SELECT STRPOS(CAST(a AS TEXT), CAST('x' AS TEXT)), LENGTH(CAST(a AS TEXT)), UPPER(CAST(a AS TEXT)), REPLACE(CAST(a AS TEXT), 'x', 'y')"},
		{"SELECT GROUP_CONCAT(a), GROUP_CONCAT(DISTINCT a), GROUP_CONCAT(a, '; ')",
			"SELECT STRING_AGG(CAST(a AS TEXT), ','), STRING_AGG(DISTINCT CAST(a AS TEXT), ','), STRING_AGG(CAST(a AS TEXT), '; ')"},
		{"SELECT IIF(a > 1, 'y', 'n'), IFNULL(a, 0), CHAR(65)", "SELECT (CASE WHEN a > 1 THEN 'y' ELSE 'n' END), COALESCE(a, 0), CHR(65)"},
		{"SELECT a || b FROM t WHERE a == 1", "SELECT a || b FROM t WHERE a = 1"},
		{"SELECT * FROM t WHERE a IS 'x' OR b IS NOT 3 OR c IS NULL OR d IS NOT NULL",
			"SELECT * FROM t WHERE a IS NOT DISTINCT FROM 'x' OR b IS DISTINCT FROM 3 OR c IS NULL OR d IS NOT NULL"},
		// Dates.
		{"SELECT strftime('%Y', event_date)",
			"SELECT (CASE WHEN CAST(event_date AS TEXT) ~ '" + timeFormats + "' THEN TO_CHAR(CAST(RTRIM(CAST(event_date AS TEXT), ' T') AS TIMESTAMP), 'YYYY') END)"},
		{"SELECT strftime('%Y-%m-%dT%H:%M', 'now'), date('now'), date()",
			`SELECT TO_CHAR((CURRENT_TIMESTAMP AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI'), TO_CHAR((CURRENT_TIMESTAMP AT TIME ZONE 'UTC'), 'YYYY-MM-DD'), TO_CHAR(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD')`},
		// Sorting and limits.
		{"SELECT a FROM t ORDER BY a, b DESC, c ASC LIMIT 5", "SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST, c ASC NULLS FIRST LIMIT 5"},
		{"SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 10, 5", "SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 5 OFFSET 10"},
		{"SELECT RANK() OVER (PARTITION BY a ORDER BY b DESC) FROM t", "SELECT RANK() OVER (PARTITION BY a ORDER BY b DESC NULLS LAST) FROM t"},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a) UNION SELECT 1", "SELECT a FROM (SELECT a FROM t ORDER BY a NULLS FIRST) AS sqlrl_sub1 UNION SELECT 1"},
		// Names and quotes.
		{"SELECT `full_name`, [height_cm] FROM superhero", `SELECT "full_name", "height_cm" FROM superhero`},
		{"SELECT cdscode, T.CDSCode, `Percent (%) Eligible` FROM t AS T", `SELECT "CDSCode", T."CDSCode", "Percent (%) Eligible" FROM t AS T`},
		{`SELECT "full_name" FROM superhero WHERE full_name = "Bruce Wayne"`, `SELECT "full_name" FROM superhero WHERE full_name = 'Bruce Wayne'`},
		{`SELECT user FROM t`, `SELECT "user" FROM t`},
		{`SELECT a AS "n", b AS 'c' FROM t ORDER BY "n"`, `SELECT a AS "n", b AS "c" FROM t ORDER BY "n" NULLS FIRST`},
		// Aggregates SQLite allows and PostgreSQL does not.
		{"SELECT T1.first_name, COUNT(*) FROM m AS T1 GROUP BY T1.id", "SELECT MIN(T1.first_name), COUNT(*) FROM m AS T1 GROUP BY T1.id"},
		{"SELECT T1.id, T1.name AS n, COUNT(*) FROM m AS T1 GROUP BY T1.id", "SELECT T1.id, MIN(T1.name) AS n, COUNT(*) FROM m AS T1 GROUP BY T1.id"},
		{"SELECT name, MAX(h) FROM t", "SELECT name, MAX(h) FROM t"},
		{"SELECT COUNT(x) FROM t HAVING COUNT(x) > '15' OR '3' < SUM(y)",
			"SELECT COUNT(x) FROM t HAVING COUNT(x) > CAST('Infinity' AS DOUBLE PRECISION) OR CAST('Infinity' AS DOUBLE PRECISION) < SUM(y)"},
		// Untouched: already fine in both.
		{"SELECT DISTINCT a FROM t WHERE b IN (SELECT c FROM u) AND EXISTS (SELECT 1)", "SELECT DISTINCT a FROM t WHERE b IN (SELECT c FROM u) AND EXISTS (SELECT 1)"},
		{"select a -- comment\nfrom t /* x */;", "select a -- comment\nfrom t /* x */;"},
	}
	for _, c := range cases {
		if got := ToPostgres(c.in, testOpts).SQL; got != c.want {
			t.Errorf("ToPostgres(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestUnsupportedIsReported(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT name, MAX(h) FROM t", "bare column beside MIN()/MAX()"},
		{"SELECT strftime('%w', d)", "STRFTIME"},
		{"SELECT date(d, '+1 day')", "DATE with modifiers"},
		{"SELECT printf('%d', 1)", "PRINTF"},
		{"SELECT a FROM t ORDER BY a COLLATE NOCASE", "COLLATE NOCASE"},
		{"SELECT a FROM t WHERE a GLOB b", "GLOB"},
	}
	for _, c := range cases {
		r := ToPostgres(c.in, Options{})
		if !strings.Contains(strings.Join(r.Unsupported, "|"), c.want) {
			t.Errorf("%q: unsupported %v, want %q", c.in, r.Unsupported, c.want)
		}
	}
	r := ToPostgres("SELECT CAST(a AS REAL) FROM t WHERE b LIKE 'x'", Options{})
	if strings.Join(r.Applied, "|") != ruleCastReal+"|"+ruleLike || len(r.Unsupported) != 0 {
		t.Errorf("applied %v, unsupported %v", r.Applied, r.Unsupported)
	}
}

// FuzzToPostgres: any input translates without panicking, and input with no
// SQLite-specific construct comes back unchanged.
func FuzzToPostgres(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT (", "SELECT CASE", "SELECT a / ", "ORDER BY", "LIMIT 1,", "SELECT x IS", "CAST(", "'", `"`, "`a", "[a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ToPostgres(s, testOpts)
	})
}
