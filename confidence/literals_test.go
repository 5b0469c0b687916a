package confidence

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func TestExplain(t *testing.T) {
	const join = "SELECT COUNT(*) FROM superhero AS T1 INNER JOIN gender T2 ON T1.gender_id = T2.id WHERE T2.sex = 'Female'"
	tests := []struct{ class, msg, sql, want string }{
		{"unknown_column", "no such column: T2.sex", join, "the column sex does not exist in table gender"},
		{"unknown_column", "no such column: T1.sex", join, "the column sex does not exist in table superhero"},
		{"unknown_column", "no such column: sex", join, "the column sex does not exist in the tables the SQL reads"},
		{"unknown_column", "no such column: X.sex", join, "the column sex does not exist in table X"},
		{"unknown_column", `column "sex" does not exist`, "SELECT sex FROM superhero", "the column sex does not exist in the tables the SQL reads"},
		{"unknown_column", "", "", "the SQL names a column that does not exist"},
		{"unknown_table", "no such table: main.heroes", "", "the table heroes does not exist in this database"},
		{"unknown_table", `relation "heroes" does not exist`, "", "the table heroes does not exist in this database"},
		{"ambiguous_column", "ambiguous column name: id", "", "the column id is in more than one of the tables read, and the SQL does not say which"},
		{"unknown_function", "no such function: YEAR", "", "the function YEAR does not exist in this database"},
		{"unknown_function", "function year(date) does not exist", "", "the function year does not exist in this database"},
		{"syntax_error", `near "FROM": syntax error`, "", `the SQL is not valid: it breaks off near FROM`},
		{"syntax_error", `syntax error at or near "FROM"`, "", `the SQL is not valid: it breaks off near FROM`},
		{"syntax_error", "incomplete input", "", "the SQL is not valid: it stops before the statement is complete"},
		{"timeout", "interrupted", "", "the query ran too long and was stopped"},
		{"write_attempt", "attempt to write a readonly database", "", "the SQL would change the database; only reads are run"},
		{"multiple_statements", "", "", "the SQL holds more than one statement; only one is run"},
		{"result_too_large", "", "", "the result is larger than the server keeps"},
		{"no_database", "", "", "the database is unavailable"},
		{"runtime_error", "misuse of aggregate: COUNT()", "", "the database could not run the SQL: misuse of aggregate: COUNT()"},
		{"runtime_error", "", "", "the SQL did not run"},
		{"generation_error", "", "", "the model failed to write SQL for this question"},
		{"generation_timeout", "", "", "the model did not write SQL in time"},
		{"schema_error", "", "", "the database's schema could not be read"},
	}
	for _, tc := range tests {
		if got := Explain(tc.class, tc.msg, tc.sql); got != tc.want {
			t.Errorf("Explain(%s, %q):\n got %q\nwant %q", tc.class, tc.msg, got, tc.want)
		}
	}
}

func TestFilterLiterals(t *testing.T) {
	lit := func(s string) Literal { return Literal{Text: s} }
	pat := func(s string) Literal { return Literal{Text: s, Pattern: true} }
	tests := []struct {
		sql  string
		want []Literal
	}{
		{"SELECT COUNT(*) FROM superhero WHERE superhero_name = 'superhero Maps'", []Literal{lit("'superhero Maps'")}},
		{"SELECT * FROM t AS T1 WHERE T1.a = 'x' AND 'y' = T1.b AND c == 3", []Literal{lit("'x'"), lit("'y'"), lit("3")}},
		{"SELECT * FROM t WHERE a IN ('x', 'y', 2) AND b NOT IN ('z')", []Literal{lit("'x'"), lit("'y'"), lit("2")}},
		{"SELECT * FROM t WHERE a IN ('x', b)", nil},
		{"SELECT * FROM t WHERE a IN (SELECT b FROM u WHERE c = 'q')", []Literal{lit("'q'")}},
		{"SELECT * FROM t WHERE name LIKE '%Maps%' AND n NOT LIKE 'a%' AND m LIKE 'b!%' ESCAPE '!'", []Literal{pat("'%Maps%'")}},
		{"SELECT SUM(CASE WHEN T2.gender = 'Female' THEN 1 ELSE 0 END) FROM t T2", []Literal{lit("'Female'")}},
		{"SELECT * FROM t WHERE strftime('%Y', d) = '2010' AND CAST(x AS INT) = 3 AND a + b = 4", nil},
		{"SELECT * FROM t WHERE a = 'x' || 'y' AND b = 'c' COLLATE NOCASE AND a - b = 1", nil},
		{"SELECT * FROM t WHERE a = 1 + b AND 1 + 2 = c AND 5 = f(x)", nil},
		{"SELECT * FROM t WHERE a = \"Female\" AND b = 'x' AND c = 'x'", []Literal{lit("'x'")}},
		{"SELECT * FROM t WHERE a = 'it''s'", []Literal{lit("'it''s'")}},
		{"SELECT * FROM t WHERE a = 'unterminated", nil},
		{"SELECT 'x' FROM t LIMIT 5", nil},
	}
	for _, tc := range tests {
		if got := FilterLiterals(tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FilterLiterals(%q):\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
}

// heroes is the bundled BIRD sample's superhero database, and its gender
// and superhero tables as the checker sees them.
func heroes(t *testing.T) (*sqlexec.SQLite, []Table) {
	t.Helper()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: testkit.BirdSampleDBs()})
	t.Cleanup(func() { eng.Close() })
	return eng, []Table{{"gender", []string{"id", "gender"}}, {"superhero", []string{"id", "superhero_name", "full_name", "gender_id",
		"eye_colour_id", "hair_colour_id", "skin_colour_id", "race_id", "publisher_id", "alignment_id", "height_cm", "weight_kg"}}}
}

func TestCheckLiterals(t *testing.T) {
	eng, tables := heroes(t)
	hero, both := []string{"superhero"}, []string{"gender", "superhero"}
	tests := []struct {
		name, sql string
		want      []Literal
	}{
		{"a description copied as a value", "SELECT COUNT(*) FROM superhero WHERE superhero_name = 'superhero Maps'",
			[]Literal{{Text: "'superhero Maps'", Tables: hero}}},
		{"found", "SELECT COUNT(*) FROM superhero WHERE superhero_name = 'Storm'", []Literal{{Text: "'Storm'", Tables: hero, Found: true}}},
		{"found in another table read", "SELECT COUNT(*) FROM superhero T1 JOIN gender T2 ON T1.gender_id = T2.id WHERE T2.gender = 'Female'",
			[]Literal{{Text: "'Female'", Tables: both, Found: true}}},
		{"only in another case", "SELECT COUNT(*) FROM superhero T1 JOIN gender T2 ON T1.gender_id = T2.id WHERE T2.gender = 'female'",
			[]Literal{{Text: "'female'", Tables: both, Variant: "Female"}}},
		{"a number", "SELECT * FROM superhero WHERE height_cm = 188 OR id = 99999",
			[]Literal{{Text: "188", Tables: hero, Found: true}, {Text: "99999", Tables: hero}}},
		{"a pattern", "SELECT * FROM superhero WHERE superhero_name LIKE '%storm%' OR superhero_name LIKE '%Zorro%'",
			[]Literal{{Text: "'%storm%'", Pattern: true, Tables: hero, Found: true}, {Text: "'%Zorro%'", Pattern: true, Tables: hero}}},
		{"a table the schema does not list", "SELECT * FROM villain WHERE name = 'x'", nil},
		{"SQL that does not parse", "SELECT * FROM superhero WHERE superhero_name = 'x' AND", nil},
		{"no literals", "SELECT COUNT(*) FROM superhero", nil},
	}
	for _, tc := range tests {
		got := CheckLiterals(context.Background(), eng, "superhero", tc.sql, tables, CheckOptions{})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	// A context that has ended decides nothing: no literal is reported as
	// missing when it was not looked up.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := CheckLiterals(ctx, eng, "superhero", "SELECT * FROM superhero WHERE superhero_name = 'x'", tables, CheckOptions{}); len(got) != 0 {
		t.Errorf("canceled: %+v, want none", got)
	}
}
