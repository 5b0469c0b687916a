//go:build !cgo

package sqlexec

// This file is the pure-Go twin of sqlite_cgo.go, used when cgo is off
// (CGO_ENABLED=0: static binaries, cross-compiling, machines without
// libsqlite3-dev). It sits on github.com/ncruces/go-sqlite3's direct API, a
// wasm2go translation of SQLite to Go, never on its database/sql driver: the
// driver, like every database/sql driver, decodes DATE/TIME/BOOLEAN-declared
// columns, and the engine must see the storage class SQLite stored, as
// Python's sqlite3 does. The embedded SQLite build comes with the package
// itself (github.com/ncruces/go-sqlite3-wasm/v6); the old .../embed import
// is deprecated and not needed.
//
// The internal API (conn, stmt, openConn, interrupted, sqliteError, Version,
// Driver) matches sqlite_cgo.go name for name, so engine.go and writer.go
// compile unchanged in both builds.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Version is the SQLite library version the engine runs on.
var Version = libVersion()

// Driver names the SQLite implementation compiled in.
const Driver = "ncruces/go-sqlite3 (pure Go)"

// maxMemory bounds each connection's SQLite heap. The library's default is
// 256 MiB; the system libsqlite3 has no bound at all, and a query that sorts
// or groups a large table in memory (temp_store=MEMORY) must not fail here
// when it succeeds in the cgo build. 4 GiB is all a wasm32 module can
// address. The space is reserved, not committed, until SQLite uses it.
const maxMemory = 1 << 32

// SQLite result codes used below (sqlite3.h).
const (
	codeError     = int(sqlite3.ERROR)
	codeNoMem     = int(sqlite3.NOMEM)
	codeInterrupt = int(sqlite3.INTERRUPT)
	codeAuth      = int(sqlite3.AUTH)
)

// libVersion asks the embedded SQLite for its version. It runs once, at
// package initialisation, on a throwaway in-memory connection.
func libVersion() (v string) {
	defer func() {
		if recover() != nil {
			v = "unknown"
		}
	}()
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		return "unknown"
	}
	defer db.Close()
	st, _, err := db.Prepare("SELECT sqlite_version()")
	if err != nil || st == nil {
		return "unknown"
	}
	defer st.Close()
	if !st.Step() {
		return "unknown"
	}
	return st.ColumnText(0)
}

// conn is one SQLite connection. It is not safe for concurrent use except for
// interrupt, which may be called from any goroutine (the engine calls it from
// a context.AfterFunc).
type conn struct {
	db       *sqlite3.Conn
	path     string
	readOnly bool
	create   bool

	// ncruces interrupts a statement when the context installed with
	// SetInterrupt is done, and keeps refusing work until another is
	// installed. ictx is that context; only the goroutine that owns the
	// connection touches it (and db). cancel ends it and is what interrupt
	// calls, from any goroutine, under mu.
	ictx   context.Context
	mu     sync.Mutex
	cancel context.CancelFunc

	// preparing is the SQL text prepare is compiling, while it compiles it:
	// the authorizer reads it to tell a PRAGMA's NULL argument from an
	// empty string, which ncruces hands it alike as "".
	preparing string
	inPrepare bool

	// lims are the lengths and the memory bound set by limit, applied
	// again when the connection is reopened.
	lims *[4]int

	// broken is set when the library panicked with something other than
	// out-of-memory: the module's state is then unknown, and a read-only
	// connection is reopened before its next use.
	broken bool
}

// openConn opens path. readOnly connections are opened with
// SQLITE_OPEN_READONLY and hardened; writable ones are for building databases.
func openConn(path string, readOnly, create bool) (*conn, error) {
	c := &conn{path: path, readOnly: readOnly, create: create}
	if err := c.open(); err != nil {
		return nil, err
	}
	return c, nil
}

// open opens c.path into c.db, with the flags and hardening of sqlite_cgo.go.
func (c *conn) open() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("open %s: %w", c.path, panicError(r))
		}
	}()
	flags := sqlite3.OPEN_NOMUTEX | sqlite3.OPEN_URI
	mode := "rw"
	switch {
	case c.readOnly:
		flags |= sqlite3.OPEN_READONLY
		mode = "ro"
	case c.create:
		flags |= sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
		mode = "rwc"
	default:
		flags |= sqlite3.OPEN_READWRITE
	}
	var db *sqlite3.Conn
	if strings.HasPrefix(c.path, "file:") || bits.UintSize < 64 {
		// A URI is the caller's to interpret, as in the cgo build; and a
		// 32-bit process keeps the library's smaller default heap.
		db, err = sqlite3.OpenFlags(c.path, flags)
	} else {
		// Only OpenContext takes the heap bound, and it always asks for
		// read-write-create; the URI's mode parameter narrows that to
		// exactly the flags above (SQLite applies it over the flags).
		db, err = sqlite3.OpenContext(sqlite3.WithMaxMemory(context.Background(), maxMemory), fileURI(c.path, mode))
	}
	if err != nil {
		return fmt.Errorf("open %s: %s", c.path, errMessage(err))
	}
	if err := configure(db, c); err != nil {
		db.Close()
		return fmt.Errorf("open %s: %w", c.path, err)
	}
	if c.lims != nil {
		applyLimits(db, c.lims)
	}
	c.db = db
	c.ictx = nil
	c.broken = false
	// A context is always installed, so an interrupt that arrives before
	// the first statement is kept for it.
	c.arm()
	return nil
}

// fileURI turns a file name into a file: URI with the given access mode.
func fileURI(path, mode string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=" + mode}
	return u.String()
}

// configure applies what the system libsqlite3 does by default and the
// embedded build does not, then, for read-only connections, the sandbox of
// the C harden function in sqlite_cgo.go.
func configure(db *sqlite3.Conn, c *conn) error {
	// The embedded SQLite is built with SQLITE_DQS=0; the system library
	// (and so Python's sqlite3) accepts double-quoted string literals, which
	// model output and benchmark gold SQL both use.
	for _, op := range []sqlite3.DBConfig{sqlite3.DBCONFIG_DQS_DML, sqlite3.DBCONFIG_DQS_DDL} {
		if _, err := db.Config(op, true); err != nil {
			return fmt.Errorf("double-quoted strings: %w", toError(err))
		}
	}
	if !c.readOnly {
		return nil
	}
	// No ATTACH (a prediction must not reach other files), defensive mode
	// (no writable_schema tricks), untrusted schema.
	db.Limit(sqlite3.LIMIT_ATTACHED, 0)
	if _, err := db.Config(sqlite3.DBCONFIG_DEFENSIVE, true); err != nil {
		return fmt.Errorf("harden: %w", toError(err))
	}
	if _, err := db.Config(sqlite3.DBCONFIG_TRUSTED_SCHEMA, false); err != nil {
		return fmt.Errorf("harden: %w", toError(err))
	}
	// The embedded build omits extension loading altogether; turning it off
	// is then only a formality whose error does not matter.
	_, _ = db.Config(sqlite3.DBCONFIG_ENABLE_LOAD_EXTENSION, false)
	// A pooled connection keeps its page cache between queries; sorts spill
	// to memory, never to temp files (same settings as the cgo build).
	if err := db.Exec("PRAGMA cache_size=-65536; PRAGMA mmap_size=1073741824; PRAGMA temp_store=MEMORY; PRAGMA query_only=1"); err != nil {
		return fmt.Errorf("harden: %w", toError(err))
	}
	if err := db.SetAuthorizer(c.authorize); err != nil {
		return fmt.Errorf("harden: %w", toError(err))
	}
	return nil
}

// authorize is the C authorize function of sqlite_cgo.go, decision for
// decision: it admits only what a query needs (reading tables, calling
// functions, recursive CTEs, introspection pragmas) and denies, while the
// statement is being prepared, anything that would change the connection's
// state or the database.
func (c *conn) authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, _, _ string) sqlite3.AuthorizerReturnCode {
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_READ, sqlite3.AUTH_RECURSIVE:
		return sqlite3.AUTH_OK
	case sqlite3.AUTH_FUNCTION:
		// name4th is the function's name; only allow-listed functions
		// run (see allowedFunctions in engine.go).
		if _, ok := allowedSet[asciiLower(name4th)]; ok {
			return sqlite3.AUTH_OK
		}
		return sqlite3.AUTH_DENY
	case sqlite3.AUTH_PRAGMA:
		for _, p := range introspectionPragmas {
			if asciiEqualFold(name3rd, p) {
				return sqlite3.AUTH_OK
			}
		}
		// C admits a NULL argument (a getter) and denies any other, even
		// an empty string: PRAGMA query_only='' is a setter, and flag
		// pragmas take effect while the statement is prepared, so this
		// must be decided here, not afterwards. ncruces passes "" for both
		// NULL and '', so read the statement: only '=' or '(' after the
		// name gives a pragma an argument. A PRAGMA compiled outside
		// prepare (a pragma_* table-valued function running its query) has
		// no text to read and is denied.
		if name4th == "" && c.inPrepare && !pragmaHasArgument(c.preparing) {
			return sqlite3.AUTH_OK
		}
		return sqlite3.AUTH_DENY
	}
	return sqlite3.AUTH_DENY
}

// allowedSet is allowedFunctions as a set of lower-case names.
var allowedSet = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, f := range allowList() {
		m[f] = struct{}{}
	}
	return m
}()

// asciiLower lower-cases ASCII letters only, as sqlite3_stricmp compares.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// introspectionPragmas may take an argument: they only describe the schema.
var introspectionPragmas = []string{"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}

// asciiEqualFold is sqlite3_stricmp: ASCII-only case folding, unlike
// strings.EqualFold, which would also match e.g. U+017F to 's'.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// pragmaHasArgument reports whether sql, whose first statement is a PRAGMA
// being compiled, gives the pragma a value: SQLite's grammar has one only
// after "=" or "(" straight after [schema.]name. It fails closed: a first
// statement it does not read as [EXPLAIN [QUERY PLAN]] PRAGMA counts as
// having a value.
func pragmaHasArgument(sql string) bool {
	lx := lexer{s: sql}
	t := lx.next()
	for t == ";" {
		t = lx.next()
	}
	if asciiEqualFold(t, "explain") {
		t = lx.next()
		if asciiEqualFold(t, "query") {
			if t = lx.next(); !asciiEqualFold(t, "plan") {
				return true
			}
			t = lx.next()
		}
	}
	if !asciiEqualFold(t, "pragma") {
		return true
	}
	lx.next() // name
	t = lx.next()
	if t == "." {
		lx.next() // name after the schema
		t = lx.next()
	}
	return t == "=" || t == "("
}

// lexer splits SQL into tokens the way SQLite's tokenizer bounds them:
// whitespace and comments separate; a string or identifier quoted with
// single, double or back quotes or with brackets is one token, a run of
// identifier characters is one token, and anything else is a one-byte
// token. It only needs to find token bounds.
type lexer struct {
	s string
	i int
}

// next returns the next token, or "" at the end of the text.
func (lx *lexer) next() string {
	s := lx.s
	for lx.i < len(s) {
		i := lx.i
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			lx.i++
			continue
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				lx.i += j + 1
			} else {
				lx.i = len(s)
			}
			continue
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				lx.i += 2 + j + 2
			} else {
				lx.i = len(s)
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			lx.i = j
		case c == '[':
			if j := strings.IndexByte(s[i:], ']'); j >= 0 {
				lx.i += j + 1
			} else {
				lx.i = len(s)
			}
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			lx.i = j
		default:
			lx.i++
		}
		return s[i:lx.i]
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c >= 0x80 || c == '_' || c == '$' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// limit sets the lengths SQLite allows on c and its heap's bound (see
// Limits.sqliteLimits); lengths beyond SQLite's compile-time maximum are
// lowered to it.
func (c *conn) limit(value, sql, pattern, memory int) (err error) {
	if err := c.ready(); err != nil {
		return err
	}
	defer c.catch(&err)
	c.lims = &[4]int{value, sql, pattern, memory}
	applyLimits(c.db, c.lims)
	return nil
}

// applyLimits sets l on db. The heap bound is the connection's own: each
// connection runs its own SQLite module, with its own heap.
func applyLimits(db *sqlite3.Conn, l *[4]int) {
	clamp := func(n int) int { return min(n, math.MaxInt32) }
	db.Limit(sqlite3.LIMIT_LENGTH, clamp(l[0]))
	db.Limit(sqlite3.LIMIT_SQL_LENGTH, clamp(l[1]))
	db.Limit(sqlite3.LIMIT_LIKE_PATTERN_LENGTH, clamp(l[2]))
	db.HardHeapLimit(int64(l[3]))
}

// budgetRefused reports whether an out-of-memory error on c came from its
// heap bound: the connection's heap holds only its own statements.
func (c *conn) budgetRefused() bool { return c.lims != nil }

// memCap is c's heap bound.
func (c *conn) memCap() int {
	if c.lims == nil {
		return 0
	}
	return c.lims[3]
}

func (c *conn) close() (err error) {
	if c.db == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("close %s: %w", c.path, panicError(r))
		}
	}()
	db := c.db
	c.db = nil
	// sqlite3_close_v2 in the cgo build lets statements outlive the
	// connection; here Close refuses while any is open, so finalize them.
	var open []*sqlite3.Stmt
	for s := range db.Stmts() {
		open = append(open, s)
	}
	for _, s := range open {
		s.Close()
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("close %s: %s", c.path, errMessage(err))
	}
	return nil
}

// interrupt stops the statement being prepared or run on c, from any
// goroutine, including one about to start: the cancelled context stays
// installed until clearInterrupt, which the engine calls once the query is
// over and nothing can interrupt it any more.
func (c *conn) interrupt() {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
}

// clearInterrupt installs a fresh interrupt context after a cancelled one.
func (c *conn) clearInterrupt() {
	if c.ictx != nil && c.ictx.Err() != nil {
		c.arm()
	}
}

// arm makes sure a live interrupt context is installed on c.db. It runs on
// the goroutine that owns c, before each statement.
func (c *conn) arm() {
	if c.ictx != nil && c.ictx.Err() == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	c.ictx = ctx
	c.db.SetInterrupt(ctx)
}

// ready checks c before a new statement, reopening a read-only connection
// the library left in an unknown state.
func (c *conn) ready() error {
	if c.broken && c.readOnly {
		if c.db != nil {
			c.close()
		}
		if err := c.open(); err != nil {
			return &sqliteError{code: codeError, msg: err.Error()}
		}
	}
	if c.db == nil || c.broken {
		return &sqliteError{code: codeError, msg: "connection unusable after an internal error"}
	}
	return nil
}

// catch turns a panic of the library into an error. ncruces panics where C
// SQLite returns SQLITE_NOMEM (its heap is bounded: see maxMemory); SQLite
// itself recovers from that cleanly. Any other panic marks c broken.
func (c *conn) catch(err *error) {
	r := recover()
	if r == nil {
		return
	}
	e := panicError(r)
	if e.code != codeNoMem {
		c.broken = true
	}
	*err = e
}

// panicError converts a recovered panic value into an error.
func panicError(r any) *sqliteError {
	if e, ok := r.(error); ok && strings.HasSuffix(e.Error(), "out of memory") {
		return &sqliteError{code: codeNoMem, msg: "out of memory"}
	}
	return &sqliteError{code: codeError, msg: fmt.Sprintf("sqlite internal error: %v", r)}
}

type sqliteError struct {
	code int
	msg  string
}

func (e *sqliteError) Error() string { return e.msg }

// toError converts an ncruces error into a sqliteError carrying SQLite's own
// message (sqlite3_errmsg), as the cgo build reports it.
func toError(err error) error {
	if err == nil {
		return nil
	}
	code := codeError
	var xc sqlite3.ExtendedErrorCode
	if errors.As(err, &xc) {
		code = int(xc)
	}
	return &sqliteError{code: code, msg: errMessage(err)}
}

// errMessage recovers sqlite3_errmsg from an ncruces error. ncruces prefixes
// the message with "sqlite3: " and the code's generic text (sqlite3_errstr),
// drops the message when it only repeats that text, and appends an OS error
// if there is one; this undoes all three.
func errMessage(err error) string {
	var xc sqlite3.ExtendedErrorCode
	if !errors.As(err, &xc) {
		return err.Error()
	}
	prefix := xc.Error() // "sqlite3: " + sqlite3_errstr
	msg, ok := strings.CutPrefix(err.Error(), prefix)
	if !ok {
		return err.Error()
	}
	var se *sqlite3.Error
	if errors.As(err, &se) {
		if sys := se.Unwrap(); sys != nil {
			msg = strings.TrimSuffix(msg, ": "+sys.Error())
		}
	}
	msg = strings.TrimPrefix(msg, ": ")
	if msg == "" {
		msg = strings.TrimPrefix(prefix, "sqlite3: ")
	}
	return msg
}

// interrupted reports whether err came from an interrupt.
func interrupted(err error) bool {
	var se *sqliteError
	if errors.As(err, &se) {
		return se.code&0xff == codeInterrupt
	}
	return errors.Is(err, sqlite3.INTERRUPT)
}

// stmt is one prepared statement.
type stmt struct {
	c    *conn
	s    *sqlite3.Stmt
	ncol int
	// err is an error met where the API has no error result (row,
	// columns); the next step returns it.
	err error
}

// prepare compiles the first statement of sql. It returns a nil stmt when sql
// holds no statement (only whitespace, comments or semicolons), and the byte
// offset where the unparsed tail starts.
func (c *conn) prepare(sql string) (st *stmt, off int, err error) {
	if err := c.ready(); err != nil {
		return nil, 0, err
	}
	defer c.catch(&err)
	if c.ictx == nil {
		c.arm()
	}
	s, tail, err := c.compile(sql)
	if err != nil {
		return nil, 0, toError(err)
	}
	off = len(sql) - len(tail)
	if s == nil {
		// ncruces drops the tail with the empty statement; nothing was
		// left to parse.
		return nil, len(sql), nil
	}
	return &stmt{c: c, s: s, ncol: s.ColumnCount()}, off, nil
}

// compile prepares the first statement of sql with its text in view of the
// authorizer.
func (c *conn) compile(sql string) (*sqlite3.Stmt, string, error) {
	c.preparing, c.inPrepare = sql, true
	defer func() { c.preparing, c.inPrepare = "", false }()
	return c.db.Prepare(sql)
}

func (s *stmt) readOnly() (ro bool) {
	defer func() {
		if r := recover(); r != nil {
			s.err = panicError(r)
		}
	}()
	return s.s.ReadOnly()
}

func (s *stmt) columns() (cols []string) {
	cols = make([]string, s.ncol)
	defer func() {
		if r := recover(); r != nil {
			s.err = panicError(r)
		}
	}()
	for i := range cols {
		cols[i] = s.s.ColumnName(i)
	}
	return cols
}

// bind sets the statement's parameters, numbered from 1.
func (s *stmt) bind(args ...any) error {
	for i, a := range args {
		if err := s.bindAt(i+1, a); err != nil {
			return fmt.Errorf("bind parameter %d: %w", i+1, err)
		}
	}
	return nil
}

func (s *stmt) bindAt(n int, a any) (err error) {
	defer s.c.catch(&err)
	switch v := a.(type) {
	case nil:
		return toError(s.s.BindNull(n))
	case int:
		return toError(s.s.BindInt64(n, int64(v)))
	case int64:
		return toError(s.s.BindInt64(n, v))
	case bool:
		var b int64
		if v {
			b = 1
		}
		return toError(s.s.BindInt64(n, b))
	case float64:
		return toError(s.s.BindFloat(n, v))
	case string:
		return toError(s.s.BindText(n, v))
	case []byte:
		if len(v) == 0 {
			// The cgo build hands SQLite a NULL pointer for an empty
			// slice, which binds NULL; do the same so that both builds
			// write identical databases.
			return toError(s.s.BindNull(n))
		}
		return toError(s.s.BindBlob(n, v))
	case Value:
		return s.bindAt(n, v.Any())
	}
	return fmt.Errorf("unsupported type %T", a)
}

// step advances to the next row; it reports false when the statement is done.
func (s *stmt) step() (more bool, err error) {
	if s.err != nil {
		return false, s.err
	}
	defer s.c.catch(&err)
	if s.s.Step() {
		return true, nil
	}
	return false, toError(s.s.Err())
}

// row appends the current row's values to dst and returns it with the number
// of payload bytes it carried. Text is copied byte for byte, valid UTF-8 or
// not; only the storage class decides a value's kind.
func (s *stmt) row(dst []Value) (out []Value, size int) {
	start := len(dst)
	out = dst
	defer func() {
		if r := recover(); r != nil {
			s.err = panicError(r)
			for len(out) < start+s.ncol {
				out = append(out, Value{})
			}
		}
	}()
	for k := 0; k < s.ncol; k++ {
		switch s.s.ColumnType(k) {
		case sqlite3.INTEGER:
			out = append(out, Value{Kind: KindInt, I: s.s.ColumnInt64(k)})
			size += 8
		case sqlite3.FLOAT:
			out = append(out, Value{Kind: KindFloat, F: s.s.ColumnFloat(k)})
			size += 8
		case sqlite3.TEXT:
			b := s.s.ColumnRawText(k)
			out = append(out, Value{Kind: KindText, S: string(b)})
			size += len(b)
		case sqlite3.BLOB:
			b := s.s.ColumnRawBlob(k)
			out = append(out, Value{Kind: KindBlob, S: string(b)})
			size += len(b)
		default:
			out = append(out, Value{})
		}
	}
	return out, size
}

func (s *stmt) reset() (err error) {
	defer s.c.catch(&err)
	s.err = nil
	return toError(s.s.Reset())
}

func (s *stmt) clearBindings() {
	var err error
	defer s.c.catch(&err)
	s.s.ClearBindings()
}

func (s *stmt) close() {
	if s.s == nil {
		return
	}
	var err error
	defer s.c.catch(&err)
	st := s.s
	s.s = nil
	st.Close()
}

// exec runs every statement of sql, discarding rows. It is for building and
// migrating databases, never for model output.
func (c *conn) exec(sql string) (err error) {
	if err := c.ready(); err != nil {
		return err
	}
	defer c.catch(&err)
	c.arm()
	return toError(c.db.Exec(sql))
}
