// Package numtest is the tolerance rule of sqlrl's numeric tests, written
// once so that every package compares float32 results the same way.
//
// A test that compares two computations of the same quantity by different
// paths (shared against unshared batches, OpenBLAS against the pure-Go
// gemm, the KV cache against a full forward pass, nn against a float64
// reference) cannot ask for equality: the paths add the same terms in other
// orders, and which order OpenBLAS uses depends on the CPU's kernel
// (OPENBLAS_CORETYPE). A fixed absolute tolerance fails on another CPU
// when the values are large and hides bugs when they are small. The bound
// used here is the classic worst case of recursive float32 summation
// (Higham, Accuracy and Stability of Numerical Algorithms, §4.2): summing n
// terms whose absolute values add up to mag is off by at most about
// n·u·mag, u = 2⁻²⁴; Tol allows n·ε₃₂·mag with ε₃₂ = 2u, the factor 2
// covering the rounding of the terms themselves. The real error is usually
// far below the bound (errors cancel), so the bound still catches a real
// bug, which changes a result by a fraction of its magnitude, not by a few
// units in the last place.
//
// Tests that check bitwise determinism (the same path on the same machine
// twice, such as an exact resume) must keep comparing with ==.
package numtest

import "math"

// Eps32 is float32's machine epsilon, 2⁻²³.
const Eps32 = 0x1p-23

// Tol is the error allowed for a float32 result accumulated from n terms
// whose absolute values add up to mag: n·Eps32·mag.
func Tol(n int, mag float64) float64 { return float64(max(n, 1)) * Eps32 * mag }

// Close reports whether got is within Tol(n, mag) of want.
func Close(got, want float64, n int, mag float64) bool {
	return math.Abs(got-want) <= Tol(n, mag)
}
