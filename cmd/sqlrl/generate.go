package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/agents"
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
		help: `Writes one prediction per question of -split as sqlrl's JSONL
({"question_id","db_id","sql","candidates"}) and, with -bird, BIRD's JSON;
'sqlrl eval' scores either. With -n K > 1 the samples are the candidates;
-vote picks "sql" by execution consensus (no gold). A question that fails gets
an empty "sql" and an "error" field, and the run goes on (docs/policy.md).`,
		args:  argsExactly(1, "one benchmark directory"),
		flags: generateFlags,
	})
}

func generateFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := agents.DefaultPredictOptions()
	o.Flags(fs)
	model := fs.String("model", "", "checkpoint or run directory (required)")
	out := fs.String("out", "", "JSONL predictions to write (required)")
	bird := fs.String("bird", "", "also write BIRD's prediction JSON here")
	split := splitFlags(fs)
	limit := fs.Int("limit", 0, "only the first N questions (0: all)")
	threads := threadsFlag(fs)
	return func(ctx context.Context, args []string) error {
		if *model == "" || *out == "" {
			return usagef("-model and -out are required")
		}
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		nn.SetThreads(*threads)
		pol, err := policy.LoadSQL(*model)
		if err != nil {
			return err
		}
		b, err := split.Load(args[0], *limit)
		if err != nil {
			return err
		}
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
		defer eng.Close()
		start := time.Now()
		o.Warn = os.Stderr
		var running policy.Stats
		o.Running = &running
		o.Progress = func(done, total int) {
			fmt.Fprintf(os.Stderr, "generate: %d/%d questions, %.0f completion tok/s\n", done, total, float64(running.CompletionTokens)/time.Since(start).Seconds())
		}
		preds, st, err := agents.Predict(ctx, pol, eng, b.DBRoot, b.Examples, o)
		if err != nil {
			return err
		}
		if err := dataset.WriteJSONLPredictions(*out, preds); err != nil {
			return err
		}
		if *bird != "" {
			if err := dataset.WriteBIRDPredictions(*bird, preds); err != nil {
				return err
			}
		}
		st.WriteText(os.Stdout, len(preds), *out, time.Since(start))
		return nil
	}
}
