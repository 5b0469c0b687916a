package experiment

import (
	"bytes"
	"strings"
	"testing"
)

// TestCPUModel: the first "model name" of a /proc/cpuinfo, trimmed; none
// gives "", and the report's machine line shows the model only when known.
func TestCPUModel(t *testing.T) {
	info := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9B14\n"
	for _, tc := range []struct{ in, want string }{
		{info, "AMD EPYC 9B14"},
		{"processor\t: 0\nflags\t: fpu\n", ""},
		{"", ""},
	} {
		if got := cpuModel(tc.in); got != tc.want {
			t.Errorf("cpuModel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		m    Machine
		want string
	}{
		{Machine{CPUs: 2, CPU: "AMD EPYC 9B14", GOOS: "linux", GOARCH: "amd64"}, "Machine: 2 CPUs (AMD EPYC 9B14), linux/amd64."},
		{Machine{CPUs: 2, GOOS: "linux", GOARCH: "amd64"}, "Machine: 2 CPUs, linux/amd64."},
	} {
		var b bytes.Buffer
		writeHeader(&b, "t", "c", tc.m, Preset{Name: "p"}, []uint64{1}, []string{"dev"})
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("header %q lacks %q", b.String(), tc.want)
		}
	}
}
