package feedback

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// readers is the number of read connections of a SQLite store: WAL lets
// them read while the writer writes.
const readers = 4

// sqliteBackend keeps one writer connection (SQLite allows one writer at a
// time; a mutex queues this process's writes instead of retrying on
// SQLITE_BUSY) and a pool of readers.
type sqliteBackend struct {
	path string
	mu   sync.Mutex
	w    *sqlexec.Writer
	pool chan *sqlexec.Writer
}

// pragmas make every acknowledged commit durable: WAL with synchronous=FULL
// fsyncs the log on each commit. busy_timeout makes another process's
// write (a second server on the same file, an export) a wait, not an error.
const pragmas = "PRAGMA busy_timeout=10000; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"

// OpenSQLite opens the SQLite store at path, creating and migrating it as
// needed.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	return openSQLite(ctx, path, -1)
}

func openSQLite(ctx context.Context, path string, upto int) (*store, error) {
	b := &sqliteBackend{path: path, pool: make(chan *sqlexec.Writer, readers)}
	w, err := sqlexec.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("open feedback store: %w", err)
	}
	b.w = w
	if err := w.Exec(pragmas); err != nil {
		b.close()
		return nil, fmt.Errorf("open feedback store %s: %w", path, err)
	}
	if err := migrate(ctx, b, upto); err != nil {
		b.close()
		return nil, err
	}
	for range readers {
		r, err := sqlexec.OpenSQLite(path)
		if err == nil {
			err = r.Exec("PRAGMA busy_timeout=10000; PRAGMA query_only=1")
		}
		if err != nil {
			b.close()
			return nil, fmt.Errorf("open feedback store %s: reader: %w", path, err)
		}
		b.pool <- r
	}
	return &store{b: b}, nil
}

func (b *sqliteBackend) kind() string  { return "sqlite" }
func (b *sqliteBackend) where() string { return b.path }

func (b *sqliteBackend) close() error {
	var first error
	for {
		select {
		case r := <-b.pool:
			if err := r.Close(); err != nil && first == nil {
				first = err
			}
			continue
		default:
		}
		break
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil {
		if err := b.w.Close(); err != nil && first == nil {
			first = err
		}
		b.w = nil
	}
	return first
}

func rowsOf(_ []string, rows [][]sqlexec.Value) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for k, v := range r {
			out[i][k] = v.Any()
		}
	}
	return out
}

func run(w *sqlexec.Writer, sql string, args []any) ([][]any, error) {
	cols, rows, err := w.Query(sql, args...)
	if err != nil {
		return nil, err
	}
	return rowsOf(cols, rows), nil
}

func (b *sqliteBackend) read(ctx context.Context, sql string, args ...any) ([][]any, error) {
	select {
	case r := <-b.pool:
		defer func() { b.pool <- r }()
		return run(r, sql, args)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *sqliteBackend) write(ctx context.Context, sql string, args ...any) ([][]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w == nil {
		return nil, fmt.Errorf("store %s is closed", b.path)
	}
	return run(b.w, sql, args)
}

type sqliteTx struct{ w *sqlexec.Writer }

func (t sqliteTx) query(_ context.Context, sql string, args ...any) ([][]any, error) {
	return run(t.w, sql, args)
}

func (t sqliteTx) script(_ context.Context, sql string) error { return t.w.Exec(sql) }

func (b *sqliteBackend) tx(ctx context.Context, fn func(q querier) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	// IMMEDIATE takes the write lock now, so two processes opening one
	// file migrate one after the other.
	if err := b.w.Exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("%s: begin: %w", b.path, err)
	}
	if err := fn(sqliteTx{b.w}); err != nil {
		b.w.Exec("ROLLBACK")
		return err
	}
	if err := b.w.Exec("COMMIT"); err != nil {
		b.w.Exec("ROLLBACK")
		return fmt.Errorf("%s: commit: %w", b.path, err)
	}
	return nil
}
