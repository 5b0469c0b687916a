package dbgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

// TestPostgresBadSource: a DSN that does not parse, an unreachable server
// and an Introspect given a DSN each say what is wrong, naming -db; none
// needs a server.
func TestPostgresBadSource(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u:secret@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", "-db postgres://u:xxxxx@127.0.0.1:1/db?sslmode=disable&connect_timeout=5: cannot connect (check the host, port"},
		{"postgres://u:secret@[::1/db", "is not a postgres:// URL"},
	} {
		_, err := IntrospectSource(ctx, engine(t), tc.dsn, t.TempDir(), SnapshotOptions{}, IntrospectOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error %v, want one holding %q and no password", tc.dsn, err, tc.want)
		}
	}
	if _, err := Introspect(ctx, engine(t), "postgres://u@h/db", IntrospectOptions{}); !errors.Is(err, ErrPostgres) {
		t.Errorf("Introspect of a DSN: error %v, want ErrPostgres", err)
	}
}

func TestSources(t *testing.T) {
	pg := "postgres://u@h/db"
	for _, tc := range []struct {
		dbs     []string
		schemas string
		want    []Source
	}{
		{[]string{"a.sqlite"}, "public", []Source{{"a.sqlite", ""}}},
		{[]string{pg}, "", []Source{{pg, "public"}}},
		{[]string{"a.sqlite", pg}, "superhero, student_club,", []Source{{"a.sqlite", ""}, {pg, "superhero"}, {pg, "student_club"}}},
	} {
		if got := Sources(tc.dbs, tc.schemas); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sources(%v, %q) = %v, want %v", tc.dbs, tc.schemas, got, tc.want)
		}
	}
}

// TestPostgresSnapshot introspects the bundled sample copied into
// PostgreSQL (sqlrl db copy) through a read-only role and checks that it
// reads as the SQLite files do: the same tables, columns, keys, roles and
// statistics; that generation over the snapshot yields verified questions
// whose golds, translated, return the same rows on PostgreSQL; and that
// nothing was written.
func TestPostgresSnapshot(t *testing.T) {
	db := pgtest.CopySample(t)
	before := pgtest.Checksums(t, db.Admin)
	ctx := context.Background()
	eng := engine(t)
	pg := db.Postgres(t, sqlexec.PostgresOptions{})
	cat := translate.NewCatalog(pg)
	for _, name := range []string{"superhero", "student_club"} {
		want := introspect(t, sampleDB(name), IntrospectOptions{})
		dir := t.TempDir()
		got, err := IntrospectSource(ctx, eng, db.ReadOnly, dir, SnapshotOptions{Schema: name}, IntrospectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != name || got.Path != filepath.Join(dir, name, name+".sqlite") || !strings.HasSuffix(got.Source, "schema "+name) {
			t.Errorf("%s: id %q, path %s, source %q", name, got.ID, got.Path, got.Source)
		}
		if len(got.Snapshot.Skipped) != 0 || len(got.Snapshot.Capped) != 0 {
			t.Errorf("%s: skipped %v, capped %v with every table readable", name, got.Snapshot.Skipped, got.Snapshot.Capped)
		}
		if diff := compareDatabases(want, got); diff != "" {
			t.Errorf("%s: the snapshot introspects differently from the SQLite file:\n%s", name, diff)
		}
		s, err := Generate(ctx, eng, got, Options{N: 300, Seed: 1, DevShare: 0.1, TestShare: 0.1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		qs := append(append(append([]Question(nil), s.Train...), s.Dev...), s.Test...)
		if len(qs) != 300 {
			t.Fatalf("%s: %d questions, want 300", name, len(qs))
		}
		same, asWritten := 0, 0
		var differ []string
		for _, q := range qs {
			onSQLite, err := eng.Query(ctx, got.Path, q.SQL)
			if err != nil {
				t.Fatalf("%s: a kept gold fails on the snapshot: %v\n%s", name, err, q.SQL)
			}
			pgSQL, err := cat.ToPostgres(ctx, name, q.SQL)
			if err != nil {
				t.Fatal(err)
			}
			// As served: the model writes SQLite's dialect and the server
			// runs it on PostgreSQL untranslated (logged, docs/dbgen.md).
			if raw, err := pg.Query(ctx, name, q.SQL); err == nil && eval.BirdEX(raw.Rows, onSQLite.Rows) {
				asWritten++
			}
			onPG, err := pg.Query(ctx, name, pgSQL)
			if err == nil && eval.BirdEX(onPG.Rows, onSQLite.Rows) {
				same++
			} else if len(differ) < 5 {
				differ = append(differ, fmt.Sprintf("%v\n  %s\n  %s", err, q.SQL, pgSQL))
			}
		}
		t.Logf("%s: %d of %d golds, translated, return the same rows on PostgreSQL; %d as written", name, same, len(qs), asWritten)
		if same < len(qs)*95/100 {
			t.Errorf("%s: only %d of %d golds return the same rows on PostgreSQL; first:\n%s", name, same, len(qs), strings.Join(differ, "\n"))
		}
	}
	if after := pgtest.Checksums(t, db.Admin); !reflect.DeepEqual(before, after) {
		t.Errorf("the database changed:\nbefore %v\nafter  %v", before, after)
	}
}

// compareDatabases lists how two introspections of the same data differ in
// what generation reads: tables and rows, columns, roles, keys, statistics.
func compareDatabases(a, b *Database) string {
	var out []string
	diff := func(what string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s: %v, snapshot %v", what, x, y))
		}
	}
	var ta, tb []string
	for _, t := range a.Tables {
		ta = append(ta, t.Name)
	}
	for _, t := range b.Tables {
		tb = append(tb, t.Name)
	}
	// Table order is creation order, which sqlrl db copy does not keep
	// (it creates them by name).
	slices.Sort(ta)
	slices.Sort(tb)
	diff("tables", ta, tb)
	for _, t := range a.Tables {
		u := b.Table(t.Name)
		if u == nil {
			continue
		}
		diff(t.Name+" rows", t.Rows, u.Rows)
		diff(t.Name+" primary key", t.PrimaryKey, u.PrimaryKey)
		fa, fb := slices.Clone(t.ForeignKeys), slices.Clone(u.ForeignKeys)
		for _, f := range [][]ForeignKey{fa, fb} {
			slices.SortFunc(f, func(x, y ForeignKey) int { return strings.Compare(x.Column+x.RefTable, y.Column+y.RefTable) })
		}
		diff(t.Name+" foreign keys", fa, fb)
		var ca, cb []string
		for _, c := range t.Columns {
			ca = append(ca, c.Name)
		}
		for _, c := range u.Columns {
			cb = append(cb, c.Name)
		}
		diff(t.Name+" columns", ca, cb)
		for _, c := range t.Columns {
			d := u.Column(c.Name)
			if d == nil {
				continue
			}
			diff(t.Name+"."+c.Name+" role", c.Role, d.Role)
			diff(t.Name+"."+c.Name+" label", c.Label, d.Label)
			diff(t.Name+"."+c.Name+" statistics", c.Stats, d.Stats)
		}
	}
	return strings.Join(out, "\n")
}

// TestPostgresPermissions: a role without SELECT on one table gets a
// snapshot without it, the table and the foreign key into it named as
// skipped in the benchmark; a role that can read no table, a missing schema
// and a schema without USAGE are clear errors naming the flag.
func TestPostgresPermissions(t *testing.T) {
	db := pgtest.CopySample(t)
	ctx := context.Background()
	eng := engine(t)
	db.AddReadOnlyRole(t, "superhero")
	pgtest.Exec(t, db.Admin, "REVOKE SELECT ON superhero.publisher FROM "+db.Role)
	d, err := IntrospectSource(ctx, eng, db.ReadOnly, t.TempDir(), SnapshotOptions{Schema: "superhero"}, IntrospectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table("publisher") != nil || d.Table("superhero") == nil {
		t.Errorf("tables %v: want superhero without publisher", d.Tables)
	}
	for _, want := range []string{"table publisher: permission denied", "foreign key superhero.publisher_id: references publisher, which was not copied"} {
		if !slices.ContainsFunc(d.Skipped, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("skipped %q: want a line starting %q", d.Skipped, want)
		}
	}
	s, err := Generate(ctx, eng, d, Options{N: 40, Seed: 1, DevShare: 0.1, TestShare: 0.1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bench")
	sums, err := Write(out, []Generated{{DB: d, Splits: s}}, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile(filepath.Join(out, "generation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), "table publisher: permission denied") || !strings.Contains(string(gen), `"snapshot"`) ||
		!strings.Contains(sums[0].Database, "schema superhero") || strings.Contains(sums[0].Database, os.TempDir()) {
		t.Errorf("generation.json does not record the source and the skip:\n%s", gen)
	}
	if _, err := os.Stat(filepath.Join(out, "train_databases", "superhero", "superhero.sqlite")); err != nil {
		t.Errorf("the benchmark does not hold the snapshot: %v", err)
	}

	pgtest.Exec(t, db.Admin, "REVOKE SELECT ON ALL TABLES IN SCHEMA superhero FROM "+db.Role)
	for _, tc := range []struct{ schema, want string }{
		{"superhero", "the role can SELECT none of the tables (alignment, attribute, "},
		{"no_such", "no schema no_such in this database: -pg-schema names the schema holding the tables (schemas the role may use: superhero)"},
		{"student_club", "permission denied for schema student_club"},
	} {
		_, err := IntrospectSource(ctx, eng, db.ReadOnly, t.TempDir(), SnapshotOptions{Schema: tc.schema}, IntrospectOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-db postgres://") {
			t.Errorf("schema %s: error %v, want one naming -db and holding %q", tc.schema, err, tc.want)
		}
	}
}

// TestPostgresCap: a table over MaxRows is cut to its first rows in key
// order, and named; a superuser DSN is accepted.
func TestPostgresCap(t *testing.T) {
	db := pgtest.CopySample(t)
	// As a superuser: accepted, since only the generator's reads run.
	d, err := IntrospectSource(context.Background(), engine(t), db.Admin, t.TempDir(), SnapshotOptions{Schema: "superhero", MaxRows: 100}, IntrospectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hero := d.Table("superhero")
	if hero.Rows != 100 || !slices.Contains(d.Snapshot.Capped, "superhero") || d.Snapshot.Tables["colour"] > 100 {
		t.Errorf("superhero: %d rows, capped %v", hero.Rows, d.Snapshot.Capped)
	}
	if c := hero.Column("id"); c.Stats.Min != 1 || c.Stats.Max != 100 {
		t.Errorf("superhero.id from %g to %g: want the first 100 in key order", c.Stats.Min, c.Stats.Max)
	}
}

// hostilePG is a schema with names and types the snapshot must carry:
// non-ASCII and reserved-word names, a quote in a name, booleans, numeric,
// timestamps, json, uuid, arrays, an enum, bytea, a view, a materialized
// view, a partitioned table, an empty table, a composite foreign key into
// another schema, and tables readable only in some columns (granted in the
// test).
var hostilePG = []string{
	`CREATE SCHEMA "Wéird schema"`,
	`CREATE TYPE "Wéird schema".mood AS ENUM ('sad', 'ok', 'happy')`,
	`CREATE TABLE "Wéird schema"."order" ("select" bigint PRIMARY KEY, "naïve name" text, "quote""d" varchar(20), flag boolean,
		amount numeric(10,2), placed timestamp, day date, doc jsonb, uid uuid, tags text[], raw bytea, feeling "Wéird schema".mood)`,
	`INSERT INTO "Wéird schema"."order" SELECT i, 'Ordre ' || chr(192 + i % 20) || i, 'q' || i % 7, i % 3 = 0, (i * 37 % 1000) / 10.0,
		timestamp '2024-01-01' + i * interval '5 hours', date '2023-01-01' + i, jsonb_build_object('k', i), md5(i::text)::uuid,
		ARRAY['a', 'b' || i % 4], decode(md5(i::text), 'hex'), (ARRAY['sad', 'ok', 'happy'])[1 + i % 3]::"Wéird schema".mood
		FROM generate_series(1, 300) i`,
	`CREATE TABLE "Wéird schema"."group" (id int PRIMARY KEY, "order" bigint REFERENCES "Wéird schema"."order" ("select"), label text, "größe" double precision)`,
	`INSERT INTO "Wéird schema"."group" SELECT i, 1 + i * 7 % 300, 'Gruppe ' || i % 12, i * 1.5 FROM generate_series(1, 200) i`,
	`CREATE TABLE "Wéird schema".empty (id int PRIMARY KEY, x text)`,
	`CREATE TABLE "Wéird schema".part (id int, region text, v int) PARTITION BY LIST (region)`,
	`CREATE TABLE "Wéird schema".part_n PARTITION OF "Wéird schema".part FOR VALUES IN ('north')`,
	`CREATE TABLE "Wéird schema".part_s PARTITION OF "Wéird schema".part FOR VALUES IN ('south')`,
	`INSERT INTO "Wéird schema".part SELECT i, CASE WHEN i % 2 = 0 THEN 'north' ELSE 'south' END, i % 10 FROM generate_series(1, 50) i`,
	`CREATE TABLE "Wéird schema".person (id int PRIMARY KEY, person_name text, salary int)`,
	`INSERT INTO "Wéird schema".person SELECT i, 'Person ' || i, 1000 + i FROM generate_series(1, 30) i`,
	`CREATE TABLE "Wéird schema".ticket (id int PRIMARY KEY, person_id int REFERENCES "Wéird schema".person (id), note text)`,
	`INSERT INTO "Wéird schema".ticket SELECT i, 1 + i % 30, 'note ' || i % 5 FROM generate_series(1, 40) i`,
	`CREATE SCHEMA other`,
	`CREATE TABLE other.t (a int, b int, PRIMARY KEY (a, b))`,
	`INSERT INTO other.t VALUES (1, 1)`,
	`CREATE TABLE "Wéird schema".xref (id int PRIMARY KEY, a int, b int, FOREIGN KEY (a, b) REFERENCES other.t (a, b))`,
	`INSERT INTO "Wéird schema".xref VALUES (1, 1, 1)`,
	`CREATE VIEW "Wéird schema".v AS SELECT * FROM "Wéird schema"."group"`,
	`CREATE MATERIALIZED VIEW "Wéird schema".mv AS SELECT * FROM "Wéird schema"."group"`,
}

// TestPostgresHostileSchema snapshots hostilePG through a role that may
// read everything but person's salary and ticket's keys, and generates
// over it.
func TestPostgresHostileSchema(t *testing.T) {
	db := pgtest.NewDB(t)
	pgtest.Exec(t, db.Admin, hostilePG...)
	db.AddReadOnlyRole(t, "Wéird schema")
	pgtest.Exec(t, db.Admin, `REVOKE SELECT ON "Wéird schema".person FROM `+db.Role, `GRANT SELECT (id, person_name) ON "Wéird schema".person TO `+db.Role,
		`REVOKE SELECT ON "Wéird schema".ticket FROM `+db.Role, `GRANT SELECT (note) ON "Wéird schema".ticket TO `+db.Role)
	ctx := context.Background()
	eng := engine(t)
	d, err := IntrospectSource(ctx, eng, db.ReadOnly, t.TempDir(), SnapshotOptions{Schema: "Wéird schema"}, IntrospectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range d.Tables {
		names = append(names, tb.Name)
	}
	if want := []string{"order", "group", "empty", "part", "person", "ticket", "xref"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables %v, want %v", names, want)
	}
	if d.ID != "W_ird_schema" {
		t.Errorf("db_id %q", d.ID)
	}
	for _, want := range []string{"view v: views", "view mv: views", "table empty: empty", "column person.salary: permission denied",
		"column ticket.id: permission denied", "primary key of ticket: over a column the role may not read", "foreign key ticket.person_id: over a column"} {
		if !slices.ContainsFunc(d.Skipped, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("skipped %q: want a line starting %q", d.Skipped, want)
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(d.Skipped), func(s string) bool { return s != "foreign key xref.a: references other.t in another schema" })); n != 1 {
		t.Errorf("skipped %q: want the foreign key into schema other named once", d.Skipped)
	}
	if p := d.Table("person"); p == nil || len(p.Columns) != 2 || p.Rows != 30 {
		t.Errorf("person: want its two readable columns and 30 rows, got %+v", p)
	}
	if g := d.Table("group"); len(g.ForeignKeys) != 1 || g.ForeignKeys[0].RefTable != "order" || g.ForeignKeys[0].RefColumn != "select" {
		t.Errorf("group's foreign keys %+v", g.ForeignKeys)
	}
	res, err := eng.Query(ctx, d.Path, `SELECT typeof(flag), flag, typeof(amount), amount, placed, day, doc, typeof(uid), tags, typeof(raw), feeling, "naïve name", "quote""d"
		FROM "order" WHERE "select" = 3`)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, v := range res.Rows[0] {
		vals = append(vals, fmt.Sprint(v.Any()))
	}
	got := strings.Join(vals, "|")
	if want := `integer|1|real|11.1|2024-01-01 15:00:00|2023-01-04|{"k": 3}|text|{a,b3}|blob|sad|Ordre Ã3|q3`; got != want {
		t.Errorf("order 3 in the snapshot:\n got %s\nwant %s", got, want)
	}
	if _, err := Generate(ctx, eng, d, Options{N: 30, Seed: 1, DevShare: 0.1, TestShare: 0.1, Workers: 2}); err != nil {
		t.Fatal(err)
	}
}
