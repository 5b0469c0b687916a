package nn

// Kernel names the matrix-multiply kernel this process uses:
// "openblas/<core>" with OpenBLAS's kernel for this CPU
// (openblas_get_corename: Haswell, SkylakeX, Zen, ...) when the BLAS
// backend is in use, "openblas" where OpenBLAS does not say, and "go" for
// the pure-Go gemm. Training's float rounding, and so where a seed ends
// up, depends on it: a result records it next to the CPU.
func Kernel() string {
	if CurrentBackend() != BLAS {
		return string(Go)
	}
	if c := blasCorename(); c != "" {
		return "openblas/" + c
	}
	return "openblas"
}
