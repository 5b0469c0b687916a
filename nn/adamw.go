package nn

import "math"

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter), applied
// to tensors whose Tensor.Decay is set. Its state (M, V, Step) is what a
// checkpoint must save for an exact resume.
type AdamW struct {
	Beta1, Beta2, Eps, WeightDecay float64
	Step                           int64
	M, V                           []float32
	decay                          []bool // per parameter tensor
	tensors                        []Tensor
}

// NewAdamW returns an optimizer for m's parameters.
func NewAdamW(m *Model, weightDecay float64) *AdamW {
	ts := m.Cfg.Tensors()
	return &AdamW{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: weightDecay,
		M: make([]float32, len(m.Params)), V: make([]float32, len(m.Params)), tensors: ts}
}

// GradNorm returns the L2 norm of grads, summed in float64 in a fixed order.
func GradNorm(grads []float32) float64 {
	var s float64
	for _, g := range grads {
		s += float64(g) * float64(g)
	}
	return math.Sqrt(s)
}

// ClipGrads scales grads so that their norm is at most maxNorm (when
// maxNorm > 0) and returns the norm before clipping.
func ClipGrads(grads []float32, maxNorm float64) float64 {
	n := GradNorm(grads)
	if maxNorm > 0 && n > maxNorm {
		s := float32(maxNorm / n)
		for i := range grads {
			grads[i] *= s
		}
	}
	return n
}

// Update applies one step with learning rate lr to params given grads.
func (o *AdamW) Update(params, grads []float32, lr float64) {
	o.Step++
	b1, b2 := o.Beta1, o.Beta2
	c1 := 1 - math.Pow(b1, float64(o.Step))
	c2 := 1 - math.Pow(b2, float64(o.Step))
	for _, t := range o.tensors {
		wd := float32(0)
		if t.Decay {
			wd = float32(lr * o.WeightDecay)
		}
		lo, hi := t.Off, t.Off+t.Size()
		step := float32(lr / c1)
		ic2 := float32(1 / c2)
		eps := float32(o.Eps)
		fb1, fb2 := float32(b1), float32(b2)
		parallelFor(hi-lo, func(_, a, b int) {
			p, g, m, v := params[lo+a:lo+b], grads[lo+a:lo+b], o.M[lo+a:lo+b], o.V[lo+a:lo+b]
			for i := range p {
				gi := g[i]
				mi := fb1*m[i] + (1-fb1)*gi
				vi := fb2*v[i] + (1-fb2)*gi*gi
				m[i], v[i] = mi, vi
				p[i] -= step*mi/(float32(math.Sqrt(float64(vi*ic2)))+eps) + wd*p[i]
			}
		})
	}
}
