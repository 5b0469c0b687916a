package nn

import "math"

// The kernels below work on rows of length d inside flat row-major
// buffers. Each forward has a backward that adds parameter gradients into
// its gradient buffer and writes (or adds, where the name says so) input
// gradients. grad_test.go checks every backward against finite differences.

const normEps = 1e-5

// rmsnormForward writes out = x / rms(x) * w for n rows and saves 1/rms per
// row in rstd.
func rmsnormForward(out, rstd, x, w []float32, n, d int) {
	parallelFor(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			row := x[i*d : i*d+d]
			var ss float32
			for _, v := range row {
				ss += v * v
			}
			r := float32(1 / math.Sqrt(float64(ss/float32(d))+normEps))
			rstd[i] = r
			o := out[i*d : i*d+d]
			for j, v := range row {
				o[j] = v * r * w[j]
			}
		}
	})
}

// rmsnormBackward writes dx (adds into it when add) and adds into dw.
func rmsnormBackward(dx, dw, dout, x, w, rstd []float32, n, d int, add bool) {
	parts := make([]float32, numChunks(n)*d)
	parallelFor(n, func(c, lo, hi int) {
		acc := parts[c*d : c*d+d]
		for i := lo; i < hi; i++ {
			r := rstd[i]
			xr := x[i*d : i*d+d]
			g := dout[i*d : i*d+d]
			var dot float32
			for j, v := range xr {
				gw := g[j] * w[j]
				dot += gw * v
				acc[j] += g[j] * v * r
			}
			c := dot * r * r * r / float32(d)
			dxr := dx[i*d : i*d+d]
			if add {
				for j, v := range xr {
					dxr[j] += r*g[j]*w[j] - c*v
				}
			} else {
				for j, v := range xr {
					dxr[j] = r*g[j]*w[j] - c*v
				}
			}
		}
	})
	for c := 0; c*d < len(parts); c++ {
		for j, v := range parts[c*d : c*d+d] {
			dw[j] += v
		}
	}
}

const geluC = 0.7978845608028654 // sqrt(2/pi)

// The elementwise kernels below have C versions (kernels_cgo.go) that the
// compiler vectorizes; these variables hold them in a cgo build.
var (
	geluFwdKernel     func(out, th, u []float32)
	geluBwdKernel     func(du, dout, u, th []float32)
	softmaxRowsKernel func(s []float32, t, ld, off int)
	softmaxLogpKernel func(z []float32, target int) float32
	attendOneKernel   func(out, q, k, v []float32, ld, tot int, sc []float32, scale float32)
	// attendSharedKernel is attendShared's (cache_share.go).
	attendSharedKernel func(out []float32, oo []int, q []float32, qo []int, k, v []float32, po, plen int, so, ns []int, ld, dh int, sc []float32, scale float32)
)

// geluForward writes out = gelu(u) (tanh approximation) and, when th is
// not nil, the tanh term for the backward pass.
func geluForward(out, th, u []float32) {
	if geluFwdKernel != nil {
		parallelFor(len(u), func(_, lo, hi int) {
			var t []float32
			if th != nil {
				t = th[lo:hi]
			}
			geluFwdKernel(out[lo:hi], t, u[lo:hi])
		})
		return
	}
	parallelFor(len(u), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			x := u[i]
			t := tanhf(geluC * (x + 0.044715*x*x*x))
			if th != nil {
				th[i] = t
			}
			out[i] = 0.5 * x * (1 + t)
		}
	})
}

// geluBackward writes du = dout * gelu'(u), given the forward's tanh terms.
func geluBackward(du, dout, u, th []float32) {
	if geluBwdKernel != nil {
		parallelFor(len(u), func(_, lo, hi int) { geluBwdKernel(du[lo:hi], dout[lo:hi], u[lo:hi], th[lo:hi]) })
		return
	}
	parallelFor(len(u), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			x, t := u[i], th[i]
			dinner := geluC * (1 + 3*0.044715*x*x)
			du[i] = dout[i] * (0.5*(1+t) + 0.5*x*(1-t*t)*dinner)
		}
	})
}

// ropeApply rotates the query and key parts of n rows of qkv (row stride
// 3*dim) in place by the angles of their positions; sign -1 applies the
// inverse rotation, which is also the backward of the forward rotation.
func ropeApply(qkv []float32, pos []int32, n, dim, heads int, cos, sin []float32, sign float32) {
	dh := dim / heads
	half := dh / 2
	parallelFor(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := int(pos[i])
			cs := cos[p*half : p*half+half]
			sn := sin[p*half : p*half+half]
			row := qkv[i*3*dim : i*3*dim+2*dim]
			for h := 0; h < 2*heads; h++ { // q heads then k heads
				x := row[h*dh : h*dh+dh]
				for j := 0; j < half; j++ {
					a, b := x[j], x[j+half]
					c, s := cs[j], sign*sn[j]
					x[j] = a*c - b*s
					x[j+half] = a*s + b*c
				}
			}
		}
	})
}

// softmaxCausal turns the scores s (t rows of width ld, row i covering keys
// [0, off+i]) into probabilities in place, zeroing the masked keys.
func softmaxCausal(s []float32, t, ld, off int) {
	if softmaxRowsKernel != nil {
		softmaxRowsKernel(s, t, ld, off)
		return
	}
	for i := 0; i < t; i++ {
		row := s[i*ld : i*ld+ld]
		n := off + i + 1
		mx := row[0]
		for _, v := range row[1:n] {
			if v > mx {
				mx = v
			}
		}
		var sum float32
		for j := 0; j < n; j++ {
			e := expf(row[j] - mx)
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := 0; j < n; j++ {
			row[j] *= inv
		}
		clear(row[n:])
	}
}

// attentionForward computes causal attention for one sequence of t tokens
// and one head, after tp tokens of a shared prefix (0: none): q, k, v are
// the t rows at stride qs (k and v may be at other offsets of the same
// buffer), kp and vp the prefix's tp key and value rows at stride ks; p
// receives the t x (tp+t) probabilities (row i covers keys [0, tp+i]), out
// the t rows of the head's output at stride os.
func attentionForward(p, out []float32, os int, q, k, v, kp, vp []float32, qs, ks, t, tp, dh int, scale float32) {
	T := tp + t
	if tp > 0 {
		Sgemm(false, true, t, tp, dh, scale, q, qs, kp, ks, 0, p, T)
	}
	Sgemm(false, true, t, t, dh, scale, q, qs, k, ks, 0, p[tp:], T)
	softmaxCausal(p, t, T, tp)
	var beta float32
	if tp > 0 {
		Sgemm(false, false, t, dh, tp, 1, p, T, vp, ks, 0, out, os)
		beta = 1
	}
	Sgemm(false, false, t, dh, t, 1, p[tp:], T, v, ks, beta, out, os)
}

// attentionBackward is the backward of attentionForward: dq, dk, dv are
// written (rows at stride qs / ks); the prefix's dkp and dvp are added to,
// since every sequence that continues a prefix contributes; dp is
// t*(tp+t) scratch.
func attentionBackward(dq, dk, dv, dkp, dvp, dout []float32, os int, p, q, k, v, kp, vp []float32, qs, ks, t, tp, dh int, scale float32, dp []float32) {
	T := tp + t
	// dP = dOut V^T ; dV = P^T dOut
	if tp > 0 {
		Sgemm(false, true, t, tp, dh, 1, dout, os, vp, ks, 0, dp, T)
		Sgemm(true, false, tp, dh, t, 1, p, T, dout, os, 1, dvp, ks)
	}
	Sgemm(false, true, t, t, dh, 1, dout, os, v, ks, 0, dp[tp:], T)
	Sgemm(true, false, t, dh, t, 1, p[tp:], T, dout, os, 0, dv, ks)
	// dS = P * (dP - rowsum(dP*P)) * scale
	for i := 0; i < t; i++ {
		n := tp + i + 1
		pr := p[i*T : i*T+n]
		dr := dp[i*T : i*T+T]
		var s float32
		for j, pv := range pr {
			s += pv * dr[j]
		}
		for j, pv := range pr {
			dr[j] = pv * (dr[j] - s) * scale
		}
		clear(dr[n:])
	}
	// dQ = dS K ; dK = dS^T Q
	var beta float32
	if tp > 0 {
		Sgemm(false, false, t, dh, tp, 1, dp, T, kp, ks, 0, dq, qs)
		Sgemm(true, false, tp, dh, t, 1, dp, T, q, qs, 1, dkp, ks)
		beta = 1
	}
	Sgemm(false, false, t, dh, t, 1, dp[tp:], T, k, ks, beta, dq, qs)
	Sgemm(true, false, t, dh, t, 1, dp[tp:], T, q, qs, 0, dk, ks)
}
