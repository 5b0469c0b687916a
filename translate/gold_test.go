package translate_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

func TestReadGoldDialectFile(t *testing.T) {
	tests := []struct {
		file    string
		want    map[int]string
		wantErr string
	}{
		{"dialect.jsonl", map[int]string{3: "SELECT 3", 7: `SELECT "x" FROM t`}, ""},
		{"dialect_dup.jsonl", nil, "line 2: question_id 3 given twice"},
		{"dialect_nosql.jsonl", nil, `line 1: want {"question_id": N, "SQL": "..."}`},
		{"dialect_bad.jsonl", nil, "dialect_bad.jsonl: line 1:"},
		{"missing.jsonl", nil, "read gold dialect file"},
	}
	for _, tt := range tests {
		got, err := translate.ReadGoldDialectFile(filepath.Join("testdata", "gold", tt.file))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.file, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.file, got, err, tt.want)
		}
	}
}

func TestReadSQLPostgres(t *testing.T) {
	// By record index; an empty SQL_postgres is still an override.
	got, err := translate.ReadSQLPostgres(filepath.Join("testdata", "gold", "questions.json"))
	if want := map[int]string{1: "SELECT 2::int", 2: ""}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("questions.json: %v, %v; want %v", got, err, want)
	}
	for _, f := range []string{"questions_notarray.json", "missing.json"} {
		if _, err := translate.ReadSQLPostgres(filepath.Join("testdata", "gold", f)); err == nil || !strings.Contains(err.Error(), "read per-dialect gold") {
			t.Errorf("%s: error %v", f, err)
		}
	}
}

// fakeCatalog answers the catalog query for the schemas it has, and counts
// the queries per schema.
type fakeCatalog struct {
	mu      sync.Mutex
	schemas map[string][][]sqlexec.Value
	fail    error
	queries map[string]int
}

func (f *fakeCatalog) Query(_ context.Context, db, sql string) (*sqlexec.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries[db]++
	if f.fail != nil {
		return nil, f.fail
	}
	rows, ok := f.schemas[db]
	if !ok {
		return nil, &sqlexec.Error{Class: sqlexec.ClassNoDatabase, Msg: "no schema " + db}
	}
	return &sqlexec.Result{Rows: rows}, nil
}

func newFake() *fakeCatalog {
	return &fakeCatalog{
		queries: map[string]int{},
		schemas: map[string][][]sqlexec.Value{"school": {
			{sqlexec.Text("Schools"), sqlexec.Null()},
			{sqlexec.Text("CDSCode"), sqlexec.Text("text")},
			{sqlexec.Text("n"), sqlexec.Text("bigint")},
			{sqlexec.Text("x"), sqlexec.Text("bigint")},
			{sqlexec.Text("x"), sqlexec.Text("text")}, // same name, two types
		}},
	}
}

func TestCatalogOptions(t *testing.T) {
	f := newFake()
	c := translate.NewCatalog(f)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Options(ctx, "school"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	opts, err := c.Options(ctx, "school")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Schools", "CDSCode", "n", "x", "x"}; !reflect.DeepEqual(opts.Names, want) {
		t.Errorf("names %v, want %v", opts.Names, want)
	}
	if want := map[string]string{"CDSCode": "text", "n": "bigint", "x": ""}; !reflect.DeepEqual(opts.Types, want) {
		t.Errorf("types %v, want %v", opts.Types, want)
	}
	// Read once, then kept (concurrent first callers may each read it).
	c.Options(ctx, "school")
	if n := f.queries["school"]; n < 1 || n > 8 {
		t.Errorf("schema read %d times", n)
	}
	// A missing schema: empty options, no error (the query fails later, as
	// on SQLite); any other error is one.
	if opts, err := c.Options(ctx, "nowhere"); err != nil || len(opts.Names) != 0 {
		t.Errorf("missing schema: %v, %v", opts, err)
	}
	f.fail = errors.New("connection reset")
	if _, err := c.Options(ctx, "other"); err == nil || !strings.Contains(err.Error(), `schema "other"`) {
		t.Errorf("failing catalog: %v", err)
	}
}

func TestCatalogGoldAndPredictions(t *testing.T) {
	exs := []dataset.Example{
		{Index: 0, QuestionID: 10, DBID: "school", SQL: "SELECT CDSCode FROM Schools"},
		{Index: 1, QuestionID: 11, DBID: "school", SQL: "SELECT 1"},
		{Index: 2, QuestionID: 12, DBID: "school", SQL: "SELECT 2"},
		{Index: 3, QuestionID: 13, DBID: "nowhere", SQL: "SELECT IFNULL(a, 0) FROM t"},
	}
	over := translate.GoldOverrides{
		ByQuestionID: map[int]string{11: "by question id", 12: "by question id"},
		ByIndex:      map[int]string{2: "by index", 3: "by index"},
	}
	c := translate.NewCatalog(newFake())
	ctx := context.Background()
	if err := c.Gold(ctx, exs, over); err != nil {
		t.Fatal(err)
	}
	got := []string{exs[0].SQL, exs[1].SQL, exs[2].SQL, exs[3].SQL}
	want := []string{`SELECT "CDSCode" FROM "Schools"`, "by question id", "by question id", "by index"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gold:\n got %q\nwant %q", got, want)
	}

	preds := []*dataset.Prediction{
		{SQL: "SELECT cdscode FROM schools", Candidates: []string{"SELECT IFNULL(n, 0) FROM Schools"}},
		nil,
		nil,
		{SQL: "SELECT IFNULL(a, 0) FROM t"},
	}
	if err := c.Predictions(ctx, exs, preds); err != nil {
		t.Fatal(err)
	}
	got = []string{preds[0].SQL, preds[0].Candidates[0], preds[3].SQL}
	want = []string{`SELECT "CDSCode" FROM "Schools"`, `SELECT COALESCE(n, 0) FROM "Schools"`, "SELECT COALESCE(a, 0) FROM t"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("predictions:\n got %q\nwant %q", got, want)
	}

	failing := newFake()
	failing.fail = errors.New("connection reset")
	if err := translate.NewCatalog(failing).Gold(ctx, exs[:1], translate.GoldOverrides{}); err == nil {
		t.Error("Gold with a failing catalog: no error")
	}
}
