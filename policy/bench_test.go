package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/nn"
)

// BenchmarkGenerate times Generate with the tiny preset on prompts of
// about 400 tokens (the compact benchmark prompts' size) and 64 new tokens
// each: prefill and decoding together, in completion tokens per second.
func BenchmarkGenerate(b *testing.B) {
	base := testPolicy(b)
	cfg, _ := nn.Preset("tiny", base.Tok.VocabSize())
	p, err := New(base.Tok, "tiny", cfg, Format{Kind: FormatCompact}, 1)
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
