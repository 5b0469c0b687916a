package agents

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// PredictOptions configure Predict.
type PredictOptions struct {
	// N samples per question at Sampling; N 1 with temperature 0 is one
	// greedy decode.
	N int
	Sampling
	// Greedy, with N > 1, answers with a greedy decode (Beams wide) beside
	// the samples; Vote answers with the candidate whose result most
	// candidates share (package consensus; no gold is used).
	Greedy, Vote bool
	Beams        int
	// MaxTokens per completion, Batch sequences decoded together, Guide
	// keeps the SQL to the schema the prompt shows.
	MaxTokens, Batch int
	Guide            bool
	// Warn gets a line per question that failed; nil discards.
	Warn io.Writer
	// Progress and Running are policy.DecodeOptions'.
	Progress progress.Func
	Running  *policy.Stats
}

// PredictStats are what Predict decoded and how the prompts were fitted.
type PredictStats struct {
	policy.Stats
	// Context is the model's context in tokens; Pruned, Bare and
	// Shortened count prompts fitted to it (policy.FitBatch).
	Context, Pruned, Bare, Shortened int
	// Failed counts questions answered with an empty SQL and an Error.
	Failed int
}

// Predict writes a prediction per example with the native policy pol,
// over the databases eng runs (prompts read them under dbRoot). Each
// prompt is fitted to the model's context; a question that cannot be, or
// fails for another reason of its own, gets an empty SQL and its Error,
// and the others go on: an evaluation scores it as wrong.
func Predict(ctx context.Context, pol *policy.Policy, eng sqlexec.Engine, dbRoot string, exs []dataset.Example, o PredictOptions) ([]dataset.Prediction, PredictStats, error) {
	warn := o.Warn
	if warn == nil {
		warn = io.Discard
	}
	preds := make([]dataset.Prediction, len(exs))
	for i, ex := range exs {
		preds[i] = dataset.Prediction{Index: ex.Index, QuestionID: ex.QuestionID, DBID: ex.DBID}
	}
	fail := func(i int, err error) {
		preds[i].SQL, preds[i].Candidates, preds[i].Error = "", nil, err.Error()
		fmt.Fprintf(warn, "generate: warning: question %d (%s): %v\n", exs[i].QuestionID, exs[i].DBID, err)
	}
	pr, err := policy.NewPrompter(eng, dbRoot, pol.Info.Prompt)
	if err != nil {
		return nil, PredictStats{}, err
	}
	fo := pol.FitOptions(o.MaxTokens)
	fb, err := pr.FitAll(ctx, exs, fo)
	if err != nil {
		return nil, PredictStats{}, err
	}
	for i, e := range fb.Errs {
		if e != nil {
			fail(i, e)
		}
	}
	decoded, st, err := policy.DecodeBatch(ctx, pol, fb, o.decodeOptions(pol.Info.SQLWords))
	if err != nil {
		return nil, PredictStats{}, err
	}
	for i, d := range decoded {
		if d.Err != nil {
			if fb.Errs[i] == nil {
				fail(i, d.Err)
			}
			continue
		}
		if err := o.answer(ctx, eng, &preds[i], d); err != nil {
			if ctx.Err() != nil {
				return nil, PredictStats{}, ctx.Err()
			}
			fail(i, err)
		}
	}
	ps := PredictStats{Stats: st, Context: fo.Context, Pruned: fb.Pruned, Bare: fb.Bare, Shortened: fb.Shortened}
	for _, p := range preds {
		if p.Error != "" {
			ps.Failed++
		}
	}
	return preds, ps, nil
}

// WriteText prints what Predict did: n predictions written to out in
// took, the tokens and their rate, and how the prompts were fitted.
func (st PredictStats) WriteText(w io.Writer, n int, out string, took time.Duration) {
	fmt.Fprintf(w, "wrote %d predictions to %s in %s (%d prompt + %d completion tokens, %.0f completion tok/s)\n",
		n, out, took.Round(time.Millisecond), st.PromptTokens, st.CompletionTokens, float64(st.CompletionTokens)/took.Seconds())
	fmt.Fprintf(w, "prompts fitted to the %d-token context: %d pruned, %d without column comments, %d with max tokens cut; %d questions failed (empty sql, \"error\" in %s)\n",
		st.Context, st.Pruned, st.Bare, st.Shortened, st.Failed, out)
}

// decodeOptions are the decode's options: greedy alone, or samples with
// the greedy decode when it answers or votes.
func (o PredictOptions) decodeOptions(words []string) policy.DecodeOptions {
	do := policy.DecodeOptions{MaxTokens: o.MaxTokens, Batch: o.Batch, Seed: o.Seed, Beams: o.Beams, Guide: o.Guide, Words: words, Progress: o.Progress, Running: o.Running}
	switch {
	case o.N == 1 && o.Temperature == 0:
		do.Greedy = true
	case o.N == 1:
		do.Samples, do.Temperature, do.TopP = 1, o.Temperature, o.TopP
	default:
		do.Samples, do.Temperature, do.TopP = o.N, o.Temperature, o.TopP
		do.Greedy = o.Greedy || o.Vote
	}
	return do
}

// answer sets p's SQL and candidates from d, voting when o says so.
func (o PredictOptions) answer(ctx context.Context, eng sqlexec.Engine, p *dataset.Prediction, d policy.Decoded) error {
	p.SQL = d.Best()
	if o.N > 1 {
		for _, c := range d.Samples {
			p.Candidates = append(p.Candidates, c.Text)
		}
	}
	if !o.Vote || d.Greedy == nil {
		return nil
	}
	cands := append([]string{d.Greedy.Text}, p.Candidates...)
	ch, err := consensus.Pick(ctx, eng, p.DBID, cands, consensus.Options{})
	if err != nil {
		return fmt.Errorf("vote: %w", err)
	}
	if ch.Index >= 0 {
		p.SQL = cands[ch.Index]
	}
	return nil
}

// DefaultPredictOptions is `sqlrl generate`'s defaults: one greedy
// decode, guided.
func DefaultPredictOptions() PredictOptions {
	return PredictOptions{N: 1, Sampling: Sampling{Temperature: 0, TopP: 1, Seed: 1}, Greedy: true, Beams: 1, MaxTokens: 256, Batch: 32, Guide: true}
}

// Flags declares the decoding's flags on fs, defaulting to o.
func (o *PredictOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.N, "n", o.N, "samples per question")
	o.Sampling.Flags(fs)
	fs.BoolVar(&o.Greedy, "greedy", o.Greedy, "with -n > 1, submit a greedy decode as \"sql\"")
	fs.IntVar(&o.MaxTokens, "max-tokens", o.MaxTokens, "most tokens per completion")
	fs.IntVar(&o.Batch, "batch", o.Batch, "sequences decoded together")
	fs.IntVar(&o.Beams, "beams", o.Beams, "beam search width for the greedy decode (1: greedy)")
	fs.BoolVar(&o.Vote, "vote", o.Vote, "with -n > 1, choose \"sql\" by executing the candidates and voting on their results")
	fs.BoolVar(&o.Guide, "guide", o.Guide, "constrain the SQL to the database's tables and columns (sqlparse.Guide)")
}

// Check refuses settings out of range, naming the flags.
func (o *PredictOptions) Check() error {
	if o.N < 1 || !o.Sampling.Valid() {
		return errors.New("want -n >= 1, -temperature >= 0 and 0 < -top-p <= 1")
	}
	return nil
}
