// Package sqlexec runs SQL written by models against real databases, safely.
//
// Every part of sqlrl that executes SQL (evaluation, rewards, agents, the
// production server) goes through an Engine, so read-only enforcement,
// timeouts and result caps are decided here once. Read-only is enforced by
// the database, never by inspecting the SQL text: SQLite connections are
// opened with SQLITE_OPEN_READONLY, PRAGMA query_only, defensive mode and
// ATTACH disabled, and every statement must be one SQLite itself classifies as
// read-only (sqlite3_stmt_readonly).
//
// Values keep SQLite's storage classes (NULL, INTEGER, REAL, TEXT, BLOB)
// exactly as Python's sqlite3 module reports them, because the official BIRD
// and Spider evaluators compare Python objects and sqlrl must agree with them
// on every question. Declared column types never change a value (unlike
// database/sql drivers that turn DATE columns into time.Time).
package sqlexec

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// Kind is a value's storage class.
type Kind uint8

// Storage classes, in SQLite's order.
const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindText
	KindBlob
)

func (k Kind) String() string {
	return [...]string{"null", "int", "float", "text", "blob"}[k]
}

// Value is one cell of a result. Only the field selected by Kind is set; text
// and blob payloads both live in S (a blob's bytes, verbatim).
type Value struct {
	Kind Kind
	I    int64
	F    float64
	S    string
}

// Convenience constructors, mostly for tests and engines.
func Null() Value           { return Value{} }
func Int(i int64) Value     { return Value{Kind: KindInt, I: i} }
func Float(f float64) Value { return Value{Kind: KindFloat, F: f} }
func Text(s string) Value   { return Value{Kind: KindText, S: s} }
func Blob(b []byte) Value   { return Value{Kind: KindBlob, S: string(b)} }

// Display writes the value as a person or a model reads it in a result:
// NULL, integers in decimal, floats with up to 10 significant digits, a
// blob in SQL's x'..' notation, text as it is. One writer, so that the
// judge and the agents show a result alike.
func (v Value) Display() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindInt:
		return strconv.FormatInt(v.I, 10)
	case KindFloat:
		return strconv.FormatFloat(v.F, 'g', 10, 64)
	case KindBlob:
		return fmt.Sprintf("x'%x'", v.S)
	}
	return v.S
}

// Any returns the value as a Go value: nil, int64, float64, string or []byte.
func (v Value) Any() any {
	switch v.Kind {
	case KindInt:
		return v.I
	case KindFloat:
		return v.F
	case KindText:
		return v.S
	case KindBlob:
		return []byte(v.S)
	}
	return nil
}

// Equal reports whether two values are equal under Python's == on the
// objects sqlite3 returns: int 1 equals float 1.0 (compared exactly, so 2^53+1
// does not equal 2^53 as a float), text never equals a number or a blob, and
// NULL equals NULL (None == None).
func (v Value) Equal(w Value) bool {
	if v.Kind == w.Kind {
		switch v.Kind {
		case KindNull:
			return true
		case KindInt:
			return v.I == w.I
		case KindFloat:
			return v.F == w.F
		default:
			return v.S == w.S
		}
	}
	switch {
	case v.Kind == KindInt && w.Kind == KindFloat:
		return intEqualsFloat(v.I, w.F)
	case v.Kind == KindFloat && w.Kind == KindInt:
		return intEqualsFloat(w.I, v.F)
	}
	return false
}

func intEqualsFloat(i int64, f float64) bool {
	if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return false
	}
	return int64(f) == i
}

// AppendKey appends a canonical encoding of v such that two values have the
// same key exactly when Equal holds. Sets and bags of rows are built on it.
func (v Value) AppendKey(b []byte) []byte {
	switch v.Kind {
	case KindNull:
		return append(b, 'N')
	case KindInt:
		return strconv.AppendInt(append(b, 'i'), v.I, 10)
	case KindFloat:
		f := v.F
		if f == math.Trunc(f) && f >= -9.223372036854775808e18 && f < 9.223372036854775808e18 {
			return strconv.AppendInt(append(b, 'i'), int64(f), 10)
		}
		if math.IsNaN(f) {
			// NaN never equals itself in Python; SQLite stores NaN as NULL,
			// so this is unreachable from a database. Keep keys distinct.
			return append(b, 'n', 'a', 'n')
		}
		// Fixed width keeps keys self-delimiting when concatenated.
		bits := math.Float64bits(f)
		b = append(b, 'f')
		for shift := 60; shift >= 0; shift -= 4 {
			b = append(b, "0123456789abcdef"[bits>>uint(shift)&0xf])
		}
		return b
	case KindText:
		b = append(b, 't')
	default:
		b = append(b, 'b')
	}
	b = strconv.AppendInt(b, int64(len(v.S)), 10)
	b = append(b, ':')
	return append(b, v.S...)
}

// Result is what a query returned.
type Result struct {
	Columns []string
	Rows    [][]Value
	// Bytes is the memory Rows hold: the payload (8 per number, the length
	// of a text or blob) plus RowOverhead for each row, the Value headers
	// and the row's slice. Counting the headers makes Limits.MaxBytes a
	// bound on memory: ten million small integers are 80 MB of payload
	// but about 400 MB of Values.
	Bytes int
	// Elapsed is the wall time from prepare to the last row.
	Elapsed time.Duration
	// Stopped reports that a row callback ended the query early, so Rows
	// and Bytes describe only what was read.
	Stopped bool
}

// RowOverhead is what a row of ncol values costs in memory beyond its
// payload (Result.Bytes).
func RowOverhead(ncol int) int {
	return int(unsafe.Sizeof([]Value(nil))) + ncol*int(unsafe.Sizeof(Value{}))
}
