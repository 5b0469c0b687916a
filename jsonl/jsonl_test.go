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
			wantErr: "f.jsonl: line 2: line too long: 10 bytes, the limit is 4", wantIs: ErrLineTooLong},
		{name: "long line over the reader's buffer", in: strings.Repeat("y", 200<<10), limit: 100 << 10,
			wantErr: fmt.Sprintf("f.jsonl: line 1: line too long: %d bytes, the limit is %d", 200<<10, 100<<10), wantIs: ErrLineTooLong},
		{name: "multibyte", in: "héllo\n日本\n", limit: 100, want: []string{"1:héllo", "2:日本"}},
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
