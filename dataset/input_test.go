package dataset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/jsonl"
)

// TestBadInputStops covers the inputs an attacker's review found accepted
// silently (issue 14): each must fail, naming the file and the record.
func TestBadInputStops(t *testing.T) {
	const b = `\t----- bird -----\t`
	gold := func(p string) error { _, err := ReadGoldSQL(p); return err }
	tables := func(p string) error { _, err := ReadTables(p); return err }
	tests := []struct {
		name, file, body string
		read             func(string) error
		want             []string
	}{
		{"bird list", "p.json", `["SELECT 1` + b + `db", "SELECT 2` + b + `db"]`, readPreds, []string{"p.json", "line 1", "JSON list"}},
		{"bird list spaced", "preds.txt", "\n  [\"SELECT 1\"]", readPreds, []string{"preds.txt", "JSON list"}},
		{"bird duplicate key", "p.json", "{\n\"0\": \"SELECT 1" + b + "db\",\n\"1\": \"SELECT 1" + b + "db\",\n\"0\": \"SELECT 2" + b + "db\"\n}", readPreds,
			[]string{"p.json", "line 4", `key "0"`, "line 2"}},
		{"bird same index", "p.json", `{"0": "SELECT 1` + b + `db", "00": "SELECT 2` + b + `db"}`, readPreds, []string{"p.json", `key "00"`, "question 0"}},
		{"bird empty object", "p.json", "{ }\n", readPreds, []string{"p.json", "no predictions"}},
		{"bird trailing", "p.json", "{\"0\": \"SELECT 1" + b + "db\"}\n{\"1\": \"x\"}", readPreds, []string{"p.json", "line 2", "after the JSON object"}},
		{"bird truncated", "p.json", "{\"0\": \"SELECT 1" + b + "db\",\n", readPreds, []string{"p.json", "line 2"}},
		{"bird number", "p.json", "42", readPreds, []string{"p.json", "a number"}},
		{"empty json", "p.json", "", readPreds, []string{"p.json", "no predictions"}},
		{"blank json", "p.json", " \n\t\n", readPreds, []string{"p.json", "no predictions"}},
		{"empty jsonl", "p.jsonl", "", readPreds, []string{"p.jsonl", "no predictions"}},
		{"blank jsonl", "p.jsonl", "\n\n  \n", readPreds, []string{"p.jsonl", "no predictions"}},
		{"empty sql", "p.sql", "", readPreds, []string{"p.sql", "no predictions"}},
		{"blank sql", "p.sql", "   \n\r\n", readPreds, []string{"p.sql", "no predictions"}},
		{"jsonl list line", "p.jsonl", "{\"question_id\": 1, \"sql\": \"x\"}\n[1, 2]\n", readPreds, []string{"p.jsonl", "line 2"}},
		{"jsonl string id", "p.jsonl", `{"question_id": "1", "sql": "x"}`, readPreds, []string{"p.jsonl", "line 1"}},
		{"jsonl duplicate key", "p.jsonl", "{\"question_id\": 1, \"sql\": \"x\"}\n{\"question_id\": 1312, \"question_id\": 1313, \"sql\": \"SELECT 1\"}\n", readPreds,
			[]string{"p.jsonl", "line 2", `"question_id" appears twice`}},
		{"bird repeated question_id", "dev.json", `[{"question_id": 717, "db_id": "a", "question": "q", "SQL": "s"}, {"question_id": 717, "db_id": "a", "question": "q2", "SQL": "s"}]`, loadQ,
			[]string{"dev.json", "record 1", "question_id 717 appears twice"}},
		{"bird record duplicate key", "dev.json", `[{"question_id": 1, "db_id": "a", "db_id": "b", "question": "q", "SQL": "s"}]`, loadQ,
			[]string{"dev.json", "record 0", `"db_id" appears twice`}},
		{"bird db_id parent", "dev.json", `[{"question_id": 4, "db_id": "../x", "question": "q", "SQL": "s"}]`, loadQ, []string{"dev.json", "record 0", `"../x"`}},
		{"bird db_id absolute", "dev.json", `[{"question_id": 1, "db_id": "a", "question": "q", "SQL": "s"}, {"question_id": 2, "db_id": "/etc/passwd", "question": "q", "SQL": "s"}]`, loadQ,
			[]string{"dev.json", "record 1", `"/etc/passwd"`}},
		{"bird db_id dot", "dev.json", `[{"question_id": 1, "db_id": "..", "question": "q", "SQL": "s"}]`, loadQ, []string{"dev.json", "record 0", `".."`}},
		{"spider db_id", "dev.json", `[{"db_id": "a/b", "question": "q", "query": "SELECT 1"}]`, loadQ, []string{"dev.json", "record 0", `"a/b"`}},
		{"empty gold", "gold.sql", "\n \n", gold, []string{"gold.sql", "no gold queries"}},
		{"gold db_id", "gold.sql", "SELECT 1\tok\nSELECT 2\t../../etc\n", gold, []string{"gold.sql", "line 2", `"../../etc"`}},
		// Issue 39: bytes that are not UTF-8 would be read as U+FFFD and
		// scored as other text; an empty question list as a table of zeros;
		// lines too long to be a prediction or a gold query the engine runs.
		{"jsonl invalid UTF-8", "p.jsonl", "{\"question_id\": 1, \"sql\": \"x\"}\n{\"question_id\": 2, \"sql\": \"SELECT '\xff'\"}\n", readPreds,
			[]string{"p.jsonl", "line 2", "invalid UTF-8"}},
		{"sql lines invalid UTF-8", "p.sql", "SELECT 1\nSELECT 'caf\xc3'\n", readPreds, []string{"p.sql", "line 2", "invalid UTF-8"}},
		{"bird invalid UTF-8", "p.json", "{\n\"0\": \"SELECT 1" + b + "db\",\n\"1\": \"SELECT '\xfe'" + b + "db\"\n}", readPreds,
			[]string{"p.json", "line 3", "invalid UTF-8"}},
		{"bird question invalid UTF-8", "dev.json", "[\n{\"question_id\": 1, \"db_id\": \"a\", \"question\": \"how \x80many\", \"SQL\": \"s\"}\n]", loadQ,
			[]string{"dev.json", "line 2", "invalid UTF-8"}},
		{"bird gold invalid UTF-8", "dev.json", "[{\"question_id\": 1, \"db_id\": \"a\", \"question\": \"q\", \"SQL\": \"SELECT '\xff'\"}]", loadQ,
			[]string{"dev.json", "line 1", "invalid UTF-8"}},
		{"gold invalid UTF-8", "gold.sql", "SELECT 1\ta\nSELECT '\xff'\ta\n", gold, []string{"gold.sql", "line 2", "invalid UTF-8"}},
		{"tables invalid UTF-8", "tables.json", "[{\"db_id\": \"a\xff\"}]", tables, []string{"tables.json", "line 1", "invalid UTF-8"}},
		{"bird empty list", "dev.json", "[]", loadQ, []string{"dev.json", "no questions"}},
		{"bird empty list spaced", "dev.json", "\n[ ]\n", loadQ, []string{"dev.json", "no questions"}},
		{"jsonl line too long", "p.jsonl", `{"question_id": 1, "sql": "SELECT '` + strings.Repeat("x", MaxPredictionLine) + `'"}`, readPreds,
			[]string{"p.jsonl", "line 1", "line too long", fmt.Sprint(MaxPredictionLine), jsonl.LimitsDoc}},
		{"sql line too long", "p.sql", "SELECT 1\nSELECT '" + strings.Repeat("x", MaxPredictionLine) + "'\n", readPreds,
			[]string{"p.sql", "line 2", "line too long", fmt.Sprint(MaxPredictionLine)}},
		{"bird value too long", "p.json", "{\"0\": \"SELECT '" + strings.Repeat("x", MaxPredictionLine) + "'" + b + "db\"}", readPreds,
			[]string{"p.json", "line 1", `key "0"`, fmt.Sprint(MaxPredictionLine), jsonl.LimitsDoc}},
		{"gold too long", "gold.sql", "SELECT 1\ta\nSELECT '" + strings.Repeat("x", MaxGoldSQL) + "'\ta\n", gold,
			[]string{"gold.sql", "line 2", "gold SQL of", fmt.Sprint(MaxGoldSQL), jsonl.LimitsDoc}},
		{"bird gold too long", "dev.json", `[{"question_id": 7, "db_id": "a", "question": "q", "SQL": "SELECT '` + strings.Repeat("x", MaxGoldSQL) + `'"}]`, loadQ,
			[]string{"dev.json", "record 0", "question_id 7", "gold SQL of", fmt.Sprint(MaxGoldSQL)}},
		{"spider gold too long", "dev.json", `[{"db_id": "a", "question": "q", "query": "SELECT '` + strings.Repeat("x", MaxGoldSQL) + `'"}]`, loadQ,
			[]string{"dev.json", "record 0", "gold SQL of", fmt.Sprint(MaxGoldSQL)}},
		{"tables db_id", "tables.json", `[{"db_id": "x\\y", "table_names_original": [], "column_names_original": [], "primary_keys": [], "foreign_keys": []}]`, tables,
			[]string{"tables.json", "entry 0", "not a plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, t.TempDir(), tt.file, tt.body)
			err := tt.read(p)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestAlignNamesRecord checks that predictions for questions that are not
// in the gold set are refused with the line or key they came from.
func TestAlignNamesRecord(t *testing.T) {
	exs := []Example{{Index: 0, QuestionID: 10, DBID: "a"}, {Index: 1, QuestionID: 11, DBID: "a"}}
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"jsonl unknown id", "p.jsonl", "{\"question_id\": 10, \"sql\": \"x\"}\n\n{\"question_id\": 99, \"sql\": \"y\"}\n", []string{"p.jsonl", "line 3", "question_id 99"}},
		{"jsonl twice", "p.jsonl", "{\"question_id\": 10, \"sql\": \"x\"}\n{\"question_id\": 10, \"sql\": \"y\"}\n", []string{"line 2", "second prediction", "line 1"}},
		{"bird key out of range", "p.json", "{\n\"0\": \"x\\t----- bird -----\\ta\",\n\"7\": \"y\\t----- bird -----\\ta\"\n}", []string{"p.json", "line 3", `key "7"`, "index 7"}},
		{"bird wrong db", "p.json", `{"1": "x\t----- bird -----\tb"}`, []string{"p.json", `key "1"`, `"b"`}},
		{"sql lines too many", "p.sql", "SELECT 1\nSELECT 2\n\nSELECT 3\n", []string{"p.sql", "line 4", "index 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, t.TempDir(), tt.file, tt.body)
			preds, err := ReadPredictions(p)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Align(p, exs, preds)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
