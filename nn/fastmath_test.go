package nn

import (
	"math"
	"testing"
)

func TestFastMath(t *testing.T) {
	worst := 0.0
	for x := float32(-87); x < 88; x += 0.00731 {
		want := math.Exp(float64(x))
		got := float64(expf(x))
		if e := math.Abs(got-want) / want; e > worst {
			worst = e
		}
	}
	if worst > 3e-7 {
		t.Errorf("expf relative error %g", worst)
	}
	worstT := 0.0
	for x := float32(-12); x < 12; x += 0.000917 {
		e := math.Abs(float64(tanhf(x)) - math.Tanh(float64(x)))
		worstT = math.Max(worstT, e)
	}
	if worstT > 5e-7 {
		t.Errorf("tanhf absolute error %g", worstT)
	}
	if expf(-100) != 0 || !math.IsInf(float64(expf(100)), 1) {
		t.Error("expf range")
	}
}
