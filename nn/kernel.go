package nn

import (
	"fmt"
	"hash/fnv"
	"math"
)

// Kernel names the matrix-multiply kernel this process uses and how it
// rounds: "openblas/<core> r<hash>" with OpenBLAS's kernel for this CPU
// (openblas_get_corename: Haswell, SkylakeX, Zen, ...) when the BLAS
// backend is in use, "go r<hash>" for the pure-Go gemm. The hash is of the
// bits of one fixed product (KernelRounding): two kernels with other
// names may share their code (OpenBLAS's Zen runs Haswell's sgemm) and so
// their rounding, which the name alone would hide. Training's float
// rounding, and so where a seed ends up, depends on it: a result records
// it next to the CPU.
func Kernel() string {
	name := string(Go)
	if CurrentBackend() == BLAS {
		name = "openblas"
		if c := blasCorename(); c != "" {
			name += "/" + c
		}
	}
	return name + " r" + KernelRounding()
}

// KernelRounding hashes the bits of a fixed 32x32x128 product computed by
// the gemm in use (one call, below the size Sgemm splits across workers):
// kernels that round alike give the same 8 hex digits.
func KernelRounding() string {
	const m, n, k = 32, 32, 128
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	// A fixed, irregular fill (a linear congruential sequence), values
	// in [-0.5, 0.5) with full mantissas, so that products round.
	x := uint32(12345)
	next := func() float32 {
		x = x*1664525 + 1013904223
		return float32(x>>8)/float32(1<<24) - 0.5
	}
	for i := range a {
		a[i] = next()
	}
	for i := range b {
		b[i] = next()
	}
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	h := fnv.New32a()
	for _, v := range c {
		u := math.Float32bits(v)
		h.Write([]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24)})
	}
	return fmt.Sprintf("%08x", h.Sum32())
}
