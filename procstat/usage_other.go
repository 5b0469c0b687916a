//go:build !unix

package procstat

// CPUSeconds is unavailable here; reports show 0.
func CPUSeconds() float64 { return 0 }

// PeakRSS is unavailable here; reports show 0.
func PeakRSS() int64 { return 0 }
