package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Engine runs one read-only SQL statement against one database. db names the
// database the way the benchmark does (a BIRD/Spider db_id, a PostgreSQL
// schema); implementations must be safe for concurrent use.
type Engine interface {
	Query(ctx context.Context, db, sql string) (*Result, error)
	Close() error
}

// Limits bound one query. Zero means no limit.
type Limits struct {
	// Timeout interrupts a query that runs longer, on top of any deadline
	// the caller's context carries.
	Timeout  time.Duration
	MaxRows  int
	MaxBytes int
}

// SQLiteOptions configure a SQLite engine.
type SQLiteOptions struct {
	// Root holds one directory per database, <Root>/<db>/<db>.sqlite, the
	// layout shared by BIRD and Spider. A db that is itself a path to an
	// existing file (it contains a path separator or ends in .sqlite/.db) is
	// opened directly, which is how Spider's test suites name their variants.
	Root string
	Limits
	// MaxConnsPerDB bounds concurrent queries per database file; further
	// queries wait for a connection. Default: GOMAXPROCS.
	MaxConnsPerDB int
}

// SQLite is the SQLite engine. Connections are opened read-only and hardened
// (see the package doc), pooled per database file and reused.
type SQLite struct {
	opts  SQLiteOptions
	mu    sync.Mutex
	pools map[string]*pool
	done  bool
}

// NewSQLite returns a SQLite engine. It opens nothing until the first query.
func NewSQLite(opts SQLiteOptions) *SQLite {
	if opts.MaxConnsPerDB <= 0 {
		opts.MaxConnsPerDB = runtime.GOMAXPROCS(0)
	}
	return &SQLite{opts: opts, pools: map[string]*pool{}}
}

// Path returns the file that db names.
func (e *SQLite) Path(db string) string {
	if strings.ContainsRune(db, filepath.Separator) || strings.HasSuffix(db, ".sqlite") || strings.HasSuffix(db, ".db") {
		return db
	}
	return filepath.Join(e.opts.Root, db, db+".sqlite")
}

type pool struct {
	path string
	sem  chan struct{}
	mu   sync.Mutex
	idle []*conn
}

func (e *SQLite) pool(db string) (*pool, error) {
	path := e.Path(db)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil, errors.New("sqlexec: engine closed")
	}
	if p := e.pools[path]; p != nil {
		return p, nil
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return nil, &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("database %q: no file %s", db, path), Err: err}
	}
	p := &pool{path: path, sem: make(chan struct{}, e.opts.MaxConnsPerDB)}
	e.pools[path] = p
	return p, nil
}

func (p *pool) get(ctx context.Context) (*conn, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxError(ctx, "waiting for a connection")
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := openConn(p.path, true, false)
	if err != nil {
		<-p.sem
		return nil, &Error{Class: ClassNoDatabase, Msg: err.Error(), Err: err}
	}
	return c, nil
}

func (p *pool) put(c *conn) {
	p.mu.Lock()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
	<-p.sem
}

func ctxError(ctx context.Context, doing string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Class: ClassTimeout, Msg: "query timed out " + doing, Err: ctx.Err()}
	}
	return &Error{Class: ClassCanceled, Msg: "query canceled " + doing, Err: ctx.Err()}
}

// Query runs sql, which must hold exactly one read-only statement, on db.
// An input with no statement at all (empty, only comments) returns an empty
// result, as SQLite and Python's sqlite3 do.
func (e *SQLite) Query(ctx context.Context, db, sql string) (*Result, error) {
	return e.run(ctx, db, sql, nil)
}

// QueryRows runs sql like Query but hands each row to fn instead of keeping
// it. fn is first called once with a nil row, after the statement is
// compiled and before it runs (Result.Columns is then known); returning
// false there or on any row stops the query (Result.Stopped). A row is only
// valid during the call. An evaluator uses it to abandon a prediction as
// soon as its shape or one of its rows proves it wrong.
func (e *SQLite) QueryRows(ctx context.Context, db, sql string, fn func(cols []string, row []Value) bool) (*Result, error) {
	return e.run(ctx, db, sql, fn)
}

// run takes a pooled connection to db and runs sql on it under the engine's
// limits.
func (e *SQLite) run(ctx context.Context, db, sql string, fn func([]string, []Value) bool) (*Result, error) {
	if e.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
		defer cancel()
	}
	p, err := e.pool(db)
	if err != nil {
		return nil, err
	}
	c, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	defer p.put(c)
	return c.query(ctx, sql, e.opts.Limits, fn)
}

// query runs sql on c, keeping rows in the result or, when fn is set,
// streaming them to fn.
func (c *conn) query(ctx context.Context, sql string, lim Limits, fn func([]string, []Value) bool) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx, "before it started")
	}
	start := time.Now()
	// Interrupt from another goroutine when the context ends. After the
	// query, wait for a late interrupt to land: SQLite ignores an interrupt
	// that arrives when no statement runs, so it cannot hit the next query.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { c.interrupt(); close(fired) })
	defer func() {
		if !stop() {
			<-fired
		}
		c.clearInterrupt()
	}()

	st, off, err := c.prepare(sql)
	if err != nil {
		return nil, c.queryError(ctx, err)
	}
	res := &Result{}
	if st == nil {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	defer st.close()
	if rest := lstripSQL(sql[off:]); rest != "" {
		return nil, &Error{Class: ClassMultiple, Msg: "You can only execute one statement at a time."}
	}
	if !st.readOnly() {
		return nil, &Error{Class: ClassNotReadOnly, Msg: "statement is not read-only"}
	}
	res.Columns = st.columns()
	if fn != nil && !fn(res.Columns, nil) {
		res.Stopped = true
		res.Elapsed = time.Since(start)
		return res, nil
	}
	var scratch []Value
	for nrows := 0; ; {
		ok, err := st.step()
		if err != nil {
			return nil, c.queryError(ctx, err)
		}
		if !ok {
			break
		}
		nrows++
		var row []Value
		var size int
		if fn != nil {
			scratch, size = st.row(scratch[:0])
			res.Bytes += size
			if !fn(res.Columns, scratch) {
				res.Stopped = true
				break
			}
		} else {
			row, size = st.row(make([]Value, 0, st.ncol))
			res.Rows = append(res.Rows, row)
			res.Bytes += size
		}
		if lim.MaxRows > 0 && nrows > lim.MaxRows {
			return nil, &Error{Class: ClassTooLarge, Msg: fmt.Sprintf("result has more than %d rows", lim.MaxRows)}
		}
		if lim.MaxBytes > 0 && res.Bytes > lim.MaxBytes {
			return nil, &Error{Class: ClassTooLarge, Msg: fmt.Sprintf("result has more than %d bytes", lim.MaxBytes)}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func (c *conn) queryError(ctx context.Context, err error) error {
	if interrupted(err) && ctx.Err() != nil {
		return ctxError(ctx, "and was interrupted")
	}
	msg := err.Error()
	return &Error{Class: classify(msg), Msg: msg, Err: err}
}

// Close closes every pooled connection. Queries in flight finish first.
func (e *SQLite) Close() error {
	e.mu.Lock()
	e.done = true
	pools := e.pools
	e.pools = map[string]*pool{}
	e.mu.Unlock()
	var errs []error
	for _, p := range pools {
		for range cap(p.sem) {
			p.sem <- struct{}{}
		}
		for _, c := range p.idle {
			errs = append(errs, c.close())
		}
		p.idle = nil
	}
	return errors.Join(errs...)
}

// lstripSQL skips whitespace and comments at the start of s, as Python's
// sqlite3 does when it checks for a second statement after the first.
func lstripSQL(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\f', '\n', '\r':
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				j := strings.IndexByte(s[i+2:], '\n')
				if j < 0 {
					return ""
				}
				i += 2 + j
				continue
			}
			return s[i:]
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return ""
				}
				i += 2 + j + 1
				continue
			}
			return s[i:]
		default:
			return s[i:]
		}
	}
	return ""
}
