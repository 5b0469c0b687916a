package dbcopy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPgType(t *testing.T) {
	cases := []struct {
		declared                  string
		ints, reals, texts, blobs int64
		bigInts                   bool
		want                      string
		noted                     bool
	}{
		{"INTEGER", 10, 0, 0, 0, false, "bigint", false},
		{"int", 0, 0, 0, 0, false, "bigint", false},
		{"INTEGER", 10, 0, 2, 0, false, textType, true},
		{"INTEGER", 0, 0, 3, 0, false, textType, true},
		{"INTEGER", 10, 2, 0, 0, false, "double precision", true},
		{"REAL", 0, 5, 0, 0, false, "double precision", false},
		{"REAL", 0, 0, 0, 0, false, "double precision", false},
		{"TEXT", 0, 0, 5, 0, false, textType, false},
		{"VARCHAR(20)", 0, 0, 0, 0, false, textType, false},
		{"DATE", 0, 0, 5, 0, false, textType, false},
		{"DATE", 0, 0, 0, 0, false, textType, false},
		{"DATETIME", 3, 0, 0, 0, false, "bigint", false},
		{"BOOLEAN", 0, 0, 0, 0, false, "bigint", false},
		{"NUMERIC", 4, 4, 0, 0, false, "double precision", false},
		{"DECIMAL(10,2)", 0, 0, 0, 0, false, "numeric", false},
		{"NUMERIC", 4, 4, 0, 0, true, "numeric", true},
		{"BLOB", 0, 0, 0, 3, false, "bytea", false},
		{"BLOB", 0, 0, 0, 0, false, "bytea", false},
		{"", 0, 0, 0, 0, false, textType, false},
		{"", 3, 0, 0, 0, false, "bigint", false},
		{"", 0, 0, 2, 2, false, "bytea", true},
		{"TEXT", 0, 0, 0, 2, false, "bytea", true},
	}
	for _, c := range cases {
		col := &Column{Declared: c.declared, Ints: c.ints, Reals: c.reals, Texts: c.texts, Blobs: c.blobs}
		got, note := pgType(col, c.bigInts)
		if got != c.want || (note != "") != c.noted {
			t.Errorf("%q %d/%d/%d/%d: %q (note %q), want %q (noted %v)", c.declared, c.ints, c.reals, c.texts, c.blobs, got, note, c.want, c.noted)
		}
	}
}

func TestFindSources(t *testing.T) {
	root := filepath.Join("..", "datasets", "bird-dev-sample")
	srcs, err := FindSources(root, "dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Name != "student_club" || srcs[1].Name != "superhero" {
		t.Fatalf("%+v", srcs)
	}
	srcs, err = FindSources(root, "dev", []string{"superhero", filepath.Join(root, "dev_databases", "student_club", "student_club.sqlite")})
	if err != nil || len(srcs) != 2 || srcs[0].Name != "superhero" || srcs[1].Name != "student_club" {
		t.Fatalf("%+v %v", srcs, err)
	}
	if _, err := FindSources(root, "dev", []string{"nope"}); err == nil {
		t.Error("a missing database was found")
	}
	if _, err := FindSources(t.TempDir(), "dev", nil); err == nil {
		t.Error("an empty directory has databases")
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal(err)
	}
}
