package nn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/sqlrl/sqlrl/atomicfile"
)

// The tensor file format: the magic "SQLRLNN1", a little-endian uint32
// count, then that many float32 (little-endian), then a CRC-32 (IEEE) of
// the float bytes. It holds one flat vector: parameters, or an optimizer's
// moments.
const fileMagic = "SQLRLNN1"

// WriteFloats writes v to w in the tensor file format.
func WriteFloats(w io.Writer, v []float32) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(fileMagic); err != nil {
		return err
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint64(hdr[:], uint64(len(v)))
	bw.Write(hdr[:])
	crc := crc32.NewIEEE()
	var buf [4096]byte
	for i := 0; i < len(v); {
		n := 0
		for ; i < len(v) && n+4 <= len(buf); i++ {
			binary.LittleEndian.PutUint32(buf[n:], math.Float32bits(v[i]))
			n += 4
		}
		crc.Write(buf[:n])
		if _, err := bw.Write(buf[:n]); err != nil {
			return err
		}
	}
	binary.LittleEndian.PutUint32(hdr[:4], crc.Sum32())
	bw.Write(hdr[:4])
	return bw.Flush()
}

// maxFloats bounds a tensor file's count before anything is allocated for
// it: a damaged header must not ask for more memory than can exist.
const maxFloats = 1 << 40

// ReadFloats reads a tensor file written by WriteFloats, checking its
// length (want, unless negative) and checksum, and that nothing follows
// the checksum: bytes appended to a file are damage (or another file's
// data), and loading past them would hide it.
func ReadFloats(r io.Reader, want int) ([]float32, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var hdr [16]byte
	if _, err := io.ReadFull(br, hdr[:16]); err != nil {
		return nil, fmt.Errorf("read tensor header: %w", err)
	}
	if string(hdr[:8]) != fileMagic {
		return nil, errors.New("not an sqlrl tensor file")
	}
	n64 := binary.LittleEndian.Uint64(hdr[8:])
	if n64 > maxFloats {
		return nil, fmt.Errorf("tensor header counts %d values: damaged", n64)
	}
	n := int(n64)
	if want >= 0 && n != want {
		return nil, fmt.Errorf("tensor file holds %d values, want %d", n, want)
	}
	v := make([]float32, n)
	crc := crc32.NewIEEE()
	var buf [4096]byte
	for i := 0; i < n; {
		k := min(len(buf)/4, n-i)
		if _, err := io.ReadFull(br, buf[:4*k]); err != nil {
			return nil, fmt.Errorf("read tensor data: %w", err)
		}
		crc.Write(buf[:4*k])
		for j := 0; j < k; j++ {
			v[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		}
		i += k
	}
	if _, err := io.ReadFull(br, hdr[:4]); err != nil {
		return nil, fmt.Errorf("read tensor checksum: %w", err)
	}
	if binary.LittleEndian.Uint32(hdr[:4]) != crc.Sum32() {
		return nil, errors.New("tensor file checksum mismatch (truncated or corrupt)")
	}
	if k, _ := io.ReadFull(br, hdr[:]); k > 0 {
		return nil, fmt.Errorf("%s bytes after the tensor data's checksum (the file holds %d values and must end there)", trailing(k, len(hdr)), n)
	}
	return v, nil
}

// trailing words how many bytes were found past the end, up to max.
func trailing(k, max int) string {
	if k < max {
		return fmt.Sprint(k)
	}
	return fmt.Sprintf("%d or more", k)
}

// SaveFloats writes v to path atomically (atomicfile.Write).
func SaveFloats(path string, v []float32) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteFloats(w, v) })
}

// LoadFloats reads a tensor file.
func LoadFloats(path string, want int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := ReadFloats(f, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
