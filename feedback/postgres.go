package feedback

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationLock is the advisory lock key that serialises migrations of
// replicas starting together ("sqlrl_fb" in ASCII).
const migrationLock = 0x73716c726c5f6662

// pgBackend is a pool of connections to a PostgreSQL store. Each write is
// its own committed transaction; with PostgreSQL's default
// synchronous_commit=on the commit is flushed to the WAL before it returns.
type pgBackend struct {
	pool *pgxpool.Pool
	name string // the DSN without its password, for messages
}

// OpenPostgres opens the PostgreSQL store at dsn, creating and migrating its
// tables as needed. Several servers may share one.
func OpenPostgres(ctx context.Context, dsn string) (Store, error) {
	return openPostgres(ctx, dsn, -1)
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres store"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func openPostgres(ctx context.Context, dsn string, upto int) (*store, error) {
	name := redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open feedback store %s: %v", name, strings.ReplaceAll(err.Error(), dsn, name))
	}
	// A store write must never be lost to an asynchronous commit a DBA
	// chose for another workload.
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open feedback store %s: %w", name, err)
	}
	b := &pgBackend{pool: pool, name: name}
	if err := migrate(ctx, b, upto); err != nil {
		pool.Close()
		return nil, err
	}
	return &store{b: b}, nil
}

func (b *pgBackend) kind() string  { return "postgres" }
func (b *pgBackend) where() string { return b.name }
func (b *pgBackend) close() error  { b.pool.Close(); return nil }

// rebind turns ? placeholders into $1, $2, ... (the store's SQL has no ?
// inside literals).
func rebind(sql string) string {
	var sb strings.Builder
	n := 0
	for _, r := range sql {
		if r == '?' {
			n++
			sb.WriteString("$" + strconv.Itoa(n))
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func collect(rows pgx.Rows, err error) ([][]any, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (b *pgBackend) read(ctx context.Context, sql string, args ...any) ([][]any, error) {
	return collect(b.pool.Query(ctx, rebind(sql), args...))
}

func (b *pgBackend) write(ctx context.Context, sql string, args ...any) ([][]any, error) {
	// Outside a transaction block each statement commits on its own, and
	// the rows are read to the end before returning, i.e. after the commit.
	return collect(b.pool.Query(ctx, rebind(sql), args...))
}

type pgTx struct{ tx pgx.Tx }

func (t pgTx) query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	return collect(t.tx.Query(ctx, rebind(sql), args...))
}

func (t pgTx) script(ctx context.Context, sql string) error {
	// Without arguments pgx uses the simple protocol, which runs several
	// statements.
	_, err := t.tx.Exec(ctx, sql)
	return err
}

func (b *pgBackend) tx(ctx context.Context, fn func(q querier) error) error {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", b.name, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
		return fmt.Errorf("%s: migration lock: %w", b.name, err)
	}
	if err := fn(pgTx{tx}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: commit: %w", b.name, err)
	}
	return nil
}
