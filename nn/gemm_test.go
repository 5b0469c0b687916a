package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sqlrl/sqlrl/internal/numtest"
)

// naiveGemm is Sgemm in float64, and returns for each element of C the
// sum of the absolute values of its terms (the magnitude of numtest.Tol).
func naiveGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) (mag []float64) {
	mag = make([]float64, len(c))
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, sa float64
			for p := 0; p < k; p++ {
				var x, y float32
				if transA {
					x = a[p*lda+i]
				} else {
					x = a[i*lda+p]
				}
				if transB {
					y = b[j*ldb+p]
				} else {
					y = b[p*ldb+j]
				}
				s += float64(x) * float64(y)
				sa += math.Abs(float64(x) * float64(y))
			}
			mag[i*ldc+j] = math.Abs(float64(alpha))*sa + math.Abs(float64(beta*c[i*ldc+j]))
			c[i*ldc+j] = float32(float64(alpha)*s + float64(beta)*float64(c[i*ldc+j]))
		}
	}
	return mag
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func TestGemmBackends(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	backends := []Backend{Go}
	if BLASAvailable() {
		backends = append(backends, BLAS)
	}
	defer SetBackend(CurrentBackend())
	worst := 0.0
	defer func() { t.Logf("worst difference %.3g of its tolerance", worst) }()
	for _, be := range backends {
		if err := SetBackend(be); err != nil {
			t.Fatal(err)
		}
		for _, sh := range [][3]int{{1, 1, 1}, {5, 7, 3}, {33, 17, 65}, {64, 96, 48}, {3, 130, 9}} {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					m, n, k := sh[0], sh[1], sh[2]
					lda, ldb, ldc := k+2, n+1, n+3
					if ta {
						lda = m + 2
					}
					if tb {
						ldb = k + 1
					}
					ar, br := m, k
					if ta {
						ar = k
					}
					if tb {
						br = n
					}
					a, b := randSlice(r, ar*lda), randSlice(r, br*ldb)
					c1 := randSlice(r, m*ldc)
					c2 := append([]float32(nil), c1...)
					Sgemm(ta, tb, m, n, k, 0.7, a, lda, b, ldb, 0.3, c1, ldc)
					mag := naiveGemm(ta, tb, m, n, k, 0.7, a, lda, b, ldb, 0.3, c2, ldc)
					// k products and the scaled C: k+2 float32 roundings;
					// the padding between rows (magnitude 0) must not change
					for i := range c1 {
						tol := numtest.Tol(k+2, mag[i])
						if tol > 0 {
							worst = math.Max(worst, math.Abs(float64(c1[i]-c2[i]))/tol)
						}
						if math.Abs(float64(c1[i]-c2[i])) > tol {
							t.Fatalf("%s %v ta=%v tb=%v: c[%d] = %v want %v (tolerance %.2g)", be, sh, ta, tb, i, c1[i], c2[i], tol)
						}
					}
				}
			}
		}
	}
}

// BenchmarkSgemm measures both backends on the shapes a tiny model's
// training step runs ((2048x128)x(128x512) is a d128 FFN on 2048 tokens).
func BenchmarkSgemm(b *testing.B) {
	backends := []Backend{Go}
	if BLASAvailable() {
		backends = append(backends, BLAS)
	}
	defer SetBackend(CurrentBackend())
	for _, be := range backends {
		for _, sh := range [][3]int{{2048, 512, 128}, {2048, 128, 512}, {512, 512, 512}, {2048, 384, 128}} {
			m, n, k := sh[0], sh[1], sh[2]
			r := rand.New(rand.NewPCG(1, 2))
			a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
			b.Run(fmt.Sprintf("%s/%dx%dx%d", be, m, n, k), func(b *testing.B) {
				SetBackend(be)
				for b.Loop() {
					Sgemm(false, false, m, n, k, 1, a, k, bb, n, 0, c, n)
				}
				b.ReportMetric(float64(2*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
