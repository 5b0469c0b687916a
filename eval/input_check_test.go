package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// fakeChecker fails the databases it lists.
type fakeChecker map[string]bool

func (f fakeChecker) Check(db string) error {
	if f[db] {
		return &sqlexec.Error{Class: sqlexec.ClassNoDatabase, Msg: "database " + db + ": /data/" + db + ".sqlite is not a SQLite database"}
	}
	return nil
}

func TestCheckDatabasesFake(t *testing.T) {
	exs := []dataset.Example{
		{Index: 0, QuestionID: 7, DBID: "good"},
		{Index: 1, QuestionID: 8, DBID: "bad"},
		{Index: 2, QuestionID: 9, DBID: "bad"},
		{Index: 3, QuestionID: 10, DBID: "worse"},
	}
	if err := CheckDatabases(context.Background(), fakeChecker{}, "dev.json", exs); err != nil {
		t.Fatalf("all good: %v", err)
	}
	err := CheckDatabases(context.Background(), fakeChecker{"bad": true, "worse": true}, "dev.json", exs)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"dev.json: record 1 (question_id 8", "/data/bad.sqlite", "record 3", "/data/worse.sqlite"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "record 2") {
		t.Errorf("error %q names a database twice", err)
	}
}

// badDatabases lays out one broken database of each kind under a root;
// the keys are the db_ids.
func badDatabases(t *testing.T) (root string, dbs []string) {
	t.Helper()
	root = t.TempDir()
	good, err := os.ReadFile("../datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"text":      []byte("not a database, just text\n"),
		"empty":     nil,
		"truncated": good[:len(good)/2],
		"header":    good[:50],
	}
	for db, data := range files {
		p := filepath.Join(root, db, db+".sqlite")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	if err := os.MkdirAll(filepath.Join(root, "dir", "dir.sqlite"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, append(dbs, "dir", "missing")
}

// TestCheckDatabasesRealFiles runs the engine's own Check on a non-SQLite,
// a 0-byte, a truncated file, a directory and a missing file.
func TestCheckDatabasesRealFiles(t *testing.T) {
	root, dbs := badDatabases(t)
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
	defer e.Close()
	c, ok := any(e).(DBChecker)
	if !ok {
		t.Skip("sqlexec.SQLite has no Check method yet")
	}
	for _, db := range dbs {
		t.Run(db, func(t *testing.T) {
			exs := []dataset.Example{{Index: 3, QuestionID: 4, DBID: db}}
			err := CheckDatabases(context.Background(), c, "dev.json", exs)
			if err == nil {
				t.Fatal("no error")
			}
			file := filepath.Join(db, db+".sqlite")
			if !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "record 3") {
				t.Errorf("error %q does not name %s and record 3", err, file)
			}
			if sqlexec.ClassOf(errors.Unwrap(err)) != sqlexec.ClassNoDatabase && sqlexec.ClassOf(err) != sqlexec.ClassNoDatabase {
				t.Errorf("class %q, want no_database", sqlexec.ClassOf(err))
			}
		})
	}
	good := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: "../datasets/bird-dev-sample/dev_databases"})
	defer good.Close()
	b, err := dataset.Load("../datasets/bird-dev-sample", "dev")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDatabases(context.Background(), any(good).(DBChecker), b.Questions, b.Examples); err != nil {
		t.Errorf("bundled sample: %v", err)
	}
}

// TestRunStopsOnGoldNoDatabase checks that a gold which cannot open its
// database ends the run with an error instead of a report.
func TestRunStopsOnGoldNoDatabase(t *testing.T) {
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: t.TempDir()})
	defer e.Close()
	exs := []dataset.Example{
		{Index: 0, QuestionID: 5, DBID: "gone", SQL: "SELECT 1"},
		{Index: 1, QuestionID: 6, DBID: "gone", SQL: "SELECT 2"},
	}
	preds := []*dataset.Prediction{{SQL: "SELECT 1"}, {SQL: "SELECT 2"}}
	for _, mode := range []Mode{ModeBIRD, ModeSpider} {
		rep, err := Run(context.Background(), &Scorer{Engine: e, Mode: mode}, exs, preds, Options{Workers: 1})
		if err == nil {
			t.Fatalf("%s: no error; report %+v", mode, rep.Total)
		}
		if !strings.Contains(err.Error(), `"gone"`) || !strings.Contains(err.Error(), "question 5") {
			t.Errorf("%s: error %q does not name the database and the question", mode, err)
		}
	}
}
