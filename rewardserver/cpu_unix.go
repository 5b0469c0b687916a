//go:build unix

package rewardserver

import "syscall"

// cpuSeconds returns the process's user+system CPU time so far. On a shared
// machine wall times swing with the neighbours' load; CPU time shows what
// the work itself cost.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
