package policy

import (
	"context"
	"errors"

	"github.com/sqlrl/sqlrl/progress"
)

// Generator writes completions of prompts: *Policy, *Batcher and a remote
// OpenAI-compatible client satisfy it. Completions of one prompt come in
// the order sampled; Completion.LogProb is the log-probability under the
// distribution that sampled (0 when a backend does not report one).
type Generator interface {
	Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error)
}

// DecodeOptions configure DecodeBatch.
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
	// (FitBatch.Guides) with Words as the SQL vocabulary. A remote
	// backend ignores constraints.
	Guide bool
	Words []string
	// Chunk is the number of questions per Generate call (default 128);
	// Progress, when set, is called after each with the questions done.
	Chunk    int
	Progress progress.Func
	// Running, when set, holds the decode's Stats so far, updated before
	// each Progress call: for a report of throughput while decoding runs.
	Running *Stats
}

// Decoded is one question's completions.
type Decoded struct {
	// Greedy is the greedy (or beam) decode; nil unless asked for.
	Greedy *Completion
	// Samples are the sampled completions, in order.
	Samples []Completion
	// Err is set when the question got no completions: its prompt did not
	// fit (FitBatch.Errs) or decoding it failed. A question's
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

// DecodeBatch writes the completions of every question of fb (aligned
// with the batch's questions) with g. A Generate call that fails is retried one
// question at a time, so that only the questions that fail on their own
// are lost (recorded in Decoded.Err); only the context's end stops the
// run. This is the loop of `sqlrl generate`, of dev evaluation during
// training and of the agent pipeline's planner, so that all three decode a
// question the same way.
func DecodeBatch(ctx context.Context, g Generator, fb *FitBatch, o DecodeOptions) ([]Decoded, Stats, error) {
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
	var st Stats
	if !o.Greedy && o.Samples <= 0 {
		return out, st, errors.New("policy: decode: neither a greedy decode nor samples asked for")
	}
	var constrain func(int) Constraint
	if o.Guide {
		constrain = fb.Guides(o.Words)
	}
	// decode runs the questions idx (a run of fb.OK) together; the seed of
	// a run is Seed plus the position of its first question in fb.OK, so a
	// question retried alone draws as it would have in its chunk's place.
	pos := make(map[int]int, len(fb.OK))
	for k, i := range fb.OK {
		pos[i] = k
	}
	decode := func(idx []int) error {
		prompts := fb.Prompts(idx)
		seed := o.Seed + uint64(pos[idx[0]])
		var con func(int) Constraint
		if constrain != nil {
			con = func(k int) Constraint { return constrain(idx[k]) }
		}
		var samples, greedy [][]Completion
		var err error
		if o.Samples > 0 {
			var s Stats
			so := SampleOptions{N: o.Samples, Temperature: o.Temperature, TopP: o.TopP, MaxTokens: o.MaxTokens, Batch: o.Batch, Seed: seed, Constrain: con}
			samples, s, err = g.Generate(ctx, prompts, so)
			st.PromptTokens += s.PromptTokens
			st.CompletionTokens += s.CompletionTokens
		}
		if err == nil && o.Greedy {
			var s Stats
			so := SampleOptions{N: 1, MaxTokens: o.MaxTokens, Batch: o.Batch, Constrain: con, Beams: o.Beams}
			greedy, s, err = g.Generate(ctx, prompts, so)
			if o.Samples <= 0 {
				st.PromptTokens += s.PromptTokens
			}
			st.CompletionTokens += s.CompletionTokens
		}
		if err == nil && ((samples != nil && len(samples) != len(idx)) || (greedy != nil && len(greedy) != len(idx))) {
			err = ErrAnswerCount
		}
		if err != nil {
			return err
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
		if err := Isolated(ctx, ok[lo:hi], decode, func(i int, err error) { out[i].Err = err }); err != nil {
			return out, st, err
		}
		if o.Running != nil {
			*o.Running = st
		}
		o.Progress.Report(hi, len(ok))
	}
	return out, st, nil
}

// ErrAnswerCount is a generator's failure to answer every prompt asked.
var ErrAnswerCount = errors.New("policy: the generator answered a different number of prompts than asked")

// Isolated runs run on idx together and, when that fails for a reason
// other than ctx's end, on each index alone, so that only the indexes that
// fail on their own are lost (fail records them): one bad prompt must not
// cost its whole batch. Only ctx's end is returned. DecodeBatch and every
// agent stage call through it.
func Isolated(ctx context.Context, idx []int, run func(idx []int) error, fail func(i int, err error)) error {
	err := run(idx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case len(idx) == 1:
		fail(idx[0], err)
		return nil
	}
	for _, i := range idx {
		if err := Isolated(ctx, []int{i}, run, fail); err != nil {
			return err
		}
	}
	return nil
}
