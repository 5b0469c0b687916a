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
		{Machine{CPUs: 2, CPU: "AMD EPYC 9B14", GOOS: "linux", GOARCH: "amd64", Kernel: "openblas/Haswell", Commit: "0123456789ab+modified"},
			"Machine: 2 CPUs (AMD EPYC 9B14), linux/amd64; gemm kernel openblas/Haswell; sqlrl 0123456789ab+modified."},
	} {
		var b bytes.Buffer
		writeHeader(&b, "t", "c", tc.m, Preset{Name: "p"}, []uint64{1}, []string{"dev"})
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("header %q lacks %q", b.String(), tc.want)
		}
	}
}

// TestCPUsNote: a report names the runs that finished on another CPU than
// its own machine line's, and those whose CPU was not recorded, and says
// nothing when every run finished here.
func TestCPUsNote(t *testing.T) {
	here := Machine{CPUs: 2, CPU: "AMD EPYC"}
	for _, tc := range []struct {
		name string
		runs []RunRow
		m    Machine
		want []string // substrings; nil: the note is empty
	}{
		{"all here", []RunRow{{Name: "sft", Done: true, CPU: "AMD EPYC"}, {Name: "kto", Done: true, CPU: "AMD EPYC"}}, here, nil},
		{"unfinished runs have no CPU", []RunRow{{Name: "sft", Done: true, CPU: "AMD EPYC"}, {Name: "kto"}}, here, nil},
		{"one elsewhere", []RunRow{{Name: "sft", Done: true, CPU: "Intel Xeon"}, {Name: "kto", Done: true, CPU: "AMD EPYC"}},
			here, []string{"another CPU (Intel Xeon), not this invocation's: sft."}},
		{"two elsewhere, one unknown", []RunRow{{Name: "a", Done: true, CPU: "X"}, {Name: "b", Done: true, CPU: "Y"}, {Name: "c", Done: true, CPU: "X"}, {Name: "d", Done: true}},
			here, []string{"(X), not this invocation's: a, c.", "(Y), not this invocation's: b.", "CPU not recorded (runs from before sqlrl recorded it): d."}},
		{"this machine's CPU unknown too", []RunRow{{Name: "d", Done: true}}, Machine{CPUs: 2}, nil},
		{"same CPU, another kernel", []RunRow{{Name: "a", Done: true, CPU: "AMD EPYC", Kernel: "openblas/SkylakeX"}, {Name: "b", Done: true, CPU: "AMD EPYC", Kernel: "openblas/Haswell"}},
			Machine{CPUs: 2, CPU: "AMD EPYC", Kernel: "openblas/Haswell"}, []string{"another gemm kernel (openblas/SkylakeX), not this invocation's: a."}},
		{"kernel not recorded", []RunRow{{Name: "a", Done: true, CPU: "AMD EPYC"}}, Machine{CPUs: 2, CPU: "AMD EPYC", Kernel: "go"}, nil},
	} {
		got := cpusNote(tc.runs, tc.m)
		if tc.want == nil && got != "" {
			t.Errorf("%s: note %q, want none", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: note %q lacks %q", tc.name, got, w)
			}
		}
	}
	// One line per other CPU, in the order of their names whatever the
	// runs' order, so a report rebuilt from the same runs is the same file.
	got := cpusNote([]RunRow{{Name: "b", Done: true, CPU: "Y"}, {Name: "a", Done: true, CPU: "X"}}, here)
	if x, y := strings.Index(got, "(X)"), strings.Index(got, "(Y)"); x < 0 || y < 0 || x > y {
		t.Errorf("note %q: want X's line, then Y's", got)
	}
}
