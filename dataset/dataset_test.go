package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = "../datasets/bird-dev-sample"

func TestLoadBIRDSample(t *testing.T) {
	b, err := Load(sample, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if b.Layout != LayoutBIRD || len(b.Examples) != 287 {
		t.Fatalf("layout %s, %d examples; want bird, 287", b.Layout, len(b.Examples))
	}
	count := map[string]int{}
	for _, ex := range b.Examples {
		count[ex.Difficulty]++
	}
	if count["simple"] != 182 || count["moderate"] != 81 || count["challenging"] != 24 {
		t.Errorf("difficulties %v", count)
	}
	s := b.Schemas["superhero"]
	if s == nil || len(s.TableNames) != 10 || s.Columns[0].Table != -1 {
		t.Fatalf("superhero schema: %+v", s)
	}
	gold, err := ReadGoldSQL(filepath.Join(sample, "dev_gold.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gold {
		if g.SQL != strings.TrimSpace(b.Examples[i].SQL) || g.DBID != b.Examples[i].DBID {
			t.Fatalf("gold line %d differs from dev.json", i+1)
		}
	}
	desc, err := ReadDescriptions(filepath.Join(b.DBRoot, "superhero"))
	if err != nil {
		t.Fatal(err)
	}
	if d := desc["superhero"]; len(d) == 0 || d[0].Column != "id" {
		t.Errorf("descriptions: %+v", desc["superhero"])
	}
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadFilesNameTheProblem checks that each malformed input is reported
// with its file, its record or line, and what is wrong.
func TestBadFilesNameTheProblem(t *testing.T) {
	tests := []struct {
		name, file, body string
		read             func(string) error
		want             []string
	}{
		{"bird syntax", "dev.json", "[\n{\"question_id\": 1,\n \"db_id\": }\n]", loadQ, []string{"dev.json", "line 3"}},
		{"bird missing field", "dev.json", `[{"question_id": 1, "db_id": "x", "question": "q"}]`, loadQ, []string{"dev.json", "record 0", "missing SQL"}},
		{"bird wrong type", "dev.json", `[{"question_id": "1", "db_id": "x", "question": "q", "SQL": "s"}]`, loadQ, []string{"record 0", "question_id"}},
		{"bird bad difficulty", "dev.json", `[{"question_id": 7, "db_id": "x", "question": "q", "SQL": "s", "difficulty": "hard"}]`, loadQ, []string{"question_id 7", `"hard"`}},
		{"gold fields", "gold.sql", "SELECT 1\tdb\nSELECT 2\n", func(p string) error { _, err := ReadGoldSQL(p); return err }, []string{"gold.sql", "line 2"}},
		{"bird preds key", "p.json", `{"zero": "SELECT 1\t----- bird -----\tdb"}`, readPreds, []string{"p.json", `"zero"`}},
		{"bird preds suffix", "p.json", `{"0": "SELECT 1"}`, readPreds, []string{`key "0"`, "suffix"}},
		{"bird preds type", "p.json", `{"0": 5}`, readPreds, []string{`key "0"`, "want a string"}},
		{"jsonl syntax", "p.jsonl", "{\"question_id\": 1, \"sql\": \"x\"}\n{\"question_id\": 2, \"sql\": }\n", readPreds, []string{"p.jsonl", "line 2"}},
		{"jsonl missing sql", "p.jsonl", `{"question_id": 1}`, readPreds, []string{"line 1", "missing sql"}},
		{"jsonl missing id", "p.jsonl", `{"sql": "SELECT 1"}`, readPreds, []string{"line 1", "missing question_id"}},
		{"tables index", "tables.json", `[{"db_id": "d", "table_names_original": ["t"], "column_names_original": [[-1, "*"], [3, "c"]], "primary_keys": [], "foreign_keys": []}]`,
			func(p string) error { _, err := ReadTables(p); return err }, []string{"tables.json", "entry 0", "out of range"}},
	}
	for _, tt := range tests {
		p := write(t, t.TempDir(), tt.file, tt.body)
		err := tt.read(p)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, w)
			}
		}
	}
}

func loadQ(p string) error     { _, err := LoadQuestions(p); return err }
func readPreds(p string) error { _, err := ReadPredictions(p); return err }

func TestPredictionFormatsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	preds := []Prediction{
		{Index: 0, QuestionID: 0, DBID: "a", SQL: "SELECT 1"},
		{Index: 1, QuestionID: 1, DBID: "b", SQL: "SELECT\t2"},
	}
	bird := filepath.Join(dir, "predict_dev.json")
	if err := WriteBIRDPredictions(bird, preds); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPredictions(bird)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].SQL != "SELECT\t2" || got[1].DBID != "b" {
		t.Errorf("bird round trip: %+v", got)
	}
	preds[0].Candidates = []string{"SELECT 1", "SELECT 3"}
	jl := filepath.Join(dir, "p.jsonl")
	if err := WriteJSONLPredictions(jl, preds); err != nil {
		t.Fatal(err)
	}
	got, err = ReadPredictions(jl)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Candidates) != 2 || got[0].Index != -1 {
		t.Errorf("jsonl round trip: %+v", got)
	}
	exs := []Example{{Index: 0, QuestionID: 0, DBID: "a"}, {Index: 1, QuestionID: 1, DBID: "b"}, {Index: 2, QuestionID: 2, DBID: "b"}}
	al, err := Align(jl, exs, got)
	if err != nil {
		t.Fatal(err)
	}
	if al[0] == nil || al[1] == nil || al[2] != nil {
		t.Errorf("align: %v", al)
	}
	if _, err := Align(jl, exs[:1], got); err == nil || !strings.Contains(err.Error(), "question_id 1") {
		t.Errorf("align with unknown question: %v", err)
	}
	got[0].DBID = "zz"
	if _, err := Align(jl, exs, got); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("align with wrong db: %v", err)
	}
}

func TestMissingDatabaseIsNamed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "dev.json", `[{"question_id": 3, "db_id": "nowhere", "question": "q", "SQL": "SELECT 1"}]`)
	os.Mkdir(filepath.Join(dir, "dev_databases"), 0o755)
	_, err := Load(dir, "dev")
	if err == nil || !strings.Contains(err.Error(), "nowhere") || !strings.Contains(err.Error(), "record 0") {
		t.Fatalf("got %v", err)
	}
}

// TestLoadSpiderLayout lays the BIRD sample out as Spider does (the
// questions converted in testdata/spider-layout) and checks hardness
// is computed for every question.
func TestLoadSpiderLayout(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/spider-layout/dev.json")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "dev.json", string(data))
	tables, _ := os.ReadFile(filepath.Join(sample, "dev_tables.json"))
	write(t, dir, "tables.json", string(tables))
	for _, db := range []string{"superhero", "student_club"} {
		abs, _ := filepath.Abs(filepath.Join(sample, "dev_databases", db, db+".sqlite"))
		os.MkdirAll(filepath.Join(dir, "database", db), 0o755)
		if err := os.Symlink(abs, filepath.Join(dir, "database", db, db+".sqlite")); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Load(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if b.Layout != LayoutSpider || len(b.Examples) != 287 || len(b.Schemas) != 2 {
		t.Fatalf("layout %s, %d examples, %d schemas", b.Layout, len(b.Examples), len(b.Schemas))
	}
	count := map[string]int{}
	for _, ex := range b.Examples {
		count[ex.Difficulty]++
	}
	if count["easy"]+count["medium"]+count["hard"]+count["extra"] != 287 {
		t.Errorf("hardness not computed for every question: %v", count)
	}
	t.Logf("Spider hardness of the BIRD sample golds: %v", count)
}
