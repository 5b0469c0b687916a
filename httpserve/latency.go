package httpserve

import (
	"slices"
	"time"
)

// Percentiles sorts ds and returns its median, 99th percentile and maximum
// in milliseconds (nearest rank: the element at n/2 and n*99/100). The load
// benchmarks of both servers (sqlrl reward bench, sqlrl serve bench) report
// latency through it, so their figures mean the same thing.
func Percentiles(ds []time.Duration) (p50, p99, max float64) {
	n := len(ds)
	if n == 0 {
		return 0, 0, 0
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(ds[n/2]), ms(ds[min(n-1, n*99/100)]), ms(ds[n-1])
}
