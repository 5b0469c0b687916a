//go:build !unix

package rewardserver

// cpuSeconds is unavailable here; reports show 0.
func cpuSeconds() float64 { return 0 }
