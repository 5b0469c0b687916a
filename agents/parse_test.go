package agents

import (
	"errors"
	"testing"
)

func TestParseSQL(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"bare", "SELECT name FROM t WHERE id = 1", "SELECT name FROM t WHERE id = 1", false},
		{"bare with semicolon", "select 1;\n", "select 1", false},
		{"with", "WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1) SELECT * FROM x", false},
		{"final block", "Plan: count the rows.\nFinal SQL query:\n```sql\nSELECT COUNT(*) FROM t;\n```", "SELECT COUNT(*) FROM t", false},
		{"final inline", "First find t.\nFinal SQL query: SELECT a FROM t\n\nThat is all.", "SELECT a FROM t", false},
		{"final twice equal", "Final SQL query: SELECT 1\n\nFinal SQL query: SELECT 1", "SELECT 1", false},
		{"final twice different", "Final SQL query: SELECT 1\n\nFinal SQL query: SELECT 2", "", true},
		{"final without query", "Final SQL query: I do not know", "", true},
		{"final empty block", "Final SQL query: ```sql\n```", "", true},
		{"last fenced block", "Try:\n```sql\nSELECT 1\n```\nbetter:\n```sql\nSELECT 2\n```", "SELECT 2", false},
		{"unlabelled block", "```\nSELECT a FROM b\n```", "SELECT a FROM b", false},
		{"python block only", "```python\nprint(1)\n```", "", true},
		{"prose", "The answer is 42.", "", true},
		{"empty", "", "", true},
		{"case", "final sql query: ```SQL\nselect 1\n```", "select 1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSQL(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if err != nil && !errors.Is(err, ErrNoSQL) && tc.name != "final twice different" {
				t.Errorf("error %v does not wrap ErrNoSQL", err)
			}
		})
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		in      string
		correct bool
		err     error
	}{
		{"The SELECT returns the name asked for. Conclude: correct.", true, nil},
		{"Filters year = 2010 where 2011 is needed. Conclude: incorrect.", false, nil},
		{"conclude: Correct", true, nil},
		{"Looks fine.\nConclude: **incorrect**.", false, nil},
		{"Conclude: correct. Conclude: incorrect.", false, ErrTwoVerdicts},
		{"Conclude: correct. Conclude: correct.", false, ErrTwoVerdicts},
		{"It is correct.", false, ErrNoConclusion},
		{"Conclude: maybe.", false, ErrNoConclusion},
		{"", false, ErrNoConclusion},
	}
	for _, tc := range tests {
		got, err := ParseVerdict(tc.in)
		if !errors.Is(err, tc.err) || (err == nil && got != tc.correct) {
			t.Errorf("%q: got %v, %v; want %v, %v", tc.in, got, err, tc.correct, tc.err)
		}
	}
}

func TestParseChoice(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  bool
	}{
		{"A", 0, false},
		{" B\n", 1, false},
		{"Answer: B", 1, false},
		{"Both run; B counts distinct names.\nFinal answer: (A).", 0, false},
		{"winner: b", 1, false},
		{"**B**", 1, false},
		{"A or B", 0, true},
		{"C", 0, true},
		{"", 0, true},
		{"I prefer A because\n", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseChoice(tc.in)
		if (err != nil) != tc.err || (err == nil && got != tc.want) {
			t.Errorf("%q: got %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
