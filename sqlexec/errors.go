package sqlexec

import (
	"context"
	"errors"
	"strings"
)

// Class says why a query failed, in terms a report or a reward can act on.
// The values are stable: they appear in JSON output.
type Class string

// Failure classes.
const (
	ClassSyntax        Class = "syntax_error"
	ClassUnknownTable  Class = "unknown_table"
	ClassUnknownColumn Class = "unknown_column"
	ClassAmbiguous     Class = "ambiguous_column"
	ClassUnknownFunc   Class = "unknown_function"
	ClassNotReadOnly   Class = "write_attempt"
	ClassMultiple      Class = "multiple_statements"
	ClassTimeout       Class = "timeout"
	ClassCanceled      Class = "canceled"
	ClassTooLarge      Class = "result_too_large"
	ClassNoDatabase    Class = "no_database"
	ClassRuntime       Class = "runtime_error"
)

// Error is a failed query. Msg is the database's own message, kept verbatim
// because models are trained on it (the fixer agent reads it).
type Error struct {
	Class Class
	Msg   string
	Err   error
}

func (e *Error) Error() string { return string(e.Class) + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err, or "" for nil.
func ClassOf(err error) Class {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	}
	return ClassRuntime
}

// classify maps a SQLite error message onto a class.
func classify(msg string) Class {
	switch {
	case strings.Contains(msg, "syntax error"), strings.Contains(msg, "incomplete input"),
		strings.Contains(msg, "unrecognized token"):
		return ClassSyntax
	case strings.HasPrefix(msg, "no such table"):
		return ClassUnknownTable
	case strings.HasPrefix(msg, "no such column"):
		return ClassUnknownColumn
	case strings.HasPrefix(msg, "ambiguous column name"):
		return ClassAmbiguous
	case strings.HasPrefix(msg, "no such function"):
		return ClassUnknownFunc
	case strings.Contains(msg, "string or blob too big"), strings.Contains(msg, "out of memory"),
		strings.Contains(msg, "statement too long"), strings.Contains(msg, "pattern too complex"):
		// A value, the statement or a LIKE/GLOB pattern passed one of the
		// bounds the engine sets inside SQLite (Limits.MaxValueBytes and
		// friends), or SQLite's heap ran out: the query asked for more
		// than a query may have, which is what a result cap reports too.
		return ClassTooLarge
	case strings.Contains(msg, "readonly"), strings.Contains(msg, "read-only"),
		strings.Contains(msg, "not authorized"), strings.Contains(msg, "too many attached databases"):
		return ClassNotReadOnly
	}
	return ClassRuntime
}
