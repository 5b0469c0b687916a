package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	errWrite := errors.New("disk on fire")
	tests := []struct {
		name    string
		old     string // "" = no file before
		write   func(io.Writer) error
		want    string // the file after
		wantErr error
	}{
		{name: "new file", write: text("hello\n"), want: "hello\n"},
		{name: "replaces", old: "old", write: text("new"), want: "new"},
		{name: "empty", old: "old", write: text(""), want: ""},
		{name: "failed write keeps the old file", old: "old", write: func(w io.Writer) error {
			io.WriteString(w, "half")
			return errWrite
		}, want: "old", wantErr: errWrite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(got) != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			if err == nil {
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != Perm {
					t.Errorf("mode = %v, want %v", st.Mode().Perm(), Perm)
				}
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 1 {
				t.Errorf("directory holds %d entries, want only f.json (no temporary left)", len(ents))
			}
		})
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "f")
	if err := WriteFile(path, []byte("x")); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}
