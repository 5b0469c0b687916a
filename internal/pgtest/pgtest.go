// Package pgtest gives tests a real PostgreSQL database of their own: the
// server scripts/postgres.sh starts (scripts/test.sh does it before `go
// test`), found through $SQLRL_PG_DSN. Tests that need it skip with a clear
// message when the variable is unset, so `go test ./...` still works on a
// machine without PostgreSQL. There are no mocks: the point of these tests is
// what the server does.
//
// Packages run their tests in parallel processes against one server, so each
// test gets a fresh database and a fresh read-only role with unique names,
// both dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlrl/sqlrl/dbcopy"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// EnvDSN names the variable holding a superuser DSN of the test server.
const EnvDSN = "SQLRL_PG_DSN"

// AdminDSN returns the server's superuser DSN, or skips the test.
func AdminDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: $%s is not set (run scripts/test.sh, or eval \"$(scripts/postgres.sh start)\" first)", EnvDSN)
	}
	return dsn
}

// DB is a database made for one test.
type DB struct {
	Name string
	// Admin is a superuser DSN of the database (it owns the copied schemas).
	Admin string
	// Role and ReadOnly are set by AddReadOnlyRole.
	Role     string
	ReadOnly string
}

func suffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// withDatabase returns dsn with its database (and user, if set) replaced.
func withDatabase(t testing.TB, dsn, db, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("$%s must be a postgres:// URL, got %q", EnvDSN, dsn)
	}
	u.Path = "/" + db
	if user != "" {
		u.User = url.User(user)
	}
	return u.String()
}

// Exec runs statements on dsn, failing the test on error.
func Exec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// NewDB creates an empty database, dropped (with its connections) when the
// test ends.
func NewDB(t testing.TB) *DB {
	t.Helper()
	admin := AdminDSN(t)
	name := "sqlrl_test_" + suffix()
	Exec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { Exec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	return &DB{Name: name, Admin: withDatabase(t, admin, name, "")}
}

// AddReadOnlyRole creates a least-privilege role (sqlexec.
// PostgresReadOnlyRoleSQL) that can read schemas, and sets d.ReadOnly to a
// DSN logging in as it. The role is dropped when the test ends.
func (d *DB) AddReadOnlyRole(t testing.TB, schemas ...string) {
	t.Helper()
	d.Role = "sqlrl_ro_" + suffix()
	stmts, err := sqlexec.PostgresReadOnlyRoleSQL(d.Role, d.Name, schemas)
	if err != nil {
		t.Fatal(err)
	}
	Exec(t, d.Admin, stmts...)
	admin := AdminDSN(t)
	role := d.Role
	// Cleanups run last-in first-out: this one runs before the database is
	// dropped, so the role's privileges there go first.
	t.Cleanup(func() {
		Exec(t, d.Admin, "DROP OWNED BY "+role)
		Exec(t, admin, "DROP ROLE IF EXISTS "+role)
	})
	d.ReadOnly = withDatabase(t, admin, d.Name, d.Role)
}

// RepoRoot is the module's root directory (where go.mod is).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// SampleDir is the bundled BIRD dev sample.
func SampleDir(t testing.TB) string {
	return filepath.Join(RepoRoot(t), "datasets", "bird-dev-sample")
}

// CopySample copies the bundled BIRD dev sample's databases (student_club,
// superhero) into a new database and adds a read-only role for them.
func CopySample(t testing.TB) *DB {
	t.Helper()
	d := NewDB(t)
	srcs, err := dbcopy.FindSources(SampleDir(t), "dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, d.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var schemas []string
	for _, s := range srcs {
		p, err := dbcopy.PlanCopy(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dbcopy.Copy(ctx, c, p, dbcopy.Options{}); err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, s.Name)
	}
	d.AddReadOnlyRole(t, schemas...)
	return d
}

// Postgres opens the engine on d as its read-only role.
func (d *DB) Postgres(t testing.TB, opts sqlexec.PostgresOptions) *sqlexec.Postgres {
	t.Helper()
	if d.ReadOnly == "" {
		t.Fatal("pgtest: AddReadOnlyRole first")
	}
	if opts.DSN == "" {
		opts.DSN = d.ReadOnly
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := sqlexec.NewPostgres(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Checksums returns an md5 of every table's rows, in a stable order, keyed
// by "schema.table": equal before and after means nothing was written.
func Checksums(t testing.TB, dsn string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE' ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var tables [][2]string
	for rows.Next() {
		var s, n string
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, [2]string{s, n})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tb := range tables {
		q := pgx.Identifier{tb[0], tb[1]}.Sanitize()
		var sum string
		var n int64
		err := c.QueryRow(ctx, fmt.Sprintf("SELECT count(*), coalesce(md5(string_agg(r::text, E'\\n' ORDER BY r::text)), '') FROM %s r", q)).Scan(&n, &sum)
		if err != nil {
			t.Fatalf("checksum %s: %v", q, err)
		}
		out[strings.Join(tb[:], ".")] = fmt.Sprintf("%d:%s", n, sum)
	}
	return out
}

// WALPosition is the server's current WAL insert position, read on dsn (a
// superuser's: the function is not on the read-only role's allow-list).
// WALBytesSince(t, dsn, pos) is how much WAL the whole server has written
// since: a check that statements wrote nothing, beyond table checksums,
// since some writes (pg_logical_emit_message, a transaction id) change no
// table.
func WALPosition(t testing.TB, dsn string) string {
	t.Helper()
	var lsn string
	queryRow(t, dsn, "SELECT pg_current_wal_insert_lsn()::text", nil, &lsn)
	return lsn
}

// WALBytesSince is the WAL the server has written since pos (WALPosition).
// WAL is server-wide: other databases' activity counts too.
func WALBytesSince(t testing.TB, dsn, pos string) int64 {
	t.Helper()
	var n int64
	queryRow(t, dsn, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", []any{pos}, &n)
	return n
}

func queryRow(t testing.TB, dsn, sql string, args []any, dst ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, sql, args...).Scan(dst...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
