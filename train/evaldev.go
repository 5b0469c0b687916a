package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Eval is a dev evaluation: greedy decoding of n questions scored by BIRD
// EX, overall and per difficulty.
type Eval struct {
	N       int                `json:"n"`
	EX      float64            `json:"ex"`
	Levels  map[string]float64 `json:"levels"`
	Counts  map[string]int     `json:"counts"`
	Seconds float64            `json:"seconds"`
	// Pruned, Bare and Shortened count the prompts fitted to the model's
	// context by leaving out tables, column comments or completion budget;
	// Failed counts the questions that could not fit at all, scored wrong.
	// They say how much of EX was decoded from less than the full schema.
	Pruned    int `json:"pruned,omitempty"`
	Bare      int `json:"bare,omitempty"`
	Shortened int `json:"shortened,omitempty"`
	Failed    int `json:"failed,omitempty"`
	// Report is the evaluation question by question (predictions and
	// verdicts), for comparing two models on the same questions
	// (eval.Compare); not logged.
	Report *eval.Report `json:"-"`
}

// DevMaxTokens is the completion budget of a dev evaluation: sqlrl
// generate's default -max-tokens, because the budget decides how much of
// the context a prompt may take and so which tables a fitted prompt keeps;
// with the same budget a run's dev EX is the one generate gives.
const DevMaxTokens = 256

// String is Summary of a dev evaluation, as training logs it.
func (e *Eval) String() string { return "dev " + e.Summary() }

// Summary is String without naming the split: EX, by level, the fitting.
func (e *Eval) Summary() string {
	var parts []string
	for _, l := range []string{"simple", "moderate", "challenging"} {
		if n := e.Counts[l]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f%% (%d)", l, 100*e.Levels[l], n))
		}
	}
	s := fmt.Sprintf("EX %.1f%% on %d [%s] in %.1fs", 100*e.EX, e.N, strings.Join(parts, ", "), e.Seconds)
	if e.Pruned+e.Bare+e.Shortened+e.Failed > 0 {
		s += fmt.Sprintf("; fitted to the context: %d pruned, %d without column comments, %d with max tokens cut, %d did not fit (scored wrong)",
			e.Pruned, e.Bare, e.Shortened, e.Failed)
	}
	return s
}

// EvalDev decodes n dev questions (a seeded sample; n <= 0 or too large
// means all) greedily and scores them by execution. Prompts are fitted to
// the model's context and guided (when guide is set) by the schema they
// show, exactly as sqlrl generate does, so that the EX a run logs is the
// one generate reproduces from its checkpoint; a question that cannot fit
// is scored wrong and counted in Eval.Failed rather than stopping training.
func EvalDev(ctx context.Context, p *policy.Policy, d *Data, n int, seed uint64, guide bool) (*Eval, error) {
	return EvalDevWith(ctx, p, d, n, seed, guide, EvalOptions{})
}

// EvalOptions are how an evaluation decodes beyond EvalDev's greedy
// decode: by vote when Vote is on (the greedy decode and Vote.Samples
// samples executed on the databases, the largest group of equal results
// winning: package consensus; no gold is read), as a server with
// generator.vote answers; Progress, when set, hears of the questions
// decoded.
type EvalOptions struct {
	Vote     consensus.Sampling
	Progress progress.Func
}

// EvalDevWith is EvalDev decoding as o says.
func EvalDevWith(ctx context.Context, p *policy.Policy, d *Data, n int, seed uint64, guide bool, o EvalOptions) (*Eval, error) {
	vote := o.Vote
	if err := vote.Check(); err != nil {
		return nil, fmt.Errorf("train: dev evaluation: %w", err)
	}
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
	for k, i := range idx {
		exs[k] = d.Dev[i].Example
	}
	dd := devDecode{guide: guide, words: p.Info.SQLWords, vote: vote, seed: seed, eng: d.DevEngine, progress: o.Progress}
	fb, preds, err := devPredict(ctx, p, p.FitOptions(DevMaxTokens), d.DevPrompter, exs, dd)
	if err != nil {
		return nil, err
	}
	sc := &eval.Scorer{Engine: d.DevEngine, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true}
	rep, err := eval.Run(ctx, sc, exs, preds, eval.Options{Levels: []string{"simple", "moderate", "challenging"}})
	if err != nil {
		return nil, err
	}
	ev := &Eval{N: len(exs), EX: rep.Total.Accuracy / 100, Levels: map[string]float64{}, Counts: map[string]int{},
		Pruned: fb.Pruned, Bare: fb.Bare, Shortened: fb.Shortened, Failed: fb.Failed, Report: rep}
	for _, l := range rep.Levels {
		ev.Levels[l.Level] = l.Accuracy / 100
		ev.Counts[l.Level] = l.Count
	}
	ev.Seconds = time.Since(start).Seconds()
	return ev, nil
}

// devDecode is how devPredict decodes: guided by the schema each prompt
// shows and words when guide is set; by vote on eng when vote is on.
type devDecode struct {
	guide bool
	words []string
	vote  consensus.Sampling
	seed  uint64
	eng   sqlexec.Engine
	// progress hears of the questions decoded
	progress progress.Func
}

// devPredict decodes exs greedily (or by vote) with their prompts fitted
// by fo: the predictions (aligned with exs) and the fitting they were
// decoded from. The prompts are fitted and decoded as sqlrl generate does
// (policy.DecodeBatch): a question that cannot fit, or fails to decode,
// gets an empty prediction, scored wrong and counted, and training goes
// on.
func devPredict(ctx context.Context, g policy.Generator, fo policy.FitOptions, pr *policy.Prompter, exs []dataset.Example, dd devDecode) (*policy.FitBatch, []*dataset.Prediction, error) {
	fb, err := pr.FitAll(ctx, exs, fo)
	if err != nil {
		return nil, nil, err
	}
	preds := make([]*dataset.Prediction, len(exs))
	for k := range exs {
		preds[k] = &dataset.Prediction{Index: exs[k].Index, QuestionID: exs[k].QuestionID, DBID: exs[k].DBID}
	}
	if len(fb.OK) == 0 {
		return fb, preds, nil
	}
	do := policy.DecodeOptions{Greedy: true, MaxTokens: fo.MaxTokens, Batch: 32, Guide: dd.guide, Words: dd.words, Progress: dd.progress}
	if dd.vote.On() {
		do.Samples, do.Temperature, do.TopP, do.Seed = dd.vote.Samples, dd.vote.Temperature, dd.vote.TopP, dd.seed
	}
	decoded, _, err := policy.DecodeBatch(ctx, g, fb, do)
	if err != nil {
		return nil, nil, fmt.Errorf("train: dev evaluation: %w", err)
	}
	for k, d := range decoded {
		preds[k].SQL = d.Best()
		if d.Err != nil && fb.Errs[k] == nil {
			// Decoding failed on this question alone: it is scored
			// wrong and counted with those that did not fit.
			fb.Failed++
		}
		if !dd.vote.On() || d.Greedy == nil {
			continue
		}
		cands := []string{d.Greedy.Text}
		for _, c := range d.Samples {
			cands = append(cands, c.Text)
			preds[k].Candidates = append(preds[k].Candidates, c.Text)
		}
		// As the server votes: each candidate under its default statement
		// timeout, all of them within consensus.Budget, past which the
		// greedy decode stands.
		vctx, cancel := context.WithTimeout(ctx, consensus.Budget)
		ch, err := consensus.Pick(vctx, dd.eng, exs[k].DBID, cands, consensus.Options{})
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("train: dev evaluation: vote: %w", err)
		}
		if err == nil && ch.Index >= 0 {
			preds[k].SQL = cands[ch.Index]
		}
	}
	return fb, preds, nil
}
