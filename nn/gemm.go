package nn

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
)

// Backend names a matrix-multiply implementation.
type Backend string

// The gemm backends. BLAS is OpenBLAS through cgo (cblas_sgemm); Go is the
// pure-Go fallback, always compiled in, and the only one in a build without
// cgo (or with the noblas tag).
const (
	BLAS Backend = "blas"
	Go   Backend = "go"
)

var useBLAS atomic.Bool

func init() {
	useBLAS.Store(blasAvailable)
	if b := os.Getenv("SQLRL_GEMM"); b != "" {
		if err := SetBackend(Backend(b)); err != nil {
			fmt.Fprintln(os.Stderr, "sqlrl:", err)
		}
	}
}

// BLASAvailable reports whether this binary was built with OpenBLAS.
func BLASAvailable() bool { return blasAvailable }

// SetBackend selects the gemm implementation for the whole process. Setting
// BLAS in a build without it is an error. The environment variable
// SQLRL_GEMM=go|blas sets it at start-up.
func SetBackend(b Backend) error {
	switch b {
	case BLAS:
		if !blasAvailable {
			return fmt.Errorf("gemm backend blas: this binary was built without cgo/OpenBLAS")
		}
		useBLAS.Store(true)
	case Go:
		useBLAS.Store(false)
	default:
		return fmt.Errorf("unknown gemm backend %q (want blas or go)", b)
	}
	return nil
}

// CurrentBackend returns the backend in use.
func CurrentBackend() Backend {
	if useBLAS.Load() {
		return BLAS
	}
	return Go
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C on row-major matrices, as
// cblas_sgemm(CblasRowMajor, ...) does: op(A) is m x k, op(B) is k x n, C is
// m x n, and lda, ldb, ldc are the row strides of A, B and C as stored.
//
// With BLAS, OpenBLAS runs single-threaded and a large product is split
// into row (or column) blocks of C, one per worker goroutine; the split
// depends only on the shape, so results are reproducible.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if !useBLAS.Load() || k == 0 {
		goSgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, gemmWorkers)
		return
	}
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	w := gemmWorkers
	if w <= 1 || m*n*k < 1<<18 {
		blasSgemm1(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m >= n {
		// split rows of C (rows of op(A))
		chunk := (m + w - 1) / w
		parallelFor(w, func(_, lo, hi int) {
			for part := lo; part < hi; part++ {
				i0 := part * chunk
				i1 := min(i0+chunk, m)
				if i0 >= i1 {
					continue
				}
				aoff := i0 * lda
				if transA {
					aoff = i0
				}
				blasSgemm1(transA, transB, i1-i0, n, k, alpha, a[aoff:], lda, b, ldb, beta, c[i0*ldc:], ldc)
			}
		})
		return
	}
	chunk := (n + w - 1) / w
	parallelFor(w, func(_, lo, hi int) {
		for part := lo; part < hi; part++ {
			j0 := part * chunk
			j1 := min(j0+chunk, n)
			if j0 >= j1 {
				continue
			}
			boff := j0
			if transB {
				boff = j0 * ldb
			}
			blasSgemm1(transA, transB, m, j1-j0, k, alpha, a, lda, b[boff:], ldb, beta, c[j0:], ldc)
		}
	})
}

// gemmWorkers is the parallelism of a large gemm.
var gemmWorkers = 2

// SetThreads sets the parallelism of gemms and of the engine's other
// kernels (default 2).
func SetThreads(n int) {
	if n < 1 {
		n = 1
	}
	gemmWorkers = n
	workers = n
}

// ThreadsFlag declares -threads into p, the threads SetThreads is given,
// for every command and run that computes with the engine.
func ThreadsFlag(fs *flag.FlagSet, p *int) {
	fs.IntVar(p, "threads", 2, "threads of the native model's math")
}
