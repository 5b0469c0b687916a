package loss

import "fmt"

// AddNLL adds to a preference loss the supervised term of RPO (Pang et
// al., "Iterative Reasoning Preference Optimization", 2024, who add it to
// DPO) on the samples keep marks (KTO's desirable ones):
//
//	loss += w · (1/|D|) Σ_{i∈D} -mean_i,   mean_i = (1/T_i) Σ_t log π(y_t | ...)
//
// so d loss / d mean_i = -w/|D| for i in D. KTO alone moves a desirable
// sample by β·σ'(·) ≤ β/4 per token of its log-ratio, a fraction of what
// SFT's NLL gives the gold SQL; the term lets the correct samples teach
// as SFT examples do (rejection-sampling fine-tuning inside the online
// loop) while KTO keeps pushing the failures down. A batch with no
// desirable sample adds nothing.
func AddNLL(g *Grad, mean []float64, keep []bool, w float64) error {
	if len(mean) != len(keep) {
		return fmt.Errorf("nll: %d means for %d labels", len(mean), len(keep))
	}
	if w <= 0 {
		return nil
	}
	var n int
	for _, k := range keep {
		if k {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if g.DMean == nil {
		g.DMean = make([]float64, len(mean))
	}
	if len(g.DMean) != len(mean) {
		return fmt.Errorf("nll: %d mean gradients for %d sequences", len(g.DMean), len(mean))
	}
	var nll float64
	for i, k := range keep {
		if k {
			nll -= mean[i]
			g.DMean[i] -= w / float64(n)
		}
	}
	nll /= float64(n)
	g.Loss += w * nll
	if g.Stats == nil {
		g.Stats = map[string]float64{}
	}
	g.Stats["nll"] = nll
	return nil
}
