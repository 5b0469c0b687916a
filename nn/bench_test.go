package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// peerConfig is the model of scripts/torch_tinylm_bench.py (vocab
// 512, d128, 4 heads, FFN 4x, seq 128) in this engine's architecture.
func peerConfig(layers int) Config {
	return Config{Vocab: 512, Dim: 128, Layers: layers, Heads: 4, Hidden: 512, MaxSeq: 128}
}

func lmBatch(r *rand.Rand, bsz, t, vocab int) *Batch {
	b := &Batch{}
	for range bsz {
		seq := make([]int32, t+1)
		for i := range seq {
			seq[i] = int32(r.IntN(vocab))
		}
		b.Add(seq, 0)
	}
	return b
}

// BenchmarkTrain times a full training step (forward, backward, AdamW) of
// the peer's model on B sequences of 128 predicted tokens.
func BenchmarkTrain(b *testing.B) {
	for _, be := range []Backend{BLAS, Go} {
		if be == BLAS && !BLASAvailable() {
			continue
		}
		for _, layers := range []int{2, 4} {
			for _, bsz := range []int{16, 32} {
				b.Run(fmt.Sprintf("%s/L%d/B%d", be, layers, bsz), func(b *testing.B) {
					defer SetBackend(CurrentBackend())
					SetBackend(be)
					cfg := peerConfig(layers)
					cfg.MaxSeq = 129
					m, _ := New(cfg, 1)
					m.EnableGrads()
					opt := NewAdamW(m, 0)
					batch := lmBatch(rand.New(rand.NewPCG(1, 1)), bsz, 128, cfg.Vocab)
					dl := make([]float32, len(batch.Rows))
					for i := range dl {
						dl[i] = -1 / float32(len(dl))
					}
					step := func() {
						m.ZeroGrads()
						if _, err := m.Forward(batch); err != nil {
							b.Fatal(err)
						}
						m.Backward(dl)
						opt.Update(m.Params, m.Grads, 1e-3)
					}
					step()
					for b.Loop() {
						step()
					}
					b.ReportMetric(float64(bsz*128)*float64(b.N)/b.Elapsed().Seconds(), "tok/s")
				})
			}
		}
	}
}

// BenchmarkSample times greedy decoding with the cache: a 16-token prompt
// prefilled at once, then 63 single-token steps, for B sequences.
func BenchmarkSample(b *testing.B) {
	for _, layers := range []int{2, 4} {
		for _, bsz := range []int{1, 8} {
			b.Run(fmt.Sprintf("L%d/B%d", layers, bsz), func(b *testing.B) {
				cfg := peerConfig(layers)
				m, _ := New(cfg, 1)
				r := rand.New(rand.NewPCG(1, 1))
				c := m.NewCache(bsz, 128)
				logits := make([]float32, bsz*cfg.Vocab)
				slots := make([]int, bsz)
				prompt := make([][]int32, bsz)
				for i := range slots {
					slots[i] = i
					for range 16 {
						prompt[i] = append(prompt[i], int32(r.IntN(cfg.Vocab)))
					}
				}
				next := make([][]int32, bsz)
				steps := 0
				for b.Loop() {
					for i := range slots {
						c.Reset(i)
					}
					c.Append(slots, prompt, logits)
					for range 63 {
						for i := range slots {
							next[i] = []int32{int32(argmax(logits[i*cfg.Vocab : (i+1)*cfg.Vocab]))}
						}
						c.Append(slots, next, logits)
						steps++
					}
				}
				b.ReportMetric(float64(bsz*steps)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}

func argmax(z []float32) int {
	best := 0
	for i, v := range z {
		if v > z[best] {
			best = i
		}
	}
	return best
}

// StepFLOPs is the matrix-multiply work of one training step (forward and
// backward) on b: the linear layers, attention's two products per head on
// the full square of each sequence (as computed), and the head on scored
// rows. Elementwise work is not counted.
func StepFLOPs(c Config, b *Batch) float64 {
	d, f := float64(c.Dim), float64(c.Hidden)
	n := float64(len(b.Tokens))
	lin := 2 * n * (3*d*d + d*d + 2*d*f) * float64(c.Layers)
	var att float64
	for s := 0; s < b.NumSeqs(); s++ {
		t := float64(b.Starts[s+1] - b.Starts[s])
		att += 2 * 2 * t * t * d * float64(c.Layers)
	}
	head := 2 * float64(len(b.Rows)) * d * float64(c.Vocab)
	return 3 * (lin + att + head)
}

// BenchmarkPresets measures each preset on SFT-shaped batches (16
// sequences of 320 tokens whose last 64 are scored, vocab 2048): training
// tokens/s, the matmul GFLOP/s that implies and its share of the sgemm
// throughput measured at the model's FFN shape, and greedy sampling
// tokens/s at batch 1 and 8 (64-token prompt, 64 new tokens).
func BenchmarkPresets(b *testing.B) {
	if !BLASAvailable() {
		b.Skip("needs OpenBLAS")
	}
	for _, name := range PresetNames() {
		cfg, _ := Preset(name, 2048)
		r := rand.New(rand.NewPCG(1, 1))
		b.Run(name+"/train", func(b *testing.B) {
			m, _ := New(cfg, 1)
			m.EnableGrads()
			opt := NewAdamW(m, 0.1)
			batch := &Batch{}
			for range 16 {
				seq := make([]int32, 320)
				for i := range seq {
					seq[i] = int32(r.IntN(cfg.Vocab))
				}
				batch.Add(seq, 320-65)
			}
			dl := make([]float32, len(batch.Rows))
			for i := range dl {
				dl[i] = -1 / float32(len(dl))
			}
			step := func() {
				m.ZeroGrads()
				m.Forward(batch)
				m.Backward(dl)
				ClipGrads(m.Grads, 1)
				opt.Update(m.Params, m.Grads, 1e-3)
			}
			step()
			for b.Loop() {
				step()
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			gf := StepFLOPs(cfg, batch) / sec / 1e9
			// sgemm at the FFN's shape: (tokens x dim) x (dim x hidden)
			n := len(batch.Tokens)
			x, w, y := randSlice(r, n*cfg.Dim), randSlice(r, cfg.Dim*cfg.Hidden), make([]float32, n*cfg.Hidden)
			t0 := timeIt(func() { Sgemm(false, false, n, cfg.Hidden, cfg.Dim, 1, x, cfg.Dim, w, cfg.Hidden, 0, y, cfg.Hidden) })
			peak := 2 * float64(n*cfg.Dim*cfg.Hidden) / t0 / 1e9
			b.ReportMetric(float64(len(batch.Tokens))/sec, "tok/s")
			b.ReportMetric(gf, "GFLOP/s")
			b.ReportMetric(100*gf/peak, "%sgemm")
		})
		for _, bsz := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/sample-B%d", name, bsz), func(b *testing.B) {
				m, _ := New(cfg, 1)
				c := m.NewCache(bsz, 128)
				logits := make([]float32, bsz*cfg.Vocab)
				slots := make([]int, bsz)
				prompt := make([][]int32, bsz)
				for i := range slots {
					slots[i] = i
					for range 64 {
						prompt[i] = append(prompt[i], int32(r.IntN(cfg.Vocab)))
					}
				}
				next := make([][]int32, bsz)
				toks := 0
				for b.Loop() {
					for i := range slots {
						c.Reset(i)
					}
					c.Append(slots, prompt, logits)
					for range 64 {
						for i := range slots {
							next[i] = []int32{int32(argmax(logits[i*cfg.Vocab : (i+1)*cfg.Vocab]))}
						}
						c.Append(slots, next, logits)
						toks += bsz
					}
				}
				b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}

// timeIt returns the median seconds of 5 runs of fn.
func timeIt(fn func()) float64 {
	fn()
	var ts []float64
	for range 5 {
		t := time.Now()
		fn()
		ts = append(ts, time.Since(t).Seconds())
	}
	slices.Sort(ts)
	return ts[2]
}

// BenchmarkRLSample times one online RL step's sampling at the flywheel's
// shape, the work scripts/torch_rl_sample_bench.py gives PyTorch: the small
// preset (vocab 2048, pointer head included), 8 prompts of 448 tokens each
// prefilled once and copied to K = 4 slots, then 128 tokens sampled at
// temperature 0.7 for all 32 sequences, at 1 and 2 threads (the flywheel's
// processes run at 1), with the K copies of a prompt sharing its cached rows
// (shared, what CopySlot does) or each holding its own copy (copy, the cache
// before sharing). Completion tokens/s counts the prefill's time too, as a
// step pays it.
func BenchmarkRLSample(b *testing.B) {
	defer SetThreads(gemmWorkers)
	defer func() { shareSlots = true }()
	for _, threads := range []int{1, 2} {
		for _, share := range []bool{false, true} {
			name := map[bool]string{false: "copy", true: "shared"}[share]
			b.Run(fmt.Sprintf("threads%d/%s", threads, name), func(b *testing.B) {
				SetThreads(threads)
				shareSlots = share
				rlSample(b)
			})
		}
	}
}

func rlSample(b *testing.B) {
	const prompts, k, promptLen, newToks = 8, 4, 448, 128
	cfg, err := Preset("small", 2048)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	c := m.NewCache(prompts*k, promptLen+newToks)
	V := cfg.Vocab
	logits := make([]float32, prompts*k*V)
	first := make([]int, prompts)
	prompt := make([][]int32, prompts)
	for i := range prompt {
		first[i] = i * k
		for range promptLen {
			prompt[i] = append(prompt[i], int32(r.IntN(V)))
		}
	}
	all := make([]int, prompts*k)
	for i := range all {
		all[i] = i
	}
	next := make([][]int32, prompts*k)
	probs := make([]float64, V)
	sample := func(z []float32) int32 {
		mx := z[argmax(z)]
		var sum float64
		for i, v := range z {
			probs[i] = math.Exp(float64(v-mx) / 0.7)
			sum += probs[i]
		}
		u := r.Float64() * sum
		for i, p := range probs {
			if u -= p; u <= 0 {
				return int32(i)
			}
		}
		return int32(V - 1)
	}
	var toks int
	for b.Loop() {
		for s := range all {
			c.Reset(s)
		}
		if err := c.Append(first, prompt, logits); err != nil {
			b.Fatal(err)
		}
		for i := prompts - 1; i >= 0; i-- {
			// the prompt's logits move with it: slot i*k reads row i*k
			copy(logits[i*k*V:(i*k+1)*V], logits[i*V:(i+1)*V])
			for j := 1; j < k; j++ {
				c.CopySlot(i*k+j, i*k)
				copy(logits[(i*k+j)*V:(i*k+j+1)*V], logits[i*k*V:(i*k+1)*V])
			}
		}
		for range newToks {
			for s := range all {
				next[s] = []int32{sample(logits[s*V : (s+1)*V])}
			}
			if err := c.Append(all, next, logits); err != nil {
				b.Fatal(err)
			}
			toks += len(all)
		}
	}
	b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tok/s")
}
