package sqlexec

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadDatabasesAreRefused checks each kind of file or name that is not a
// database inside Root: Check and Query must both refuse it as
// ClassNoDatabase with a message naming the file, never answer from it.
func TestBadDatabasesAreRefused(t *testing.T) {
	e, good := newTestDB(t, SQLiteOptions{})
	root := filepath.Dir(filepath.Dir(good))
	img, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "out.sqlite"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	put := func(db string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, db), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, db, db+".sqlite"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("empty", nil)
	put("short", img[:50])
	put("text", []byte(strings.Repeat("this is not a database\n", 100)))
	put("truncated", img[:len(img)/2])
	badPage := append([]byte(nil), img...)
	binary.BigEndian.PutUint16(badPage[16:], 1000)
	put("badpage", badPage)
	// A header that is right with pages that are not: SQLite's own error.
	corrupt := append([]byte(nil), img[:100]...)
	corrupt = append(corrupt, []byte(strings.Repeat("\xff", len(img)-100))...)
	put("corrupt", corrupt)
	if err := os.MkdirAll(filepath.Join(root, "dir", "dir.sqlite"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "out.sqlite"), filepath.Join(root, "link", "link.sqlite")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		db   string
		name string // what the message must name
	}{
		{"/etc/passwd", "/etc/passwd"},
		{"../x", "../x"},
		{"shop/../shop/shop.sqlite", "shop/../shop/shop.sqlite"},
		{"empty", "empty.sqlite"},
		{"short", "short.sqlite"},
		{"text", "text.sqlite"},
		{"truncated", "truncated.sqlite"},
		{"badpage", "badpage.sqlite"},
		{"dir", "dir.sqlite"},
		{"link", "link.sqlite"},
		{filepath.Join(root, "linkdir", "out.sqlite"), "out.sqlite"},
		{filepath.Join(outside, "out.sqlite"), "out.sqlite"},
		{"nope", "nope.sqlite"},
		{"", ""},
	} {
		t.Run(tt.db, func(t *testing.T) {
			for how, err := range map[string]error{"Check": e.Check(tt.db), "Query": queryErr(e, tt.db)} {
				if ClassOf(err) != ClassNoDatabase || !strings.Contains(err.Error(), tt.name) {
					t.Errorf("%s: %v, want %s naming %q", how, err, ClassNoDatabase, tt.name)
				}
			}
		})
	}
	// A file whose header is fine passes Check; SQLite's own verdict on
	// its pages is ClassNoDatabase too, naming the file.
	if err := e.Check("corrupt"); err != nil {
		t.Errorf("Check(corrupt) = %v, want nil (only a query reads pages)", err)
	}
	if err := queryErr(e, "corrupt"); ClassOf(err) != ClassNoDatabase || !strings.Contains(err.Error(), "corrupt.sqlite") {
		t.Errorf("Query(corrupt) = %v, want %s naming the file", err, ClassNoDatabase)
	}
	// What is inside Root still opens, by name or by path.
	for _, db := range []string{"shop", good, filepath.Join(root, "shop", "shop.sqlite")} {
		if err := e.Check(db); err != nil {
			t.Errorf("Check(%s): %v", db, err)
		}
		if err := queryErr(e, db); err != nil {
			t.Errorf("Query(%s): %v", db, err)
		}
	}
	// Without Root, an explicit path opens wherever it is (package dbcopy).
	free := NewSQLite(SQLiteOptions{MaxConnsPerDB: 1})
	defer free.Close()
	if err := queryErr(free, filepath.Join(outside, "out.sqlite")); err != nil {
		t.Errorf("no Root, explicit path: %v", err)
	}
	if err := queryErr(free, "/etc/passwd"); ClassOf(err) != ClassNoDatabase {
		t.Errorf("no Root, /etc/passwd: %v", err)
	}
}

func queryErr(e *SQLite, db string) error {
	_, err := e.Query(context.Background(), db, "SELECT count(*) FROM sqlite_master")
	return err
}
