package main

import (
	"context"
	"flag"
	"os"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
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
	j := agents.PredictJob{PredictOptions: agents.DefaultPredictOptions(), Log: os.Stderr}
	j.Flags(fs)
	model := fs.String("model", "", "checkpoint or run directory (required)")
	fs.StringVar(&j.Out, "out", "", "JSONL predictions to write (required)")
	fs.StringVar(&j.BIRD, "bird", "", "also write BIRD's prediction JSON here")
	split := splitFlags(fs)
	limit := fs.Int("limit", 0, "only the first N questions (0: all)")
	threads := threadsFlag(fs)
	return func(ctx context.Context, args []string) error {
		if *model == "" || j.Out == "" {
			return usagef("-model and -out are required")
		}
		if err := j.Check(); err != nil {
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
		return j.Run(ctx, pol, b, os.Stdout)
	}
}
