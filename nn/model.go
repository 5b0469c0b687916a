package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Config is a model's architecture.
type Config struct {
	Vocab  int `json:"vocab"`
	Dim    int `json:"dim"`
	Layers int `json:"layers"`
	Heads  int `json:"heads"`
	// Hidden is the width of the feed-forward layer (usually 4*Dim).
	Hidden int `json:"hidden"`
	// MaxSeq is the longest sequence (prompt and completion) the model
	// runs; rotary positions have no table limit, but caches are sized by it.
	MaxSeq int `json:"max_seq"`
	// RopeBase is the rotary embedding's base (10000 when 0).
	RopeBase float64 `json:"rope_base"`
	// PrevToken adds to each position's input an embedding of the previous
	// token (a second table, wprev): the "smeared key" that lets one
	// attention layer find where a token occurred before and continue from
	// there, which is how a name is copied from the prompt piece by piece.
	PrevToken bool `json:"prev_token,omitempty"`
	// Copy adds a pointer head: the next-token distribution becomes
	// g*softmax(head) + (1-g)*copy, where copy puts on each token the
	// attention (query from the position, keys from the earlier positions
	// of the sequence up to its Batch.CopyLimit, the prompt, in CopyDim
	// dimensions) paid to the positions holding it, and the gate g is a
	// sigmoid of the position's state. Copying a
	// schema name or a value from the prompt is then one attention away
	// instead of a circuit to discover. A pointer score also gets learned,
	// state-dependent bonuses β₁·[x_{j-1} = x_t] where the token before
	// position j equals the current token, and β₂·[x_{j-2..j-1} =
	// x_{t-1..t}] where the two tokens before it equal the last two: the
	// induction rule ("continue where this occurred"), which holds for any
	// token, so names made of rare pieces are copied whole (the second
	// order tells apart the many places that follow a "_").
	Copy    bool `json:"copy,omitempty"`
	CopyDim int  `json:"copy_dim,omitempty"`
}

// Presets are the named model sizes.
var Presets = map[string]Config{
	// tiny trains an epoch of the bundled benchmark in about a minute on
	// two cores.
	"tiny": {Dim: 128, Layers: 2, Heads: 4, Hidden: 512, MaxSeq: 768, PrevToken: true, Copy: true},
	// small is the recipe for the bundled benchmark: 10 epochs in about
	// 18 minutes on two cores.
	"small": {Dim: 128, Layers: 4, Heads: 4, Hidden: 512, MaxSeq: 768, PrevToken: true, Copy: true},
	// base is for larger data and more time (hours on a CPU).
	"base": {Dim: 256, Layers: 6, Heads: 8, Hidden: 1024, MaxSeq: 1024, PrevToken: true, Copy: true},
}

// PresetNames lists the presets, smallest first.
func PresetNames() []string { return []string{"tiny", "small", "base"} }

// Preset returns the named preset with the vocabulary size filled in.
func Preset(name string, vocab int) (Config, error) {
	c, ok := Presets[name]
	if !ok {
		names := PresetNames()
		sort.Strings(names)
		return Config{}, fmt.Errorf("unknown model preset %q (want one of %v)", name, PresetNames())
	}
	c.Vocab = vocab
	return c, nil
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Vocab < 2 || c.Dim < 2 || c.Layers < 1 || c.Heads < 1 || c.Hidden < 1 || c.MaxSeq < 2:
		return fmt.Errorf("nn: bad config %+v", c)
	case c.Dim%c.Heads != 0:
		return fmt.Errorf("nn: dim %d is not a multiple of heads %d", c.Dim, c.Heads)
	case (c.Dim/c.Heads)%2 != 0:
		return fmt.Errorf("nn: head size %d must be even for rotary embeddings", c.Dim/c.Heads)
	}
	return nil
}

func (c Config) headDim() int { return c.Dim / c.Heads }

func (c Config) copyDim() int {
	if c.CopyDim > 0 {
		return c.CopyDim
	}
	return max(1, c.Dim/2)
}

func (c Config) ropeBase() float64 {
	if c.RopeBase == 0 {
		return 10000
	}
	return c.RopeBase
}

// Tensor describes one named parameter tensor inside the flat parameter
// vector.
type Tensor struct {
	Name       string
	Off        int
	Rows, Cols int
	// Decay says whether AdamW's weight decay applies (matrices, not norm
	// gains).
	Decay bool
}

// Size is the tensor's element count.
func (t Tensor) Size() int { return t.Rows * t.Cols }

// Tensors lists the parameter tensors of c in storage order.
func (c Config) Tensors() []Tensor {
	var ts []Tensor
	off := 0
	add := func(name string, r, cols int, decay bool) {
		ts = append(ts, Tensor{Name: name, Off: off, Rows: r, Cols: cols, Decay: decay})
		off += r * cols
	}
	d, f := c.Dim, c.Hidden
	add("wte", c.Vocab, d, true)
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("layer%d.", l)
		add(p+"ln1", 1, d, false)
		add(p+"wqkv", d, 3*d, true)
		add(p+"wo", d, d, true)
		add(p+"ln2", 1, d, false)
		add(p+"w1", d, f, true)
		add(p+"w2", f, d, true)
	}
	add("lnf", 1, d, false)
	if c.PrevToken {
		add("wprev", c.Vocab, d, true)
	}
	if c.Copy {
		add("wcq", d, c.copyDim(), true)
		add("wck", d, c.copyDim(), true)
		add("wgate", 1, d+1, false) // gate weights and bias
		add("wbeta", 2, d+1, false) // continuation bonuses (1 and 2 tokens): weights and bias
	}
	return ts
}

// NumParams is the number of parameters of c.
func (c Config) NumParams() int {
	ts := c.Tensors()
	last := ts[len(ts)-1]
	return last.Off + last.Size()
}

type layerW struct{ ln1, wqkv, wo, ln2, w1, w2 []float32 }

type weights struct {
	wte    []float32
	layers []layerW
	lnf    []float32
	wprev  []float32 // nil without PrevToken
	// pointer head (nil without Copy)
	wcq, wck, wgate, wbeta []float32
}

func (c Config) view(buf []float32) weights {
	ts := c.Tensors()
	get := func(i int) []float32 { t := ts[i]; return buf[t.Off : t.Off+t.Size() : t.Off+t.Size()] }
	w := weights{wte: get(0), layers: make([]layerW, c.Layers)}
	for l := 0; l < c.Layers; l++ {
		b := 1 + 6*l
		w.layers[l] = layerW{ln1: get(b), wqkv: get(b + 1), wo: get(b + 2), ln2: get(b + 3), w1: get(b + 4), w2: get(b + 5)}
	}
	w.lnf = get(1 + 6*c.Layers)
	k := 2 + 6*c.Layers
	if c.PrevToken {
		w.wprev = get(k)
		k++
	}
	if c.Copy {
		w.wcq, w.wck, w.wgate, w.wbeta = get(k), get(k+1), get(k+2), get(k+3)
	}
	return w
}

// Model is a decoder-only transformer: token embeddings tied to the output
// head, pre-norm blocks of RMSNorm, causal multi-head attention with rotary
// positions, and a GELU feed-forward layer, without biases. Its forward and
// backward passes are written out by hand over a flat parameter vector;
// matrix products go through Sgemm.
//
// A Model is not safe for concurrent training calls; inference through a
// Cache only reads the parameters, so several caches may run on one model
// while it is not being trained.
type Model struct {
	Cfg Config
	// Params holds every parameter, laid out as Cfg.Tensors() says.
	Params []float32
	// Grads has Params' layout; nil until EnableGrads.
	Grads []float32

	w, g     weights
	cos, sin []float32 // [MaxSeq][headDim/2], grown on demand
	ws       *workspace
}

// New returns a model with parameters drawn from N(0, 0.02²) (residual
// projections scaled by 1/sqrt(2*layers)) and norm gains of 1.
func New(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, Params: make([]float32, cfg.NumParams())}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for _, t := range cfg.Tensors() {
		p := m.Params[t.Off : t.Off+t.Size()]
		if t.Name == "wgate" || t.Name == "wbeta" {
			clear(p) // g = 0.5 everywhere at the start, no continuation bonus
			continue
		}
		if !t.Decay {
			for i := range p {
				p[i] = 1
			}
			continue
		}
		std := 0.02
		if len(t.Name) > 3 && (t.Name[len(t.Name)-3:] == ".wo" || t.Name[len(t.Name)-3:] == ".w2") {
			std /= math.Sqrt(2 * float64(cfg.Layers))
		}
		for i := range p {
			p[i] = float32(r.NormFloat64() * std)
		}
	}
	m.w = cfg.view(m.Params)
	m.initRope()
	return m, nil
}

// FromParams wraps an existing parameter vector (it is not copied).
func FromParams(cfg Config, params []float32) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(params) != cfg.NumParams() {
		return nil, fmt.Errorf("nn: %d parameters for a config of %d", len(params), cfg.NumParams())
	}
	m := &Model{Cfg: cfg, Params: params}
	m.w = cfg.view(m.Params)
	m.initRope()
	return m, nil
}

// Clone returns a deep copy of the parameters as a new model without
// gradients: a frozen reference policy.
func (m *Model) Clone() *Model {
	c, _ := FromParams(m.Cfg, append([]float32(nil), m.Params...))
	return c
}

// EnableGrads allocates the gradient vector (zeroed).
func (m *Model) EnableGrads() {
	if m.Grads == nil {
		m.Grads = make([]float32, len(m.Params))
		m.g = m.Cfg.view(m.Grads)
	}
}

// ZeroGrads clears the gradients.
func (m *Model) ZeroGrads() { clear(m.Grads) }

// initRope fills the rotary tables for positions [0, MaxSeq).
func (m *Model) initRope() {
	half := m.Cfg.headDim() / 2
	n := m.Cfg.MaxSeq
	m.cos, m.sin = make([]float32, n*half), make([]float32, n*half)
	base := m.Cfg.ropeBase()
	for p := 0; p < n; p++ {
		for i := 0; i < half; i++ {
			theta := float64(p) * math.Pow(base, -2*float64(i)/float64(2*half))
			m.cos[p*half+i] = float32(math.Cos(theta))
			m.sin[p*half+i] = float32(math.Sin(theta))
		}
	}
}
