//go:build cgo && !noblas

package nn

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
static sgemm_fn p_sgemm;
static void (*p_set_threads)(int);
static char* (*p_get_config)(void);
static char* (*p_get_corename)(void);

// load_openblas opens OpenBLAS at run time. It runs single-threaded (the
// engine splits large products across its own workers), and when the
// caller did not choose a kernel it picks one from the CPU's features:
// OpenBLAS's own detection can fail on virtual CPUs with generic model
// names and fall back to slow SSE kernels.
static int load_openblas(void) {
	__builtin_cpu_init();
	if (!getenv("OPENBLAS_CORETYPE")) {
		if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
			__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) {
			setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
		} else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
			setenv("OPENBLAS_CORETYPE", "Haswell", 0);
		}
	}
	setenv("OPENBLAS_NUM_THREADS", "1", 0);
	const char* names[] = {"libopenblas.so.0", "libopenblas.so", "libopenblasp-r0.3.21.so", 0};
	void* h = 0;
	for (int i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) return 0;
	p_sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
	p_set_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
	p_get_config = (char* (*)(void))dlsym(h, "openblas_get_config");
	p_get_corename = (char* (*)(void))dlsym(h, "openblas_get_corename");
	if (!p_sgemm) return 0;
	if (p_set_threads) p_set_threads(1);
	return 1;
}

static void call_sgemm(int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
		const float* b, int ldb, float beta, float* c, int ldc) {
	p_sgemm(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static const char* blas_corename(void) {
	return p_get_corename ? p_get_corename() : "";
}

static const char* blas_config(void) {
	static char buf[256];
	const char* cfg = p_get_config ? p_get_config() : "OpenBLAS";
	const char* core = p_get_corename ? p_get_corename() : "?";
	snprintf(buf, sizeof buf, "%s; core %s", cfg, core);
	return buf;
}
*/
import "C"

import "unsafe"

var blasAvailable = C.load_openblas() == 1

// BLASConfig returns OpenBLAS's build description and kernel, or "" when
// OpenBLAS could not be loaded.
func BLASConfig() string {
	if !blasAvailable {
		return ""
	}
	return C.GoString(C.blas_config())
}

// blasCorename is OpenBLAS's kernel for this CPU (openblas_get_corename:
// Haswell, SkylakeX, Zen, ...), or "" when it cannot say.
func blasCorename() string {
	if !blasAvailable {
		return ""
	}
	return C.GoString(C.blas_corename())
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// blasSgemm1 is one single-threaded cblas_sgemm call.
func blasSgemm1(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	C.call_sgemm(boolInt(transA), boolInt(transB), C.int(m), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(unsafe.Pointer(&a[0])), C.int(lda), (*C.float)(unsafe.Pointer(&b[0])), C.int(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}
