package sqlexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// offeredFunctions lists the functions SQLite offers on a connection without
// the sandbox (a writable one, as Writer uses), each with an argument count
// it accepts.
func offeredFunctions(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, f := range offeredArities(t) {
		names = append(names, f.name)
	}
	return names
}

type arity struct {
	name string
	narg int
}

func offeredArities(t *testing.T) []arity {
	t.Helper()
	c, err := openConn(filepath.Join(t.TempDir(), "fn.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	// narg is -1 for a variadic function; one argument then does.
	st, _, err := c.prepare("SELECT name, CASE WHEN min(narg) < 0 THEN 1 ELSE min(narg) END FROM pragma_function_list GROUP BY name ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var fns []arity
	for {
		ok, err := st.step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		row, _ := st.row(nil)
		fns = append(fns, arity{row[0].S, int(row[1].I)})
	}
	if len(fns) < 50 {
		t.Fatalf("pragma_function_list gave %d functions: %v", len(fns), fns)
	}
	return fns
}

// TestEveryFunctionIsClassified derives the functions to judge from the
// SQLite compiled in: each must be allowed or denied with a reason, so a
// SQLite that brings a new function fails here until someone decides.
func TestEveryFunctionIsClassified(t *testing.T) {
	allowed := map[string]bool{}
	for _, f := range allowList() {
		allowed[f] = true
		if _, ok := deniedFunctions[f]; ok {
			t.Errorf("%s is both allowed and denied", f)
		}
	}
	for f, why := range deniedFunctions {
		if strings.TrimSpace(why) == "" {
			t.Errorf("%s is denied without a reason", f)
		}
	}
	for _, f := range offeredFunctions(t) {
		if !allowed[strings.ToLower(f)] && deniedFunctions[strings.ToLower(f)] == "" {
			t.Errorf("SQLite %s offers %s(), on neither allowedFunctions nor deniedFunctions (engine.go): classify it", Version, f)
		}
	}
	for _, f := range []string{"fts3_tokenizer", "load_extension", "sqlite_log", "changes", "last_insert_rowid"} {
		if allowed[f] {
			t.Errorf("%s is allowed", f)
		}
	}
}

// TestFunctionsAreAllowListed runs every function SQLite offers through the
// sandboxed engine: an allowed one may fail on its arguments but must not be
// refused; a denied one must be refused while it is prepared.
func TestFunctionsAreAllowListed(t *testing.T) {
	e, _ := newTestDB(t, SQLiteOptions{})
	for _, f := range offeredArities(t) {
		if strings.HasPrefix(f.name, "->") {
			continue // operators, exercised below
		}
		sql := `SELECT "` + f.name + `"(` + strings.TrimSuffix(strings.Repeat("NULL,", f.narg), ",") + `)`
		_, err := e.Query(context.Background(), "shop", sql)
		_, denied := deniedFunctions[strings.ToLower(f.name)]
		refused := ClassOf(err) == ClassNotReadOnly
		if denied != refused {
			t.Errorf("%s: %v, want refused=%v", sql, err, denied)
		}
	}
	for _, sql := range []string{
		`SELECT '{"a":1}' -> '$.a', '{"a":1}' ->> 'a'`,
		`SELECT 'ab' LIKE 'a%', 'ab' GLOB 'a*', Count(*), MAX(id), upper(name) FROM item`,
		`SELECT printf('%5.2f', price), strftime('%Y', added), iif(flag, 'y', 'n'), row_number() OVER (ORDER BY id) FROM item`,
		`SELECT group_concat(name, ','), total(price), round(avg(price), 1) FROM item`,
	} {
		if _, err := e.Query(context.Background(), "shop", sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestFTS3TokenizerCannotCrash replays issue 14's crash: fts3_tokenizer with a
// blob overwrote a tokenizer's function pointer on a pooled connection, and
// the next FTS4 query on that connection died with SIGSEGV. The call must be
// refused, and a MATCH on the same connection must still answer.
func TestFTS3TokenizerCannotCrash(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := CreateSQLite(filepath.Join(root, "docs", "docs.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	fts := w.Exec(`CREATE VIRTUAL TABLE doc USING fts4(body, tokenize=simple);
		INSERT INTO doc(body) VALUES ('hello world'), ('goodbye moon');`)
	if fts != nil {
		// The pure-Go build's SQLite has no FTS3/4; the refusal is still
		// checked.
		t.Logf("no FTS4 in SQLite %s: %v", Version, fts)
		if err := w.Exec("CREATE TABLE doc (body TEXT)"); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	e := NewSQLite(SQLiteOptions{Root: root, MaxConnsPerDB: 1})
	defer e.Close()
	for _, sql := range []string{
		"SELECT length(fts3_tokenizer('simple', x'4142434445464748'))",
		"SELECT fts3_tokenizer('simple', x'4142434445464748')",
		"SELECT hex(fts3_tokenizer('simple'))",
		"SELECT FTS3_Tokenizer('porter')",
		"SELECT load_extension('/tmp/x.so')",
	} {
		_, err := e.Query(context.Background(), "docs", sql)
		switch ClassOf(err) {
		case ClassNotReadOnly:
		case ClassUnknownFunc:
			if fts == nil {
				t.Errorf("%s: %v, want refused by the authorizer", sql, err)
			}
		default:
			t.Errorf("%s: %v, want refused", sql, err)
		}
	}
	if fts != nil {
		return
	}
	res, err := e.Query(context.Background(), "docs", "SELECT body FROM doc WHERE doc MATCH 'hello'")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != Text("hello world") {
		t.Fatalf("MATCH after the attack: %v", res.Rows)
	}
	if _, err := e.Query(context.Background(), "docs", "SELECT snippet(doc), offsets(doc), length(matchinfo(doc)) FROM doc WHERE doc MATCH 'moon'"); err != nil {
		t.Fatal(err)
	}
}
