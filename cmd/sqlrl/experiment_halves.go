package main

import (
	"context"
	"flag"
	"os"

	"github.com/sqlrl/sqlrl/feedbackhalves"
)

func init() {
	register(&command{
		name:    "experiment feedback-halves",
		summary: "the flywheel on real questions: feedback on one half of them, offline KTO or SFT, EX on the other half before and after",
		usage:   "-model DIR -questions FILE [-db-root DIR] [-out DIR] [-seeds 1,2,3] [-train kto|sft] [-steps N] [-prompts N] [-lr R] [-sft-epochs N] [-sft-lr R]",
		help: `Measures whether a served model gets better from its users' feedback on
questions it was never trained on. For each seed the questions of -questions
(BIRD layout, with gold SQL) are cut in two halves, stratified by database and
difficulty, and for each half in turn:

  1. the model of -model, served in process through 'sqlrl serve's API,
     answers every question of the half once;
  2. a scripted user judges each answer through the same API: BIRD EX
     against the gold -> thumbs up, else thumbs down with the gold SQL as
     the correction;
  3. the feedback store is exported ('sqlrl data from-feedback') and offline
     KTO trains the model on it (-steps, -prompts, -lr; the rest are
     'sqlrl train kto's defaults), or with -train sft, SFT continues the
     model on the answers the user accepted or corrected, in the model's
     own prompt format and tokenizer (-sft-epochs, -sft-lr; batch and the
     rest are 'sqlrl train sft's defaults; names never renamed: the
     feedback is about the served database's own);
  4. the other half, never trained on, is scored greedily under the schema
     guide before and after, by difficulty.

-out/report.md and report.json hold EX before and after per seed and half,
the paired bootstrap interval of the change pooled over seeds, McNemar's
test per seed, the spread over seeds and the issue's check. Each scoring of
a held-back half is a read of a test file, counted in -out/test-reads.json:
do not choose settings on it. Choose -sft-epochs and -sft-lr (or -steps and
-lr) with a synthetic dev split with gold as -questions (the dev.json of
'sqlrl specialise's data), then run the human questions once. Each (seed,
half) run is a folder under -out/runs named by a hash of its config:
running the same command again reads finished runs back and resumes an
interrupted one.

  sqlrl experiment feedback-halves -model out/specialise/flywheel/runs/rl-.../train \
    -questions datasets/bird-dev-sample/dev.json -out out/feedback-halves
  sqlrl experiment feedback-halves -train sft -model out/specialise/flywheel/runs/rl-.../train \
    -questions out/specialise/data/dev.json -out out/feedback-halves-sft-dev`,
		args:  argsNone,
		flags: feedbackHalvesFlags,
	})
}

// feedbackHalvesFlags declares `experiment feedback-halves`' flags.
func feedbackHalvesFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := feedbackhalves.DefaultOptions()
	o.Flags(fs)
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	return func(ctx context.Context, _ []string) error {
		o.Threads, o.Progress, o.Command = *threads, progressTo(*quiet), commandLine()
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		rep, err := feedbackhalves.Run(ctx, o)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(rep.Markdown())
		return err
	}
}
