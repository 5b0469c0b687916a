package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// scripted answers each prompt with its own text (and N numbered samples),
// failing any call that holds a prompt containing "boom".
type scripted struct {
	calls int
	seen  []SampleOptions
}

func (s *scripted) Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
	s.calls++
	s.seen = append(s.seen, o)
	out := make([][]Completion, len(prompts))
	for i, p := range prompts {
		if strings.Contains(p, "boom") {
			return nil, Stats{}, errors.New("decoder exploded")
		}
		n := max(o.N, 1)
		for j := range n {
			txt := fmt.Sprintf("%s/%d", p, j)
			if o.Temperature == 0 {
				txt = p + "/greedy"
			}
			out[i] = append(out[i], Completion{Text: txt})
		}
	}
	return out, Stats{CompletionTokens: len(prompts)}, nil
}

func fitBatch(prompts ...string) *FitBatch {
	fb := &FitBatch{Fits: make([]*Fitted, len(prompts)), Errs: make([]error, len(prompts))}
	for i, p := range prompts {
		if p == "" {
			fb.Errs[i] = ErrNoFit
			fb.Failed++
			continue
		}
		fb.Fits[i] = &Fitted{Text: p}
		fb.OK = append(fb.OK, i)
	}
	return fb
}

func TestDecodeBatchIsolatesFailures(t *testing.T) {
	tests := []struct {
		name    string
		prompts []string
		o       DecodeOptions
		best    []string // "" where the question fails
		samples int
	}{
		{"greedy", []string{"a", "b"}, DecodeOptions{Greedy: true}, []string{"a/greedy", "b/greedy"}, 0},
		{"samples first when no greedy", []string{"a"}, DecodeOptions{Samples: 3, Temperature: 1}, []string{"a/0"}, 3},
		{"greedy preferred", []string{"a"}, DecodeOptions{Samples: 2, Temperature: 1, Greedy: true}, []string{"a/greedy"}, 2},
		{"one failure is its own", []string{"a", "boom", "c"}, DecodeOptions{Greedy: true, Samples: 2, Temperature: 1}, []string{"a/greedy", "", "c/greedy"}, 2},
		{"unfitted question skipped", []string{"a", "", "c"}, DecodeOptions{Greedy: true}, []string{"a/greedy", "", "c/greedy"}, 0},
		{"small chunks", []string{"a", "b", "boom", "d", "e"}, DecodeOptions{Greedy: true, Chunk: 2}, []string{"a/greedy", "b/greedy", "", "d/greedy", "e/greedy"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &scripted{}
			var progress []int
			var running Stats
			tc.o.Progress = func(done, total int) { progress = append(progress, done) }
			tc.o.Running = &running
			out, st, err := DecodeBatch(context.Background(), g, fitBatch(tc.prompts...), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range out {
				if got := d.Best(); got != tc.best[i] {
					t.Errorf("question %d: best %q, want %q", i, got, tc.best[i])
				}
				if (d.Err != nil) != (tc.best[i] == "") {
					t.Errorf("question %d: err %v", i, d.Err)
				}
				if d.Err == nil && len(d.Samples) != tc.samples {
					t.Errorf("question %d: %d samples, want %d", i, len(d.Samples), tc.samples)
				}
			}
			if len(progress) == 0 || progress[len(progress)-1] != len(fitBatch(tc.prompts...).OK) {
				t.Errorf("progress %v", progress)
			}
			if running != st {
				t.Errorf("running stats %+v at the end, returned %+v", running, st)
			}
		})
	}
}

func TestDecodeBatchStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := generatorFunc(func(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
		return nil, Stats{}, ctx.Err()
	})
	if _, _, err := DecodeBatch(ctx, g, fitBatch("a", "b"), DecodeOptions{Greedy: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if _, _, err := DecodeBatch(context.Background(), g, fitBatch("a"), DecodeOptions{}); err == nil {
		t.Fatal("no greedy and no samples: want an error")
	}
}

type generatorFunc func(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error)

func (f generatorFunc) Generate(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
	return f(ctx, prompts, o)
}

// TestDecodeBatchRetryKeepsSeeds: a question retried alone after its batch
// failed samples with the seed it had in the batch (Seed plus its
// position), so a failure elsewhere does not change its samples.
func TestDecodeBatchRetryKeepsSeeds(t *testing.T) {
	g := generatorFunc(func(_ context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
		out := make([][]Completion, len(prompts))
		for i, p := range prompts {
			if strings.Contains(p, "boom") {
				return nil, Stats{}, errors.New("boom")
			}
			// the seed a prompt's samples draw from: the batch's, plus
			// the prompt's index in it (as Policy.Generate seeds them)
			out[i] = []Completion{{Text: fmt.Sprint(o.Seed + uint64(i))}}
		}
		return out, Stats{}, nil
	})
	for _, prompts := range [][]string{{"a", "b", "c", "d"}, {"a", "b", "boom", "d"}} {
		out, _, err := DecodeBatch(context.Background(), g, fitBatch(prompts...), DecodeOptions{Samples: 1, Temperature: 1, Seed: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"10", "11", "", "13"} {
			if prompts[i] == "boom" {
				continue
			}
			if got := out[i].Best(); got != want && !(i == 2 && got == "12") {
				t.Errorf("%v: question %d drew from seed %s, want %s", prompts, i, got, want)
			}
		}
	}
}
