package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	errBad := errors.New("bad record")
	tests := []struct {
		name    string
		in      string
		limit   int
		failOn  int      // line whose fn call fails; 0: none
		want    []string // "n:text" of each line fn saw
		wantErr string
		wantIs  error
	}{
		{name: "empty", in: "", limit: 100},
		{name: "lines", in: "{\"a\":1}\n{\"a\":2}\n", limit: 100, want: []string{`1:{"a":1}`, `2:{"a":2}`}},
		{name: "no final newline", in: "a\nb", limit: 100, want: []string{"1:a", "2:b"}},
		{name: "blank lines skipped, numbers kept", in: "\n  \na\r\n\t\nb\n\n", limit: 100, want: []string{"3:a", "5:b"}},
		{name: "fn error names file and line", in: "a\nb\nc\n", limit: 100, failOn: 2, want: []string{"1:a", "2:b"},
			wantErr: "f.jsonl: line 2: bad record", wantIs: errBad},
		{name: "line at the limit", in: "abcd\n", limit: 4, want: []string{"1:abcd"}},
		{name: "line over the limit", in: "ok\n" + strings.Repeat("x", 10) + "\nnext\n", limit: 4, want: []string{"1:ok"},
			wantErr: "f.jsonl: line 2: line too long: 10 bytes, the limit is 4 (" + LimitsDoc + ")", wantIs: ErrLineTooLong},
		{name: "long line over the reader's buffer", in: strings.Repeat("y", 200<<10), limit: 100 << 10,
			wantErr: fmt.Sprintf("f.jsonl: line 1: line too long: %d bytes, the limit is %d (%s)", 200<<10, 100<<10, LimitsDoc), wantIs: ErrLineTooLong},
		{name: "multibyte", in: "héllo\n日本\n", limit: 100, want: []string{"1:héllo", "2:日本"}},
		{name: "invalid UTF-8", in: "ok\n{\"sql\": \"SELECT '\xff'\"}\n", limit: 100, want: []string{"1:ok"},
			wantErr: "f.jsonl: line 2: invalid UTF-8 at byte 18 of the line", wantIs: ErrInvalidUTF8},
		{name: "truncated multibyte", in: "\xe6\x97\n", limit: 100,
			wantErr: "f.jsonl: line 1: invalid UTF-8 at byte 1 of the line", wantIs: ErrInvalidUTF8},
		{name: "UTF-8 checked before trimming", in: "  \xc0\n", limit: 100,
			wantErr: "f.jsonl: line 1: invalid UTF-8 at byte 3 of the line", wantIs: ErrInvalidUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := lines(strings.NewReader(tc.in), "f.jsonl", tc.limit, func(n int, b []byte) error {
				got = append(got, fmt.Sprintf("%d:%s", n, b))
				if n == tc.failOn {
					return errBad
				}
				return nil
			})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if tc.wantIs != nil {
				var le *LineError
				if !errors.Is(err, tc.wantIs) || !errors.As(err, &le) {
					t.Errorf("err %v: want a *LineError wrapping %v", err, tc.wantIs)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ReadFile(path, func(int, []byte) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("ReadFile: %d lines, %v; want 2, nil", n, err)
	}
	if err := ReadFile(filepath.Join(t.TempDir(), "missing"), func(int, []byte) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckUTF8(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", ""},
		{"valid", "[\n{\"q\": \"日本\"}\n]\n", ""},
		{"bad on line 3", "[\n{\"q\": 1},\n{\"q\": \"a\xfe\"}\n]", "d.json: line 3: invalid UTF-8 at byte 9 of the line"},
		{"surrogate bytes", "\xed\xa0\x80", "d.json: line 1: invalid UTF-8 at byte 1 of the line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckUTF8("d.json", []byte(tc.in))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || !errors.Is(err, ErrInvalidUTF8)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(int, []byte) error { return nil }
	if err := ReadFileLimit(path, 5, none); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := ReadFileLimit(path, 4, none); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("over the limit: %v, want ErrLineTooLong", err)
	}
	if err := ReadFileLimit(path, 0, none); err != nil {
		t.Errorf("limit 0 (MaxLine): %v", err)
	}
}
