package nn

import (
	"regexp"
	"testing"
)

// TestKernel: the kernel follows the backend in use, with its rounding's
// hash, the same on every call.
func TestKernel(t *testing.T) {
	old := CurrentBackend()
	defer SetBackend(old)
	if err := SetBackend(Go); err != nil {
		t.Fatal(err)
	}
	goK := Kernel()
	if !regexp.MustCompile(`^go r[0-9a-f]{8}$`).MatchString(goK) || Kernel() != goK {
		t.Errorf("Go backend: kernel %q, want go r<8 hex digits>, the same twice", goK)
	}
	if !BLASAvailable() {
		t.Skip("built without OpenBLAS")
	}
	if err := SetBackend(BLAS); err != nil {
		t.Fatal(err)
	}
	k := Kernel()
	if !regexp.MustCompile(`^openblas(/\w+)? r[0-9a-f]{8}$`).MatchString(k) {
		t.Errorf("BLAS backend: kernel %q, want openblas/<core> r<8 hex digits>", k)
	}
	t.Logf("kernels: %s; %s", goK, k)
}
