package sqlexec

import (
	"errors"
	"fmt"
	"os"
)

// Writer builds a SQLite database: sqlrl's benchmark generator and database
// copies use it. It never runs model output; that goes through an Engine.
type Writer struct {
	c *conn
}

// CreateSQLite creates a new database file at path. It refuses to touch an
// existing file so that a generator can never clobber a benchmark.
func CreateSQLite(path string) (*Writer, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("create %s: file exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	c, err := openConn(path, false, true)
	if err != nil {
		return nil, err
	}
	return &Writer{c: c}, nil
}

// Exec runs a script of one or more statements, or, with args, one statement
// with its parameters bound.
func (w *Writer) Exec(sql string, args ...any) error {
	if len(args) == 0 {
		if err := w.c.exec(sql); err != nil {
			return fmt.Errorf("exec on %s: %w", w.c.path, err)
		}
		return nil
	}
	s, err := w.Prepare(sql)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Exec(args...)
}

// WriterStmt is a prepared statement run many times, e.g. an INSERT per row.
type WriterStmt struct {
	s   *stmt
	sql string
}

// Prepare compiles a single statement.
func (w *Writer) Prepare(sql string) (*WriterStmt, error) {
	s, _, err := w.c.prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", sql, err)
	}
	if s == nil {
		return nil, fmt.Errorf("prepare %q: no statement", sql)
	}
	return &WriterStmt{s: s, sql: sql}, nil
}

// Exec binds args and runs the statement to completion.
func (ws *WriterStmt) Exec(args ...any) error {
	defer ws.s.clearBindings()
	if err := ws.s.bind(args...); err != nil {
		return fmt.Errorf("%s: %w", ws.sql, err)
	}
	for {
		more, err := ws.s.step()
		if err != nil {
			ws.s.reset()
			return fmt.Errorf("%s: %w", ws.sql, err)
		}
		if !more {
			break
		}
	}
	return ws.s.reset()
}

// Close releases the statement.
func (ws *WriterStmt) Close() { ws.s.close() }

// Close closes the database.
func (w *Writer) Close() error { return w.c.close() }

// OpenSQLite opens the database file at path read-write, creating it when it
// is missing. It is for sqlrl's own state (the feedback store), whose file
// outlives one run, unlike CreateSQLite's build-once databases. Like every
// Writer it must never run model output: a corrected SQL or a generated
// query goes through an Engine, which is read-only by construction.
func OpenSQLite(path string) (*Writer, error) {
	c, err := openConn(path, false, true)
	if err != nil {
		return nil, err
	}
	return &Writer{c: c}, nil
}

// Query runs one statement with args bound and returns its column names and
// every row: sqlrl's own small lookups (a store's history page, an INSERT
// ... RETURNING id). Values keep SQLite's storage classes.
func (w *Writer) Query(sql string, args ...any) ([]string, [][]Value, error) {
	s, err := w.Prepare(sql)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	return s.Query(args...)
}

// Query binds args, runs the statement to completion and returns its column
// names and rows.
func (ws *WriterStmt) Query(args ...any) ([]string, [][]Value, error) {
	defer ws.s.clearBindings()
	if err := ws.s.bind(args...); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ws.sql, err)
	}
	cols := ws.s.columns()
	var rows [][]Value
	for {
		more, err := ws.s.step()
		if err != nil {
			ws.s.reset()
			return nil, nil, fmt.Errorf("%s: %w", ws.sql, err)
		}
		if !more {
			break
		}
		row, _ := ws.s.row(make([]Value, 0, len(cols)))
		rows = append(rows, row)
	}
	return cols, rows, ws.s.reset()
}
