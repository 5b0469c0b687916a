package sqlexec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// Limits bound one query. Zero means no limit, except where a field says
// it has a default.
type Limits struct {
	// Timeout interrupts a query that runs longer, on top of any deadline
	// the caller's context carries.
	Timeout time.Duration
	MaxRows int
	// MaxBytes bounds the memory a result holds (Result.Bytes: payload and
	// Value headers), checked row by row. Zero means no limit; evaluators
	// and the reward server set DefaultMaxResultBytes.
	MaxBytes int
	// MaxValueBytes bounds every string or blob SQLite builds while it runs
	// the query, and every value it reads (SQLITE_LIMIT_LENGTH); passing it
	// fails the query with ClassTooLarge. MaxBytes cannot do this: it is
	// checked on a row once SQLite has built it, after zeroblob(1e9) or
	// printf('%.*c', 1e9, 'x') has already spent the memory and the time,
	// inside one step that no interrupt reaches. Zero means
	// DefaultMaxValueBytes. SQLite engine only.
	MaxValueBytes int
	// MaxSQLBytes bounds the query text (SQLITE_LIMIT_SQL_LENGTH). Zero
	// means DefaultMaxSQLBytes. SQLite engine only.
	MaxSQLBytes int
	// MaxQueryMemory bounds the heap SQLite takes for one connection's
	// statement while it runs: a sort or a temporary b-tree of DISTINCT,
	// GROUP BY or a materialised subquery is held in memory
	// (temp_store=MEMORY), and ORDER BY randomblob(1000) over millions of
	// generated rows took gigabytes before its timeout. Past it the query
	// fails with ClassTooLarge. Zero means DefaultMaxQueryMemory. SQLite
	// engine only; the cgo build charges what each statement allocates
	// while it steps, the pure-Go build caps the connection's own heap.
	MaxQueryMemory int
	// MaxPatternBytes bounds a LIKE or GLOB pattern
	// (SQLITE_LIMIT_LIKE_PATTERN_LENGTH): matching costs up to the
	// pattern's length times the subject's, in a single function call no
	// interrupt reaches. Zero means DefaultMaxPatternBytes. SQLite engine
	// only.
	MaxPatternBytes int
}

// Defaults of the SQLite limits, applied when Limits leaves them zero.
//
// DefaultMaxValueBytes is 32 MiB: the largest BIRD or Spider cell is well
// under 1 MiB (long post bodies and XML fragments of a few tens of KiB), so
// no gold comes near it, while a value of that size is built in
// milliseconds and a handful of them fit in memory on any machine that runs
// an evaluator. SQLite's own default is 1e9, which let one value take
// gigabytes and tens of seconds.
//
// DefaultMaxSQLBytes is 1 MiB: benchmark golds are under 4 KiB and model
// output is capped in tokens far below that; SQLite's default is 1e9.
//
// DefaultMaxPatternBytes is 1,000: benchmark patterns are a few words long;
// SQLite's default is 50,000.
//
// DefaultMaxQueryMemory is 512 MiB: a connection's page cache is at most
// 64 MiB (cache_size) and benchmark golds sort or group far less, while a
// handful of queries at the cap fit in memory on any machine that runs an
// evaluator or a reward server (at most a worker per core or two run at
// once). SQLite itself sets no bound.
//
// DefaultMaxResultBytes, 64 MiB, is what `sqlrl eval` and the reward server
// give a result by default (Limits.MaxBytes; counted as memory, headers
// included): BIRD's largest gold results are a few MB, and with a worker per
// core and Go's collector keeping up to twice the live heap, results stay
// within a few hundred MB however hostile the SQL.
const (
	DefaultMaxResultBytes  = 64 << 20
	DefaultMaxValueBytes   = 32 << 20
	DefaultMaxSQLBytes     = 1 << 20
	DefaultMaxPatternBytes = 1000
	DefaultMaxQueryMemory  = 512 << 20
)

// sqliteLimits returns the limits set inside SQLite on each read-only
// connection: value, statement and pattern lengths, and memory.
func (l Limits) sqliteLimits() (value, sql, pattern, memory int) {
	value, sql, pattern, memory = l.MaxValueBytes, l.MaxSQLBytes, l.MaxPatternBytes, l.MaxQueryMemory
	if value <= 0 {
		value = DefaultMaxValueBytes
	}
	if sql <= 0 {
		sql = DefaultMaxSQLBytes
	}
	if pattern <= 0 {
		pattern = DefaultMaxPatternBytes
	}
	if memory <= 0 {
		memory = DefaultMaxQueryMemory
	}
	return value, sql, pattern, memory
}

// SQLiteOptions configure a SQLite engine.
type SQLiteOptions struct {
	// Root holds one directory per database, <Root>/<db>/<db>.sqlite, the
	// layout shared by BIRD and Spider. A db that is itself a path to an
	// existing file (it contains a path separator or ends in .sqlite/.db) is
	// opened directly, which is how Spider's test suites name their variants.
	// When Root is set, every database, named or given by path, must lie
	// inside it once symbolic links are resolved: a db_id in a benchmark
	// file is data, and "/etc/passwd" or a link out of the data directory
	// must not be opened. When Root is empty, paths are opened as given
	// (tools that copy one database the user named).
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
	pools map[string]*pool // by resolved file
	named map[string]*pool // by db as the caller spelled it
	done  bool
}

// NewSQLite returns a SQLite engine. It opens nothing until the first query.
func NewSQLite(opts SQLiteOptions) *SQLite {
	if opts.MaxConnsPerDB <= 0 {
		opts.MaxConnsPerDB = runtime.GOMAXPROCS(0)
	}
	return &SQLite{opts: opts, pools: map[string]*pool{}, named: map[string]*pool{}}
}

// Path returns the file that db names, before any check: Check and Query
// refuse it if it is outside Root or not a SQLite database.
func (e *SQLite) Path(db string) string {
	if strings.ContainsRune(db, filepath.Separator) || strings.ContainsRune(db, '/') || strings.HasSuffix(db, ".sqlite") || strings.HasSuffix(db, ".db") {
		return db
	}
	return filepath.Join(e.opts.Root, db, db+".sqlite")
}

// Check reports, without running a query, whether db names a database the
// engine will open: inside Root (when set) after resolving symbolic links,
// a regular file, with SQLite's header and at least as long as the header
// says. Its error has ClassNoDatabase and names the file. An evaluator calls
// it on every database before it prints a score, so that a missing,
// truncated or foreign file fails the run instead of scoring every question
// on it as wrong.
func (e *SQLite) Check(db string) error {
	_, err := e.resolve(db)
	return err
}

// resolve returns the real file db names, after the checks of Check.
func (e *SQLite) resolve(db string) (string, error) {
	fail := func(path, format string, args ...any) error {
		return &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("database %q (%s): ", db, path) + fmt.Sprintf(format, args...)}
	}
	path := e.Path(db)
	if db == "" {
		return "", fail(path, "empty name")
	}
	if e.opts.Root != "" {
		for _, part := range strings.FieldsFunc(db, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
			if part == ".." {
				return "", fail(path, "a name may not climb out of the data directory (%q)", "..")
			}
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("database %q: no file %s", db, path), Err: err}
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", fail(path, "%v", err)
	}
	if e.opts.Root != "" {
		root, err := filepath.EvalSymlinks(e.opts.Root)
		if err == nil {
			root, err = filepath.Abs(root)
		}
		if err != nil {
			return "", fail(path, "data directory %s: %v", e.opts.Root, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return "", fail(path, "resolves to %s, outside the data directory %s", real, e.opts.Root)
		}
	}
	if err := checkFile(real); err != nil {
		return "", fail(path, "%v", err)
	}
	return real, nil
}

// sqliteMagic opens every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFile reports whether path is a regular file that starts with a
// SQLite header and is not shorter than the page count times the page size
// that header declares. SQLite itself opens such files lazily and only
// fails (or, for a truncated one, answers from the pages it finds) once a
// query reads them.
func checkFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var h [100]byte
	if n, _ := io.ReadFull(f, h[:]); n < len(h) {
		return fmt.Errorf("%s has %d bytes, shorter than a SQLite header (100)", path, n)
	}
	if string(h[:16]) != sqliteMagic {
		return fmt.Errorf("%s is not a SQLite 3 database (no %q header)", path, sqliteMagic[:15])
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	// The header's page count is valid only when it was written by the
	// same change as the version-valid-for number (SQLite 3.7.0 on);
	// older files leave it stale and SQLite then trusts the file size.
	valid := binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%s declares page size %d, not a power of two from 512 to 65536", path, pageSize)
	}
	if valid && pages > 0 && st.Size() < pages*pageSize {
		return fmt.Errorf("%s is truncated: %d bytes, its header declares %d pages of %d bytes", path, st.Size(), pages, pageSize)
	}
	return nil
}

type pool struct {
	path string
	lim  Limits
	sem  chan struct{}
	mu   sync.Mutex
	idle []*conn
	// abandoned counts connections whose query run gave up waiting for
	// (SQLite did not stop in time); each stays busy until SQLite returns.
	// The first cap(sem) of them give their slot back at once, so that the
	// requests after them get a fresh connection rather than wait behind
	// a statement nobody waits for; past that, holding counts those that
	// keep their slot, so at most twice MaxConnsPerDB statements run on a
	// database. closed tells them to close their connection when SQLite
	// returns, rather than put it back.
	abandoned, holding int
	closed             bool
}

// abandon takes c, whose statement run no longer waits for, out of the
// pool's bound while SQLite finishes: its slot is freed now unless
// cap(sem) abandoned statements already run, and c rejoins the pool (or is
// closed) once wait returns.
func (p *pool) abandon(c *conn, wait func()) {
	p.mu.Lock()
	p.abandoned++
	hold := p.abandoned > cap(p.sem)
	if hold {
		p.holding++
	}
	p.mu.Unlock()
	if !hold {
		<-p.sem
	}
	go func() {
		wait()
		p.release(c, hold)
	}()
}

// release is how an abandoned query's connection leaves the pool once
// SQLite has returned: back to idle, or closed if the engine was closed
// meanwhile (Close does not wait for abandoned queries) or the idle list
// is full. held says whether it still held a slot.
func (p *pool) release(c *conn, held bool) {
	p.mu.Lock()
	p.abandoned--
	if held {
		p.holding--
	}
	keep := !p.closed && len(p.idle) < cap(p.sem)
	if keep {
		p.idle = append(p.idle, c)
	}
	p.mu.Unlock()
	if !keep {
		c.close()
	}
	if held {
		<-p.sem
	}
}

func (e *SQLite) pool(db string) (*pool, error) {
	e.mu.Lock()
	if e.done {
		e.mu.Unlock()
		return nil, errors.New("sqlexec: engine closed")
	}
	if p := e.named[db]; p != nil {
		e.mu.Unlock()
		return p, nil
	}
	e.mu.Unlock()
	// Resolving and reading the header take a few system calls, once per
	// name, outside the lock.
	path, err := e.resolve(db)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil, errors.New("sqlexec: engine closed")
	}
	p := e.pools[path]
	if p == nil {
		p = &pool{path: path, lim: e.opts.Limits, sem: make(chan struct{}, e.opts.MaxConnsPerDB)}
		e.pools[path] = p
	}
	e.named[db] = p
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
	if err == nil {
		err = c.limit(p.lim.sqliteLimits())
		if err != nil {
			c.close()
		}
	}
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
//
// The query runs on its own goroutine so that the caller gets its answer
// when its context ends even if SQLite does not stop: an interrupt is only
// seen between virtual-machine steps, and some work happens inside one
// step (sorting millions of rows held in memory ran 30 s past a 2 s limit;
// SQLite 3.40's printf with a huge %c precision loops for seconds). If the
// query has not returned abandonAfter past the end of the context, run
// answers with the context's class (timeout or canceled), stops handing
// rows to fn, and hands the connection's pool slot to the next query while
// SQLite finishes the step and sees the interrupt (pool.abandon): a
// request never waits behind a statement nobody waits for, and the
// background work stays within MaxConnsPerDB more statements per database
// and within the length limits.
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
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	g := &rowGate{fn: fn}
	if fn == nil {
		g = nil
	}
	go func() {
		var res *Result
		var err error
		if g != nil {
			res, err = c.query(ctx, sql, e.opts.Limits, g.pass)
		} else {
			res, err = c.query(ctx, sql, e.opts.Limits, nil)
		}
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		t := time.NewTimer(abandonAfter)
		select {
		case o = <-done:
			t.Stop()
		case <-t.C:
			if g != nil {
				g.close()
			}
			p.abandon(c, func() { <-done })
			return nil, ctxError(ctx, "and SQLite did not stop within "+abandonAfter.String()+" (its connection stays busy until it does)")
		}
	}
	p.put(c)
	if o.err != nil {
		var qe *Error
		if errors.As(o.err, &qe) && qe.Class == ClassNoDatabase {
			qe.Msg = fmt.Sprintf("database %q (%s): %s", db, p.path, qe.Msg)
		}
	}
	return o.res, o.err
}

// abandonAfter is how long run waits, once a query's context has ended,
// for SQLite to notice the interrupt before it answers without it. An
// interrupt normally lands within milliseconds.
const abandonAfter = 200 * time.Millisecond

// rowGate hands rows to a QueryRows callback until the caller has given up
// on the query; after close no call reaches fn, and close waits for a call
// in progress.
type rowGate struct {
	mu   sync.Mutex
	fn   func([]string, []Value) bool
	shut bool
}

func (g *rowGate) pass(cols []string, row []Value) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.shut && g.fn(cols, row)
}

func (g *rowGate) close() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
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

	c.budgetRefused() // a refusal an earlier query left says nothing of this one
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
		size := RowOverhead(st.ncol)
		if fn != nil {
			var payload int
			scratch, payload = st.row(scratch[:0])
			res.Bytes += size + payload
			if !fn(res.Columns, scratch) {
				res.Stopped = true
				break
			}
		} else {
			var payload int
			row, payload = st.row(make([]Value, 0, st.ncol))
			res.Rows = append(res.Rows, row)
			res.Bytes += size + payload
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
	var se *sqliteError
	if errors.As(err, &se) {
		switch se.code & 0xff {
		case rcNotADB, rcCorrupt:
			// The file is not a database, or a damaged one: a fact about
			// the data, not the query (run names the file).
			return &Error{Class: ClassNoDatabase, Msg: msg, Err: err}
		case rcNoMem:
			if c.budgetRefused() {
				// The query's own bound, not the machine: not
				// Transient, unlike SQLite's "out of memory".
				return &Error{Class: ClassTooLarge, Msg: fmt.Sprintf("query needs more than %d bytes of SQLite memory (sorts and temporary tables included)", c.memCap()), Err: err}
			}
			return &Error{Class: ClassTooLarge, Msg: msg, Err: err}
		case rcTooBig:
			return &Error{Class: ClassTooLarge, Msg: msg, Err: err}
		}
	}
	return &Error{Class: classify(msg), Msg: msg, Err: err}
}

// Close closes every pooled connection. Queries in flight finish first,
// except those already abandoned at their deadline (run): SQLite may need
// seconds to leave the step it is in, so their connections close themselves
// when it does, and a process that exits after Close does not wait for them.
func (e *SQLite) Close() error {
	e.mu.Lock()
	e.done = true
	pools := e.pools
	e.pools = map[string]*pool{}
	e.named = map[string]*pool{}
	e.mu.Unlock()
	var errs []error
	for _, p := range pools {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		for n := 0; ; n++ {
			p.mu.Lock()
			need := cap(p.sem) - p.holding
			p.mu.Unlock()
			if n >= need {
				break
			}
			p.sem <- struct{}{}
		}
		p.mu.Lock()
		idle := p.idle
		p.idle = nil
		p.mu.Unlock()
		for _, c := range idle {
			errs = append(errs, c.close())
		}
	}
	return errors.Join(errs...)
}

// SQLite primary result codes the engine classifies by code (sqlite3.h).
const (
	rcNoMem   = 7
	rcCorrupt = 11
	rcTooBig  = 18
	rcNotADB  = 26
)

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

// allowedFunctions are the SQL functions a query may call: SQLite's core
// scalar, aggregate, window, date and time, math and JSON functions, the
// decimal/ieee754/regexp extensions the pure-Go build embeds, and the
// auxiliary functions of full-text search queries. Everything BIRD and
// Spider golds and ordinary model SQL use is here. The authorizer denies
// any other function while the statement is prepared, so a function a newer
// SQLite adds stays unusable until someone classifies it (the test
// TestEveryFunctionIsClassified fails until then).
var allowedFunctions = []string{
	// Operators SQLite implements as functions.
	"->", "->>", "glob", "like", "match", "regexp", "regexpi",
	// Core scalar functions.
	"abs", "char", "coalesce", "concat", "concat_ws", "format", "hex", "if", "ifnull", "iif",
	"instr", "length", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif",
	"octet_length", "printf", "quote", "random", "randomblob", "replace", "round", "rtrim",
	"sign", "soundex", "sqlite_version", "substr", "substring", "subtype", "trim", "typeof",
	"unhex", "unicode", "unistr", "unistr_quote", "unlikely", "upper", "zeroblob",
	"base64",
	// Aggregates.
	"avg", "count", "group_concat", "string_agg", "sum", "total",
	// Window functions.
	"cume_dist", "dense_rank", "first_value", "lag", "last_value", "lead", "nth_value",
	"ntile", "percent_rank", "rank", "row_number",
	// Date and time.
	"current_date", "current_time", "current_timestamp", "date", "datetime", "julianday",
	"strftime", "time", "timediff", "unixepoch",
	// Math.
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos",
	"cosh", "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow",
	"power", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
	// Decimal and IEEE 754 extensions (pure-Go build): arithmetic on values.
	"decimal", "decimal_add", "decimal_cmp", "decimal_exp", "decimal_mul", "decimal_pow2",
	"decimal_sub", "decimal_sum", "ieee754", "ieee754_exponent", "ieee754_from_blob",
	"ieee754_from_int", "ieee754_inc", "ieee754_mantissa", "ieee754_to_blob", "ieee754_to_int",
	// JSON.
	"json", "json_array", "json_array_insert", "json_array_length", "json_error_position",
	"json_extract", "json_group_array", "json_group_object", "json_insert", "json_object",
	"json_patch", "json_pretty", "json_quote", "json_remove", "json_replace", "json_set",
	"json_type", "json_valid", "jsonb", "jsonb_array", "jsonb_array_insert", "jsonb_extract",
	"jsonb_group_array", "jsonb_group_object", "jsonb_insert", "jsonb_object", "jsonb_patch",
	"jsonb_remove", "jsonb_replace", "jsonb_set",
	// Full-text search auxiliary functions (read the match being scanned).
	"bm25", "highlight", "matchinfo", "offsets", "snippet",
}

// deniedFunctions are functions SQLite offers that a query may not call, each
// with the reason. The authorizer needs only allowedFunctions; this list
// makes the refusal a decision someone took.
var deniedFunctions = map[string]string{
	"fts3_tokenizer":            "two arguments install a tokenizer from a pointer in a blob (a crafted blob crashes the process); one argument returns a heap address",
	"load_extension":            "loads and runs native code",
	"fts5":                      "hands out a pointer to the FTS5 C API; only meaningful with sqlite3_bind_pointer",
	"optimize":                  "FTS3/4 segment merge: a write",
	"sqlite_log":                "writes to the process-wide SQLite error log",
	"sqlite_compileoption_get":  "describes the build of the process, not the data",
	"sqlite_compileoption_used": "describes the build of the process, not the data",
	"sqlite_source_id":          "describes the build of the process, not the data",
	"fts5_source_id":            "describes the build of the process, not the data",
	"changes":                   "state of the pooled connection, not of the data",
	"total_changes":             "state of the pooled connection, not of the data",
	"last_insert_rowid":         "state of the pooled connection, not of the data",
	"rtreecheck":                "R-tree debugging internals",
	"rtreedepth":                "R-tree debugging internals: decodes raw node blobs",
	"rtreenode":                 "R-tree debugging internals: decodes raw node blobs",
}

// allowList returns allowedFunctions lower-cased and sorted, the order the
// cgo authorizer's binary search needs.
func allowList() []string {
	out := make([]string, len(allowedFunctions))
	for i, f := range allowedFunctions {
		out[i] = strings.ToLower(f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
