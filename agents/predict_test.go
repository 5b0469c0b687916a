package agents

import "testing"

// TestPredictDecodeOptions: -n 1 at temperature 0 is one greedy decode,
// -n 1 above it one sample, -n K samples with the greedy decode when it
// answers or votes.
func TestPredictDecodeOptions(t *testing.T) {
	for _, c := range []struct {
		n            int
		temp         float64
		greedy, vote bool
		wantGreedy   bool
		wantSamples  int
	}{
		{1, 0, true, false, true, 0},
		{1, 0.7, true, false, false, 1},
		{8, 0.7, true, false, true, 8},
		{8, 0.7, false, false, false, 8},
		{8, 0.7, false, true, true, 8},
	} {
		o := DefaultPredictOptions()
		o.N, o.Temperature, o.Greedy, o.Vote = c.n, c.temp, c.greedy, c.vote
		do := o.decodeOptions([]string{"SELECT"})
		if do.Greedy != c.wantGreedy || do.Samples != c.wantSamples || do.MaxTokens != 256 || !do.Guide || len(do.Words) != 1 {
			t.Errorf("%+v: decode options %+v", c, do)
		}
		if err := o.Check(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	o := DefaultPredictOptions()
	o.TopP = 0
	if o.Check() == nil {
		t.Error("top-p 0 accepted")
	}
}
