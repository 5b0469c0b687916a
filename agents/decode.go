package agents

import (
	"context"
	"errors"

	"github.com/sqlrl/sqlrl/policy"
)

// DecodeOptions configure Decode.
type DecodeOptions struct {
	// Greedy decodes each question once at temperature 0 (a beam search
	// of width Beams when Beams > 1): the candidate to trust most.
	Greedy bool
	Beams  int
	// Samples is the number of completions sampled per question at
	// Temperature and TopP (0: none).
	Samples     int
	Temperature float64
	TopP        float64
	MaxTokens   int
	// Batch is the number of sequences decoded together (default 32).
	Batch int
	// Seed drives sampling; each chunk of questions gets Seed plus its
	// offset, so a run's samples do not depend on how it was chunked
	// into Generate calls by failures.
	Seed uint64
	// Guide constrains every completion to the schema its prompt shows
	// (policy.FitBatch.Guides) with Words as the SQL vocabulary. A remote
	// backend ignores constraints.
	Guide bool
	Words []string
	// Chunk is the number of questions per Generate call (default 128);
	// Progress, when set, is called after each.
	Chunk    int
	Progress func(done, total int, st policy.Stats)
}

// Decoded is one question's completions.
type Decoded struct {
	// Greedy is the greedy (or beam) decode; nil unless asked for.
	Greedy *policy.Completion
	// Samples are the sampled completions, in order.
	Samples []policy.Completion
	// Err is set when the question got no completions: its prompt did not
	// fit (policy.FitBatch.Errs) or decoding it failed. A question's
	// failure is its own; the others are decoded.
	Err error
}

// Best is the completion to submit: the greedy decode when there is one,
// else the first sample; "" when there is neither.
func (d *Decoded) Best() string {
	switch {
	case d.Greedy != nil:
		return d.Greedy.Text
	case len(d.Samples) > 0:
		return d.Samples[0].Text
	}
	return ""
}

// Decode writes the completions of every question of fb (aligned with the
// batch's questions) with g. A Generate call that fails is retried one
// question at a time, so that only the questions that fail on their own
// are lost (recorded in Decoded.Err); only the context's end stops the
// run. This is the loop of `sqlrl generate`, of dev evaluation during
// training and of the pipeline's planner, so that all three decode a
// question the same way.
func Decode(ctx context.Context, g Generator, fb *policy.FitBatch, o DecodeOptions) ([]Decoded, policy.Stats, error) {
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.Chunk <= 0 {
		o.Chunk = 128
	}
	if o.TopP <= 0 {
		o.TopP = 1
	}
	out := make([]Decoded, len(fb.Errs))
	for i, e := range fb.Errs {
		out[i].Err = e
	}
	var st policy.Stats
	if !o.Greedy && o.Samples <= 0 {
		return out, st, errors.New("agents: decode: neither a greedy decode nor samples asked for")
	}
	var constrain func(int) policy.Constraint
	if o.Guide {
		constrain = fb.Guides(o.Words)
	}
	var decode func(idx []int, seed uint64) error
	decode = func(idx []int, seed uint64) error {
		prompts := fb.Prompts(idx)
		var con func(int) policy.Constraint
		if constrain != nil {
			con = func(k int) policy.Constraint { return constrain(idx[k]) }
		}
		var samples, greedy [][]policy.Completion
		var err error
		if o.Samples > 0 {
			var s policy.Stats
			so := policy.SampleOptions{N: o.Samples, Temperature: o.Temperature, TopP: o.TopP, MaxTokens: o.MaxTokens, Batch: o.Batch, Seed: seed, Constrain: con}
			samples, s, err = g.Generate(ctx, prompts, so)
			st.PromptTokens += s.PromptTokens
			st.CompletionTokens += s.CompletionTokens
		}
		if err == nil && o.Greedy {
			var s policy.Stats
			so := policy.SampleOptions{N: 1, MaxTokens: o.MaxTokens, Batch: o.Batch, Constrain: con, Beams: o.Beams}
			greedy, s, err = g.Generate(ctx, prompts, so)
			if o.Samples <= 0 {
				st.PromptTokens += s.PromptTokens
			}
			st.CompletionTokens += s.CompletionTokens
		}
		if err == nil && ((samples != nil && len(samples) != len(idx)) || (greedy != nil && len(greedy) != len(idx))) {
			err = errors.New("agents: decode: the generator answered a different number of prompts than asked")
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if len(idx) == 1 {
				out[idx[0]].Err = err
				return nil
			}
			for k, i := range idx {
				if err := decode([]int{i}, seed+uint64(k)); err != nil {
					return err
				}
			}
			return nil
		}
		for k, i := range idx {
			d := &out[i]
			if samples != nil {
				d.Samples = samples[k]
			}
			if greedy != nil && len(greedy[k]) > 0 {
				c := greedy[k][0]
				d.Greedy = &c
			}
		}
		return nil
	}
	ok := fb.OK
	for lo := 0; lo < len(ok); lo += o.Chunk {
		hi := min(lo+o.Chunk, len(ok))
		if err := decode(ok[lo:hi], o.Seed+uint64(lo)); err != nil {
			return out, st, err
		}
		if o.Progress != nil {
			o.Progress(hi, len(ok), st)
		}
	}
	return out, st, nil
}
