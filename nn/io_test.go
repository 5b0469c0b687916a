package nn

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestReadFloatsDamage checks that a tensor file reads back only whole:
// bytes appended after its checksum, a cut, a wrong count or a header that
// asks for more values than can exist are refused (issue 39: a model.bin
// with bytes appended loaded).
func TestReadFloatsDamage(t *testing.T) {
	v := []float32{1, -2.5, 3e-7, 0}
	var good bytes.Buffer
	if err := WriteFloats(&good, v); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes()
	huge := append([]byte(nil), g...)
	binary.LittleEndian.PutUint64(huge[8:], 1<<62)
	tests := []struct {
		name    string
		data    []byte
		want    int
		wantErr string
	}{
		{"whole", g, len(v), ""},
		{"any count", g, -1, ""},
		{"one byte appended", append(append([]byte(nil), g...), 0), len(v), "1 bytes after the tensor data's checksum"},
		{"a file appended", append(append([]byte(nil), g...), g...), len(v), "or more bytes after the tensor data's checksum"},
		{"cut", g[:len(g)-2], len(v), "read tensor checksum"},
		{"wrong count", g, 5, "holds 4 values, want 5"},
		{"huge count", huge, -1, "damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFloats(bytes.NewReader(tc.data), tc.want)
			if tc.wantErr == "" {
				if err != nil || len(got) != len(v) || got[1] != v[1] {
					t.Fatalf("got %v, %v; want %v", got, err, v)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to say %q", err, tc.wantErr)
			}
		})
	}
}
