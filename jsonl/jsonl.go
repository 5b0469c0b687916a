// Package jsonl reads line-oriented files, JSON Lines foremost: one record a
// line, blank lines skipped, and errors that name the file and the line.
// Every reader of such files in sqlrl goes through it, so they share one
// line limit (MaxLine) and one way of saying what went wrong where.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine is the longest line a reader accepts, in bytes. It is large
// because a prediction line may carry many candidate queries, and a line
// costs memory only as long as it is; a longer line is refused, not cut.
const MaxLine = 256 << 20

// LineError is an error met on one line of a file.
type LineError struct {
	Path string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s: line %d: %v", e.Path, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ErrLineTooLong is wrapped by the error for a line over the limit.
var ErrLineTooLong = errors.New("line too long")

// TooLongError says how long a refused line was and what the limit is.
type TooLongError struct {
	Len, Limit int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("%v: %d bytes, the limit is %d", ErrLineTooLong, e.Len, e.Limit)
}

func (e *TooLongError) Unwrap() error { return ErrLineTooLong }

// Lines calls fn with each line of r that is not blank, its surrounding
// white space trimmed, and its 1-based number. path names r in errors. An
// error of fn, or a line over MaxLine, stops the reading and comes back as
// a *LineError.
func Lines(r io.Reader, path string, fn func(line int, b []byte) error) error {
	return lines(r, path, MaxLine, fn)
}

func lines(r io.Reader, path string, limit int, fn func(line int, b []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		long := 0 // bytes of a line over the limit, still counted
		var err error
		for {
			var part []byte
			var more bool
			part, more, err = br.ReadLine()
			if long > 0 || len(buf)+len(part) > limit {
				long += len(buf) + len(part)
				buf = buf[:0]
			} else {
				buf = append(buf, part...)
			}
			if !more || err != nil {
				break
			}
		}
		if err == io.EOF && len(buf) == 0 && long == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		if long > 0 {
			return &LineError{path, n, &TooLongError{Len: long, Limit: limit}}
		}
		if b := bytes.TrimSpace(buf); len(b) > 0 {
			if ferr := fn(n, b); ferr != nil {
				return &LineError{path, n, ferr}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ReadFile is Lines over the file at path.
func ReadFile(path string, fn func(line int, b []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Lines(f, path, fn)
}
