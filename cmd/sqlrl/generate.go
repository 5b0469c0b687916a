package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func init() {
	register(&command{
		name:    "generate",
		summary: "write SQL predictions for a benchmark split with the native policy (K samples per question)",
		usage:   "-model DIR -out PRED.jsonl [flags] BENCH_DIR",
		help: `Writes one prediction per question of -split in sqlrl's JSONL format
({"question_id","db_id","sql","candidates"}) and, with -bird, BIRD's
prediction file; 'sqlrl eval' scores either directly.

-n 1 with -temperature 0 is greedy decoding. With -n K > 1 the K samples are
the candidates (for pass@K and the oracle); "sql" is the greedy decode when
-greedy is set (the default), else the first sample. -beams W replaces the
greedy decode by a beam search of width W. With -vote, "sql" is
chosen by executing the greedy decode and the K samples and taking the
largest group of equal results (package consensus): no gold is used.

By default decoding is guided by the database's schema (-guide): an unquoted
word must be one of the SQL words the model was trained on, an alias, or one
of the database's tables and columns; clauses come in order, operands and
operators alternate, and parentheses, quotes and CASEs close (package
sqlparse, Guide; docs/policy.md lists every rule).

-model is a checkpoint directory or a run directory of 'sqlrl train sft'
(its latest checkpoint). Prompts are written in the checkpoint's format.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			model := fs.String("model", "", "checkpoint or run directory (required)")
			out := fs.String("out", "", "JSONL predictions to write (required)")
			bird := fs.String("bird", "", "also write BIRD's prediction JSON here")
			split := fs.String("split", "dev", "benchmark split")
			n := fs.Int("n", 1, "samples per question")
			temp := fs.Float64("temperature", 0, "sampling temperature (0: greedy)")
			topP := fs.Float64("top-p", 1, "nucleus sampling mass")
			greedy := fs.Bool("greedy", true, "with -n > 1, submit a greedy decode as \"sql\"")
			maxTok := fs.Int("max-tokens", 256, "most tokens per completion")
			batch := fs.Int("batch", 32, "sequences decoded together")
			seed := fs.Uint64("seed", 1, "sampling seed")
			limit := fs.Int("limit", 0, "only the first N questions (0: all)")
			threads := fs.Int("threads", 2, "threads")
			beams := fs.Int("beams", 1, "beam search width for the greedy decode (1: greedy)")
			vote := fs.Bool("vote", false, "with -n > 1, choose \"sql\" by executing the candidates and voting on their results")
			guide := fs.Bool("guide", true, "constrain the SQL to the database's tables and columns (sqlparse.Guide)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one benchmark directory, got %d arguments", len(args))
				}
				if *model == "" || *out == "" {
					return usagef("-model and -out are required")
				}
				if *n < 1 || *temp < 0 || *topP <= 0 || *topP > 1 {
					return usagef("want -n >= 1, -temperature >= 0 and 0 < -top-p <= 1")
				}
				if err := checkSplit(args[0], *split); err != nil {
					return err
				}
				nn.SetThreads(*threads)
				pol, err := policy.Load(*model)
				if err != nil {
					return err
				}
				b, err := dataset.Load(args[0], *split)
				if err != nil {
					return err
				}
				exs := b.Examples
				if *limit > 0 && *limit < len(exs) {
					exs = exs[:*limit]
				}
				eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
				defer eng.Close()
				pr, err := policy.NewPrompter(eng, b.DBRoot, pol.Info.Prompt)
				if err != nil {
					return err
				}
				prompts := make([]string, len(exs))
				for i, ex := range exs {
					if prompts[i], err = pr.Prompt(ctx, ex); err != nil {
						return err
					}
				}
				var constrain func(int) policy.Constraint
				if *guide {
					if constrain, err = pr.Guides(ctx, exs, pol.Info.SQLWords); err != nil {
						return err
					}
				}
				start := time.Now()
				var st policy.Stats
				preds := make([]dataset.Prediction, len(exs))
				for i, ex := range exs {
					preds[i] = dataset.Prediction{Index: ex.Index, QuestionID: ex.QuestionID, DBID: ex.DBID}
				}
				const chunk = 128
				for lo := 0; lo < len(exs); lo += chunk {
					hi := min(lo+chunk, len(exs))
					var con func(int) policy.Constraint
					if constrain != nil {
						off := lo
						con = func(i int) policy.Constraint { return constrain(off + i) }
					}
					so := policy.SampleOptions{N: *n, Temperature: *temp, TopP: *topP, MaxTokens: *maxTok, Batch: *batch, Seed: *seed + uint64(lo), Constrain: con}
					if *temp == 0 && *beams > 1 {
						so.Beams, so.N = *beams, min(*n, *beams)
					}
					outs, s, err := pol.Generate(ctx, prompts[lo:hi], so)
					if err != nil {
						return err
					}
					st.PromptTokens += s.PromptTokens
					st.CompletionTokens += s.CompletionTokens
					var gr [][]policy.Completion
					if *n > 1 && (*greedy || *vote) {
						if gr, s, err = pol.Generate(ctx, prompts[lo:hi], policy.SampleOptions{MaxTokens: *maxTok, Batch: *batch, Constrain: con, Beams: *beams}); err != nil {
							return err
						}
						st.CompletionTokens += s.CompletionTokens
					}
					for k, cs := range outs {
						p := &preds[lo+k]
						p.SQL = cs[0].Text
						if *n > 1 {
							for _, c := range cs {
								p.Candidates = append(p.Candidates, c.Text)
							}
						}
						if gr != nil {
							p.SQL = gr[k][0].Text
						}
						if *vote {
							cands := append([]string{gr[k][0].Text}, p.Candidates...)
							ch, err := consensus.Pick(ctx, eng, p.DBID, cands, consensus.Options{})
							if err != nil {
								return err
							}
							if ch.Index >= 0 {
								p.SQL = cands[ch.Index]
							}
						}
					}
					fmt.Fprintf(os.Stderr, "generate: %d/%d questions, %.0f completion tok/s\n", hi, len(exs), float64(st.CompletionTokens)/time.Since(start).Seconds())
				}
				if err := dataset.WriteJSONLPredictions(*out, preds); err != nil {
					return err
				}
				if *bird != "" {
					if err := dataset.WriteBIRDPredictions(*bird, preds); err != nil {
						return err
					}
				}
				el := time.Since(start)
				fmt.Printf("wrote %d predictions to %s in %s (%d prompt + %d completion tokens, %.0f completion tok/s)\n",
					len(preds), *out, el.Round(time.Millisecond), st.PromptTokens, st.CompletionTokens, float64(st.CompletionTokens)/el.Seconds())
				return nil
			}
		},
	})
}
