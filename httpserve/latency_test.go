package httpserve

import (
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name          string
		in            []time.Duration
		p50, p99, max float64
	}{
		{"empty", nil, 0, 0, 0},
		{"one", []time.Duration{3 * ms}, 3, 3, 3},
		// 100 values 1..100 ms, shuffled: nearest rank n/2 = 50 -> 51 ms,
		// n*99/100 = 99 -> 100 ms.
		{"hundred", func() []time.Duration {
			var d []time.Duration
			for i := 100; i >= 1; i-- {
				d = append(d, time.Duration(i)*ms)
			}
			return d
		}(), 51, 100, 100},
		{"sub-millisecond", []time.Duration{1500 * time.Microsecond, 500 * time.Microsecond}, 1.5, 1.5, 1.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p50, p99, max := Percentiles(tt.in)
			if p50 != tt.p50 || p99 != tt.p99 || max != tt.max {
				t.Errorf("got %v %v %v, want %v %v %v", p50, p99, max, tt.p50, tt.p99, tt.max)
			}
		})
	}
}
