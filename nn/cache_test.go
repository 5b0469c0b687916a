package nn

import (
	"math"
	"testing"
)

// TestCacheMatchesForward checks that incremental decoding (a batched
// prefill, then single tokens, with slot copies) gives the logits of a full
// forward pass on each prefix.
func TestCacheMatchesForward(t *testing.T) {
	m := tinyTestModel(t, 4)
	seqs := [][]int32{{1, 5, 7, 2, 9, 4}, {3, 3, 12, 0, 4, 8, 6, 1}}
	V := m.Cfg.Vocab
	// reference: log-probs of every next token via Forward.
	ref := func(seq []int32, prompt int) []float32 {
		b := &Batch{}
		b.AddSeq(seq, 0, prompt) // the cache's first append is the prompt
		lp, err := m.Forward(b)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), lp...)
	}
	c := m.NewCache(3, 16)
	logits := make([]float32, 3*V)
	// prefill 3 tokens of seq 0 in slot 0 and 2 of seq 1 in slot 2
	if err := c.Append([]int{0, 2}, [][]int32{seqs[0][:3], seqs[1][:2]}, logits); err != nil {
		t.Fatal(err)
	}
	pre := []int{3, 2}
	c.CopySlot(1, 0) // slot 1 is a copy of slot 0
	got := [][]float32{nil, nil}
	lpOf := func(z []float32, tgt int32) float32 {
		buf := append([]float32(nil), z...)
		return softmaxRow(buf, int(tgt))
	}
	got[0] = append(got[0], lpOf(logits[0:V], seqs[0][3]))
	got[1] = append(got[1], lpOf(logits[V:2*V], seqs[1][2]))
	for step := 0; ; step++ {
		var slots []int
		var toks [][]int32
		var which []int
		for i, sl := range []int{0, 2} {
			p := pre[i] + step
			if p+1 < len(seqs[i]) {
				slots = append(slots, sl)
				toks = append(toks, []int32{seqs[i][p]})
				which = append(which, i)
			}
		}
		if len(slots) == 0 {
			break
		}
		if err := c.Append(slots, toks, logits); err != nil {
			t.Fatal(err)
		}
		for k, i := range which {
			p := pre[i] + step
			got[i] = append(got[i], lpOf(logits[k*V:(k+1)*V], seqs[i][p+1]))
		}
	}
	// the cache runs single-query attention (another kernel) and gemms of
	// other shapes than the forward pass: equal up to rounding
	worst := 0.0
	for i, seq := range seqs {
		want := ref(seq, pre[i])[pre[i]-1:]
		if len(want) != len(got[i]) {
			t.Fatalf("seq %d: %d vs %d log-probs", i, len(got[i]), len(want))
		}
		for j := range want {
			tol := lpTol(m.Cfg, 1, float64(want[j]))
			worst = math.Max(worst, math.Abs(float64(want[j]-got[i][j]))/tol)
			if math.Abs(float64(want[j]-got[i][j])) > tol {
				t.Errorf("seq %d pos %d: cache %v forward %v", i, j, got[i][j], want[j])
			}
		}
	}
	// the copied slot continues like the original
	if err := c.Append([]int{1}, [][]int32{{seqs[0][3]}}, logits); err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(float64(lpOf(logits[:V], seqs[0][4]) - got[0][1])); d > lpTol(m.Cfg, 1, float64(got[0][1])) {
		t.Errorf("copied slot differs by %v", d)
	}
	t.Logf("worst difference %.3g of its tolerance", worst)
}
