package nn

import (
	"fmt"
	"math/rand/v2"
)

// ValueHead is a scalar value estimate V(s_t) = w·h_t + b read off the
// policy's final hidden state h_t (after the final RMSNorm) at each scored
// position, the critic of PPO. It shares the trunk with the policy instead
// of being a second transformer: on two cores a second model would double
// every step, while the head costs one dot product per completion token.
//
// The head keeps its own parameters, gradients and optimizer (NewAdamW),
// so that the policy's checkpoint, optimizer state and parameter count
// stay what they are without PPO, and a value loss can train the head
// alone (the trunk frozen for the critic) or, with Backward's trunk flag,
// the shared trunk as well.
//
// Row t of a Batch predicts token t+1, so its hidden state has seen the
// prompt and the completion's tokens before the one it scores: the value
// at row t is the value of the state in which that token is chosen,
// aligned with the log-probability Forward returns for it.
type ValueHead struct {
	// Dim is the model width the head reads.
	Dim int
	// Params holds the weights (Dim) then the bias, as Tensors says.
	Params []float32
	// Grads has Params' layout; nil until EnableGrads.
	Grads []float32

	model  *Model    // whose Forward the last Forward read
	h      []float32 // a copy of the hidden states it read, [p][Dim]
	values []float32
	dh     []float32
}

// NewValueHead returns a head for models of width dim with weights drawn
// from N(0, 0.02²), the initialisation of the model's matrices, and a zero
// bias: the values start small, and deterministic in seed.
func NewValueHead(dim int, seed uint64) (*ValueHead, error) {
	if dim < 1 {
		return nil, fmt.Errorf("nn: value head of width %d", dim)
	}
	v := &ValueHead{Dim: dim, Params: make([]float32, dim+1)}
	r := rand.New(rand.NewPCG(seed, 0x7a1e))
	for i := range dim {
		v.Params[i] = float32(r.NormFloat64() * 0.02)
	}
	return v, nil
}

// ValueHeadFromParams wraps an existing parameter vector (not copied), as
// read from a file SaveValueHead wrote.
func ValueHeadFromParams(dim int, params []float32) (*ValueHead, error) {
	if dim < 1 || len(params) != dim+1 {
		return nil, fmt.Errorf("nn: %d parameters for a value head of width %d (want %d)", len(params), dim, dim+1)
	}
	return &ValueHead{Dim: dim, Params: params}, nil
}

// Tensors lists the head's parameter tensors: the weights decay as the
// model's matrices do, the bias does not (it is the mean value, which
// decay would pull toward 0 for no reason).
func (v *ValueHead) Tensors() []Tensor {
	return []Tensor{
		{Name: "value.w", Off: 0, Rows: 1, Cols: v.Dim, Decay: true},
		{Name: "value.b", Off: v.Dim, Rows: 1, Cols: 1, Decay: false},
	}
}

// EnableGrads allocates the gradient vector (zeroed).
func (v *ValueHead) EnableGrads() {
	if v.Grads == nil {
		v.Grads = make([]float32, len(v.Params))
	}
}

// ZeroGrads clears the gradients.
func (v *ValueHead) ZeroGrads() { clear(v.Grads) }

// NewAdamW returns an optimizer for the head's parameters (Update it with
// v.Params and v.Grads); its moments are saved as the model's are, M then
// V in one tensor file.
func (v *ValueHead) NewAdamW(weightDecay float64) *AdamW {
	return &AdamW{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: weightDecay,
		M: make([]float32, len(v.Params)), V: make([]float32, len(v.Params)), tensors: v.Tensors()}
}

// Save writes the parameters to path in the tensor file format.
func (v *ValueHead) Save(path string) error { return SaveFloats(path, v.Params) }

// LoadValueHead reads a head of width dim that Save wrote.
func LoadValueHead(path string, dim int) (*ValueHead, error) {
	p, err := LoadFloats(path, dim+1)
	if err != nil {
		return nil, fmt.Errorf("load value head: %w", err)
	}
	return ValueHeadFromParams(dim, p)
}

// Hidden returns the final hidden states (after the final RMSNorm) of the
// scored positions of the last Forward, [len(Rows)][Dim] in the order of
// Batch.Rows: what the vocabulary and pointer heads read, exposed so that
// another head reads them without a second pass. The slice aliases the
// model's buffers and is overwritten by the next Forward.
func (m *Model) Hidden() ([]float32, error) {
	if m.ws == nil || m.ws.batch == nil {
		return nil, fmt.Errorf("nn: Hidden without Forward")
	}
	return m.ws.hsel[:m.ws.nsel*m.Cfg.Dim], nil
}

// AddHiddenGrad stages dL/dHidden, the gradient of a loss of another head
// with respect to Hidden, for the next Backward, which adds it to the
// vocabulary and pointer heads' gradient before backpropagating through
// the trunk: one Backward then carries the log-probability loss and the
// head's loss together, at the cost of one trunk pass. Calls before one
// Backward add up; a Forward drops what was staged and not used. Only
// the trunk's gradient is affected: dlogp = 0 in Backward backpropagates the
// staged gradient alone.
func (m *Model) AddHiddenGrad(dh []float32) error {
	ws := m.ws
	if ws == nil || ws.batch == nil {
		return fmt.Errorf("nn: AddHiddenGrad without Forward")
	}
	if m.Grads == nil {
		return fmt.Errorf("nn: AddHiddenGrad on a model without gradients (EnableGrads)")
	}
	if n := ws.nsel * m.Cfg.Dim; len(dh) != n {
		return fmt.Errorf("nn: hidden gradient of %d values for %d scored positions of width %d", len(dh), ws.nsel, m.Cfg.Dim)
	}
	if !ws.auxPending {
		ws.dhselAux = grow(ws.dhselAux, len(dh))
		copy(ws.dhselAux, dh)
		ws.auxPending = true
		return nil
	}
	addTo(ws.dhselAux, dh)
	return nil
}

// Forward returns the value of each scored position of m's last Forward
// (aligned with its log-probabilities). It reads the hidden states without
// recomputing them and keeps a copy for Backward, so that the head can be
// trained after the model's Backward has run. The returned slice is
// reused by the next call.
func (v *ValueHead) Forward(m *Model) ([]float32, error) {
	if m.Cfg.Dim != v.Dim {
		return nil, fmt.Errorf("nn: value head of width %d on a model of width %d", v.Dim, m.Cfg.Dim)
	}
	h, err := m.Hidden()
	if err != nil {
		return nil, err
	}
	p := len(h) / v.Dim
	v.model = m
	v.h = grow(v.h, len(h))
	copy(v.h, h)
	v.values = grow(v.values, p)
	valueForward(v.values, v.h, v.Params, p, v.Dim)
	return v.values, nil
}

// Backward adds into the head's gradients the gradient of a loss whose
// derivative with respect to each value of the last Forward is dvalue.
// With trunk, it also stages the loss's gradient with respect to the
// hidden states in the model (AddHiddenGrad), so that the model's next
// Backward, for the same Forward, carries it into the shared trunk: call
// it before the model's Backward. Without trunk the model is not touched
// (it need not have gradients), which trains the critic on a frozen trunk.
func (v *ValueHead) Backward(dvalue []float32, trunk bool) error {
	if v.model == nil {
		return fmt.Errorf("nn: value head Backward without Forward")
	}
	if v.Grads == nil {
		return fmt.Errorf("nn: value head Backward without gradients (EnableGrads)")
	}
	if len(dvalue) != len(v.values) {
		return fmt.Errorf("nn: %d value gradients for %d values", len(dvalue), len(v.values))
	}
	p, d := len(v.values), v.Dim
	var dh []float32
	if trunk {
		v.dh = grow(v.dh, p*d)
		dh = v.dh
	}
	valueBackward(dh, v.Grads, dvalue, v.h, v.Params, p, d)
	if trunk {
		return v.model.AddHiddenGrad(dh)
	}
	return nil
}

// valueForward writes out[i] = w·h_i + b for p rows h_i of width d, with
// params = w (d) then b.
func valueForward(out, h, params []float32, p, d int) {
	Sgemm(false, false, p, 1, d, 1, h, d, params[:d], 1, 0, out, 1)
	b := params[d]
	for i := range out[:p] {
		out[i] += b
	}
}

// valueBackward adds into grads (w then b) the gradient given dout, the
// derivative with respect to each value, and writes dh (when not nil),
// the derivative with respect to each row h_i: dout_i·w.
func valueBackward(dh, grads, dout, h, params []float32, p, d int) {
	Sgemm(true, false, d, 1, p, 1, h, d, dout, 1, 1, grads[:d], 1)
	var db float64 // fixed order, in float64: p terms of either sign
	for _, g := range dout[:p] {
		db += float64(g)
	}
	grads[d] += float32(db)
	if dh != nil {
		Sgemm(false, true, p, d, 1, 1, dout, 1, params[:d], 1, 0, dh, d)
	}
}
