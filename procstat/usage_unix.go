//go:build unix

package procstat

import (
	"runtime"
	"syscall"
)

// CPUSeconds returns the process's user+system CPU time so far. On a shared
// machine wall times swing with the neighbours' load; CPU time shows what
// the work itself cost.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// PeakRSS returns the most resident memory the process has held so far, in
// bytes (0 when unknown). Linux reports it in KiB, macOS and the BSDs'
// Darwin in bytes.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
