// Package testkit holds what several packages' tests share: golden-file
// comparison, the official evaluators' verdicts, and the location of the
// bundled BIRD sample. Each helper lives here once so that a fix (a better
// diff, a new verdict field) reaches every test, and so that no package's
// tests reach into another package's testdata/.
package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/jsonl"
	"github.com/sqlrl/sqlrl/sqlexec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Golden compares got with the golden file at path (relative to the test's
// package directory, normally under testdata/). With -update it rewrites the
// file instead, so a deliberate format change is one command and a reviewed
// diff.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%s); got:\n%s", path, firstDiff(got, want), got)
	}
}

// firstDiff says where two byte strings first differ, by line and column,
// which is what a reader of a long golden file needs first.
func firstDiff(got, want []byte) string {
	line, col := 1, 1
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return "first difference at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
		}
		if got[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return "one is a prefix of the other; lengths " + strconv.Itoa(len(got)) + " and " + strconv.Itoa(len(want))
}

// here is this package's directory, found from its source file so that
// tests in any package can read the files it owns.
func here() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testkit: cannot locate its own source file")
	}
	return filepath.Dir(file)
}

// RepoRoot is the module's root directory.
func RepoRoot() string { return filepath.Dir(filepath.Dir(here())) }

// BirdSample is the directory of the bundled BIRD dev sample (BIRD layout:
// dev.json, dev_tables.json, dev_databases/).
func BirdSample() string { return filepath.Join(RepoRoot(), "datasets", "bird-dev-sample") }

// BirdSampleDBs is the bundled sample's database root.
func BirdSampleDBs() string { return filepath.Join(BirdSample(), "dev_databases") }

// OfficialPair is one verdict of an official evaluator on a (gold,
// prediction) pair over the bundled BIRD sample. Which verdict fields are set
// depends on the file: EX (BIRD evaluation.py), F1 (mini-dev's
// evaluation_f1.py), Exec (the Spider test-suite's eval_exec_match: 0/1 or
// the name of an exception it raises), ExecSingle (suite files: the verdict
// on the first database alone), Case (edge-case files).
type OfficialPair struct {
	Index      int      `json:"index"`
	QuestionID int      `json:"question_id"`
	DBID       string   `json:"db_id"`
	Kind       string   `json:"kind"`
	Gold       string   `json:"gold"`
	Pred       string   `json:"pred"`
	EX         int      `json:"ex"`
	F1         *float64 `json:"f1"`
	Exec       any      `json:"exec"`
	ExecSingle *int     `json:"exec_single_db"`
	Case       string   `json:"case"`
}

// OfficialDir holds the official verdict files and the README that says how
// they were produced.
func OfficialDir() string { return filepath.Join(here(), "testdata", "official") }

// Official reads the official verdict file name (e.g. "bird_ex.jsonl").
func Official(t testing.TB, name string) []OfficialPair {
	t.Helper()
	return ReadPairs(t, filepath.Join(OfficialDir(), name))
}

// ReadPairs reads a JSONL file of verdicts in the official files' format
// (a package's own suites use it too).
func ReadPairs(t testing.TB, path string) []OfficialPair {
	t.Helper()
	var out []OfficialPair
	err := jsonl.ReadFile(path, func(_ int, b []byte) error {
		var p OfficialPair
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// HoldConn loads db deterministically: a query that never ends on its own
// blocks in its first row's callback, so the connection stays taken
// (whatever the engine's limits say) until release is called. With one
// connection per database (SQLiteOptions.MaxConnsPerDB 1) every other query
// on db waits for it and runs into its limit while waiting: load without
// timing, for tests of what a busy machine must not leave behind (a cached
// timeout, say).
func HoldConn(t testing.TB, e *sqlexec.SQLite, db string) (release func()) {
	t.Helper()
	const runaway = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r"
	var once sync.Once
	held := make(chan bool, 1)
	unblock := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := e.QueryRows(context.Background(), db, runaway, func(_ []string, row []sqlexec.Value) bool {
			if row == nil {
				return true
			}
			once.Do(func() { held <- true })
			<-unblock
			return false
		})
		once.Do(func() { held <- false; t.Errorf("the runaway ended before its first row: %v", err) })
	}()
	if !<-held {
		t.FailNow()
	}
	var rel sync.Once
	release = func() { rel.Do(func() { close(unblock); <-done }) }
	t.Cleanup(release)
	return release
}

// SQLiteFile builds name.sqlite in a temporary folder from a SQL script
// (none: a database without tables) and returns its path.
func SQLiteFile(t testing.TB, name, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".sqlite")
	w, err := sqlexec.CreateSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := w.Exec(script); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
