package dbcopy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/sqlrl/sqlrl/dbcopy"
	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// These tests copy into a real PostgreSQL server (internal/pgtest; skipped
// when $SQLRL_PG_DSN is unset) and read both sides through sqlrl's engines.

func copyAll(t *testing.T, d *pgtest.DB, srcs []dbcopy.Source, opts dbcopy.Options) []*dbcopy.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, d.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var reps []*dbcopy.Report
	for _, s := range srcs {
		p, err := dbcopy.PlanCopy(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := dbcopy.Copy(ctx, c, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// bag is a result's rows as a multiset of canonical keys.
func bag(rows [][]sqlexec.Value) map[string]int {
	m := map[string]int{}
	for _, r := range rows {
		var b []byte
		for _, v := range r {
			b = v.AppendKey(b)
		}
		m[string(b)]++
	}
	return m
}

func sameBag(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	return true
}

// tables lists a SQLite database's tables.
func tables(t *testing.T, lite *sqlexec.SQLite, path string) []string {
	t.Helper()
	res, err := lite.Query(context.Background(), path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Rows {
		out = append(out, r[0].S)
	}
	return out
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TestCopySampleIsFaithful: every table of the BIRD sample has the same rows
// (as values sqlrl compares) on both engines, with its keys.
func TestCopySampleIsFaithful(t *testing.T) {
	d := pgtest.NewDB(t)
	srcs, err := dbcopy.FindSources(pgtest.SampleDir(t), "dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	reps := copyAll(t, d, srcs, dbcopy.Options{})
	var rows int64
	for _, r := range reps {
		rows += r.Rows
		if len(r.Skipped) > 0 {
			t.Errorf("%s: skipped %v", r.DB, r.Skipped)
		}
	}
	t.Logf("copied %d rows in %v (%.0f rows/s)", rows, time.Since(start).Round(time.Millisecond), float64(rows)/time.Since(start).Seconds())
	want := map[string][3]int{"student_club": {8, 8, 8}, "superhero": {10, 8, 11}} // tables, primary keys, foreign keys
	for _, r := range reps {
		if w := want[r.DB]; r.Tables != w[0] || r.PrimaryKeys != w[1] || r.ForeignKeys != w[2] {
			t.Errorf("%s: %d tables, %d primary keys, %d foreign keys; want %v", r.DB, r.Tables, r.PrimaryKeys, r.ForeignKeys, w)
		}
	}
	d.AddReadOnlyRole(t, "student_club", "superhero")
	pg := d.Postgres(t, sqlexec.PostgresOptions{})
	lite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{})
	defer lite.Close()
	ctx := context.Background()
	for _, s := range srcs {
		path, _ := filepath.Abs(s.Path)
		for _, tb := range tables(t, lite, path) {
			q := "SELECT * FROM " + quote(tb)
			a, err := lite.Query(ctx, path, q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := pg.Query(ctx, s.Name, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Rows) != len(b.Rows) || !sameBag(bag(a.Rows), bag(b.Rows)) {
				t.Errorf("%s.%s: PostgreSQL has different rows (%d, SQLite %d)", s.Name, tb, len(b.Rows), len(a.Rows))
			}
		}
	}
	types := map[string]string{
		"student_club.event.event_date": "text", "student_club.budget.spent": "double precision",
		"student_club.zip_code.zip_code": "bigint", "student_club.income.amount": "bigint", "superhero.superhero.full_name": "text",
	}
	res, err := pg.Query(ctx, "superhero", `SELECT table_schema || '.' || table_name || '.' || column_name, data_type, collation_name
		FROM information_schema.columns WHERE table_schema IN ('student_club', 'superhero')`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if w, ok := types[r[0].S]; ok && r[1].S != w {
			t.Errorf("%s: %s, want %s", r[0].S, r[1].S, w)
		}
		if r[1].S == "text" && r[2].S != "C" {
			t.Errorf("%s: collation %v, want C (SQLite's BINARY)", r[0].S, r[2].Any())
		}
	}
}

// TestCopyDynamicTypingAndNames: SQLite's dynamic typing, odd names, paging
// over negative rowids, WITHOUT ROWID tables, and constraints the data
// violates.
func TestCopyDynamicTypingAndNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd")
	path := filepath.Join(dir, "odd.sqlite")
	if err := mkdir(dir); err != nil {
		t.Fatal(err)
	}
	w, err := sqlexec.CreateSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Exec(`
		PRAGMA foreign_keys = OFF;
		CREATE TABLE "Parent Table" ("Id" INTEGER PRIMARY KEY, "Mixed Case" TEXT, "Percent (%) Eligible" REAL, """q""" TEXT);
		INSERT INTO "Parent Table" VALUES (1, 'One', 0.5, 'a'), (2, 'Two', NULL, 'b');
		CREATE TABLE child (
			id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES "Parent Table"("Id"), ghost_id INTEGER REFERENCES ghost(id),
			dyn INTEGER, nodecl, d DATE, n NUMERIC, big NUMERIC, b BLOB, bad TEXT, flag BOOLEAN);
		INSERT INTO child VALUES
			(1, 1, NULL, 10, 1, '2019-10-08', 3, 9007199254740993, X'00FF', 'ok', 1),
			(2, 2, 7, 'ten', 2, '2020-03-24T12:00:00', 3.5, 0.25, NULL, CAST(X'C328' AS TEXT), 0),
			(3, 99, NULL, 12.5, 3, NULL, NULL, NULL, X'', 'nul' || CHAR(0) || 'x', NULL);
		CREATE INDEX child_dyn ON child(dyn);
		CREATE UNIQUE INDEX child_d ON child(d, n);
		CREATE INDEX child_expr ON child(lower(bad));
		CREATE TABLE wr (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
		INSERT INTO wr VALUES ('a', 1), ('b', 2), ('c', 3);
		CREATE TABLE nullpk (k TEXT PRIMARY KEY, v INT);
		INSERT INTO nullpk VALUES (NULL, 1), (NULL, 2), ('x', 3);
		CREATE TABLE neg (v INTEGER);
		INSERT INTO neg (rowid, v) VALUES (-5, 1), (0, 2), (3, 3), (10, 4), (11, 5);
	`)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	d := pgtest.NewDB(t)
	reps := copyAll(t, d, []dbcopy.Source{{Name: "odd", Path: path}}, dbcopy.Options{PageRows: 2})
	rep := reps[0]
	all := strings.Join(append(append([]string{}, rep.Skipped...), rep.Notes...), "\n")
	for _, want := range []string{
		`foreign key "child"("ghost_id") -> "ghost"("id"): referenced table does not exist`,
		`foreign key "child"("parent_id") -> "Parent Table"("Id"): insert or update on table "child" violates foreign key constraint`,
		`primary key "nullpk"("k"): column "k" of relation "nullpk" contains null values`,
		`column "dyn": declared INTEGER holds 1 text values and 2 numbers: copied as text`,
		`column "big": declared NUMERIC holds REAL values and integers beyond 2^53: copied as numeric`,
		`column "bad": 2 text values were not valid UTF-8 or held NUL bytes`,
		`index "child_expr" on expressions not copied`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q:\n%s", want, all)
		}
	}
	if rep.Rows != 16 || rep.PrimaryKeys != 3 || rep.ForeignKeys != 0 || rep.Indexes != 2 {
		t.Errorf("report: %d rows, %d primary keys, %d foreign keys, %d indexes", rep.Rows, rep.PrimaryKeys, rep.ForeignKeys, rep.Indexes)
	}
	d.AddReadOnlyRole(t, "odd")
	pg := d.Postgres(t, sqlexec.PostgresOptions{})
	ctx := context.Background()
	res, err := pg.Query(ctx, "odd", `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'odd' ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range res.Rows {
		types = append(types, r[0].S+":"+r[1].S)
	}
	wantTypes := `Id:bigint Mixed Case:text Percent (%) Eligible:double precision "q":text ` +
		`id:bigint parent_id:bigint ghost_id:bigint dyn:text nodecl:bigint d:text n:double precision big:numeric b:bytea bad:text flag:bigint ` +
		`v:bigint k:text v:bigint k:text v:bigint`
	if got := strings.Join(types, " "); got != wantTypes {
		t.Errorf("types:\n got %s\nwant %s", got, wantTypes)
	}
	// Values: identical, except where the report says they had to change.
	lite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{})
	defer lite.Close()
	for _, tb := range tables(t, lite, path) {
		q := "SELECT * FROM " + quote(tb)
		a, err := lite.Query(ctx, path, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pg.Query(ctx, "odd", q)
		if err != nil {
			t.Fatal(err)
		}
		if tb == "child" {
			// dyn: numbers became SQLite's text for them.
			if a, err = lite.Query(ctx, path, "SELECT id, parent_id, ghost_id, CAST(dyn AS TEXT), nodecl, d, n, big, b, bad, flag FROM child"); err != nil {
				t.Fatal(err)
			}
			for _, r := range a.Rows {
				if r[9].Kind == sqlexec.KindText && (!utf8.ValidString(r[9].S) || strings.Contains(r[9].S, "\x00")) {
					r[9] = sqlexec.Text(strings.ReplaceAll(strings.ToValidUTF8(r[9].S, "\uFFFD"), "\x00", ""))
				}
			}
		}
		if len(a.Rows) != len(b.Rows) || !sameBag(bag(a.Rows), bag(b.Rows)) {
			t.Errorf("%s: rows differ\nSQLite:     %s\nPostgreSQL: %s", tb, dump(a.Rows), dump(b.Rows))
		}
	}
	// Exact names work quoted, as SQLite's would.
	res, err = pg.Query(ctx, "odd", `SELECT "Mixed Case", "Percent (%) Eligible", """q""" FROM "Parent Table" WHERE "Id" = 1`)
	if err != nil || res.Rows[0][0].S != "One" || res.Rows[0][1].F != 0.5 || res.Rows[0][2].S != "a" {
		t.Errorf("quoted names: %v %v", res, err)
	}
}

func dump(rows [][]sqlexec.Value) string {
	var out []string
	for _, r := range rows {
		var vs []string
		for _, v := range r {
			vs = append(vs, fmt.Sprintf("%s:%q", v.Kind, fmt.Sprint(v.Any())))
		}
		out = append(out, "("+strings.Join(vs, ", ")+")")
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestCopyReplace: a second copy needs Replace, and gives the same tables.
func TestCopyReplace(t *testing.T) {
	d := pgtest.NewDB(t)
	srcs, err := dbcopy.FindSources(pgtest.SampleDir(t), "dev", []string{"superhero"})
	if err != nil {
		t.Fatal(err)
	}
	copyAll(t, d, srcs, dbcopy.Options{})
	before := pgtest.Checksums(t, d.Admin)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, d.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	p, err := dbcopy.PlanCopy(ctx, srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dbcopy.Copy(ctx, c, p, dbcopy.Options{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second copy without Replace: %v", err)
	}
	if _, err := dbcopy.Copy(ctx, c, p, dbcopy.Options{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if after := pgtest.Checksums(t, d.Admin); len(after) != 10 || fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("replaced copy differs:\n%v\n%v", before, after)
	}
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
