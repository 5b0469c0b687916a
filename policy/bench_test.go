package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlrl/sqlrl/nn"
)

// BenchmarkGenerate times Generate with the tiny preset on prompts of
// about 400 tokens (the compact benchmark prompts' size) and 64 new tokens
// each: prefill and decoding together, in completion tokens per second.
func BenchmarkGenerate(b *testing.B) {
	p, prompts := benchPolicy(b, "tiny")
	for _, bs := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("batch%d", bs), func(b *testing.B) {
			n := 64
			if bs == 1 {
				n = 8
			}
			var toks int
			for b.Loop() {
				_, st, err := p.Generate(context.Background(), prompts[:n], SampleOptions{MaxTokens: 64, Batch: bs, Temperature: 1, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				toks += st.CompletionTokens
			}
			b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// benchPolicy returns a policy of a preset with random weights and 64
// prompts of about 400 tokens.
func benchPolicy(b *testing.B, preset string) (*Policy, []string) {
	base := testPolicy(b)
	cfg, _ := nn.Preset(preset, base.Tok.VocabSize())
	p, err := New(base.Tok, preset, cfg, Format{Kind: FormatCompact}, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	words := strings.Fields(strings.Join(texts, " "))
	var prompts []string
	for range 64 {
		var sb strings.Builder
		for sb.Len() < 1600 {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		prompts = append(prompts, sb.String())
	}
	return p, prompts
}

// BenchmarkConcurrentRequests times 16 clients sending one ~400-token
// prompt each (64 new tokens, sampled), as agents do against the server:
// "serial" runs the requests one at a time, as the server did before the
// Batcher; "batcher" decodes them together.
func BenchmarkConcurrentRequests(b *testing.B) {
	p, prompts := benchPolicy(b, "small")
	const clients = 16
	o := SampleOptions{MaxTokens: 64, Temperature: 1, Seed: 1}
	run := func(b *testing.B, gen func(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error)) {
		var toks atomic.Int64
		for b.Loop() {
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, st, err := gen(context.Background(), prompts[c:c+1], o)
					if err != nil {
						b.Error(err)
					}
					toks.Add(int64(st.CompletionTokens))
				}()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(toks.Load())/b.Elapsed().Seconds(), "tok/s")
	}
	b.Run("serial", func(b *testing.B) {
		var mu sync.Mutex
		run(b, func(ctx context.Context, prompts []string, o SampleOptions) ([][]Completion, Stats, error) {
			mu.Lock()
			defer mu.Unlock()
			return p.Generate(ctx, prompts, o)
		})
	})
	b.Run("batcher", func(b *testing.B) {
		bt := p.NewBatcher(32)
		defer bt.Close()
		run(b, bt.Generate)
	})
}
