//go:build cgo

package sqlexec

/*
#cgo LDFLAGS: -lsqlite3
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// cell is one column of the current row, fetched in a single cgo call per
// row rather than three calls per column: on wide result sets the cgo
// crossing, not SQLite, dominates the scan.
typedef struct {
	int type;
	int len;
	sqlite3_int64 i;
	double f;
	const void *p;
} cell;

static void fetch_row(sqlite3_stmt *s, int n, cell *out) {
	for (int k = 0; k < n; k++) {
		int t = sqlite3_column_type(s, k);
		out[k].type = t;
		switch (t) {
		case SQLITE_INTEGER:
			out[k].i = sqlite3_column_int64(s, k);
			break;
		case SQLITE_FLOAT:
			out[k].f = sqlite3_column_double(s, k);
			break;
		case SQLITE_TEXT:
			out[k].p = sqlite3_column_text(s, k);
			out[k].len = sqlite3_column_bytes(s, k);
			break;
		case SQLITE_BLOB:
			out[k].p = sqlite3_column_blob(s, k);
			out[k].len = sqlite3_column_bytes(s, k);
			break;
		}
	}
}

// budget bounds the heap one connection's statements take while they step
// (Limits.MaxQueryMemory): sorts, temporary b-trees, page cache growth.
// used counts the bytes allocated under the budget and not yet freed,
// whichever thread frees them; hit records that the cap refused one.
typedef struct {
	sqlite3_int64 cap;
	sqlite3_int64 used;
	int hit;
} budget;

// cur is the budget of the statement stepping on this thread: step sets it
// around sqlite3_step, so that allocations made for one query are charged
// to its connection without a lock. Allocations made elsewhere (open,
// prepare, close) are charged to no budget.
static __thread budget *cur;

// Every allocation carries a 16-byte header (malloc's alignment): its size
// and the budget it was charged to, so that a free credits the right one.
typedef struct {
	sqlite3_int64 size;
	budget *b;
} mhead;

static int charge(budget *b, sqlite3_int64 n) {
	if (b == NULL || n <= 0) return 1;
	if (__atomic_add_fetch(&b->used, n, __ATOMIC_RELAXED) > b->cap) {
		__atomic_sub_fetch(&b->used, n, __ATOMIC_RELAXED);
		__atomic_store_n(&b->hit, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

static void credit(budget *b, sqlite3_int64 n) {
	if (b != NULL) __atomic_sub_fetch(&b->used, n, __ATOMIC_RELAXED);
}

static int m_roundup(int n) { return (n + 7) & ~7; }

static void *m_malloc(int n) {
	n = m_roundup(n);
	budget *b = cur;
	if (!charge(b, n)) return NULL;
	mhead *h = malloc(sizeof(mhead) + n);
	if (h == NULL) {
		credit(b, n);
		return NULL;
	}
	h->size = n;
	h->b = b;
	return h + 1;
}

static void m_free(void *p) {
	if (p == NULL) return;
	mhead *h = (mhead *)p - 1;
	credit(h->b, h->size);
	free(h);
}

static int m_size(void *p) {
	return p == NULL ? 0 : (int)((mhead *)p - 1)->size;
}

// m_realloc keeps the budget an allocation was charged to and charges it
// the growth.
static void *m_realloc(void *p, int n) {
	if (p == NULL) return m_malloc(n);
	n = m_roundup(n);
	mhead *h = (mhead *)p - 1;
	budget *b = h->b;
	sqlite3_int64 old = h->size;
	if (n > old && !charge(b, n - old)) return NULL;
	mhead *g = realloc(h, sizeof(mhead) + n);
	if (g == NULL) {
		if (n > old) credit(b, n - old);
		return NULL;
	}
	if (n < old) credit(b, old - n);
	g->size = n;
	return g + 1;
}

static int m_init(void *app) { return SQLITE_OK; }
static void m_shutdown(void *app) {}

static const sqlite3_mem_methods budget_malloc = {
	m_malloc, m_free, m_realloc, m_size, m_roundup, m_init, m_shutdown, NULL
};

// configure runs before SQLite initialises. Memory statistics take a
// global mutex on every allocation, which two workers contend for; sqlrl
// never reads them. The allocator charges each statement's allocations to
// its connection's budget. Both fail harmlessly (SQLITE_MISUSE) if another
// package in the process initialised SQLite first: budgets are then not
// enforced (budgets_on says so).
static int budgets_on;

static int configure(void) {
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	budgets_on = sqlite3_config(SQLITE_CONFIG_MALLOC, &budget_malloc) == SQLITE_OK;
	return budgets_on;
}

// new_budget returns a budget of cap bytes, or NULL when budgets are not
// enforced or memory is short.
static budget *new_budget(sqlite3_int64 cap) {
	if (!budgets_on) return NULL;
	budget *b = calloc(1, sizeof(budget));
	if (b != NULL) b->cap = cap;
	return b;
}

static int budget_hit(budget *b) {
	return b != NULL && __atomic_exchange_n(&b->hit, 0, __ATOMIC_RELAXED);
}

// step runs one sqlite3_step charged to b.
static int step(sqlite3_stmt *s, budget *b) {
	budget *prev = cur;
	cur = b;
	int rc = sqlite3_step(s);
	cur = prev;
	return rc;
}

static int open_db(const char *path, int flags, sqlite3 **db) {
	int rc = sqlite3_open_v2(path, db, flags, NULL);
	if (rc != SQLITE_OK) return rc;
	sqlite3_extended_result_codes(*db, 1);
	return SQLITE_OK;
}

static int lock_down(sqlite3 *db);

// harden applies the database-enforced read-only sandbox: no ATTACH (a
// prediction must not reach other files), defensive mode (no writable_schema
// tricks), untrusted schema, no extension loading.
static int harden(sqlite3 *db) {
	int dummy;
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &dummy);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &dummy);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &dummy);
	// A pooled connection keeps its page cache between queries; a larger one
	// and memory-mapped reads are most of why sqlrl outruns a connection per
	// query. Sorts spill to memory, never to temp files.
	int rc = sqlite3_exec(db, "PRAGMA cache_size=-65536; PRAGMA mmap_size=1073741824; PRAGMA temp_store=MEMORY; PRAGMA query_only=1", NULL, NULL, NULL);
	if (rc != SQLITE_OK) return rc;
	return lock_down(db);
}

// allowed_fns is the function allow-list (allowedFunctions in engine.go),
// lower-case and sorted, installed once by the package's init before any
// connection is opened.
static const char **allowed_fns;
static int n_allowed_fns;

static void set_allowed(const char **names, int n) {
	allowed_fns = names;
	n_allowed_fns = n;
}

// fn_allowed looks name up in allowed_fns, ignoring ASCII case as SQLite
// does when it resolves a function name.
static int fn_allowed(const char *name) {
	if (name == NULL) return 0;
	int lo = 0, hi = n_allowed_fns - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = sqlite3_stricmp(name, allowed_fns[mid]);
		if (c == 0) return 1;
		if (c < 0) hi = mid - 1; else lo = mid + 1;
	}
	return 0;
}

// authorize admits only what a query needs: reading tables, calling
// allow-listed functions, recursive CTEs and introspection pragmas. Anything that would
// change the connection's state (BEGIN left open on a pooled connection, a
// PRAGMA setter, ATTACH) or the database is denied while the statement is
// being prepared, before a single row is touched.
static int authorize(void *arg, int action, const char *a1, const char *a2, const char *db, const char *trigger) {
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		// a2 is the function's name. Some built-ins reach process
		// memory (two-argument fts3_tokenizer installs a function
		// pointer taken from a blob; the one-argument form returns
		// one) or the machine (load_extension): only functions
		// classified as safe are admitted.
		return fn_allowed(a2) ? SQLITE_OK : SQLITE_DENY;
	case SQLITE_UPDATE:
		// Table-valued functions (json_each, pragma_table_info) are
		// constructed under an authorisation probe for an update of
		// sqlite_master; Python's sqlite3, which has no authorizer, runs
		// them. No write can follow: the file is read-only, query_only is
		// on, defensive mode forbids schema writes and the statement must
		// be read-only.
		if (a1 != NULL && (sqlite3_stricmp(a1, "sqlite_master") == 0 || sqlite3_stricmp(a1, "sqlite_temp_master") == 0))
			return SQLITE_OK;
		return SQLITE_DENY;
	case SQLITE_PRAGMA:
		if (a2 == NULL) return SQLITE_OK;
		if (sqlite3_stricmp(a1, "table_info") == 0 || sqlite3_stricmp(a1, "table_xinfo") == 0 ||
		    sqlite3_stricmp(a1, "index_list") == 0 || sqlite3_stricmp(a1, "index_info") == 0 ||
		    sqlite3_stricmp(a1, "index_xinfo") == 0 || sqlite3_stricmp(a1, "foreign_key_list") == 0)
			return SQLITE_OK;
		return SQLITE_DENY;
	}
	return SQLITE_DENY;
}

static int lock_down(sqlite3 *db) {
	return sqlite3_set_authorizer(db, authorize, NULL);
}

// on_progress runs every few hundred VM steps and stops the statement once
// the connection's interrupt flag is set. sqlite3_interrupt alone loses an
// interrupt that lands after the query was registered but before its first
// step (SQLite clears its own flag when a statement starts); this flag is
// cleared only by sqlrl, after the query is over.
static int on_progress(void *flag) {
	return __atomic_load_n((int *)flag, __ATOMIC_SEQ_CST);
}

static void watch(sqlite3 *db, int *flag) {
	sqlite3_progress_handler(db, 256, on_progress, flag);
}

static void set_flag(int *flag, int v) {
	__atomic_store_n(flag, v, __ATOMIC_SEQ_CST);
}

// set_limits bounds, inside SQLite, the length of every value, of the
// statement text and of a LIKE/GLOB pattern.
static void set_limits(sqlite3 *db, int value, int sql, int pattern) {
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, value);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, sql);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, pattern);
}

static int bind_text(sqlite3_stmt *s, int i, const char *p, int n) {
	return sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT);
}
static int bind_blob(sqlite3_stmt *s, int i, const void *p, int n) {
	return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// Version is the SQLite library version the engine runs on.
var Version = C.GoString(C.sqlite3_libversion())

func init() {
	names := allowList()
	arr := (**C.char)(C.malloc(C.size_t(len(names)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	cnames := unsafe.Slice(arr, len(names))
	for i, n := range names {
		cnames[i] = C.CString(n)
	}
	// The list lives as long as the process: connections hold no copy.
	C.set_allowed(arr, C.int(len(names)))
	// Fails harmlessly (SQLITE_MISUSE) if another package in the process
	// initialised SQLite first; the setting is an optimisation only.
	C.configure()
}

// Driver names the SQLite implementation compiled in.
const Driver = "libsqlite3 (cgo)"

// conn is one SQLite connection. It is not safe for concurrent use except for
// interrupt, which SQLite documents as callable from any thread.
type conn struct {
	db   *C.sqlite3
	path string
	buf  []C.cell
	// flag is the interrupt flag the progress handler polls; it lives in C
	// memory so SQLite can hold its address.
	flag *C.int
	// budget bounds the heap c's statements take while they step (nil:
	// none). It is never freed: memory charged to it may outlive c.
	budget *C.budget
}

// openConn opens path. readOnly connections are opened with
// SQLITE_OPEN_READONLY and hardened; writable ones are for building databases.
func openConn(path string, readOnly, create bool) (*conn, error) {
	flags := C.int(C.SQLITE_OPEN_NOMUTEX | C.SQLITE_OPEN_URI)
	switch {
	case readOnly:
		flags |= C.SQLITE_OPEN_READONLY
	case create:
		flags |= C.SQLITE_OPEN_READWRITE | C.SQLITE_OPEN_CREATE
	default:
		flags |= C.SQLITE_OPEN_READWRITE
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var db *C.sqlite3
	if rc := C.open_db(cpath, flags, &db); rc != C.SQLITE_OK {
		msg := "out of memory"
		if db != nil {
			msg = C.GoString(C.sqlite3_errmsg(db))
			C.sqlite3_close_v2(db)
		}
		return nil, fmt.Errorf("open %s: %s", path, msg)
	}
	c := &conn{db: db, path: path, flag: (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))}
	C.watch(db, c.flag)
	if readOnly {
		if rc := C.harden(db); rc != C.SQLITE_OK {
			err := c.err(rc)
			c.close()
			return nil, fmt.Errorf("open %s: harden: %w", path, err)
		}
	}
	return c, nil
}

// limit sets the lengths SQLite allows on c and the memory a statement
// may take while it steps (see Limits.sqliteLimits); lengths beyond
// SQLite's compile-time maximum are lowered to it.
func (c *conn) limit(value, sql, pattern, memory int) error {
	clamp := func(n int) C.int { return C.int(min(n, math.MaxInt32)) }
	C.set_limits(c.db, clamp(value), clamp(sql), clamp(pattern))
	if c.budget == nil {
		c.budget = C.new_budget(C.sqlite3_int64(memory))
	}
	return nil
}

// budgetRefused reports, and forgets, whether c's memory budget refused an
// allocation since the last call.
func (c *conn) budgetRefused() bool { return C.budget_hit(c.budget) != 0 }

// memCap is the bound of c's memory budget.
func (c *conn) memCap() int {
	if c.budget == nil {
		return 0
	}
	return int(c.budget.cap)
}

func (c *conn) close() error {
	if c.db == nil {
		return nil
	}
	rc := C.sqlite3_close_v2(c.db)
	c.db = nil
	C.free(unsafe.Pointer(c.flag))
	c.flag = nil
	if rc != C.SQLITE_OK {
		return fmt.Errorf("close %s: sqlite code %d", c.path, int(rc))
	}
	return nil
}

// interrupt stops the running statement, or the next one to start before
// clearInterrupt.
func (c *conn) interrupt() {
	C.set_flag(c.flag, 1)
	C.sqlite3_interrupt(c.db)
}

// clearInterrupt re-arms the connection once nothing can interrupt it any
// more (the query is over and its context callback has returned).
func (c *conn) clearInterrupt() { C.set_flag(c.flag, 0) }

// err turns a SQLite result code into an error carrying SQLite's message.
func (c *conn) err(rc C.int) error {
	msg := C.GoString(C.sqlite3_errmsg(c.db))
	return &sqliteError{code: int(rc), msg: msg}
}

type sqliteError struct {
	code int
	msg  string
}

func (e *sqliteError) Error() string { return e.msg }

// interrupted reports whether err came from sqlite3_interrupt.
func interrupted(err error) bool {
	var se *sqliteError
	return errors.As(err, &se) && se.code&0xff == C.SQLITE_INTERRUPT
}

// stmt is one prepared statement.
type stmt struct {
	c    *conn
	s    *C.sqlite3_stmt
	ncol int
}

// prepare compiles the first statement of sql. It returns a nil stmt when sql
// holds no statement (only whitespace, comments or semicolons), and the byte
// offset where the unparsed tail starts.
func (c *conn) prepare(sql string) (*stmt, int, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var s *C.sqlite3_stmt
	var tail *C.char
	rc := C.sqlite3_prepare_v2(c.db, csql, C.int(len(sql)), &s, &tail)
	if rc != C.SQLITE_OK {
		return nil, 0, c.err(rc)
	}
	off := int(uintptr(unsafe.Pointer(tail)) - uintptr(unsafe.Pointer(csql)))
	if s == nil {
		return nil, off, nil
	}
	return &stmt{c: c, s: s, ncol: int(C.sqlite3_column_count(s))}, off, nil
}

func (s *stmt) readOnly() bool { return C.sqlite3_stmt_readonly(s.s) != 0 }

func (s *stmt) columns() []string {
	cols := make([]string, s.ncol)
	for i := range cols {
		cols[i] = C.GoString(C.sqlite3_column_name(s.s, C.int(i)))
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

func (s *stmt) bindAt(n int, a any) error {
	switch v := a.(type) {
	case nil:
		return s.rc(C.sqlite3_bind_null(s.s, C.int(n)))
	case int:
		return s.rc(C.sqlite3_bind_int64(s.s, C.int(n), C.sqlite3_int64(v)))
	case int64:
		return s.rc(C.sqlite3_bind_int64(s.s, C.int(n), C.sqlite3_int64(v)))
	case bool:
		b := 0
		if v {
			b = 1
		}
		return s.rc(C.sqlite3_bind_int64(s.s, C.int(n), C.sqlite3_int64(b)))
	case float64:
		return s.rc(C.sqlite3_bind_double(s.s, C.int(n), C.double(v)))
	case string:
		p := C.CString(v)
		defer C.free(unsafe.Pointer(p))
		return s.rc(C.bind_text(s.s, C.int(n), p, C.int(len(v))))
	case []byte:
		var p unsafe.Pointer
		if len(v) > 0 {
			p = C.CBytes(v)
			defer C.free(p)
		}
		return s.rc(C.bind_blob(s.s, C.int(n), p, C.int(len(v))))
	case Value:
		return s.bindAt(n, v.Any())
	}
	return fmt.Errorf("unsupported type %T", a)
}

func (s *stmt) rc(rc C.int) error {
	if rc != C.SQLITE_OK {
		return s.c.err(rc)
	}
	return nil
}

// step advances to the next row; it reports false when the statement is done.
func (s *stmt) step() (bool, error) {
	switch rc := C.step(s.s, s.c.budget); rc {
	case C.SQLITE_ROW:
		return true, nil
	case C.SQLITE_DONE:
		return false, nil
	default:
		return false, s.c.err(rc)
	}
}

// row appends the current row's values to dst and returns it with the number
// of payload bytes it carried.
func (s *stmt) row(dst []Value) ([]Value, int) {
	if cap(s.c.buf) < s.ncol {
		s.c.buf = make([]C.cell, s.ncol)
	}
	buf := s.c.buf[:s.ncol]
	if s.ncol > 0 {
		C.fetch_row(s.s, C.int(s.ncol), &buf[0])
	}
	size := 0
	for k := range buf {
		cl := &buf[k]
		switch cl._type {
		case C.SQLITE_INTEGER:
			dst = append(dst, Value{Kind: KindInt, I: int64(cl.i)})
			size += 8
		case C.SQLITE_FLOAT:
			dst = append(dst, Value{Kind: KindFloat, F: float64(cl.f)})
			size += 8
		case C.SQLITE_TEXT, C.SQLITE_BLOB:
			kind := KindText
			if cl._type == C.SQLITE_BLOB {
				kind = KindBlob
			}
			str := ""
			if cl.len > 0 {
				str = C.GoStringN((*C.char)(cl.p), cl.len)
			}
			dst = append(dst, Value{Kind: kind, S: str})
			size += int(cl.len)
		default:
			dst = append(dst, Value{})
		}
	}
	runtime.KeepAlive(s)
	return dst, size
}

func (s *stmt) reset() error { return s.rc(C.sqlite3_reset(s.s)) }

func (s *stmt) clearBindings() { C.sqlite3_clear_bindings(s.s) }

func (s *stmt) close() {
	if s.s != nil {
		C.sqlite3_finalize(s.s)
		s.s = nil
	}
}

// exec runs every statement of sql, discarding rows. It is for building and
// migrating databases, never for model output.
func (c *conn) exec(sql string) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var errmsg *C.char
	if rc := C.sqlite3_exec(c.db, csql, nil, nil, &errmsg); rc != C.SQLITE_OK {
		msg := C.GoString(errmsg)
		C.sqlite3_free(unsafe.Pointer(errmsg))
		return &sqliteError{code: int(rc), msg: msg}
	}
	return nil
}
