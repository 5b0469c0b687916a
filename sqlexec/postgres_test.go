package sqlexec_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqlrl/sqlrl/internal/pgtest"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// The PostgreSQL engine is tested against a real server (internal/pgtest:
// these tests skip when $SQLRL_PG_DSN is unset), on a copy of the bundled
// BIRD sample, logged in as a least-privilege role made for the test.

var (
	sampleOnce sync.Once
	sampleDB   *pgtest.DB
)

// sample copies the sample once per test binary: copying takes a few
// hundred milliseconds, and no test here may change it (that is the point).
func sample(t *testing.T) *pgtest.DB {
	t.Helper()
	pgtest.AdminDSN(t)
	sampleOnce.Do(func() { sampleDB = pgtest.CopySample(&onceT{t}) })
	if sampleDB == nil {
		t.Fatal("copying the sample failed in an earlier test")
	}
	return sampleDB
}

// onceT runs the setup's cleanups at the end of the whole test binary (see
// TestMain) instead of the first test's, since later tests share it.
type onceT struct{ *testing.T }

func (o *onceT) Cleanup(f func()) { cleanups = append(cleanups, f) }

var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(code)
}

func engine(t *testing.T, lim sqlexec.Limits) *sqlexec.Postgres {
	t.Helper()
	return sample(t).Postgres(t, sqlexec.PostgresOptions{Limits: lim})
}

// TestPostgresValues: each PostgreSQL type becomes the Value SQLite would
// have produced for the same data.
func TestPostgresValues(t *testing.T) {
	e := engine(t, sqlexec.Limits{Timeout: 10 * time.Second})
	cases := []struct {
		sql  string
		want sqlexec.Value
	}{
		{"SELECT 7::int2", sqlexec.Int(7)},
		{"SELECT -7::int4", sqlexec.Int(-7)},
		{"SELECT 9223372036854775807::int8", sqlexec.Int(math.MaxInt64)},
		{"SELECT 1.5::float4", sqlexec.Float(1.5)},
		{"SELECT 0.1::float8", sqlexec.Float(0.1)},
		{"SELECT 12.000::numeric", sqlexec.Int(12)},
		{"SELECT -0.000::numeric", sqlexec.Int(0)},
		{"SELECT 12.5::numeric", sqlexec.Float(12.5)},
		{"SELECT 99999999999999999999::numeric", sqlexec.Float(1e20)},
		{"SELECT sum(weight_kg) FROM superhero", sqlexec.Int(0)}, // numeric, integral: checked below
		{"SELECT true", sqlexec.Int(1)},
		{"SELECT 1 > 2", sqlexec.Int(0)},
		{"SELECT 'abc'::text", sqlexec.Text("abc")},
		{"SELECT 'x'::varchar(3)", sqlexec.Text("x")},
		{"SELECT 'ab'::char(3)", sqlexec.Text("ab ")},
		{"SELECT DATE '2019-10-08'", sqlexec.Text("2019-10-08")},
		{"SELECT TIMESTAMP '2019-10-08 12:00:00'", sqlexec.Text("2019-10-08 12:00:00")},
		{"SELECT TIMESTAMP '2019-10-08T12:00:00.5'", sqlexec.Text("2019-10-08 12:00:00.5")},
		{"SELECT TIMESTAMPTZ '2019-10-08 12:00:00+02'", sqlexec.Text("2019-10-08 10:00:00")},
		{"SELECT TIME '07:08:09'", sqlexec.Text("07:08:09")},
		{`SELECT '\x00ff41'::bytea`, sqlexec.Blob([]byte{0, 0xff, 'A'})},
		{"SELECT NULL", sqlexec.Null()},
		{"SELECT NULL::int8", sqlexec.Null()},
		{`SELECT '{"a": 1}'::jsonb`, sqlexec.Text(`{"a": 1}`)},
	}
	ctx := context.Background()
	for _, c := range cases {
		res, err := e.Query(ctx, "superhero", c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			t.Errorf("%s: %d rows", c.sql, len(res.Rows))
			continue
		}
		got := res.Rows[0][0]
		if strings.HasPrefix(c.sql, "SELECT sum(") {
			if got.Kind != sqlexec.KindInt || got.I <= 0 {
				t.Errorf("%s: got %v %v, want a positive int (numeric, integral)", c.sql, got.Kind, got.Any())
			}
			continue
		}
		if got.Kind != c.want.Kind || !got.Equal(c.want) {
			t.Errorf("%s: got %v %#v, want %v %#v", c.sql, got.Kind, got.Any(), c.want.Kind, c.want.Any())
		}
	}
	res, err := e.Query(ctx, "superhero", "SELECT 'NaN'::numeric, 'Infinity'::float8, avg(x) FROM (VALUES (1), (2), (2)) v(x)")
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if r[0].Kind != sqlexec.KindFloat || !math.IsNaN(r[0].F) || !math.IsInf(r[1].F, 1) {
		t.Errorf("NaN/Infinity: %#v", r)
	}
	// avg(int) is numeric 1.6666666666666667: the nearest double, as
	// SQLite's 5.0/3.
	if r[2].Kind != sqlexec.KindFloat || r[2].F != 5.0/3 {
		t.Errorf("avg: %v %v, want float %v", r[2].Kind, r[2].Any(), 5.0/3)
	}
}

// TestPostgresMatchesSQLiteValues: the same expression gives equal values on
// both engines (what makes EX mean the same).
func TestPostgresMatchesSQLiteValues(t *testing.T) {
	e := engine(t, sqlexec.Limits{Timeout: 10 * time.Second})
	lite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Join(pgtest.SampleDir(t), "dev_databases")})
	defer lite.Close()
	cases := []struct{ sqlite, pg string }{
		{"SELECT 1 = 1, 2 < 1", "SELECT 1 = 1, 2 < 1"},
		{"SELECT 7 / 2, 7 % 3, -7 / 2", "SELECT 7 / 2, 7 % 3, -7 / 2"},
		{"SELECT CAST(7 AS REAL) / 2", "SELECT CAST(7 AS DOUBLE PRECISION) / 2"},
		{"SELECT COUNT(*), SUM(height_cm), MAX(weight_kg), MIN(full_name) FROM superhero",
			"SELECT COUNT(*), SUM(height_cm), MAX(weight_kg), MIN(full_name) FROM superhero"},
		{"SELECT superhero_name, height_cm FROM superhero ORDER BY id LIMIT 50",
			"SELECT superhero_name, height_cm FROM superhero ORDER BY id LIMIT 50"},
		{"SELECT spent, remaining, amount, event_status FROM budget ORDER BY budget_id",
			"SELECT spent, remaining, amount, event_status FROM budget ORDER BY budget_id"},
		{"SELECT event_date FROM event ORDER BY event_id", "SELECT event_date FROM event ORDER BY event_id"},
	}
	ctx := context.Background()
	for _, c := range cases {
		db := "superhero"
		if strings.Contains(c.sqlite, "budget") || strings.Contains(c.sqlite, "event") {
			db = "student_club"
		}
		want, err := lite.Query(ctx, db, c.sqlite)
		if err != nil {
			t.Fatalf("sqlite %s: %v", c.sqlite, err)
		}
		got, err := e.Query(ctx, db, c.pg)
		if err != nil {
			t.Fatalf("postgres %s: %v", c.pg, err)
		}
		if len(got.Rows) != len(want.Rows) {
			t.Fatalf("%s: %d rows, SQLite %d", c.pg, len(got.Rows), len(want.Rows))
		}
		for i := range want.Rows {
			for k := range want.Rows[i] {
				w, g := want.Rows[i][k], got.Rows[i][k]
				if !g.Equal(w) {
					t.Errorf("%s: row %d column %d: PostgreSQL %v %v, SQLite %v %v", c.pg, i, k, g.Kind, g.Any(), w.Kind, w.Any())
				}
			}
		}
	}
}

// TestPostgresErrorClasses: failures land in the same classes as on SQLite.
func TestPostgresErrorClasses(t *testing.T) {
	e := engine(t, sqlexec.Limits{Timeout: 10 * time.Second})
	cases := []struct {
		db, sql string
		want    sqlexec.Class
	}{
		{"superhero", "SELEC 1", sqlexec.ClassSyntax},
		{"superhero", "SELECT (1", sqlexec.ClassSyntax},
		{"superhero", "SELECT * FROM no_such_table", sqlexec.ClassUnknownTable},
		{"superhero", "SELECT * FROM nope.superhero", sqlexec.ClassUnknownTable},
		{"superhero", "SELECT no_such_column FROM superhero", sqlexec.ClassUnknownColumn},
		{"superhero", "SELECT id FROM superhero, colour", sqlexec.ClassAmbiguous},
		{"superhero", "SELECT no_such_function(1)", sqlexec.ClassUnknownFunc},
		{"superhero", "SELECT 1; SELECT 2", sqlexec.ClassMultiple},
		{"superhero", "SELECT 1/0", sqlexec.ClassRuntime},
		{"superhero", "SELECT superhero_name FROM superhero WHERE superhero_name = 1", sqlexec.ClassRuntime},
		{"no_such_db", "SELECT 1", sqlexec.ClassNoDatabase},
		{"superhero", "DELETE FROM superhero", sqlexec.ClassNotReadOnly},
	}
	ctx := context.Background()
	for _, c := range cases {
		_, err := e.Query(ctx, c.db, c.sql)
		if got := sqlexec.ClassOf(err); got != c.want {
			t.Errorf("%s: class %q (%v), want %q", c.sql, got, err, c.want)
		}
	}
	// No statement at all: an empty result, as on SQLite.
	for _, sql := range []string{"", "  ", "-- nothing", "/* x */ ;", ";"} {
		res, err := e.Query(ctx, "superhero", sql)
		if err != nil || len(res.Rows) != 0 {
			t.Errorf("%q: %v, %v", sql, res, err)
		}
	}
	if res, err := e.Query(ctx, "superhero", "SELECT 1;"); err != nil || len(res.Rows) != 1 {
		t.Errorf("trailing semicolon: %v %v", res, err)
	}
	// Parameters are bound to NULL, as SQLite leaves unbound ones.
	if res, err := e.Query(ctx, "superhero", "SELECT $1, $2::int + 1"); err != nil || res.Rows[0][0].Kind != sqlexec.KindNull || res.Rows[0][1].Kind != sqlexec.KindNull {
		t.Errorf("parameters: %v %v", res, err)
	}
}

// attacks are statements that would change the database, the server or
// other sessions. dbRefuses says the database itself (READ ONLY transaction,
// role privileges) refuses them, without the engine's check that only
// row-returning statements run.
var attacks = []struct {
	sql       string
	dbRefuses bool
}{
	{"DELETE FROM superhero", true},
	{"DELETE FROM superhero RETURNING id", true},
	{"UPDATE superhero SET height_cm = 0 RETURNING id", true},
	{"INSERT INTO colour VALUES (999, 'x') RETURNING id", true},
	{"WITH d AS (DELETE FROM hero_power RETURNING *) SELECT count(*) FROM d", true},
	{"DROP TABLE superhero", true},
	{"DROP SCHEMA superhero CASCADE", true},
	{"TRUNCATE superhero", true},
	{"CREATE TABLE x (a int)", true},
	{"CREATE TEMP TABLE x (a int)", true},
	{"SELECT * INTO newtable FROM superhero", true},
	{"ALTER TABLE superhero ADD COLUMN x int", true},
	{"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", true},
	{"COPY superhero TO PROGRAM 'touch /tmp/sqlrl-pwned'", true},
	{"COPY superhero FROM PROGRAM 'echo 1'", true},
	{"COPY superhero TO '/tmp/sqlrl-out'", true},
	{"COPY (SELECT 1) TO STDOUT", false},
	{"SET ROLE sqlrl", true},
	{"SET SESSION AUTHORIZATION sqlrl", true},
	{"SET default_transaction_read_only = off", false},
	{"RESET ALL", false},
	{"SELECT dblink_exec('dbname=sqlrl', 'DROP TABLE superhero.superhero')", true},
	{"SELECT public.dblink_exec('host=127.0.0.1 dbname=postgres user=sqlrl', 'DROP DATABASE sqlrl')", true},
	{"SELECT * FROM pg_authid", true},
	{"DO $$ BEGIN DELETE FROM superhero.hero_power; END $$", true},
	{"LOCK TABLE superhero", true},
	{"SELECT * FROM superhero FOR UPDATE", true},
	{"EXPLAIN ANALYZE DELETE FROM hero_power", true},
	{"PREPARE p AS DELETE FROM hero_power", false},
	{"LISTEN c", false},
	{"NOTIFY c", false}, // queued until a commit that never comes
	{"VACUUM superhero", true},
	{"CHECKPOINT", true},
	{"ALTER SYSTEM SET work_mem = '1GB'", true},
	{"CREATE ROLE evil SUPERUSER", true},
	{"GRANT ALL ON superhero TO PUBLIC", true},
}

// TestPostgresRefusesWrites: every write attempt fails, through the engine
// and, where dbRefuses, through the database alone; no table changes.
// functionAttacks call built-in functions that act outside a read-only,
// rolled-back transaction (WAL, transaction ids, sequences, locks, settings,
// notifications, large objects, other sessions, server files, time). None
// is on the role's allow-list (sqlexec.PostgresAllowedFunctions), so the
// database refuses each with SQLSTATE 42501 (insufficient_privilege) when it
// checks EXECUTE, before the function runs.
var functionAttacks = []string{
	// Issue 14: ~196 MB of WAL from a read-only transaction under the
	// earlier deny-list.
	"SELECT count(pg_logical_emit_message(false, 'x', repeat('x', 10000000))) FROM generate_series(1, 20)",
	"SELECT count(pg_logical_emit_message(true, 'x', repeat('x', 10000000))) FROM generate_series(1, 20)",
	"SELECT pg_switch_wal()",
	"SELECT pg_create_restore_point('x')",
	"SELECT txid_current()",
	"SELECT pg_current_xact_id()",
	"SELECT nextval('superhero.hero_seq')",
	"SELECT setval('superhero.hero_seq', 5)",
	"SELECT pg_advisory_lock(1)",
	"SELECT pg_advisory_lock_shared(1)",
	"SELECT pg_try_advisory_lock(1)",
	"SELECT pg_advisory_xact_lock(1)",
	"SELECT pg_advisory_unlock_all()",
	"SELECT set_config('default_transaction_read_only', 'off', false)",
	"SELECT pg_catalog.set_config('statement_timeout', '0', false)",
	"SELECT setseed(0.5)",
	"SELECT pg_notify('c', 'x')",
	"SELECT lo_import('/etc/passwd')",
	"SELECT lo_export(1, '/tmp/sqlrl-lo')",
	"SELECT lo_create(0)",
	"SELECT lo_creat(-1)",
	"SELECT lo_unlink(1)",
	"SELECT lo_from_bytea(0, 'x')",
	"SELECT lo_put(1, 0, 'x')",
	"SELECT lo_open(1, 131072)",
	"SELECT pg_read_file('/etc/passwd')",
	"SELECT pg_read_binary_file('/etc/passwd')",
	"SELECT pg_ls_dir('.')",
	"SELECT pg_stat_file('postgresql.conf')",
	"SELECT pg_reload_conf()",
	"SELECT pg_terminate_backend(pg_backend_pid())",
	"SELECT pg_cancel_backend(pg_backend_pid())",
	"SELECT pg_stat_reset()",
	"SELECT query FROM pg_stat_activity",
	"SELECT pg_sleep(5)",
	"SELECT pg_import_system_collations('pg_catalog')",
}

// walSlack is how much WAL the server may write, from any source, while
// TestPostgresRefusesWrites runs its attacks: WAL is server-wide, and other
// test packages copy the sample into their own databases on the same server
// at the same time (a copy writes a few MB), besides autovacuum and the
// background writer's small records. The attacks would write 200 MB each
// (the two pg_logical_emit_message lines, run through the engine and
// directly: 800 MB), so a run of any one of them cannot hide under it.
const walSlack = 64 << 20

func TestPostgresRefusesWrites(t *testing.T) {
	d := sample(t)
	pgtest.Exec(t, d.Admin, "CREATE SEQUENCE IF NOT EXISTS superhero.hero_seq", "CREATE EXTENSION IF NOT EXISTS dblink")
	before := pgtest.Checksums(t, d.Admin)
	wal := pgtest.WALPosition(t, d.Admin)
	e := engine(t, sqlexec.Limits{Timeout: 10 * time.Second})
	ctx := context.Background()
	all := attacks
	for _, sql := range functionAttacks {
		all = append(all, struct {
			sql       string
			dbRefuses bool
		}{sql, true})
	}
	for _, a := range all {
		res, err := e.Query(ctx, "superhero", a.sql)
		if testing.Verbose() {
			t.Logf("%-70s -> %v", a.sql, err)
		}
		switch c := sqlexec.ClassOf(err); {
		case err == nil:
			t.Errorf("engine ran %q: %v", a.sql, res.Rows)
		case c != sqlexec.ClassNotReadOnly && c != sqlexec.ClassUnknownFunc:
			t.Errorf("engine: %q failed as %v (%v), want %s", a.sql, c, err, sqlexec.ClassNotReadOnly)
		}
	}
	// The database layer alone: the role in a READ ONLY transaction, as
	// the engine runs every query, but with no statement-type check.
	c, err := pgx.Connect(ctx, d.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, a := range attacks {
		if !a.dbRefuses {
			continue
		}
		tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SET LOCAL search_path TO superhero"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, a.sql); err == nil {
			t.Errorf("database ran %q", a.sql)
		}
		tx.Rollback(ctx)
	}
	// A connection each: should one of them run, it may end its session
	// (pg_terminate_backend), and the next must still be tried.
	for _, sql := range functionAttacks {
		fc, err := pgx.Connect(ctx, d.ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		var pe *pgconn.PgError
		if _, err := fc.Exec(ctx, "BEGIN READ ONLY; "+sql); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("database: %q: %v, want a refusal to execute (SQLSTATE 42501)", sql, err)
		}
		fc.Close(ctx)
	}
	if n := pgtest.WALBytesSince(t, d.Admin, wal); n > walSlack {
		t.Errorf("the server wrote %d bytes of WAL during the attacks, more than the %d other work explains", n, walSlack)
	} else {
		t.Logf("WAL written by the whole server during the attacks: %d bytes", n)
	}
	if after := pgtest.Checksums(t, d.Admin); !equalMaps(before, after) {
		t.Errorf("tables changed:\nbefore %v\nafter  %v", before, after)
	}
	if len(before) != 18 {
		t.Errorf("checksummed %d tables, want the sample's 18", len(before))
	}
	// The engine still works, and its sessions are still read-only.
	res, err := e.Query(ctx, "superhero", "SELECT current_setting('default_transaction_read_only'), current_setting('transaction_read_only'), current_user")
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0].S != "on" || r[1].S != "on" || r[2].S != d.Role {
		t.Errorf("after the attacks: %v", r)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPostgresRefusesSuperuser: a superuser login is refused unless allowed.
func TestPostgresRefusesSuperuser(t *testing.T) {
	d := sample(t)
	ctx := context.Background()
	_, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: d.Admin})
	if err == nil || !strings.Contains(err.Error(), "superuser") {
		t.Fatalf("superuser DSN: %v", err)
	}
	e, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: d.Admin, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Query(ctx, "superhero", "DELETE FROM superhero"); sqlexec.ClassOf(err) != sqlexec.ClassNotReadOnly {
		t.Errorf("superuser engine ran a DELETE: %v", err)
	}
	if _, err := e.Query(ctx, "superhero", "DELETE FROM superhero RETURNING id"); sqlexec.ClassOf(err) != sqlexec.ClassNotReadOnly {
		t.Errorf("superuser engine ran a DELETE: %v", err)
	}
}

// TestPostgresTimeoutsAndCancel: Limits.Timeout, a context deadline and a
// cancelled context all stop a running query with the right class, and
// leave the pool usable.
func TestPostgresTimeoutsAndCancel(t *testing.T) {
	e := engine(t, sqlexec.Limits{Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	runaway := "SELECT count(*) FROM hero_power a, hero_power b, hero_power c"
	// pg_sleep is not on the role's allow-list: a runaway join is the slow
	// query.
	// The class is the check, not the elapsed time: without the limit the
	// join runs for minutes and ends with a result.
	if _, err := e.Query(ctx, "superhero", runaway); sqlexec.ClassOf(err) != sqlexec.ClassTimeout {
		t.Errorf("engine limit: %v, want a timeout", err)
	}
	e2 := engine(t, sqlexec.Limits{})
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := e2.Query(dctx, "superhero", runaway); sqlexec.ClassOf(err) != sqlexec.ClassTimeout {
		t.Errorf("context deadline: %v", err)
	}
	cctx, cancel2 := context.WithCancel(ctx)
	time.AfterFunc(200*time.Millisecond, cancel2)
	if _, err := e2.Query(cctx, "superhero", runaway); sqlexec.ClassOf(err) != sqlexec.ClassCanceled {
		t.Errorf("cancel: %v", err)
	}
	if !errors.Is(cctx.Err(), context.Canceled) {
		t.Fatal("context not cancelled")
	}
	for _, eng := range []*sqlexec.Postgres{e, e2} {
		if res, err := eng.Query(ctx, "superhero", "SELECT count(*) FROM superhero"); err != nil || res.Rows[0][0].I != 750 {
			t.Errorf("after timeouts: %v %v", res, err)
		}
	}
}

// TestPostgresInterruptedConnectionDiscarded: a connection whose
// statement was interrupted (its context done, a cap) is closed, not reused,
// since a late cancel signal could cancel the next caller's query on it;
// one whose statement ended by itself is reused.
func TestPostgresInterruptedConnectionDiscarded(t *testing.T) {
	d := sample(t)
	ctx := context.Background()
	e, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: d.Admin, AllowSuperuser: true, MaxConns: 1,
		Limits: sqlexec.Limits{MaxRows: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	backend := func() int64 {
		t.Helper()
		res, err := e.Query(ctx, "superhero", "SELECT pg_backend_pid()")
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].I
	}
	first := backend()
	if again := backend(); again != first {
		t.Errorf("a query that ended by itself: the next ran on backend %d, want %d (the connection reused)", again, first)
	}
	// The caller cancels (no deadline, so no server-side statement_timeout
	// that could end the statement first, without a cancel request, and
	// rightly keep the connection: that race made a deadline here flaky).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	if _, err := e.Query(cctx, "superhero", "SELECT count(*) FROM hero_power a, hero_power b, hero_power c"); sqlexec.ClassOf(err) != sqlexec.ClassCanceled {
		t.Fatalf("runaway cancelled by its caller: %v, want canceled", err)
	}
	afterDeadline := backend()
	if afterDeadline == first {
		t.Errorf("after a statement cut by its caller's cancel the next query ran on the same backend %d", first)
	}
	if _, err := e.Query(ctx, "superhero", "SELECT id FROM superhero"); sqlexec.ClassOf(err) != sqlexec.ClassTooLarge {
		t.Fatalf("over the row cap: %v, want too large", err)
	}
	if afterCap := backend(); afterCap == afterDeadline {
		t.Errorf("after a statement stopped by a cap the next query ran on the same backend %d", afterCap)
	}
}

// TestPostgresCaps: row and byte caps stop a huge result early.
func TestPostgresCaps(t *testing.T) {
	ctx := context.Background()
	e := engine(t, sqlexec.Limits{Timeout: 10 * time.Second, MaxRows: 100})
	// Were the cap not applied while rows arrive, the join would end
	// with the 10 s timeout instead.
	_, err := e.Query(ctx, "superhero", "SELECT a.hero_id FROM hero_power a, hero_power b")
	if sqlexec.ClassOf(err) != sqlexec.ClassTooLarge {
		t.Errorf("rows: %v", err)
	}
	if res, err := e.Query(ctx, "superhero", "SELECT g FROM generate_series(1, 100) g"); err != nil || len(res.Rows) != 100 {
		t.Errorf("at the cap: %v", err)
	}
	e2 := engine(t, sqlexec.Limits{Timeout: 10 * time.Second, MaxBytes: 1000})
	if _, err := e2.Query(ctx, "superhero", "SELECT full_name FROM superhero"); sqlexec.ClassOf(err) != sqlexec.ClassTooLarge {
		t.Errorf("bytes: %v", err)
	}
	if res, err := e2.Query(ctx, "superhero", "SELECT id FROM superhero LIMIT 10"); err != nil || res.Bytes != 80+10*sqlexec.RowOverhead(1) {
		t.Errorf("bytes under the cap: %v %v", res, err)
	}
}

// TestPostgresConcurrentSchemas: many queries at once on a small pool, each
// seeing its own schema (search_path is set per transaction, never leaked
// through a pooled connection).
func TestPostgresConcurrentSchemas(t *testing.T) {
	e := sample(t).Postgres(t, sqlexec.PostgresOptions{MaxConns: 3, Limits: sqlexec.Limits{Timeout: 10 * time.Second}})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				db, table, n := "superhero", "superhero", int64(750)
				if (g+i)%2 == 0 {
					db, table, n = "student_club", "member", 33
				}
				res, err := e.Query(ctx, db, "SELECT current_schema(), count(*) FROM "+table)
				if err != nil {
					errs <- err
					return
				}
				if r := res.Rows[0]; r[0].S != db || r[1].I != n {
					errs <- errors.New("wrong schema: " + r[0].S)
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

// BenchmarkQueryOverhead compares the per-query cost of the two engines on
// the same small query (a primary-key lookup on the sample).
func BenchmarkQueryOverhead(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			var e sqlexec.Engine
			if name == "sqlite" {
				e = sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Join(pgtest.SampleDir(b), "dev_databases")})
			} else {
				pgtest.AdminDSN(b)
				d := pgtest.CopySample(b)
				e = d.Postgres(b, sqlexec.PostgresOptions{})
			}
			defer e.Close()
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Query(ctx, "superhero", "SELECT superhero_name FROM superhero WHERE id = 42"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPostgresFunctionAllowList derives from the server the functions the
// read-only role can execute (has_function_privilege, in a schema it may
// use) and checks them against sqlexec.PostgresAllowedFunctions: in
// pg_catalog exactly the listed names, every overload of each; elsewhere
// only information_schema's own helpers, SQL functions that run with the
// caller's privileges over pg_catalog's. A server version that adds
// functions to pg_catalog adds nothing here (they are revoked from PUBLIC
// with the rest); one whose listed name is missing is logged.
func TestPostgresFunctionAllowList(t *testing.T) {
	d := sample(t)
	pgtest.Exec(t, d.Admin, "CREATE EXTENSION IF NOT EXISTS dblink")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, d.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT n.nspname::text, p.proname::text, l.lanname::text, p.prosecdef,
			has_function_privilege($1, p.oid, 'EXECUTE')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
		WHERE has_schema_privilege($1, n.oid, 'USAGE')`, d.Role)
	if err != nil {
		t.Fatal(err)
	}
	type overloads struct{ all, executable int }
	catalog := map[string]*overloads{}
	for rows.Next() {
		var schema, name, lang string
		var secdef, exec bool
		if err := rows.Scan(&schema, &name, &lang, &secdef, &exec); err != nil {
			t.Fatal(err)
		}
		switch {
		case schema == "pg_catalog":
			o := catalog[name]
			if o == nil {
				o = &overloads{}
				catalog[name] = o
			}
			o.all++
			if exec {
				o.executable++
			}
		case exec && (schema != "information_schema" || lang != "sql" || secdef):
			t.Errorf("the role can execute %s.%s (language %s, security definer %v)", schema, name, lang, secdef)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, name := range sqlexec.PostgresAllowedFunctions() {
		allowed[name] = true
		switch o := catalog[name]; {
		case o == nil:
			t.Logf("allowed function %s does not exist on this server", name)
		case o.executable != o.all:
			t.Errorf("allowed function %s: %d of its %d overloads executable by the role", name, o.executable, o.all)
		}
	}
	var extra []string
	for name, o := range catalog {
		if o.executable > 0 && !allowed[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("the role can execute %d pg_catalog functions not on the allow-list: %v", len(extra), extra)
	}
	if len(catalog) < 2000 {
		t.Errorf("only %d pg_catalog function names seen: the query is wrong", len(catalog))
	}
}
