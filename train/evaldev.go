package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/policy"
)

// Eval is a dev evaluation: greedy decoding of n questions scored by BIRD
// EX, overall and per difficulty.
type Eval struct {
	N       int                `json:"n"`
	EX      float64            `json:"ex"`
	Levels  map[string]float64 `json:"levels"`
	Counts  map[string]int     `json:"counts"`
	Seconds float64            `json:"seconds"`
}

func (e *Eval) String() string {
	var parts []string
	for _, l := range []string{"simple", "moderate", "challenging"} {
		if n, ok := e.Counts[l]; ok {
			parts = append(parts, fmt.Sprintf("%s %.1f%% (%d)", l, 100*e.Levels[l], n))
		}
	}
	return fmt.Sprintf("dev EX %.1f%% on %d [%s] in %.1fs", 100*e.EX, e.N, strings.Join(parts, ", "), e.Seconds)
}

// EvalDev decodes n dev questions (a seeded sample; n <= 0 or too large
// means all) greedily, under each database's guide when guide is set, and
// scores them by execution.
func EvalDev(ctx context.Context, p *policy.Policy, d *Data, n int, seed uint64, guide bool) (*Eval, error) {
	start := time.Now()
	if d.DevEngine == nil || d.DevPrompter == nil || len(d.Dev) == 0 {
		return nil, fmt.Errorf("train: no dev data to evaluate")
	}
	idx := make([]int, len(d.Dev))
	for i := range idx {
		idx[i] = i
	}
	if n > 0 && n < len(idx) {
		rand.New(rand.NewPCG(seed, 0xde7)).Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:n]
	}
	exs := make([]dataset.Example, len(idx))
	prompts := make([]string, len(idx))
	for k, i := range idx {
		exs[k] = d.Dev[i].Example
		pr, err := d.DevPrompter.Prompt(ctx, exs[k])
		if err != nil {
			return nil, err
		}
		prompts[k] = pr
	}
	so := policy.SampleOptions{MaxTokens: 200, Batch: 32}
	if guide {
		g, err := d.DevPrompter.Guides(ctx, exs, p.Info.SQLWords)
		if err != nil {
			return nil, err
		}
		so.Constrain = g
	}
	outs, _, err := p.Generate(ctx, prompts, so)
	if err != nil {
		return nil, err
	}
	preds := make([]*dataset.Prediction, len(exs))
	for k := range exs {
		preds[k] = &dataset.Prediction{Index: exs[k].Index, QuestionID: exs[k].QuestionID, DBID: exs[k].DBID, SQL: outs[k][0].Text}
	}
	sc := &eval.Scorer{Engine: d.DevEngine, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true}
	rep, err := eval.Run(ctx, sc, exs, preds, eval.Options{Levels: []string{"simple", "moderate", "challenging"}})
	if err != nil {
		return nil, err
	}
	ev := &Eval{N: len(exs), EX: rep.Total.Accuracy / 100, Levels: map[string]float64{}, Counts: map[string]int{}}
	for _, l := range rep.Levels {
		ev.Levels[l.Level] = l.Accuracy / 100
		ev.Counts[l.Level] = l.Count
	}
	ev.Seconds = time.Since(start).Seconds()
	return ev, nil
}
