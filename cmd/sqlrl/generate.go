package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
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
(its latest checkpoint). Prompts are written in the checkpoint's format and
fitted to the model's context with -max-tokens left for the completion:
the tables least relevant to the question go first (those the question and
evidence name are kept), then the column comments, and as a last resort a
question's completion budget is cut (to 64 tokens at least). The guide then
admits only the tables the prompt shows. A question that still does not fit,
or fails for another reason of its own, gets an empty "sql" and an "error"
field, a warning on stderr and a count in the summary; the run goes on and
'sqlrl eval' scores it as wrong.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			model := fs.String("model", "", "checkpoint or run directory (required)")
			out := fs.String("out", "", "JSONL predictions to write (required)")
			bird := fs.String("bird", "", "also write BIRD's prediction JSON here")
			split := addSplitFlags(fs)
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
				nn.SetThreads(*threads)
				pol, err := policy.LoadSQL(*model)
				if err != nil {
					return err
				}
				if err := split.check(args[0]); err != nil {
					return err
				}
				b, err := split.load(args[0])
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
				// Each prompt is fitted to the model's context (policy.Prompter.Fit);
				// a question that cannot be, or fails for any other reason of its
				// own, is recorded with an empty "sql" and its error, and the run
				// goes on: 'sqlrl eval' scores it as wrong.
				preds := make([]dataset.Prediction, len(exs))
				errs := make([]string, len(exs))
				fail := func(i int, err error) {
					errs[i] = err.Error()
					preds[i].SQL, preds[i].Candidates = "", nil
					fmt.Fprintf(os.Stderr, "generate: warning: question %d (%s): %v\n", exs[i].QuestionID, exs[i].DBID, err)
				}
				for i, ex := range exs {
					preds[i] = dataset.Prediction{Index: ex.Index, QuestionID: ex.QuestionID, DBID: ex.DBID}
				}
				fo := pol.FitOptions(*maxTok)
				fb, err := pr.FitAll(ctx, exs, fo)
				if err != nil {
					return err
				}
				for i, e := range fb.Errs {
					if e != nil {
						fail(i, e)
					}
				}
				start := time.Now()
				do := policy.DecodeOptions{MaxTokens: *maxTok, Batch: *batch, Seed: *seed, Beams: *beams, Guide: *guide, Words: pol.Info.SQLWords,
					Progress: func(done, total int, st policy.Stats) {
						fmt.Fprintf(os.Stderr, "generate: %d/%d questions, %.0f completion tok/s\n", done, total, float64(st.CompletionTokens)/time.Since(start).Seconds())
					}}
				switch {
				case *n == 1 && *temp == 0:
					do.Greedy = true
				case *n == 1:
					do.Samples, do.Temperature, do.TopP = 1, *temp, *topP
				default:
					do.Samples, do.Temperature, do.TopP = *n, *temp, *topP
					do.Greedy = *greedy || *vote
				}
				decoded, st, err := policy.DecodeBatch(ctx, pol, fb, do)
				if err != nil {
					return err
				}
				for i, d := range decoded {
					if d.Err != nil {
						if fb.Errs[i] == nil {
							fail(i, d.Err)
						}
						continue
					}
					p := &preds[i]
					p.SQL = d.Best()
					if *n > 1 {
						for _, c := range d.Samples {
							p.Candidates = append(p.Candidates, c.Text)
						}
					}
					if *vote && d.Greedy != nil {
						cands := append([]string{d.Greedy.Text}, p.Candidates...)
						ch, err := consensus.Pick(ctx, eng, p.DBID, cands, consensus.Options{})
						if err != nil {
							if ctx.Err() != nil {
								return ctx.Err()
							}
							fail(i, fmt.Errorf("vote: %w", err))
							continue
						}
						if ch.Index >= 0 {
							p.SQL = cands[ch.Index]
						}
					}
				}
				failed := 0
				for _, e := range errs {
					if e != "" {
						failed++
					}
				}
				if err := writePredictions(*out, preds, errs); err != nil {
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
				fmt.Printf("prompts fitted to the %d-token context: %d pruned, %d without column comments, %d with max tokens cut; %d questions failed (empty sql, \"error\" in %s)\n",
					fo.Context, fb.Pruned, fb.Bare, fb.Shortened, failed, *out)
				return nil
			}
		},
	})
}

// writePredictions writes sqlrl's JSONL predictions
// (dataset.WriteJSONLPredictions' records) with an "error" field on the
// questions that failed, so that a reader sees why their "sql" is empty.
func writePredictions(path string, preds []dataset.Prediction, errs []string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, p := range preds {
		rec := struct {
			QuestionID int      `json:"question_id"`
			DBID       string   `json:"db_id,omitempty"`
			SQL        string   `json:"sql"`
			Candidates []string `json:"candidates,omitempty"`
			Error      string   `json:"error,omitempty"`
		}{p.QuestionID, p.DBID, p.SQL, p.Candidates, errs[i]}
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
