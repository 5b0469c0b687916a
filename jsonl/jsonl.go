// Package jsonl reads line-oriented files, JSON Lines foremost: one record a
// line, blank lines skipped, and errors that name the file and the line.
// Every reader of such files in sqlrl goes through it, so they share a line
// limit (MaxLine, or a reader's own, lower one), one check that the text is
// UTF-8, and one way of saying what went wrong where.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// MaxLine is the longest line a reader accepts, in bytes. It is large
// because a prediction line may carry many candidate queries, and a line
// costs memory only as long as it is; a longer line is refused, not cut.
const MaxLine = 256 << 20

// LimitsDoc is where the line limits of sqlrl's readers are written down,
// named by the error that refuses a longer line.
const LimitsDoc = "README.md, Files: input limits"

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
	return fmt.Sprintf("%v: %d bytes, the limit is %d (%s)", ErrLineTooLong, e.Len, e.Limit, LimitsDoc)
}

func (e *TooLongError) Unwrap() error { return ErrLineTooLong }

// ErrInvalidUTF8 is wrapped by the error for text that is not UTF-8.
// encoding/json (and every string conversion after it) would replace each
// bad byte with U+FFFD without a word, so a damaged prediction, question or
// gold query would be scored as some other text.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// UTF8Error says where in a line the first byte that is not UTF-8 is.
type UTF8Error struct {
	Byte int // 1-based offset in the line
}

func (e *UTF8Error) Error() string {
	return fmt.Sprintf("%v at byte %d of the line", ErrInvalidUTF8, e.Byte)
}

func (e *UTF8Error) Unwrap() error { return ErrInvalidUTF8 }

// firstInvalid returns the offset of the first byte of b that is not
// UTF-8; b is known not to be valid.
func firstInvalid(b []byte) int {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	return i
}

// checkUTF8 returns a *UTF8Error for the first invalid byte of b, or nil.
func checkUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	return &UTF8Error{Byte: firstInvalid(b) + 1}
}

// CheckUTF8 is the UTF-8 check of ReadFile for a file read whole (a JSON
// document): nil when data is UTF-8, else a *LineError naming path and the
// line of the first invalid byte.
func CheckUTF8(path string, data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	off := firstInvalid(data)
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return &LineError{path, 1 + bytes.Count(data[:off], []byte{'\n'}), &UTF8Error{Byte: off - start + 1}}
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
			if uerr := checkUTF8(buf); uerr != nil {
				return &LineError{path, n, uerr}
			}
			if ferr := fn(n, b); ferr != nil {
				return &LineError{path, n, ferr}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ReadFile calls fn with each line of the file at path that is not blank,
// its surrounding white space trimmed, and its 1-based number. An error of
// fn, a line over MaxLine or a line that is not UTF-8 stops the reading and
// comes back as a *LineError naming path and the line.
func ReadFile(path string, fn func(line int, b []byte) error) error {
	return ReadFileLimit(path, MaxLine, fn)
}

// ReadFileLimit is ReadFile with a line limit of its own, for a kind of
// file whose lines are bounded far below MaxLine; limit <= 0 is MaxLine.
func ReadFileLimit(path string, limit int, fn func(line int, b []byte) error) error {
	if limit <= 0 || limit > MaxLine {
		limit = MaxLine
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return lines(f, path, limit, fn)
}
