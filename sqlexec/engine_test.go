package sqlexec

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// newTestDB builds <root>/shop/shop.sqlite with a few typed tables and
// returns the engine over root and the database file's path.
func newTestDB(t *testing.T, opts SQLiteOptions) (*SQLite, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "shop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shop.sqlite")
	w, err := CreateSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(`
		CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, added DATE, flag BOOLEAN, img BLOB);
		CREATE TABLE big (n INTEGER);
		CREATE INDEX item_name ON item(name);`); err != nil {
		t.Fatal(err)
	}
	if err := w.Exec("INSERT INTO item VALUES (1, 'pen', 1.5, '2024-01-02', 1, X'00ff'), (2, 'ink', 2.0, '2024-02-03', 0, NULL)"); err != nil {
		t.Fatal(err)
	}
	if err := w.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	ins, err := w.Prepare("INSERT INTO big VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := ins.Exec(i); err != nil {
			t.Fatal(err)
		}
	}
	ins.Close()
	if err := w.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	opts.Root = root
	e := NewSQLite(opts)
	t.Cleanup(func() { e.Close() })
	return e, path
}

func TestValuesKeepStorageClasses(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{})
	res, err := e.Query(context.Background(), "shop", "SELECT id, name, price, added, flag, img, NULL, 2.0 FROM item WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{Int(1), Text("pen"), Float(1.5), Text("2024-01-02"), Int(1), Blob([]byte{0, 0xff}), Null(), Float(2)}
	if len(res.Rows) != 1 {
		t.Fatalf("rows = %d, want 1", len(res.Rows))
	}
	for i, v := range res.Rows[0] {
		if v != want[i] {
			t.Errorf("column %s = %#v, want %#v", res.Columns[i], v, want[i])
		}
	}
	if res.Columns[0] != "id" || res.Columns[7] != "2.0" {
		t.Errorf("columns = %q", res.Columns)
	}
}

func TestStatementShapes(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{})
	tests := []struct {
		sql   string
		rows  int
		class Class
	}{
		{"SELECT 1", 1, ""},
		{"SELECT 1;", 1, ""},
		{"SELECT 1; -- trailing comment", 1, ""},
		{"SELECT 1 /* a */ ; /* b */  ", 1, ""},
		{"", 0, ""},
		{"  -- only a comment", 0, ""},
		{";", 0, ""},
		{"SELECT 1;;", 0, ClassMultiple},
		{"SELECT 1; SELECT 2", 0, ClassMultiple},
		{"SELEC 1", 0, ClassSyntax},
		{"SELECT * FROM nope", 0, ClassUnknownTable},
		{"SELECT nope FROM item", 0, ClassUnknownColumn},
		{"SELECT id FROM item, item AS b", 0, ClassAmbiguous},
		{"SELECT nope(1)", 0, ClassUnknownFunc},
		{"SELECT 'unterminated", 0, ClassSyntax},
		{"PRAGMA table_info(item)", 6, ""},
		// Table-valued functions run, as they do in Python's sqlite3.
		{"SELECT value FROM json_each('[1,2]')", 2, ""},
		{"SELECT name FROM pragma_table_info('item')", 6, ""},
	}
	for _, tt := range tests {
		res, err := e.Query(context.Background(), "shop", tt.sql)
		if got := ClassOf(err); got != tt.class {
			t.Errorf("%q: class %q (%v), want %q", tt.sql, got, err, tt.class)
			continue
		}
		if err == nil && len(res.Rows) != tt.rows {
			t.Errorf("%q: %d rows, want %d", tt.sql, len(res.Rows), tt.rows)
		}
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestWritesAreRefusedByTheDatabase checks that no statement a model could
// write changes the database file, and that the refusal is classified.
func TestWritesAreRefusedByTheDatabase(t *testing.T) {
	e, path := newTestDB(t, SQLiteOptions{})
	before := fileSum(t, path)
	other := filepath.Join(t.TempDir(), "other.sqlite")
	attacks := []string{
		"DELETE FROM item",
		"DROP TABLE item",
		"UPDATE item SET price = 0",
		"INSERT INTO item (id) VALUES (99)",
		"CREATE TABLE x (a)",
		"CREATE TEMP TABLE x (a)",
		"CREATE INDEX i ON item(name)",
		"ALTER TABLE item ADD COLUMN z",
		"WITH d AS (SELECT 1) DELETE FROM item",
		"ATTACH DATABASE '" + other + "' AS o",
		"PRAGMA writable_schema = ON",
		"PRAGMA query_only = 0",
		"PRAGMA journal_mode = WAL",
		"PRAGMA user_version = 7",
		"VACUUM",
		"VACUUM INTO '" + other + "'",
		"REINDEX",
		"ANALYZE",
		"BEGIN",
		"BEGIN IMMEDIATE",
		"SAVEPOINT s",
		"SELECT 1; DELETE FROM item",
		"REPLACE INTO item (id) VALUES (1)",
		"SELECT load_extension('x')",
	}
	for _, sql := range attacks {
		_, err := e.Query(context.Background(), "shop", sql)
		if err == nil {
			t.Errorf("%q: succeeded, want refused", sql)
			continue
		}
		switch ClassOf(err) {
		case ClassNotReadOnly, ClassMultiple, ClassUnknownFunc, ClassRuntime:
		default:
			t.Errorf("%q: class %q (%v)", sql, ClassOf(err), err)
		}
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("a statement created %s", other)
	}
	// The pooled connections must still answer, unchanged.
	res, err := e.Query(context.Background(), "shop", "SELECT count(*) FROM item")
	if err != nil || res.Rows[0][0] != Int(2) {
		t.Fatalf("after attacks: %v %v", res, err)
	}
	e.Close()
	if fileSum(t, path) != before {
		t.Fatal("database file changed")
	}
}

// TestTimeoutInterruptsRunawayQuery runs queries whose work happens in the
// first step and across many steps; each must end as a timeout (each would
// run for minutes or forever otherwise).
func TestTimeoutInterruptsRunawayQuery(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{Limits: Limits{Timeout: 300 * time.Millisecond}})
	for _, sql := range []string{
		"SELECT count(*) FROM big a, big b, big c",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT max(n) FROM r",
		"SELECT a.n, b.n FROM big a, big b, big c",
	} {
		_, err := e.Query(context.Background(), "shop", sql)
		if ClassOf(err) != ClassTimeout {
			t.Errorf("%q: class %q (%v), want timeout", sql, ClassOf(err), err)
		}
	}
	// The interrupted connection is reusable.
	if _, err := e.Query(context.Background(), "shop", "SELECT count(*) FROM big"); err != nil {
		t.Fatal(err)
	}
}

func TestCancelInterrupts(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := e.Query(ctx, "shop", "SELECT count(*) FROM big a, big b, big c")
	if ClassOf(err) != ClassCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want canceled", err)
	}
}

func TestCaps(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{Limits: Limits{MaxRows: 100, MaxBytes: 1 << 20}})
	if _, err := e.Query(context.Background(), "shop", "SELECT n FROM big"); ClassOf(err) != ClassTooLarge {
		t.Errorf("rows cap: %v", err)
	}
	if _, err := e.Query(context.Background(), "shop", "SELECT n FROM big LIMIT 100"); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	if _, err := e.Query(context.Background(), "shop", "SELECT zeroblob(2000000)"); ClassOf(err) != ClassTooLarge {
		t.Errorf("bytes cap: %v", err)
	}
}

func TestNoDatabase(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{})
	if _, err := e.Query(context.Background(), "nope", "SELECT 1"); ClassOf(err) != ClassNoDatabase {
		t.Fatalf("got %v", err)
	}
}

// TestConcurrentQueries shares one engine between goroutines, more than the
// pool holds, with timeouts firing in some of them.
func TestConcurrentQueries(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{MaxConnsPerDB: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if (g+i)%7 == 0 {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
					e.Query(ctx, "shop", "SELECT count(*) FROM big a, big b")
					cancel()
					continue
				}
				res, err := e.Query(context.Background(), "shop", fmt.Sprintf("SELECT count(*) FROM big WHERE n < %d", i*10))
				if err != nil {
					errs <- err
					return
				}
				if res.Rows[0][0] != Int(int64(i*10)) {
					errs <- fmt.Errorf("goroutine %d query %d: got %v", g, i, res.Rows[0][0])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestValueEqualAndKey(t *testing.T) {
	tests := []struct {
		a, b Value
		eq   bool
	}{
		{Int(1), Float(1), true},
		{Int(1), Text("1"), false},
		{Text("a"), Blob([]byte("a")), false},
		{Null(), Null(), true},
		{Null(), Int(0), false},
		{Float(0), Float(-0.0), true},
		{Int(1 << 53), Float(1 << 53), true},
		{Int(1<<53 + 1), Float(1 << 53), false},
		{Float(1.5), Float(1.5), true},
		{Int(9223372036854775807), Float(9.223372036854775807e18), false},
	}
	for _, tt := range tests {
		if got := tt.a.Equal(tt.b); got != tt.eq {
			t.Errorf("%v == %v: %v, want %v", tt.a, tt.b, got, tt.eq)
		}
		ka, kb := string(tt.a.AppendKey(nil)), string(tt.b.AppendKey(nil))
		if (ka == kb) != tt.eq {
			t.Errorf("keys of %v, %v: %q %q, want equal=%v", tt.a, tt.b, ka, kb, tt.eq)
		}
	}
}

// TestInterruptBeforeFirstStep checks that an interrupt arriving after a
// query was registered but before its first step is not lost (SQLite clears
// its own flag when a statement starts), and that clearing re-arms the
// connection. The query finishes on its own (9 million rows), so a lost
// interrupt shows as a result instead of an error.
func TestInterruptBeforeFirstStep(t *testing.T) {
	_, path := newTestDB(t, SQLiteOptions{})
	c, err := openConn(path, true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	c.interrupt()
	res, err := c.query(context.Background(), "SELECT count(*) FROM big a, big b", Limits{}, nil)
	if err == nil {
		t.Fatalf("the early interrupt was lost: the query answered %v", res.Rows)
	}
	if !interrupted(errors.Unwrap(err)) && ClassOf(err) != ClassRuntime {
		t.Fatalf("got %v, want an interruption", err)
	}
	res, err = c.query(context.Background(), "SELECT count(*) FROM big", Limits{}, nil)
	if err != nil || res.Rows[0][0] != Int(3000) {
		t.Fatalf("after clearing: %v %v", res, err)
	}
}
