package nn

import (
	"strings"
	"testing"
)

// TestKernel: the kernel follows the backend in use.
func TestKernel(t *testing.T) {
	old := CurrentBackend()
	defer SetBackend(old)
	if err := SetBackend(Go); err != nil {
		t.Fatal(err)
	}
	if k := Kernel(); k != "go" {
		t.Errorf("Go backend: kernel %q, want go", k)
	}
	if !BLASAvailable() {
		t.Skip("built without OpenBLAS")
	}
	if err := SetBackend(BLAS); err != nil {
		t.Fatal(err)
	}
	if k := Kernel(); !strings.HasPrefix(k, "openblas") || (k != "openblas" && !strings.HasPrefix(k, "openblas/")) {
		t.Errorf("BLAS backend: kernel %q, want openblas/<core>", k)
	}
	t.Logf("kernel %s", Kernel())
}
