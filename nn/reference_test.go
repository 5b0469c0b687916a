package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// reference is nn/testdata/reference.json, written by
// scripts/nn_reference.py: PyTorch's float64 log-probabilities, loss and
// gradients for a tiny model whose weights both sides generate (refWeight).
type reference struct {
	Config struct {
		Vocab   int `json:"vocab"`
		Dim     int `json:"dim"`
		Layers  int `json:"layers"`
		Heads   int `json:"heads"`
		Hidden  int `json:"hidden"`
		MaxSeq  int `json:"max_seq"`
		CopyDim int `json:"copy_dim"`
	} `json:"config"`
	Sequences []struct {
		Tokens    []int32 `json:"tokens"`
		Start     int     `json:"start"`
		CopyLimit int     `json:"copy_limit"`
	} `json:"sequences"`
	Coef        []float64            `json:"coef"`
	ParamSum    float64              `json:"param_sum"`
	ParamAbsSum float64              `json:"param_abs_sum"`
	Logp        []float64            `json:"logp"`
	Loss        float64              `json:"loss"`
	Grads       map[string][]float64 `json:"grads"`
}

func loadReference(t *testing.T) *reference {
	t.Helper()
	const path = "testdata/reference.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var r reference
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return &r
}

// refWeight is scripts/nn_reference.py's weight(): parameter k of the flat
// vector from an integer hash of k (uint32 arithmetic, as the script masks
// to 32 bits), uniform in [-0.5, 0.5); norm gains are 1 + u/2.
func refWeight(name string, k int) float32 {
	h := uint32(k+1) * 2654435761
	h ^= h >> 15
	h *= 2246822519
	h ^= h >> 13
	u := float64(h)/4294967296.0 - 0.5
	if strings.HasSuffix(name, "ln1") || strings.HasSuffix(name, "ln2") || name == "lnf" {
		return float32(1 + u/2)
	}
	return float32(u)
}

// TestPyTorchReference runs nn's forward and backward on the reference's
// model and batch, on every gemm backend, whole and with the prompted
// sequence's first tokens as a shared prefix (Batch.AddContinuation), and
// compares the log-probabilities, the loss and every parameter gradient
// with PyTorch's float64 values.
//
// Tolerances (lpTol and gradTol, numtest.Tol: n·ε₃₂·magnitude): nn
// computes in float32 with Cephes' exp (2 ulp), float32 rotary tables and
// float32 softmax sums, so it cannot match float64 exactly; the worst
// difference is logged as a fraction of its tolerance (about 0.1-0.2).
// Changing RMSNorm's epsilon from 1e-5 to 1e-6, which the finite
// differences do not see, fails this test.
func TestPyTorchReference(t *testing.T) {
	ref := loadReference(t)
	rc := ref.Config
	cfg := Config{Vocab: rc.Vocab, Dim: rc.Dim, Layers: rc.Layers, Heads: rc.Heads, Hidden: rc.Hidden,
		MaxSeq: rc.MaxSeq, PrevToken: true, Copy: true, CopyDim: rc.CopyDim}
	params := make([]float32, cfg.NumParams())
	var sum, abs float64
	for _, ts := range cfg.Tensors() {
		for i := range ts.Size() {
			v := refWeight(ts.Name, ts.Off+i)
			params[ts.Off+i] = v
			sum += float64(v)
			abs += math.Abs(float64(v))
		}
	}
	if math.Abs(sum-ref.ParamSum) > 1e-9*abs || math.Abs(abs-ref.ParamAbsSum) > 1e-9*abs {
		t.Fatalf("weights differ from the script's: sum %v, |sum| %v; reference %v, %v", sum, abs, ref.ParamSum, ref.ParamAbsSum)
	}
	whole := &Batch{}
	for _, s := range ref.Sequences {
		whole.AddSeq(s.Tokens, s.Start, s.CopyLimit)
	}
	// the prompted sequence as a prefix (its first tokens, up to its
	// first scored position) and a continuation
	prefixed := &Batch{}
	s0, s1 := ref.Sequences[0], ref.Sequences[1]
	prefixed.AddSeq(s0.Tokens, s0.Start, s0.CopyLimit)
	prefixed.AddSeq(s1.Tokens[:s1.Start], s1.Start, 0)
	prefixed.AddContinuation(1, s1.Tokens[s1.Start:], 0, s1.CopyLimit)
	if len(whole.Rows) != len(ref.Logp) || len(prefixed.Rows) != len(ref.Logp) {
		t.Fatalf("batch scores %d and %d rows, reference %d", len(whole.Rows), len(prefixed.Rows), len(ref.Logp))
	}
	backends := []Backend{Go}
	if BLASAvailable() {
		backends = append(backends, BLAS)
	}
	for _, be := range backends {
		for _, bc := range []struct {
			name string
			b    *Batch
		}{{"whole", whole}, {"prefix", prefixed}} {
			t.Run(fmt.Sprintf("%s/%s", be, bc.name), func(t *testing.T) {
				defer SetBackend(CurrentBackend())
				if err := SetBackend(be); err != nil {
					t.Fatal(err)
				}
				m, err := FromParams(cfg, append([]float32(nil), params...))
				if err != nil {
					t.Fatal(err)
				}
				m.EnableGrads()
				lp, err := m.Forward(bc.b)
				if err != nil {
					t.Fatal(err)
				}
				dlogp := make([]float32, len(lp))
				var loss float64
				worst := 0.0
				for i, want := range ref.Logp {
					got := float64(lp[i])
					loss -= ref.Coef[i] * got
					dlogp[i] = float32(-ref.Coef[i])
					tol := lpTol(cfg, 1, want)
					worst = math.Max(worst, math.Abs(got-want)/tol)
					if math.Abs(got-want) > tol {
						t.Errorf("log-prob %d: nn %.7g, PyTorch %.7g (tolerance %.2g)", i, got, want, tol)
					}
				}
				if tol := lpTol(cfg, 1, ref.Loss); math.Abs(loss-ref.Loss) > tol {
					t.Errorf("loss: nn %.7g, PyTorch %.7g", loss, ref.Loss)
				}
				if err := m.Backward(dlogp); err != nil {
					t.Fatal(err)
				}
				for _, ts := range cfg.Tensors() {
					want := ref.Grads[ts.Name]
					if len(want) != ts.Size() {
						t.Fatalf("%s: reference has %d gradients, the model %d", ts.Name, len(want), ts.Size())
					}
					tol := gradTol(cfg, len(bc.b.Tokens), want)
					bad := 0
					for i, w := range want {
						got := float64(m.Grads[ts.Off+i])
						worst = math.Max(worst, math.Abs(got-w)/tol)
						if math.Abs(got-w) > tol {
							if bad++; bad <= 3 {
								t.Errorf("%s[%d]: nn %.7g, PyTorch %.7g (tolerance %.2g)", ts.Name, i, got, w, tol)
							}
						}
					}
				}
				t.Logf("worst error %.3g of its tolerance", worst)
			})
		}
	}
}
