package nn

import "math"

// expf is e^x in float32 (Cephes' expf: range reduction by ln 2 and a
// degree-6 polynomial), within 2 ulp of math.Exp over the float32 range,
// and several times faster than the float64 call with its conversions.
func expf(x float32) float32 {
	if x > 88.72283 {
		return float32(math.Inf(1))
	}
	if x < -87.33654 {
		return 0
	}
	const log2e = 1.44269504088896341
	const c1, c2 = 0.693359375, -2.12194440e-4
	fx := x*log2e + 0.5
	n := float32(int32(fx))
	if n > fx {
		n--
	}
	x = x - n*c1 - n*c2
	z := x * x
	y := ((((1.9875691500e-4*x+1.3981999507e-3)*x+8.3334519073e-3)*x+4.1665795894e-2)*x+1.6666665459e-1)*x + 5.0000001201e-1
	y = y*z + x + 1
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// tanhf is tanh(x) in float32: an odd polynomial near 0, else
// (e-1)/(e+1) with e = e^(2x) computed inline as in expf.
func tanhf(x float32) float32 {
	if x > 9 {
		return 1
	}
	if x < -9 {
		return -1
	}
	if x > -0.0625 && x < 0.0625 {
		x2 := x * x
		return x * (1 + x2*(-1.0/3+x2*(2.0/15)))
	}
	y := 2 * x
	const log2e = 1.44269504088896341
	const c1, c2 = 0.693359375, -2.12194440e-4
	fx := y*log2e + 0.5
	n := float32(int32(fx))
	if n > fx {
		n--
	}
	y = y - n*c1 - n*c2
	z := y * y
	p := ((((1.9875691500e-4*y+1.3981999507e-3)*y+8.3334519073e-3)*y+4.1665795894e-2)*y+1.6666665459e-1)*y + 5.0000001201e-1
	e := (p*z + y + 1) * math.Float32frombits(uint32(int32(n)+127)<<23)
	return (e - 1) / (e + 1)
}
