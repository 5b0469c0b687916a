package eval

import (
	"math"
	"testing"
)

func TestSignTest(t *testing.T) {
	tests := []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},
		{1, 0, 1},              // 2 * 1/2
		{5, 0, 2.0 / 32},       // 2 * (1/2)^5
		{0, 5, 2.0 / 32},       // symmetric
		{6, 2, 2 * 37.0 / 256}, // 2 * (1 + 8 + 28) / 2^8
		{10, 10, 1},
	}
	for _, tc := range tests {
		if got := SignTest(tc.wins, tc.losses); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SignTest(%d, %d) = %g, want %g", tc.wins, tc.losses, got, tc.want)
		}
	}
	// Large counts stay finite: 600 against 400 is far from chance.
	if p := SignTest(600, 400); !(p > 0 && p < 1e-9) {
		t.Errorf("SignTest(600, 400) = %g", p)
	}
}
