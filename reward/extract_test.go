package reward

import (
	"errors"
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
)

func TestExtractSQL(t *testing.T) {
	const q = "SELECT name FROM superhero WHERE id = 1"
	tests := []struct {
		name, in, want string
	}{
		{"bare", q, q},
		{"bare with semicolon", q + ";", q + ";"},
		{"surrounding space", "\n  " + q + "  \n", q},
		{"sql fence", "Here you go:\n```sql\n" + q + "\n```\nDone.", q},
		{"last sql fence wins", "```sql\nSELECT 1\n```\nBetter:\n```sql\n" + q + "\n```", q},
		{"SQL fence upper case", "```SQL\n" + q + "\n```", q},
		{"sqlite fence", "```sqlite\n" + q + "\n```", q},
		{"sql fence beats later python fence", "```sql\n" + q + "\n```\n```python\nprint(1)\n```", q},
		{"unlabeled fence", "```\n" + q + "\n```", q},
		{"one-line fence", "```sql " + q + "```", q},
		{"unclosed fence (truncated)", "Let me think.\n```sql\n" + q, q},
		{"final sql query marker", "Plan: join tables.\nFinal SQL query: " + q, q},
		{"final sql query marker then fence", "Plan.\nFinal SQL query:\n```sql\n" + q + "\n```", q},
		{"marker case", "final SQL Query:\n" + q, q},
		{"im_end", q + "<|im_end|>", q},
		{"im_end then padding", q + "<|im_end|><|endoftext|><|endoftext|>", q},
		{"eot_id", "```sql\n" + q + "\n```<|eot_id|>", q},
		{"llama2 eos", q + "</s>", q},
		{"leading assistant turn", "<|im_start|>assistant\n" + q + "<|im_end|>", q},
		{"leading llama3 header", "<|start_header_id|>assistant<|end_header_id|>\n\n" + q + "<|eot_id|>", q},
		{"think block", "<think>Maybe SELECT * FROM x?\n```sql\nSELECT 2\n```</think>\n" + q, q},
		{"trailing explanation after semicolon", q + ";\nThis query returns the name.", q + ";"},
		{"trailing explanation after blank line", q + "\n\nThis query returns the name of hero 1.", q},
		{"trailing explanation next line", q + "\nExplanation: it filters by id.", q},
		{"markdown heading after", q + "\n### Explanation\nblah", q},
		{"label before sql", "SQL: " + q, q},
		{"prose then sql line", "The answer is below.\n" + q, q},
		{"multi-line sql kept", "SELECT name\nFROM superhero\nWHERE id = 1", "SELECT name\nFROM superhero\nWHERE id = 1"},
		{"second statement kept", q + "; SELECT 1", q + "; SELECT 1"},
		{"write after semicolon kept", q + "; DROP TABLE superhero", q + "; DROP TABLE superhero"},
		{"with cte", "WITH t AS (SELECT 1) SELECT * FROM t", "WITH t AS (SELECT 1) SELECT * FROM t"},
		{"lower case", "select 1", "select 1"},
		{"parenthesised", "(SELECT 1) UNION SELECT 2", "(SELECT 1) UNION SELECT 2"},
		{"semicolon inside string", "SELECT 'a;b' FROM t", "SELECT 'a;b' FROM t"},
		{"prose starting with With", "With this in mind:\n" + q, q},
		{"recursive cte", "WITH RECURSIVE r(i) AS (SELECT 1) SELECT i FROM r", "WITH RECURSIVE r(i) AS (SELECT 1) SELECT i FROM r"},
		{"bare write", "DELETE FROM superhero", "DELETE FROM superhero"},
		{"leading line comment", "-- the answer\nSELECT 1", "-- the answer\nSELECT 1"},
		{"leading block comment", "/* x */ SELECT 1", "/* x */ SELECT 1"},
		{"quoted cte name", `WITH "t" AS (SELECT 1) SELECT * FROM "t"`, `WITH "t" AS (SELECT 1) SELECT * FROM "t"`},
		{"upper-case marker", "FINAL SQL QUERY: " + q, q},
		{"update as prose label", "Update: nothing to do.", ""},
		{"no sql", "I cannot answer this question.", ""},
		{"empty", "", ""},
		{"only special tokens", "<|im_end|>", ""},
		{"prose mentioning select", "We select the heroes carefully.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExtractSQL(tt.in); got != tt.want {
				t.Errorf("ExtractSQL(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestExtractKeepsBarePredictions checks that a bare SQL answer is scored
// exactly as written, on every prediction of the official agreement set
// (mutations include multi-statement and trailing-semicolon kinds): the
// reward must agree with `sqlrl eval`, which takes predictions verbatim.
func TestExtractKeepsBarePredictions(t *testing.T) {
	for _, p := range testkit.Official(t, "bird_ex.jsonl") {
		if got := ExtractSQL(p.Pred); got != p.Pred {
			t.Errorf("pair %d (%s): ExtractSQL changed the prediction\n got %q\nwant %q", p.Index, p.Kind, got, p.Pred)
		}
		fenced := "Reasoning first.\n```sql\n" + p.Pred + "\n```<|im_end|>"
		if got := ExtractSQL(fenced); got != p.Pred {
			t.Errorf("pair %d (%s): fenced\n got %q\nwant %q", p.Index, p.Kind, got, p.Pred)
		}
	}
}

// TestExtractAgentFormatAgrees holds texts on which the reward's extractor
// and the agents' parser used to read different SQL (or one found none):
// both readings now give the same query.
func TestExtractAgentFormatAgrees(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"draft block before the final query", "```sql\nSELECT draft FROM t\n```\nFinal SQL query: SELECT final FROM t", "SELECT final FROM t"},
		{"label line before a bare query", "Here is the query:\nSELECT a FROM t", "SELECT a FROM t"},
		{"reasoning before a bare query", "<think>maybe SELECT b FROM t</think>\nSELECT a FROM t", "SELECT a FROM t"},
		{"prose after the final query", "First find t.\nFinal SQL query: SELECT a FROM t\n\nThat is all.", "SELECT a FROM t"},
		{"postgresql fence", "```postgresql\nSELECT 1\n```", "SELECT 1"},
		{"end-of-turn token", "SELECT a FROM t<|im_end|>", "SELECT a FROM t"},
		{"fence after the marker's words", "Final SQL query: as follows\n```sql\nSELECT a FROM t\n```", "SELECT a FROM t"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range []ExtractOptions{{}, {Final: true}} {
				got, err := Extract(tc.in, o)
				if err != nil || got != tc.want {
					t.Errorf("Extract(%+v) = %q, %v; want %q", o, got, err, tc.want)
				}
			}
		})
	}
}

func TestExtractFinalRefuses(t *testing.T) {
	tests := []struct {
		name, in  string
		lenient   string // what Extract without options reads
		wantNoSQL bool
	}{
		{"two different final queries", "Final SQL query: SELECT 1\n\nFinal SQL query: SELECT 2", "SELECT 2", false},
		{"marker without a query", "Final SQL query: I do not know", "", true},
		{"empty final block", "Final SQL query: ```sql\n```", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExtractSQL(tc.in); got != tc.lenient {
				t.Errorf("ExtractSQL = %q, want %q", got, tc.lenient)
			}
			got, err := Extract(tc.in, ExtractOptions{Final: true})
			if err == nil || got != "" {
				t.Fatalf("Final: got %q, %v; want an error", got, err)
			}
			if errors.Is(err, ErrNoSQL) != tc.wantNoSQL {
				t.Errorf("Final: error %v, ErrNoSQL %v", err, tc.wantNoSQL)
			}
		})
	}
}
