package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCacheShareMatchesCopy runs the same script of prefills, slot
// copies, decoding steps, resets and mixed appends on a cache whose
// copies share their prefix and on one that copies it, and wants the
// same logits after every append: a sharing slot whose root is reset and
// refilled while it decodes, a copy of a sharing slot (one level deep),
// a several-token append to a sharing slot, and a root overwritten by a
// copy all keep reading the rows they had. It runs the shared attention
// with its kernel and with the pure-Go loop.
func TestCacheShareMatchesCopy(t *testing.T) {
	cfg := Config{Vocab: 50, Dim: 32, Layers: 2, Heads: 2, Hidden: 48, MaxSeq: 64, PrevToken: true, Copy: true, CopyDim: 8}
	m, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range m.Params {
		m.Params[i] = float32(r.NormFloat64() * 0.3)
	}
	kernel := attendSharedKernel
	defer func() { attendSharedKernel, shareSlots = kernel, true }()
	for _, k := range []struct {
		name string
		fn   func(out []float32, oo []int, q []float32, qo []int, k, v []float32, po, plen int, so, ns []int, ld, dh int, sc []float32, scale float32)
	}{{"kernel", kernel}, {"go", nil}} {
		if k.name == "kernel" && kernel == nil {
			continue // a build without the C kernels
		}
		t.Run(k.name, func(t *testing.T) {
			attendSharedKernel = k.fn
			shareSlots = false
			cp := m.NewCache(6, 64)
			shareSlots = true
			sh := m.NewCache(6, 64)
			runShareScript(t, cfg, cp, sh)
		})
	}
}

func runShareScript(t *testing.T, cfg Config, cp, sh *Cache) {
	t.Helper()
	V := cfg.Vocab
	r := rand.New(rand.NewPCG(7, 7))
	seq := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.IntN(V))
		}
		return s
	}
	lc, ls := make([]float32, 6*V), make([]float32, 6*V)
	step := 0
	worst, exact := 0.0, true
	app := func(slots []int, toks [][]int32) {
		t.Helper()
		step++
		if err := cp.Append(slots, toks, lc); err != nil {
			t.Fatalf("append %d, copying cache: %v", step, err)
		}
		if err := sh.Append(slots, toks, ls); err != nil {
			t.Fatalf("append %d, sharing cache: %v", step, err)
		}
		for i := range len(slots) * V {
			d := math.Abs(float64(lc[i] - ls[i]))
			exact = exact && d == 0
			worst = max(worst, d)
			if d > 1e-5*(1+math.Abs(float64(lc[i]))) {
				t.Fatalf("append %d, slot %d, logit %d: copying %v, sharing %v", step, slots[i/V], i%V, lc[i], ls[i])
			}
		}
		checkShares(t, sh)
	}
	both := func(f func(c *Cache)) { f(cp); f(sh) }
	decode := func(slots ...int) {
		t.Helper()
		toks := make([][]int32, len(slots))
		for i := range toks {
			toks[i] = seq(1)
		}
		app(slots, toks)
	}
	all := []int{0, 1, 2, 3, 4, 5}
	app([]int{0, 3}, [][]int32{seq(20), seq(15)})
	both(func(c *Cache) { c.CopySlot(1, 0); c.CopySlot(2, 0); c.CopySlot(4, 3); c.CopySlot(5, 3) })
	if sh.sharers[0] != 2 || sh.sharers[3] != 2 || sh.root[1] != 0 || sh.plen[5] != 15 {
		t.Fatalf("after the copies: roots %v, prefixes %v, sharers %v", sh.root, sh.plen, sh.sharers)
	}
	for range 5 {
		decode(all...)
	}
	// the root of 1 and 2 finishes; its slot takes a new prompt in the
	// same append as the others' next tokens
	both(func(c *Cache) { c.Reset(0) })
	app(all, [][]int32{seq(10), seq(1), seq(1), seq(1), seq(1), seq(1)})
	// a copy of a sharing slot onto a sharing slot
	both(func(c *Cache) { c.CopySlot(2, 4) })
	if sh.root[2] != 3 || sh.plen[2] != 15 {
		t.Fatalf("copy of slot 4 (sharing slot 3's 15 positions): slot 2 shares %d positions of slot %d", sh.plen[2], sh.root[2])
	}
	for range 3 {
		decode(all...)
	}
	// several tokens for a sharing slot, one for the others
	app(all, [][]int32{seq(1), seq(1), seq(1), seq(1), seq(1), seq(3)})
	// a root overwritten by a copy of another
	both(func(c *Cache) { c.CopySlot(3, 0) })
	for range 3 {
		decode(all...)
	}
	decode(2, 4) // a group without its root
	t.Logf("%d appends, largest difference %.3g (bitwise equal: %v)", step, worst, exact)
}

// checkShares checks the sharing bookkeeping: every root's count of
// sharers, one level deep, prefixes within the root's rows.
func checkShares(t *testing.T, c *Cache) {
	t.Helper()
	n := make([]int, c.slots)
	for s, r := range c.root {
		if r < 0 {
			continue
		}
		n[r]++
		if c.root[r] >= 0 || c.plen[s] > c.lens[r] || c.plen[s] > c.lens[s] {
			t.Fatalf("slot %d shares %d positions of slot %d (len %d, itself sharing with %d)", s, c.plen[s], r, c.lens[r], c.root[r])
		}
	}
	for s := range n {
		if n[s] != c.sharers[s] {
			t.Fatalf("slot %d: %d sharers counted, %d share it", s, c.sharers[s], n[s])
		}
	}
}
