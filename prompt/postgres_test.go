package prompt

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// TestCatalogPostgres reads the BIRD sample's databases from their
// PostgreSQL copies (`sqlrl db copy`) into the schema the SQLite files
// give: the same tables in the same order, columns, keys, example values
// and values for value linking, column by column; only the declared types
// are PostgreSQL's own.
func TestCatalogPostgres(t *testing.T) {
	pg := pgtest.CopySample(t).Postgres(t, sqlexec.PostgresOptions{})
	lite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sample(t).DBRoot})
	t.Cleanup(func() { lite.Close() })
	ctx := context.Background()
	opts := CatalogOptions{Values: DefaultValues}
	for _, db := range []string{"superhero", "student_club"} {
		want, err := NewCatalog(lite, opts).Schema(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewCatalog(pg, opts).Schema(ctx, db)
		if err != nil {
			t.Fatalf("%s over PostgreSQL: %v", db, err)
		}
		if g, w := tableNames(got), tableNames(want); !slices.Equal(g, w) {
			t.Fatalf("%s: tables %v, want %v", db, g, w)
		}
		values, examples := 0, 0
		for i, wt := range want.Tables {
			gt := got.Tables[i]
			if g, w := fmt.Sprint(gt.PrimaryKey, gt.ForeignKeys), fmt.Sprint(wt.PrimaryKey, wt.ForeignKeys); g != w {
				t.Errorf("%s.%s: keys %s, want %s", db, wt.Name, g, w)
			}
			if len(gt.Columns) != len(wt.Columns) {
				t.Errorf("%s.%s: %d columns, want %d", db, wt.Name, len(gt.Columns), len(wt.Columns))
				continue
			}
			for j, wc := range wt.Columns {
				gc := gt.Columns[j]
				// PostgreSQL's primary keys are NOT NULL; SQLite's
				// need not be declared so.
				notNull := wc.NotNull || slices.Contains(wt.PrimaryKey, wc.Name)
				if gc.Name != wc.Name || gc.NotNull != notNull {
					t.Errorf("%s.%s column %d: %q not null %v, want %q %v", db, wt.Name, j, gc.Name, gc.NotNull, wc.Name, notNull)
				}
				// Examples are the first values in storage order, which
				// PostgreSQL reads in key order (firstDistinctSQL).
				if readInKeyOrder(t, lite, db, wt, wc.Name) {
					if !slices.Equal(gc.Examples, wc.Examples) {
						t.Errorf("%s.%s.%s: examples %v, want %v", db, wt.Name, wc.Name, gc.Examples, wc.Examples)
					}
					examples++
				}
				if !maps.Equal(gc.Values.byKey, wc.Values.byKey) || gc.Values.maxWords != wc.Values.maxWords {
					t.Errorf("%s.%s.%s: %d values, want the SQLite file's %d", db, wt.Name, wc.Name, gc.Values.Len(), wc.Values.Len())
				}
				values += wc.Values.Len()
			}
		}
		if values == 0 || examples == 0 {
			t.Errorf("%s: %d values, %d columns' examples compared: the comparison compared nothing", db, values, examples)
		}
		t.Logf("%s: %d values, %d columns' examples equal", db, values, examples)
	}
}

// readInKeyOrder reports whether the SQLite file gives column's values in
// t's primary key order when read as the catalog reads them, without ORDER
// BY (always so for an INTEGER PRIMARY KEY or none).
func readInKeyOrder(t *testing.T, eng sqlexec.Engine, db string, tb *Table, column string) bool {
	t.Helper()
	if len(tb.PrimaryKey) == 0 {
		return true
	}
	var keys []string
	for _, k := range tb.PrimaryKey {
		keys = append(keys, SQLite.quoteAlways(k))
	}
	col, from := SQLite.quoteAlways(column), SQLite.quoteAlways(tb.Name)
	var got [2]string
	for i, order := range []string{"", " ORDER BY " + strings.Join(keys, ", ")} {
		res, err := eng.Query(context.Background(), db, "SELECT "+col+" FROM "+from+order)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = fmt.Sprint(res.Rows)
	}
	return got[0] == got[1]
}

func tableNames(s *Schema) []string {
	var out []string
	for _, t := range s.Tables {
		out = append(out, t.Name)
	}
	return out
}

// TestFirstDistinctSQL pins the queries: SQLite's are those value linking
// was trained with (a change would change every prompt with values), and
// PostgreSQL's take rows in primary key order, else unsorted.
func TestFirstDistinctSQL(t *testing.T) {
	hero := &Table{Name: "superhero", PrimaryKey: []string{"id"}}
	pair := &Table{Name: "attendance", PrimaryKey: []string{"event", "member"}}
	link := &Table{Name: "hero power"}
	for _, tc := range []struct {
		d    Dialect
		t    *Table
		text bool
		want string
	}{
		{SQLite, hero, true, `SELECT DISTINCT "full_name" FROM (SELECT "full_name" FROM "superhero" LIMIT 200000) WHERE typeof("full_name") = 'text' AND length("full_name") <= 60 LIMIT 5000`},
		{SQLite, hero, false, `SELECT DISTINCT "full_name" FROM (SELECT "full_name" FROM "superhero" LIMIT 200000) WHERE "full_name" IS NOT NULL LIMIT 5000`},
		{PostgreSQL, hero, true, `SELECT v FROM (SELECT DISTINCT ON (v::text) v, n FROM (SELECT v, row_number() OVER () AS n FROM (SELECT "full_name"::text AS v, "id" AS o0 FROM "superhero" ORDER BY o0 LIMIT 200000) s) s WHERE char_length(v) <= 60 ORDER BY v::text, n) s ORDER BY n LIMIT 5000`},
		{PostgreSQL, pair, false, `SELECT v FROM (SELECT DISTINCT ON (v::text) v, n FROM (SELECT v, row_number() OVER () AS n FROM (SELECT "full_name" AS v, "event" AS o0, "member" AS o1 FROM "attendance" ORDER BY o0, o1 LIMIT 200000) s) s WHERE v IS NOT NULL ORDER BY v::text, n) s ORDER BY n LIMIT 5000`},
		{PostgreSQL, link, true, `SELECT v FROM (SELECT DISTINCT ON (v::text) v, n FROM (SELECT v, row_number() OVER () AS n FROM (SELECT "full_name"::text AS v FROM "hero power" LIMIT 200000) s) s WHERE char_length(v) <= 60 ORDER BY v::text, n) s ORDER BY n LIMIT 5000`},
	} {
		if got := tc.d.firstDistinctSQL(tc.t, "full_name", ValueScanRows, DefaultValues, tc.text, MaxValueRunes); got != tc.want {
			t.Errorf("%s %s text=%v:\n got %s\nwant %s", tc.d, tc.t.Name, tc.text, got, tc.want)
		}
	}
}

// TestCatalogPostgresHostile reads a PostgreSQL schema that no SQLite copy
// made: reserved and quoted names, a uuid key, enum, varchar, json and
// bytea columns, a table without a key, a table and a column the role may
// not read (left out, with the key over that column).
func TestCatalogPostgresHostile(t *testing.T) {
	db := pgtest.NewDB(t)
	pgtest.Exec(t, db.Admin,
		`CREATE SCHEMA "Odd schema"`,
		`CREATE TYPE "Odd schema".mood AS ENUM ('Very Happy', 'Rather Sad')`,
		`CREATE TABLE "Odd schema"."Order" (id uuid PRIMARY KEY, "select" text, "we""ird" varchar(20), feeling "Odd schema".mood, doc json, raw bytea, n integer)`,
		`INSERT INTO "Odd schema"."Order" VALUES ('b0000000-0000-0000-0000-000000000002', 'Blue Beetle', 'Green Lantern', 'Rather Sad', '{"a": 1}', '\x00ff', 7),
			('a0000000-0000-0000-0000-000000000001', 'Black Widow', NULL, 'Very Happy', '[1]', NULL, 8)`,
		`CREATE TABLE "Odd schema".nokey (label text, "Order" uuid REFERENCES "Odd schema"."Order")`,
		`INSERT INTO "Odd schema".nokey VALUES ('Zed Zone', NULL), ('Alpha Area', 'a0000000-0000-0000-0000-000000000001')`,
		`CREATE TABLE "Odd schema".secret (code text)`,
		`CREATE TABLE "Odd schema".person (id bigint PRIMARY KEY, name text, salary bigint)`,
		`INSERT INTO "Odd schema".person VALUES (1, 'Ada Lovelace', 100)`,
		`CREATE VIEW "Odd schema".sad AS SELECT "select" FROM "Odd schema"."Order" WHERE feeling = 'Rather Sad'`)
	db.AddReadOnlyRole(t, "Odd schema")
	pgtest.Exec(t, db.Admin, `REVOKE SELECT ON "Odd schema".secret FROM `+db.Role,
		`REVOKE SELECT ON "Odd schema".person FROM `+db.Role, `GRANT SELECT (name, salary) ON "Odd schema".person TO `+db.Role)
	pg := db.Postgres(t, sqlexec.PostgresOptions{})
	s, err := NewCatalog(pg, CatalogOptions{Values: DefaultValues}).Schema(context.Background(), "Odd schema")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tableNames(s), []string{"Order", "nokey", "person"}; !slices.Equal(got, want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	order, nokey, person := s.Tables[0], s.Tables[1], s.Tables[2]
	if fmt.Sprint(order.PrimaryKey, nokey.ForeignKeys, person.PrimaryKey) != "[id] [{[Order] Order [id]}] []" {
		t.Errorf("keys: %v %v %v", order.PrimaryKey, nokey.ForeignKeys, person.PrimaryKey)
	}
	if n := len(person.Columns); n != 2 {
		t.Errorf("person: %d columns, want the 2 the role may read", n)
	}
	for _, tc := range []struct {
		text, want string
	}{
		{"the order of Black Widow and Blue Beetle", "[Order.select=Black Widow Order.select=Blue Beetle]"},
		{"who is rather sad in green lantern", "[Order.feeling=Rather Sad Order.we\"ird=Green Lantern]"},
		{"in the alpha area, Ada Lovelace", "[nokey.label=Alpha Area person.name=Ada Lovelace]"},
		{"a doc 1 of 7", "[]"},
	} {
		var got []string
		for _, m := range s.MatchValues(tc.text, 6) {
			got = append(got, m.Table+"."+m.Column+"="+m.Value)
		}
		if fmt.Sprint(got) != tc.want && !(tc.want == "[]" && len(got) == 0) {
			t.Errorf("%q: %v, want %s", tc.text, got, tc.want)
		}
	}
	if ex := order.Columns[0].Examples; len(ex) == 0 || ex[0] != "'a0000000-0000-0000-0000-000000000001'" {
		t.Errorf("Order.id examples %v: want the uuids in key order", ex)
	}
}
