package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/agents/agenttrain"
	"github.com/sqlrl/sqlrl/nn"
)

func init() {
	register(&command{
		name:    "pipeline run",
		summary: "run the MATS pipeline (planner, validators, fixer, selector) over a benchmark split and write its rollouts",
		usage:   "-planner SPEC -out ROLLOUTS.jsonl [flags] BENCH_DIR",
		help: `Runs every question of -split through the pipeline: the planner writes -k
candidates; the optional validators, fixer, selector, reviewer and ranker
judge, fix and choose among them; each selection strategy is recorded with its
correctness. An agent is a native checkpoint or an OpenAI-compatible server
(URL#MODEL); one that fails on a question is replaced by its stage's fallback.`,
		args:  argsExactly(1, "one benchmark directory"),
		flags: pipelineRunFlags,
	})
	register(&command{
		name:    "pipeline report",
		summary: "print a pipeline run's figures by difficulty from its rollout file alone",
		usage:   "[-ranker FILE] [-json OUT] [-preds DIR] ROLLOUTS.jsonl",
		help: `Prints, by difficulty, the EX of the planner, the fixer and every selection
strategy, pass@K and the validators' agreement with execution. -ranker and
-review-weight recompute the strategies; -preds writes their choices for 'sqlrl eval'.`,
		args:  argsExactly(1, "one rollout file"),
		flags: pipelineReportFlags,
	})
	register(&command{
		name:    "pipeline train-ranker",
		summary: "fit the learned selection ranker on scored rollouts (of questions other than those it will rank)",
		usage:   "-out RANKER.json ROLLOUTS.jsonl...",
		help: `Fits agents.Ranker, a conditional logit over cheap features of each candidate,
on rollouts of questions it will not be judged on (e.g. 'pipeline run -split holdout').`,
		args:  argsMin(1, "at least one rollout file"),
		flags: pipelineTrainRankerFlags,
	})
	register(&command{
		name:    "pipeline train",
		summary: "train the native validators, fixer and selector from scored planner rollouts (no teacher model)",
		usage:   "-planner DIR -out DIR [flags] BENCH_DIR ROLLOUTS.jsonl...",
		help: `Fine-tunes one checkpoint from the planner to play validator, fixer and
selector on examples derived from planner rollouts labelled by execution
(agents.BuildTrainingSet), and measures it on held-out questions. Writes
OUT/sft, OUT/data/{train,val}.jsonl and OUT/report.json.`,
		args:  argsMin(2, "a benchmark directory and at least one rollout file"),
		flags: pipelineTrainFlags,
	})
	register(&command{
		name:    "pipeline templates",
		summary: "write the agents' built-in prompt templates into a folder to edit",
		usage:   "-out DIR",
		help:    "Writes DIR/{native,chat}/<role>.tmpl (Go text/template over agents.PromptData), keeping existing files; 'pipeline run -prompts DIR' reads them.",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			out := fs.String("out", "", "folder (required)")
			return func(ctx context.Context, args []string) error {
				if *out == "" {
					return usagef("-out is required")
				}
				wrote, err := agents.WriteTemplates(*out)
				if err != nil {
					return err
				}
				fmt.Printf("wrote %d templates under %s\n", len(wrote), *out)
				return nil
			}
		},
	})
}

func pipelineRunFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	j := agents.RunJob{RunConfig: agents.DefaultRunConfig(), Progress: os.Stderr}
	j.Flags(fs)
	fs.StringVar(&j.Out, "out", "", "rollouts JSONL to write (required)")
	split := splitFlags(fs)
	fs.IntVar(&j.Limit, "limit", 0, "only the first N questions (0: all)")
	heldOutOf := fs.String("heldout-of", "", "only the questions this 'pipeline train' run held out (with -split holdout: out-of-sample agents for the ranker)")
	nn.ThreadsFlag(fs, &j.Threads)
	return func(ctx context.Context, args []string) error {
		if j.Planner == "" || j.Out == "" {
			return usagef("-planner and -out are required")
		}
		if err := j.Check(); err != nil {
			return usagef("%v", err)
		}
		nn.SetThreads(j.Threads)
		b, err := split.Load(args[0], 0)
		if err != nil {
			return err
		}
		j.DBRoot, j.Examples = b.DBRoot, b.Examples
		if *heldOutOf != "" {
			if j.Examples, err = agenttrain.HeldOutOf(*heldOutOf, j.Examples); err != nil {
				return err
			}
		}
		return j.Run(ctx, os.Stdout)
	}
}

func pipelineReportFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	j := agents.ReportJob{ReviewWeight: agents.DefaultReviewWeight}
	fs.StringVar(&j.Ranker, "ranker", "", "learned ranker to apply")
	fs.Float64Var(&j.ReviewWeight, "review-weight", j.ReviewWeight, "recompute the review strategy with this weight on the planner's log-probability")
	jsonOut := fs.String("json", "", "also write the report as JSON")
	preds := fs.String("preds", "", "write each strategy's predictions (JSONL) into this folder")
	return func(ctx context.Context, args []string) error {
		fs.Visit(func(f *flag.Flag) { j.Recompute = j.Recompute || f.Name == "review-weight" })
		recs, rep, err := j.Build(args[0])
		if err != nil {
			return err
		}
		if err := writeJSON(*jsonOut, rep, true); err != nil {
			return err
		}
		if *preds != "" {
			if err := agents.WriteStrategyPredictions(*preds, recs); err != nil {
				return err
			}
		}
		return rep.WriteMarkdown(os.Stdout)
	}
}

func pipelineTrainRankerFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	j := agents.DefaultRankerFitJob()
	j.Flags(fs)
	return func(ctx context.Context, args []string) error {
		if j.Out == "" {
			return usagef("want -out and at least one rollout file")
		}
		return j.Run(args, os.Stdout)
	}
}

func pipelineTrainFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := agenttrain.DefaultOptions()
	o.Flags(fs)
	threads := threadsFlag(fs)
	return func(ctx context.Context, args []string) error {
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		o.Dir, o.Rollouts, o.Threads = args[0], args[1:], *threads
		rep, err := agenttrain.Train(ctx, o)
		if err == nil {
			rep.WriteText(os.Stdout)
		}
		return err
	}
}
