package sqlparse

import (
	"strings"
	"testing"
)

func TestCheckRead(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		want string // "" : accepted; else a part of the error
	}{
		{"SELECT COUNT(*) FROM superhero", ""},
		{"  -- a comment\nselect id from superhero;", ""},
		{"WITH t AS (SELECT 1 AS x) SELECT x FROM t", ""},
		{"(SELECT 1) UNION SELECT 2", ""},
		{"SELECT 'sqlite_master' FROM superhero", ""}, // a string, not a name
		{"SELECT \"pragma\" FROM t", ""},
		{"VALUES (1)", ""},
		{"", "no statement"},
		{" ; ", "no statement"},
		{"PRAGMA table_info(superhero)", "starts with"},
		{"SELECT * FROM sqlite_master", "catalog"},
		{"SELECT name FROM SQLITE_SCHEMA", "catalog"},
		{"SELECT * FROM \"sqlite_master\"", "catalog"},
		{"SELECT * FROM [sqlite_temp_master]", "catalog"},
		{"SELECT * FROM pragma_table_info('superhero')", "PRAGMA function"},
		{"SELECT 1; DELETE FROM superhero", "more than one statement"},
		{"SELECT 1; SELECT 2;", "more than one statement"},
		{"DELETE FROM superhero", "read-only SELECT"},
		{"ATTACH 'x.db' AS x", "read-only SELECT"},
		{"VACUUM INTO '/tmp/x'", "read-only SELECT"},
		{"EXPLAIN SELECT 1", "read-only SELECT"},
	} {
		err := CheckRead(tt.sql)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v, want accepted", tt.sql, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want an error with %q", tt.sql, err, tt.want)
		}
	}
}
