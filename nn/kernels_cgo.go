//go:build cgo && !noblas

package nn

/*
#cgo CFLAGS: -O3 -fopenmp-simd
#cgo LDFLAGS: -lm
#pragma GCC optimize("O3", "tree-vectorize", "no-math-errno", "no-trapping-math")
#include <stdint.h>
#include <string.h>
#include <math.h>

// Function multiversioning: the loader picks the AVX-512 or AVX2 build of
// each kernel on CPUs that have them, so the binary stays portable.
#define CLONES __attribute__((target_clones("arch=skylake-avx512", "arch=haswell", "default")))

// exp_approx is Cephes' expf (range reduction by ln 2, degree-6
// polynomial), written without branches so that loops over it vectorize.
static inline float exp_approx(float x) {
	x = x < -87.33654f ? -87.33654f : x;
	x = x > 88.72283f ? 88.72283f : x;
	// round to nearest by the 1.5*2^23 trick: no call, no branch
	float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
	x = x - n * 0.693359375f + n * 2.12194440e-4f;
	float z = x * x;
	float y = ((((1.9875691500e-4f * x + 1.3981999507e-3f) * x + 8.3334519073e-3f) * x + 4.1665795894e-2f) * x + 1.6666665459e-1f) * x + 5.0000001201e-1f;
	y = y * z + x + 1.0f;
	int32_t e = ((int32_t)n + 127) << 23;
	float s;
	memcpy(&s, &e, 4);
	return y * s;
}

CLONES void k_gelu_fwd(float* out, float* th, const float* u, int n) {
	for (int i = 0; i < n; i++) {
		float x = u[i];
		float e = exp_approx(2.0f * 0.7978845608028654f * (x + 0.044715f * x * x * x));
		float t = 1.0f - 2.0f / (e + 1.0f);
		th[i] = t;
		out[i] = 0.5f * x * (1.0f + t);
	}
}

CLONES void k_gelu_bwd(float* du, const float* dout, const float* u, const float* th, int n) {
	for (int i = 0; i < n; i++) {
		float x = u[i], t = th[i];
		float dinner = 0.7978845608028654f * (1.0f + 3.0f * 0.044715f * x * x);
		du[i] = dout[i] * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dinner);
	}
}

// softmax_row turns the n scores of row into probabilities in place and
// returns their maximum; *sum receives the sum of exp(score - max), for
// a caller that wants the log-normaliser too.
static inline float softmax_row(float* row, int n, float* sum) {
	float mx = row[0];
	for (int j = 1; j < n; j++) mx = row[j] > mx ? row[j] : mx;
	for (int j = 0; j < n; j++) row[j] = exp_approx(row[j] - mx);
	float s = 0;
	#pragma omp simd reduction(+:s)
	for (int j = 0; j < n; j++) s += row[j];
	float inv = 1.0f / s;
	for (int j = 0; j < n; j++) row[j] *= inv;
	*sum = s;
	return mx;
}

// dot is the attention score of a query and a key of dh floats; the two
// attention kernels share it so that their scores are the same bits.
static inline float dot(const float* q, const float* k, int dh) {
	float s = 0;
	#pragma omp simd reduction(+:s)
	for (int i = 0; i < dh; i++) s += q[i] * k[i];
	return s;
}

// k_softmax_rows turns t rows of width ld (row i covering [0, off+i]) into
// probabilities, zeroing the rest of each row.
CLONES void k_softmax_rows(float* s, int t, int ld, int off) {
	for (int i = 0; i < t; i++) {
		float* row = s + (size_t)i * ld;
		int n = off + i + 1;
		float sum;
		softmax_row(row, n, &sum);
		if (n < ld) memset(row + n, 0, (size_t)(ld - n) * sizeof(float));
	}
}

// k_softmax_logp turns logits into probabilities and returns the
// log-probability of target.
CLONES float k_softmax_logp(float* z, int n, int target) {
	float zt = z[target], sum;
	float mx = softmax_row(z, n, &sum);
	return zt - mx - logf(sum);
}

// k_attend_one is attention for one query over tot cached keys and values
// (rows at stride ld), writing dh outputs; sc is tot floats of scratch.
CLONES void k_attend_one(float* out, const float* q, const float* k, const float* v, int ld, int tot, int dh, float* sc, float scale) {
	for (int j = 0; j < tot; j++) sc[j] = dot(q, k + (size_t)j * ld, dh) * scale;
	float sum;
	softmax_row(sc, tot, &sum);
	for (int i = 0; i < dh; i++) out[i] = 0;
	for (int j = 0; j < tot; j++) {
		const float* vr = v + (size_t)j * ld;
		float p = sc[j];
		#pragma omp simd
		for (int i = 0; i < dh; i++) out[i] += p * vr[i];
	}
}

// k_attend_shared is attention for g single queries (query i at q+qo[i],
// output at out+oo[i]) sharing their first plen cached positions (keys
// and values at k+po and v+po, rows at stride ld), each then with ns[i]
// rows of its own (at k+so[i], v+so[i]): each prefix row is read once
// for the g queries. Per query, the arithmetic is k_attend_one's over
// its rows in order. sc is g rows of w floats of scratch.
CLONES void k_attend_shared(float* out, const int64_t* oo, const float* q, const int64_t* qo, int g,
		const float* k, const float* v, int64_t po, int plen, const int64_t* so, const int64_t* ns,
		int ld, int dh, float* sc, int w, float scale) {
	for (int j = 0; j < plen; j++) {
		const float* kr = k + po + (size_t)j * ld;
		for (int i = 0; i < g; i++) sc[(size_t)i * w + j] = dot(q + qo[i], kr, dh) * scale;
	}
	for (int i = 0; i < g; i++) {
		float* row = sc + (size_t)i * w;
		int n = plen + (int)ns[i];
		for (int j = plen; j < n; j++) row[j] = dot(q + qo[i], k + so[i] + (size_t)(j - plen) * ld, dh) * scale;
		float sum;
		softmax_row(row, n, &sum);
		float* o = out + oo[i];
		for (int t = 0; t < dh; t++) o[t] = 0;
	}
	for (int j = 0; j < plen; j++) {
		const float* vr = v + po + (size_t)j * ld;
		for (int i = 0; i < g; i++) {
			float* o = out + oo[i];
			float p = sc[(size_t)i * w + j];
			#pragma omp simd
			for (int t = 0; t < dh; t++) o[t] += p * vr[t];
		}
	}
	for (int i = 0; i < g; i++) {
		float* o = out + oo[i];
		const float* row = sc + (size_t)i * w;
		for (int j = 0; j < (int)ns[i]; j++) {
			const float* vr = v + so[i] + (size_t)j * ld;
			float p = row[plen + j];
			#pragma omp simd
			for (int t = 0; t < dh; t++) o[t] += p * vr[t];
		}
	}
}
*/
import "C"

import "unsafe"

func fptr(s []float32) *C.float { return (*C.float)(unsafe.Pointer(&s[0])) }

// iptr passes an []int as int64_t*: Go's int is 64 bits on the 64-bit
// platforms this build targets (checked at compile time below).
func iptr(s []int) *C.int64_t { return (*C.int64_t)(unsafe.Pointer(&s[0])) }

// A 32-bit int would make iptr wrong; this fails to compile there.
var _ = [1]struct{}{}[unsafe.Sizeof(int(0))/8-1]

func init() {
	geluFwdKernel = func(out, th, u []float32) {
		if len(u) == 0 {
			return
		}
		if th == nil {
			th = make([]float32, len(u))
		}
		C.k_gelu_fwd(fptr(out), fptr(th), fptr(u), C.int(len(u)))
	}
	geluBwdKernel = func(du, dout, u, th []float32) {
		if len(u) == 0 {
			return
		}
		C.k_gelu_bwd(fptr(du), fptr(dout), fptr(u), fptr(th), C.int(len(u)))
	}
	softmaxRowsKernel = func(s []float32, t, ld, off int) {
		if t == 0 {
			return
		}
		_ = s[(t-1)*ld+ld-1]
		C.k_softmax_rows(fptr(s), C.int(t), C.int(ld), C.int(off))
	}
	attendOneKernel = func(out, q, k, v []float32, ld, tot int, sc []float32, scale float32) {
		dh := len(q)
		_ = k[(tot-1)*ld+dh-1]
		_ = v[(tot-1)*ld+dh-1]
		_ = sc[tot-1]
		C.k_attend_one(fptr(out), fptr(q), fptr(k), fptr(v), C.int(ld), C.int(tot), C.int(dh), fptr(sc), C.float(scale))
	}
	attendSharedKernel = func(out []float32, oo []int, q []float32, qo []int, k, v []float32, po, plen int, so, ns []int, ld, dh int, sc []float32, scale float32) {
		g := len(qo)
		w := plen
		for i, n := range ns {
			w = max(w, plen+n)
			_ = out[oo[i]+dh-1]
			_ = q[qo[i]+dh-1]
			if n > 0 {
				_ = k[so[i]+(n-1)*ld+dh-1]
				_ = v[so[i]+(n-1)*ld+dh-1]
			}
		}
		if plen > 0 {
			_ = k[po+(plen-1)*ld+dh-1]
			_ = v[po+(plen-1)*ld+dh-1]
		}
		_ = sc[g*w-1]
		C.k_attend_shared(fptr(out), iptr(oo), fptr(q), iptr(qo), C.int(g), fptr(k), fptr(v), C.int64_t(po), C.int(plen),
			iptr(so), iptr(ns), C.int(ld), C.int(dh), fptr(sc), C.int(w), C.float(scale))
	}
	softmaxLogpKernel = func(z []float32, target int) float32 {
		_ = z[target]
		return float32(C.k_softmax_logp(fptr(z), C.int(len(z)), C.int(target)))
	}
}
