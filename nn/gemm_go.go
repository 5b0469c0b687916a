package nn

import (
	"fmt"
	"sync"
)

// checkGemm panics when a gemm's operands are too short for its shape: cgo
// would otherwise read or write out of bounds.
func checkGemm(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if lda < ac || ldb < bc || ldc < n || (ar-1)*lda+ac > la || (br-1)*ldb+bc > lb || (m-1)*ldc+n > lc {
		panic(fmt.Sprintf("nn: gemm %dx%dx%d (tA %v tB %v) on short operands: a %d/%d b %d/%d c %d/%d", m, n, k, transA, transB, la, lda, lb, ldb, lc, ldc))
	}
}

var packPool = sync.Pool{New: func() any { return new([]float32) }}

func getBuf(n int) *[]float32 {
	p := packPool.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	*p = (*p)[:n]
	return p
}

// goSgemm is the pure-Go gemm. It packs op(A) as m rows of k and op(B)^T as
// n rows of k, so every output is a dot product of two contiguous rows, and
// computes 4x2 output blocks with eight accumulators; rows of C are split
// among workers goroutines.
func goSgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, workers int) {
	if k > 0 {
		checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	}
	if k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				if beta == 0 {
					row[j] = 0
				} else {
					row[j] *= beta
				}
			}
		}
		return
	}
	ap := a
	pa := lda
	var abuf, bbuf *[]float32
	if transA || lda != k {
		abuf = getBuf(m * k)
		ap = *abuf
		pa = k
		if transA {
			for p := 0; p < k; p++ {
				src := a[p*lda : p*lda+m]
				for i, v := range src {
					ap[i*k+p] = v
				}
			}
		} else {
			for i := 0; i < m; i++ {
				copy(ap[i*k:i*k+k], a[i*lda:i*lda+k])
			}
		}
	}
	bp := b
	pb := ldb
	if !transB || ldb != k {
		bbuf = getBuf(n * k)
		bp = *bbuf
		pb = k
		if !transB {
			for p := 0; p < k; p++ {
				src := b[p*ldb : p*ldb+n]
				for j, v := range src {
					bp[j*k+p] = v
				}
			}
		} else {
			for j := 0; j < n; j++ {
				copy(bp[j*k:j*k+k], b[j*ldb:j*ldb+k])
			}
		}
	}
	rows := func(i0, i1 int) { gemmRows(i0, i1, n, k, alpha, ap, pa, bp, pb, beta, c, ldc) }
	if workers <= 1 || m*n*k < 1<<16 || m < 8 {
		rows(0, m)
	} else {
		var wg sync.WaitGroup
		chunk := (m + workers - 1) / workers
		chunk = (chunk + 3) &^ 3
		for i0 := 0; i0 < m; i0 += chunk {
			i1 := min(i0+chunk, m)
			wg.Add(1)
			go func() { defer wg.Done(); rows(i0, i1) }()
		}
		wg.Wait()
	}
	if abuf != nil {
		packPool.Put(abuf)
	}
	if bbuf != nil {
		packPool.Put(bbuf)
	}
}

func gemmRows(i0, i1, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	store := func(i, j int, v float32) {
		if beta == 0 {
			c[i*ldc+j] = alpha * v
		} else {
			c[i*ldc+j] = alpha*v + beta*c[i*ldc+j]
		}
	}
	i := i0
	for ; i+4 <= i1; i += 4 {
		a0 := a[i*lda : i*lda+k]
		a1 := a[(i+1)*lda : (i+1)*lda+k]
		a2 := a[(i+2)*lda : (i+2)*lda+k]
		a3 := a[(i+3)*lda : (i+3)*lda+k]
		j := 0
		for ; j+2 <= n; j += 2 {
			b0 := b[j*ldb : j*ldb+k]
			b1 := b[(j+1)*ldb : (j+1)*ldb+k]
			var s00, s01, s10, s11, s20, s21, s30, s31 float32
			for p := range b0 {
				x0, x1 := b0[p], b1[p]
				y := a0[p]
				s00 += y * x0
				s01 += y * x1
				y = a1[p]
				s10 += y * x0
				s11 += y * x1
				y = a2[p]
				s20 += y * x0
				s21 += y * x1
				y = a3[p]
				s30 += y * x0
				s31 += y * x1
			}
			store(i, j, s00)
			store(i, j+1, s01)
			store(i+1, j, s10)
			store(i+1, j+1, s11)
			store(i+2, j, s20)
			store(i+2, j+1, s21)
			store(i+3, j, s30)
			store(i+3, j+1, s31)
		}
		for ; j < n; j++ {
			b0 := b[j*ldb : j*ldb+k]
			var s0, s1, s2, s3 float32
			for p, x := range b0 {
				s0 += a0[p] * x
				s1 += a1[p] * x
				s2 += a2[p] * x
				s3 += a3[p] * x
			}
			store(i, j, s0)
			store(i+1, j, s1)
			store(i+2, j, s2)
			store(i+3, j, s3)
		}
	}
	for ; i < i1; i++ {
		a0 := a[i*lda : i*lda+k]
		for j := 0; j < n; j++ {
			b0 := b[j*ldb : j*ldb+k]
			var s float32
			for p, x := range b0 {
				s += a0[p] * x
			}
			store(i, j, s)
		}
	}
}
