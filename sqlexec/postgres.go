package sqlexec

// The PostgreSQL engine. It runs model SQL against benchmark databases copied
// into PostgreSQL (one schema per database: see package dbcopy and
// docs/postgres.md), so that sqlrl can evaluate and reward SQL written for an
// enterprise dialect with the same metrics as on SQLite.
//
// Safety is layered, and every layer is enforced by the server, not by
// reading the SQL text:
//
//  1. Each query runs alone in a READ ONLY transaction that is always rolled
//     back, with SET LOCAL statement_timeout and search_path; sessions also
//     start with default_transaction_read_only=on.
//  2. The statement is parsed and described (Parse/Describe of the extended
//     protocol) before it is executed. Only statements that return rows run:
//     DO, SET, COPY, LOCK, CREATE... describe as returning nothing and are
//     refused without executing. Parse also refuses more than one statement.
//  3. The engine refuses to log in as a superuser unless told otherwise, and
//     docs/postgres.md (PostgresReadOnlyRoleSQL) sets up a role that can only
//     read the copied schemas, execute only the built-in functions on an
//     allow-list (PostgresAllowedFunctions: none that writes WAL, takes
//     locks, changes settings or acts on other sessions), and run no
//     procedural code.
//
// Values are normalised so that comparing results means what it means on
// SQLite (see pgValue): what matters is that eval.BirdEX and
// eval.SpiderMatch give the same verdict on both engines.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresOptions configure a PostgreSQL engine.
type PostgresOptions struct {
	// DSN is a libpq connection string or postgres:// URL. It should log in
	// as a least-privilege role (PostgresReadOnlyRoleSQL).
	DSN string
	Limits
	// MaxConns bounds the connection pool; further queries wait for a
	// connection. Default: the larger of 4 and GOMAXPROCS.
	MaxConns int
	// AllowSuperuser lets the engine log in as a superuser. A superuser
	// defeats the role-based layer of the sandbox (it can read server files
	// and signal other sessions in a read-only transaction), so it is
	// refused unless a test or a throwaway server asks for it explicitly.
	AllowSuperuser bool
}

// Postgres is the PostgreSQL engine: a pgx connection pool whose every query
// is one read-only, rolled-back transaction. db names a schema.
type Postgres struct {
	opts    PostgresOptions
	pool    *pgxpool.Pool
	version string

	mu      sync.Mutex
	schemas map[string]bool // schemas known to exist and be usable
}

// pgCleanupTimeout bounds the ROLLBACK that ends each query. The caller's
// context may be over by then (that is often why the query ended).
const pgCleanupTimeout = 5 * time.Second

// NewPostgres connects to the server once, to report a bad DSN or a refused
// role now rather than on the first query, and returns the engine.
func NewPostgres(ctx context.Context, opts PostgresOptions) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres engine: parse DSN: %w", err)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = max(4, runtime.GOMAXPROCS(0))
	}
	cfg.MaxConns = int32(opts.MaxConns)
	rp := cfg.ConnConfig.RuntimeParams
	if rp["application_name"] == "" {
		rp["application_name"] = "sqlrl"
	}
	// Session settings that decide how values print (the engine reads text
	// results), plus a read-only default and a bound on an abandoned
	// transaction, in case anything ever bypasses the explicit transaction.
	for k, v := range map[string]string{
		"default_transaction_read_only":       "on",
		"DateStyle":                           "ISO, YMD",
		"IntervalStyle":                       "postgres",
		"TimeZone":                            "UTC",
		"extra_float_digits":                  "1",
		"bytea_output":                        "hex",
		"search_path":                         "pg_catalog",
		"idle_in_transaction_session_timeout": "60000",
	} {
		rp[k] = v
	}
	// On a cancelled context, ask the server to cancel the statement (the
	// connection stays usable) instead of pgx's default of breaking the
	// connection; give up on the connection if the server does not answer.
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 50 * time.Millisecond, DeadlineDelay: 3 * time.Second}
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if c.PgConn().ParameterStatus("is_superuser") == "on" && !opts.AllowSuperuser {
			return fmt.Errorf("role %q is a superuser: connect as a read-only role (docs/postgres.md, `sqlrl db copy --ro-role`)", c.Config().User)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres engine: %w", err)
	}
	c, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres engine: connect to %s:%d as %s: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.User, err)
	}
	version := c.Conn().PgConn().ParameterStatus("server_version")
	c.Release()
	return &Postgres{opts: opts, pool: pool, version: version, schemas: map[string]bool{}}, nil
}

// ServerVersion is the server's version string, e.g. "15.18 (Debian ...)".
func (e *Postgres) ServerVersion() string { return e.version }

// Close closes the pool; it waits for connections in use to be released.
func (e *Postgres) Close() error {
	e.pool.Close()
	return nil
}

// Query runs sql, which must hold exactly one statement that returns rows,
// in schema db. An input with no statement at all (empty, only comments and
// semicolons) returns an empty result, as the SQLite engine does.
func (e *Postgres) Query(ctx context.Context, db, sql string) (*Result, error) {
	if e.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx, "before it started")
	}
	if strings.IndexByte(db, 0) >= 0 || db == "" {
		return nil, &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("invalid schema name %q", db)}
	}
	start := time.Now()
	if pgEmpty(sql) {
		return &Result{Elapsed: time.Since(start)}, nil
	}
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx, "waiting for a connection")
		}
		return nil, &Error{Class: ClassNoDatabase, Msg: "connect: " + err.Error(), Err: err}
	}
	defer c.Release()
	pc := c.Conn().PgConn()
	var stopped bool // run stopped the statement (a cap): a cancel request may be on its way
	defer func() {
		// Always end the transaction; a connection left in any other state
		// is closed so that the pool discards it. So is one whose statement
		// was interrupted: the server applies a cancel request by a signal
		// some time after it arrives, which may then cancel whatever the
		// backend runs next (PostgreSQL's protocol docs, "Canceling Requests
		// in Progress"), another caller's query on a reused connection.
		// A statement the server's own statement_timeout ended while ctx
		// was still live sent no cancel request and keeps its connection.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pgCleanupTimeout)
		defer cancel()
		if pc.IsClosed() {
			return
		}
		if ctx.Err() != nil || stopped {
			pc.Close(cctx)
			return
		}
		if _, err := pc.Exec(cctx, "ROLLBACK").ReadAll(); err != nil || pc.TxStatus() != 'I' {
			pc.Close(cctx)
		}
	}()
	if err := e.begin(ctx, pc, db); err != nil {
		return nil, err
	}
	sd, err := pc.Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, e.queryError(ctx, err)
	}
	if len(sd.Fields) == 0 {
		return nil, &Error{Class: ClassNotReadOnly, Msg: "statement returns no rows: only queries are run (it was not executed)"}
	}
	res, err := e.run(ctx, pc, sd, start)
	stopped = ClassOf(err) == ClassTooLarge
	return res, err
}

// begin opens the query's transaction in one round trip: READ ONLY, the
// schema as search_path, a server-side statement_timeout matching the
// context's deadline, and, the first time a schema is used, a check that it
// exists and that the role may use it (otherwise every query would fail as
// "relation does not exist", which reads as the model's fault).
func (e *Postgres) begin(ctx context.Context, pc *pgconn.PgConn, db string) error {
	var b strings.Builder
	b.WriteString("BEGIN READ ONLY; SET LOCAL search_path TO ")
	b.WriteString(pgQuoteIdent(db))
	b.WriteString(", pg_catalog")
	if dl, ok := ctx.Deadline(); ok {
		ms := int64(math.Ceil(float64(time.Until(dl)) / float64(time.Millisecond)))
		fmt.Fprintf(&b, "; SET LOCAL statement_timeout = %d", max(ms, 1))
	} else {
		b.WriteString("; SET LOCAL statement_timeout = 0")
	}
	e.mu.Lock()
	known := e.schemas[db]
	e.mu.Unlock()
	if !known {
		fmt.Fprintf(&b, "; SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = %s", pgQuoteLiteral(db))
	}
	res, err := pc.Exec(ctx, b.String()).ReadAll()
	if err != nil {
		return e.queryError(ctx, err)
	}
	if known {
		return nil
	}
	rows := res[len(res)-1].Rows
	switch {
	case len(rows) == 0:
		return &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("database %q: no schema %s", db, pgQuoteIdent(db))}
	case string(rows[0][0]) != "t":
		return &Error{Class: ClassNoDatabase, Msg: fmt.Sprintf("database %q: permission denied for schema %s", db, pgQuoteIdent(db))}
	}
	e.mu.Lock()
	e.schemas[db] = true
	e.mu.Unlock()
	return nil
}

// run executes the described statement and reads its rows under the caps.
func (e *Postgres) run(ctx context.Context, pc *pgconn.PgConn, sd *pgconn.StatementDescription, start time.Time) (*Result, error) {
	qctx, stop := context.WithCancel(ctx)
	defer stop()
	dec := make([]func([]byte) Value, len(sd.Fields))
	res := &Result{Columns: make([]string, len(sd.Fields))}
	for i, f := range sd.Fields {
		res.Columns[i] = f.Name
		dec[i] = pgDecoder(f.DataTypeOID)
	}
	// Unbound parameters ($1) are NULL, as SQLite leaves them. Text
	// results for every column: one decoding path for every type, and the
	// text is what a PostgreSQL client shows.
	rr := pc.ExecPrepared(qctx, "", make([][]byte, len(sd.ParamOIDs)), nil, nil)
	var capErr error
	lim := e.opts.Limits
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]Value, len(vals))
		for i, raw := range vals {
			if raw == nil {
				continue
			}
			row[i] = dec[i](raw)
			switch row[i].Kind {
			case KindInt, KindFloat:
				res.Bytes += 8
			default:
				res.Bytes += len(row[i].S)
			}
		}
		res.Rows = append(res.Rows, row)
		res.Bytes += RowOverhead(len(row))
		if lim.MaxRows > 0 && len(res.Rows) > lim.MaxRows {
			capErr = &Error{Class: ClassTooLarge, Msg: fmt.Sprintf("result has more than %d rows", lim.MaxRows)}
		} else if lim.MaxBytes > 0 && res.Bytes > lim.MaxBytes {
			capErr = &Error{Class: ClassTooLarge, Msg: fmt.Sprintf("result has more than %d bytes", lim.MaxBytes)}
		}
		if capErr != nil {
			// Cancel the statement on the server rather than reading the
			// rest of a result nobody wants.
			stop()
			rr.Close()
			return nil, capErr
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, e.queryError(ctx, err)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// queryError classifies a failure. The context decides first: a statement
// cancelled because the caller's deadline passed is a timeout whatever the
// server said.
func (e *Postgres) queryError(ctx context.Context, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == "57014" { // query_canceled
			if ctx.Err() != nil {
				return ctxError(ctx, "and was cancelled by the server")
			}
			if strings.Contains(pe.Message, "statement timeout") {
				return &Error{Class: ClassTimeout, Msg: pe.Message, Err: err}
			}
			return &Error{Class: ClassCanceled, Msg: pe.Message, Err: err}
		}
		return &Error{Class: pgClass(pe), Msg: pe.Message, Err: err}
	}
	if ctx.Err() != nil {
		return ctxError(ctx, "and was interrupted")
	}
	var ne net.Error
	if errors.As(err, &ne) || pgconn.SafeToRetry(err) {
		return &Error{Class: ClassRuntime, Msg: "connection: " + err.Error(), Err: err}
	}
	return &Error{Class: ClassRuntime, Msg: err.Error(), Err: err}
}

// pgClass maps a server error onto the classes the SQLite engine uses, by
// SQLSTATE (PostgreSQL Appendix A), so that reports and rewards built on the
// classes read the same on both engines.
func pgClass(pe *pgconn.PgError) Class {
	switch pe.Code {
	case "42601": // syntax_error
		if strings.Contains(pe.Message, "multiple commands") {
			return ClassMultiple
		}
		return ClassSyntax
	case "42P02": // undefined_parameter: "$1" in model SQL
		return ClassSyntax
	case "42P01", "3F000": // undefined_table, invalid_schema_name
		return ClassUnknownTable
	case "42703": // undefined_column
		return ClassUnknownColumn
	case "42702", "42P09": // ambiguous_column, ambiguous_alias
		return ClassAmbiguous
	case "42883", "42725": // undefined_function, ambiguous_function
		// 42883 is also "operator does not exist: text = integer": a type
		// error that SQLite would not raise, not a misnamed function.
		if strings.HasPrefix(pe.Message, "operator does not exist") {
			return ClassRuntime
		}
		return ClassUnknownFunc
	case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
		// The SQLite engine files its authorizer's refusals ("not
		// authorized") here too: the statement was not allowed to run.
		return ClassNotReadOnly
	}
	return ClassRuntime
}

// PostgreSQL type OIDs the decoder treats specially (pg_type.dat).
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidOID         = 26
	oidFloat4      = 700
	oidFloat8      = 701
	oidNumeric     = 1700
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
)

// pgDecoder returns how a column of type oid becomes a Value, from its text
// form (the session's DateStyle, TimeZone and bytea_output are fixed by the
// engine). SQLite has only NULL, INTEGER, REAL, TEXT and BLOB; each
// PostgreSQL type maps onto the class SQLite would have produced for the same
// data:
//
//   - int2/int4/int8, oid: KindInt.
//   - bool: KindInt 0/1 (SQLite has no booleans; its comparisons return 0/1).
//   - float4/float8: KindFloat, parsed from the shortest decimal that
//     round-trips (extra_float_digits=1), so a float8 is exact.
//   - numeric: KindInt when the value is integral and fits int64, otherwise
//     KindFloat (the nearest double). SQLite has no decimal type: its NUMERIC
//     affinity stores integral values as INTEGER and others as REAL, and
//     PostgreSQL returns numeric where SQLite returns an integer (SUM of
//     bigint) or a REAL (AVG). NaN and ±Infinity become floats.
//   - date: KindText 'YYYY-MM-DD'; timestamp: KindText 'YYYY-MM-DD HH:MM:SS'
//     (with a fraction only when there is one), SQLite's date and datetime
//     text; timestamptz the same, in UTC; time 'HH:MM:SS'.
//   - bytea: KindBlob with the raw bytes.
//   - text, varchar, char, name and every other type: KindText with
//     PostgreSQL's text output (json, uuid, interval, arrays...).
func pgDecoder(oid uint32) func([]byte) Value {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidOID:
		return func(b []byte) Value {
			i, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				return Text(string(b))
			}
			return Int(i)
		}
	case oidBool:
		return func(b []byte) Value {
			if len(b) > 0 && b[0] == 't' {
				return Int(1)
			}
			return Int(0)
		}
	case oidFloat4, oidFloat8:
		return func(b []byte) Value { return Float(pgParseFloat(string(b))) }
	case oidNumeric:
		return pgNumeric
	case oidTimestampTZ:
		return func(b []byte) Value {
			s := string(b)
			// TimeZone is UTC, so the offset is always +00.
			s = strings.TrimSuffix(s, "+00")
			return Text(s)
		}
	case oidBytea:
		return func(b []byte) Value {
			s := string(b)
			if h, ok := strings.CutPrefix(s, `\x`); ok {
				out := make([]byte, len(h)/2)
				for i := range out {
					hi, lo := unhex(h[2*i]), unhex(h[2*i+1])
					out[i] = hi<<4 | lo
				}
				return Blob(out)
			}
			return Blob(b)
		}
	}
	return func(b []byte) Value { return Text(string(b)) }
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

func pgParseFloat(s string) float64 {
	switch s {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// pgNumeric decodes numeric text: integral values that fit int64 become
// KindInt (trailing zeros after the point do not count), the rest KindFloat.
func pgNumeric(b []byte) Value {
	s := string(b)
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if !hasPoint || strings.Trim(frac, "0") == "" {
		if i, err := strconv.ParseInt(intPart, 10, 64); err == nil {
			return Int(i)
		}
	}
	return Float(pgParseFloat(s))
}

// pgEmpty reports whether sql holds no statement: only whitespace, comments
// and semicolons. PostgreSQL would parse it as an empty query.
func pgEmpty(sql string) bool {
	for {
		sql = lstripSQL(sql)
		if sql == "" {
			return true
		}
		if sql[0] != ';' {
			return false
		}
		sql = sql[1:]
	}
}

// pgQuoteIdent quotes an identifier exactly as written (case kept).
func pgQuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgQuoteLiteral quotes a string literal for a server with
// standard_conforming_strings on (the default since 9.1).
func pgQuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// PostgresAllowedFunctions returns the names of the pg_catalog functions the
// read-only role may execute (every overload of each name), sorted. It is an
// allow-list, not a deny-list, because a function that acts outside the
// read-only, rolled-back transaction need not be known to be dangerous to be
// kept out: pg_logical_emit_message wrote 196 MB of WAL from a read-only
// transaction under the earlier deny-list (issue 14), and each server
// version adds functions. What is on it is what SQL for BIRD/Spider-style
// questions and the SQLite-to-PostgreSQL translation (package translate)
// use; nothing that takes locks, changes settings, sequences or large
// objects, assigns a transaction id, emits WAL or notifications, signals or
// inspects other sessions, reads server files, or sleeps.
// TestPostgresFunctionAllowList checks that the server's set of functions
// executable by the role is exactly this list, so a new server version's
// functions are classified by a person before any runs.
func PostgresAllowedFunctions() []string {
	var out []string
	for _, line := range strings.Split(postgresAllowedFunctions, "\n") {
		if line, _, _ = strings.Cut(line, "#"); line != "" {
			out = append(out, strings.Fields(line)...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// postgresAllowedFunctions: names separated by spaces and newlines; "#"
// starts a comment that runs to the end of its line.
const postgresAllowedFunctions = `
	# Operators' functions on the types the copies and the translation use (integers, floats,
	# numeric, text, varchar, char(n), name, bool, bytea, date, time, timestamp[tz], interval,
	# oid): comparison, arithmetic, concatenation, LIKE/ILIKE and regular expressions. PostgreSQL
	# checks EXECUTE on an operator's function when the operator runs.
	anytextcat booleq boolge boolgt boolle boollt boolne bpchar_pattern_ge bpchar_pattern_gt
	bpchar_pattern_le bpchar_pattern_lt bpchareq bpcharge bpchargt bpchariclike bpcharicnlike
	bpcharicregexeq bpcharicregexne bpcharle bpcharlike bpcharlt bpcharne bpcharnlike
	bpcharregexeq bpcharregexne byteacat byteaeq byteage byteagt byteale bytealike bytealt
	byteane byteanlike date_eq date_eq_timestamp date_eq_timestamptz date_ge date_ge_timestamp
	date_ge_timestamptz date_gt date_gt_timestamp date_gt_timestamptz date_le date_le_timestamp
	date_le_timestamptz date_lt date_lt_timestamp date_lt_timestamptz date_mi date_mi_interval
	date_mii date_ne date_ne_timestamp date_ne_timestamptz date_pl_interval date_pli datetime_pl
	datetimetz_pl dcbrt dpow dsqrt float48div float48eq float48ge float48gt float48le float48lt
	float48mi float48mul float48ne float48pl float4abs float4div float4eq float4ge float4gt
	float4le float4lt float4mi float4mul float4ne float4pl float4um float4up float84div
	float84eq float84ge float84gt float84le float84lt float84mi float84mul float84ne float84pl
	float8abs float8div float8eq float8ge float8gt float8le float8lt float8mi float8mul float8ne
	float8pl float8um float8up int24div int24eq int24ge int24gt int24le int24lt int24mi int24mul
	int24ne int24pl int28div int28eq int28ge int28gt int28le int28lt int28mi int28mul int28ne
	int28pl int2abs int2and int2div int2eq int2ge int2gt int2le int2lt int2mi int2mod int2mul
	int2ne int2not int2or int2pl int2shl int2shr int2um int2up int2xor int42div int42eq int42ge
	int42gt int42le int42lt int42mi int42mul int42ne int42pl int48div int48eq int48ge int48gt
	int48le int48lt int48mi int48mul int48ne int48pl int4abs int4and int4div int4eq int4ge
	int4gt int4le int4lt int4mi int4mod int4mul int4ne int4not int4or int4pl int4shl int4shr
	int4um int4up int4xor int82div int82eq int82ge int82gt int82le int82lt int82mi int82mul
	int82ne int82pl int84div int84eq int84ge int84gt int84le int84lt int84mi int84mul int84ne
	int84pl int8abs int8and int8div int8eq int8ge int8gt int8le int8lt int8mi int8mod int8mul
	int8ne int8not int8or int8pl int8shl int8shr int8um int8up int8xor integer_pl_date
	interval_div interval_eq interval_ge interval_gt interval_le interval_lt interval_mi
	interval_mul interval_ne interval_pl interval_pl_date interval_pl_time interval_pl_timestamp
	interval_pl_timestamptz interval_pl_timetz interval_um mul_d_interval nameeq nameeqtext
	namege namegetext namegt namegttext nameiclike nameicnlike nameicregexeq nameicregexne
	namele nameletext namelike namelt namelttext namene namenetext namenlike nameregexeq
	nameregexne numeric_abs numeric_add numeric_div numeric_eq numeric_ge numeric_gt numeric_le
	numeric_lt numeric_mod numeric_mul numeric_ne numeric_power numeric_sub numeric_uminus
	numeric_uplus oideq oidge oidgt oidle oidlt oidne starts_with text_ge text_gt text_le
	text_lt text_pattern_ge text_pattern_gt text_pattern_le text_pattern_lt textanycat textcat
	texteq texteqname textgename textgtname texticlike texticnlike texticregexeq texticregexne
	textlename textlike textltname textne textnename textnlike textregexeq textregexne time_eq
	time_ge time_gt time_le time_lt time_mi_interval time_mi_time time_ne time_pl_interval
	timedate_pl timestamp_eq timestamp_eq_date timestamp_eq_timestamptz timestamp_ge
	timestamp_ge_date timestamp_ge_timestamptz timestamp_gt timestamp_gt_date
	timestamp_gt_timestamptz timestamp_le timestamp_le_date timestamp_le_timestamptz
	timestamp_lt timestamp_lt_date timestamp_lt_timestamptz timestamp_mi timestamp_mi_interval
	timestamp_ne timestamp_ne_date timestamp_ne_timestamptz timestamp_pl_interval timestamptz_eq
	timestamptz_eq_date timestamptz_eq_timestamp timestamptz_ge timestamptz_ge_date
	timestamptz_ge_timestamp timestamptz_gt timestamptz_gt_date timestamptz_gt_timestamp
	timestamptz_le timestamptz_le_date timestamptz_le_timestamp timestamptz_lt
	timestamptz_lt_date timestamptz_lt_timestamp timestamptz_mi timestamptz_mi_interval
	timestamptz_ne timestamptz_ne_date timestamptz_ne_timestamp timestamptz_pl_interval
	timetz_eq timetz_ge timetz_gt timetz_le timetz_lt timetz_mi_interval timetz_ne
	timetz_pl_interval timetzdate_pl ts_match_tt
	# Casts among those types (the functions named after their target type).
	bool bpchar date float4 float8 int2 int4 int8 interval name numeric oid text time timestamp
	timestamptz timetz varchar
	# Aggregates and window functions (also checked when called).
	array_agg avg bit_and bit_or bit_xor bool_and bool_or corr count covar_pop covar_samp
	cume_dist dense_rank every first_value lag last_value lead max min mode nth_value ntile
	percent_rank percentile_cont percentile_disc rank regr_avgx regr_avgy regr_count
	regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy row_number stddev stddev_pop
	stddev_samp string_agg sum var_pop var_samp variance
	# Strings.
	array_to_string ascii bit_length btrim char_length character_length chr concat concat_ws
	format initcap left length like like_escape lower lpad ltrim md5 notlike octet_length
	overlay position quote_ident quote_literal quote_nullable regexp_count regexp_instr
	regexp_like regexp_match regexp_matches regexp_replace regexp_split_to_array
	regexp_split_to_table regexp_substr repeat replace reverse right rpad rtrim split_part
	starts_with string_to_array strpos substr substring to_hex translate upper
	# Numbers.
	abs acos asin atan atan2 cbrt ceil ceiling cos cot degrees div exp factorial floor gcd lcm
	ln log log10 min_scale mod num_nonnulls num_nulls pi pow power radians random round scale
	sign sin sqrt tan trim_scale trunc width_bucket
	# Dates and times (the translation's TO_CHAR, EXTRACT, AT TIME ZONE; SQLite-style date
	# arithmetic models write).
	age clock_timestamp date_bin date_part date_trunc extract isfinite justify_days
	justify_hours justify_interval make_date make_interval make_time make_timestamp
	make_timestamptz now overlaps statement_timestamp timezone to_char to_date to_number
	to_timestamp transaction_timestamp
	# Sets and arrays a query may build.
	array_append array_cat array_length array_lower array_position array_positions array_prepend
	array_remove array_replace array_upper cardinality generate_series unnest
	# What the engine, the catalog reading of package translate and information_schema's views
	# call (views run functions with the caller's privileges).
	current_database current_schema current_setting has_schema_privilege has_table_privilege
	has_column_privilege has_any_column_privilege pg_has_role pg_is_other_temp_schema format_type
	# The "char" type of the catalogs (relkind = 'r' in information_schema's views).
	chareq charne charlt charle chargt charge
`

// PostgresReadOnlyRoleSQL returns the statements that make role a
// least-privilege login for the PostgreSQL engine in database, able to read
// the given schemas and nothing else. Run them as a superuser connected to
// database; they are idempotent (run them again after copying new schemas:
// dbcopy does with --ro-role). What they do, and why:
//
//   - create the role if missing; in any case LOGIN, NOSUPERUSER, NOCREATEDB,
//     NOCREATEROLE, NOREPLICATION, NOBYPASSRLS, NOINHERIT, and with session
//     defaults default_transaction_read_only=on, statement_timeout=60s,
//     idle_in_transaction_session_timeout=60s, temp_file_limit=1GB, so the
//     role is read-only and bounded from any client, not only sqlrl;
//   - database: only CONNECT for the role, nothing for PUBLIC (no TEMP); no
//     access to schema public, where extensions such as dblink install;
//   - functions by allow-list (PostgresAllowedFunctions): EXECUTE on every
//     routine of pg_catalog is revoked from PUBLIC (and from the role), then
//     granted to the role for the allowed names only. EXECUTE is granted to
//     PUBLIC by default and a privilege held through PUBLIC cannot be
//     revoked from one role, so the revocation is from PUBLIC; pg_catalog's
//     ACLs live in each database's own pg_proc, so it holds in this database
//     only, but there it holds for every role that is not a superuser and
//     was not granted the list: dedicate the database to evaluation. USAGE
//     on plpgsql is revoked from PUBLIC too, so DO blocks cannot run;
//   - grant USAGE and SELECT on each schema's tables, nothing else.
//
// role must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*), so that it can
// be spliced into the statements without any quoting doubt.
func PostgresReadOnlyRoleSQL(role, database string, schemas []string) ([]string, error) {
	if !plainIdent(role) {
		return nil, fmt.Errorf("read-only role %q: want a plain name ([A-Za-z_][A-Za-z0-9_]*)", role)
	}
	r := pgQuoteIdent(role)
	db := pgQuoteIdent(database)
	allowed := PostgresAllowedFunctions()
	for i, n := range allowed {
		allowed[i] = pgQuoteLiteral(n)
	}
	stmts := []string{
		fmt.Sprintf(`DO $sqlrl$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = %s) THEN
    CREATE ROLE %s LOGIN;
  END IF;
END $sqlrl$`, pgQuoteLiteral(role), r),
		fmt.Sprintf("ALTER ROLE %s LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT", r),
		fmt.Sprintf("ALTER ROLE %s SET default_transaction_read_only = on", r),
		fmt.Sprintf("ALTER ROLE %s SET statement_timeout = '60s'", r),
		fmt.Sprintf("ALTER ROLE %s SET idle_in_transaction_session_timeout = '60s'", r),
		fmt.Sprintf("ALTER ROLE %s SET temp_file_limit = '1GB'", r),
		fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM PUBLIC", db),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", db, r),
		"REVOKE ALL ON SCHEMA public FROM PUBLIC",
		"REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC",
		"REVOKE EXECUTE ON ALL ROUTINES IN SCHEMA pg_catalog FROM PUBLIC",
		fmt.Sprintf("REVOKE EXECUTE ON ALL ROUTINES IN SCHEMA pg_catalog FROM %s", r),
		// One GRANT for all the overloads of the allowed names.
		fmt.Sprintf(`DO $sqlrl$ BEGIN
  EXECUTE (SELECT 'GRANT EXECUTE ON ROUTINE ' || string_agg(p.oid::pg_catalog.regprocedure::text, ', ') || ' TO %s'
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND p.proname = ANY (ARRAY[%s]::pg_catalog.name[]));
END $sqlrl$`, r, strings.Join(allowed, ", ")),
	}
	for _, s := range schemas {
		q := pgQuoteIdent(s)
		stmts = append(stmts,
			fmt.Sprintf("REVOKE CREATE ON SCHEMA %s FROM PUBLIC", q),
			fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s", q, r),
			fmt.Sprintf("GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s", q, r))
	}
	return stmts, nil
}

func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}
