package procstat

import (
	"runtime"
	"testing"
)

// TestUsage: a process that has run code has used CPU, and holds more
// memory than a buffer it has just touched.
func TestUsage(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no getrusage")
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	sum := 0
	for _, b := range buf {
		sum += int(b)
	}
	if c := CPUSeconds(); c <= 0 {
		t.Errorf("CPU seconds %g after a loop over 64 MiB (sum %d)", c, sum)
	}
	if p := PeakRSS(); p < 64<<20 {
		t.Errorf("peak RSS %d bytes after touching 64 MiB", p)
	}
}
