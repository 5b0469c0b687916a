package prompt

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/sqlexec"
)

func TestMatchValues(t *testing.T) {
	s := &Schema{Tables: []*Table{
		{Name: "superhero", Columns: []Column{
			{Name: "superhero_name", Values: NewValueSet([]string{"3-D Man", "Man-Thing", "Spider-Man", "Man"})},
			{Name: "full_name", Values: NewValueSet([]string{"Peter Parker", "-", "No", "the", "2008", "Al"})},
		}},
		{Name: "colour", Columns: []Column{{Name: "colour", Values: NewValueSet([]string{"Blue", "Red", "blue"})}}},
		{Name: "skin", Columns: []Column{{Name: "colour", Values: NewValueSet([]string{"Blue"})}}},
		{Name: "plain", Columns: []Column{{Name: "id"}}},
	}}
	for _, tc := range []struct {
		text  string
		limit int
		want  []string
	}{
		{"What is the eye colour of 3-D man?", 6, []string{"superhero.superhero_name=3-D Man"}},
		{"Is Man-Thing taller than Spider Man?", 6, []string{"superhero.superhero_name=Man-Thing", "superhero.superhero_name=Spider-Man"}},
		{"How many heroes have blue eyes and red hair, the year 2008, no al?", 6,
			[]string{"colour.colour=Blue", "skin.colour=Blue", "colour.colour=Red"}},
		{"Who is PETER PARKER?", 6, []string{"superhero.full_name=Peter Parker"}},
		{"blue red blue", 2, []string{"colour.colour=Blue", "skin.colour=Blue"}},
		{"red blue red", 6, []string{"colour.colour=Red", "colour.colour=Blue", "skin.colour=Blue"}},
		{"nothing here", 6, nil},
		{"", 6, nil},
	} {
		var got []string
		for _, m := range s.MatchValues(tc.text, tc.limit) {
			got = append(got, m.Table+"."+m.Column+"="+m.Value)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestCatalogValues reads values from the BIRD sample only when asked, and
// ranks the table holding a quoted value first.
func TestCatalogValues(t *testing.T) {
	b := sample(t)
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	t.Cleanup(func() { eng.Close() })
	ctx := context.Background()
	plain, err := NewCatalog(eng, CatalogOptions{Examples: -1}).Schema(ctx, "superhero")
	if err != nil {
		t.Fatal(err)
	}
	if m := plain.MatchValues("3-D Man", 6); len(m) != 0 {
		t.Errorf("a catalog without Values matched %v", m)
	}
	s, err := NewCatalog(eng, CatalogOptions{Examples: -1, Values: DefaultValues}).Schema(ctx, "superhero")
	if err != nil {
		t.Fatal(err)
	}
	m := s.MatchValues("Please list the superpowers of 3-D Man.", 6)
	if len(m) != 1 || m[0].Table != "superhero" || m[0].Column != "superhero_name" || m[0].Value != "3-D Man" {
		t.Fatalf("matches %+v, want superhero.superhero_name = '3-D Man'", m)
	}
	order, _ := rankTables(s, "the publisher of 3-D Man", nil)
	if s.Tables[order[0]].Name != "superhero" {
		t.Errorf("ranked %s first, want superhero", s.Tables[order[0]].Name)
	}
}

// TestCatalogValuesRowCap: an engine capping rows below the values asked
// for (a server's max_rows) still reads the schema, with fewer values.
func TestCatalogValuesRowCap(t *testing.T) {
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sample(t).DBRoot, Limits: sqlexec.Limits{MaxRows: 500}})
	t.Cleanup(func() { eng.Close() })
	s, err := NewCatalog(eng, CatalogOptions{Examples: -1, Values: 1000}).Schema(context.Background(), "superhero")
	if err != nil {
		t.Fatalf("schema under a row cap: %v", err)
	}
	if n := s.Table("superhero").Columns[1].Values.Len(); n == 0 || n > 100 {
		t.Errorf("superhero_name: %d values under a cap of 500 rows, want 1 to 100", n)
	}
}

// TestValueSetOrder: what MatchValues links does not depend on the order a
// column's values were read in (SQLite reads them in storage order,
// PostgreSQL in primary key order), except between two spellings of the
// same words, where the first read is kept.
func TestValueSetOrder(t *testing.T) {
	names := []string{"3-D Man", "A-Bomb", "Abomination", "Black Widow", "Blue Beetle", "Man-Bat"}
	colours := []string{"Blue", "Black", "Gold"}
	schema := func(reverse bool) *Schema {
		n, c := slices.Clone(names), slices.Clone(colours)
		if reverse {
			slices.Reverse(n)
			slices.Reverse(c)
		}
		return &Schema{Tables: []*Table{
			{Name: "superhero", Columns: []Column{{Name: "superhero_name", Values: NewValueSet(n)}}},
			{Name: "colour", Columns: []Column{{Name: "colour", Values: NewValueSet(c)}}},
		}}
	}
	fwd, rev := schema(false), schema(true)
	for _, text := range []string{"the eyes of 3-D Man and a-bomb", "Black Widow's blue eyes", "how tall is Man-Bat, the man", "gold and blue beetle"} {
		if a, b := fwd.MatchValues(text, 6), rev.MatchValues(text, 6); fmt.Sprint(a) != fmt.Sprint(b) || len(a) == 0 {
			t.Errorf("%q: %v read forward, %v read backward", text, a, b)
		}
	}
	if a, b := NewValueSet([]string{"Spider-Man", "Spider Man"}), NewValueSet([]string{"Spider Man", "Spider-Man"}); a.byKey["spider man"] != "Spider-Man" || b.byKey["spider man"] != "Spider Man" {
		t.Errorf("two spellings of one key: kept %q and %q, want the first read", a.byKey["spider man"], b.byKey["spider man"])
	}
}
