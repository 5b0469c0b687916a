package sqlexec

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

func TestReadTableInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.sqlite")
	w, err := CreateSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(`
		CREATE TABLE team (league TEXT, code TEXT, name TEXT NOT NULL, PRIMARY KEY (code, league));
		CREATE TABLE city (id INTEGER PRIMARY KEY, name varchar(20) );
		CREATE TABLE "select" (
			id INTEGER PRIMARY KEY,
			league TEXT, code TEXT, city INTEGER, "home city" INTEGER, plain,
			FOREIGN KEY (code, league) REFERENCES team (code, league),
			FOREIGN KEY (city) REFERENCES city,
			FOREIGN KEY ("home city") REFERENCES city (id));`); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	eng := NewSQLite(SQLiteOptions{})
	t.Cleanup(func() { eng.Close() })
	for _, tc := range []struct {
		table string
		want  TableInfo
	}{
		{"team", TableInfo{
			Columns:    []ColumnInfo{{Name: "league", Type: "TEXT", PKPos: 2}, {Name: "code", Type: "TEXT", PKPos: 1}, {Name: "name", Type: "TEXT", NotNull: true}},
			PrimaryKey: []string{"code", "league"},
		}},
		{"city", TableInfo{
			Columns:    []ColumnInfo{{Name: "id", Type: "INTEGER", PKPos: 1}, {Name: "name", Type: "varchar(20)"}},
			PrimaryKey: []string{"id"},
		}},
		// A reserved-word name; foreign keys in declaration order, the
		// composite one whole, a missing target column as "".
		{"select", TableInfo{
			Columns: []ColumnInfo{{Name: "id", Type: "INTEGER", PKPos: 1}, {Name: "league", Type: "TEXT"}, {Name: "code", Type: "TEXT"},
				{Name: "city", Type: "INTEGER"}, {Name: "home city", Type: "INTEGER"}, {Name: "plain"}},
			PrimaryKey: []string{"id"},
			ForeignKeys: []ForeignKeyInfo{
				{Columns: []string{"code", "league"}, RefTable: "team", RefColumns: []string{"code", "league"}},
				{Columns: []string{"city"}, RefTable: "city", RefColumns: []string{""}},
				{Columns: []string{"home city"}, RefTable: "city", RefColumns: []string{"id"}},
			},
		}},
	} {
		got, err := ReadTableInfo(context.Background(), eng, path, tc.table)
		if err != nil {
			t.Fatalf("%s: %v", tc.table, err)
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.table, *got, tc.want)
		}
	}
}
