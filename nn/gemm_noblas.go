//go:build !cgo || noblas

package nn

const blasAvailable = false

// blasCorename is "" in a build without OpenBLAS.
func blasCorename() string { return "" }

// BLASConfig returns "" in a build without OpenBLAS.
func BLASConfig() string { return "" }

func blasSgemm1(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("nn: built without OpenBLAS")
}
