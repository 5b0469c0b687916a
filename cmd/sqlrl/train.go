package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/train"
)

func init() {
	register(&command{
		name:    "train sft",
		summary: "train the native policy from random weights by supervised fine-tuning (checkpoints, exact resume)",
		usage:   "-out DIR [flags] DATA",
		help: `DATA is a benchmark directory in BIRD's layout or a TRL prompt/completion file
(trl_sft.jsonl from 'sqlrl data prepare'), trained as given. From a
benchmark, SFT trains on the train split's SFT share, cut as 'sqlrl data
prepare' cuts it, in compact prompts whose schema names are renamed at
random (-rename) so that the model learns to copy names from its prompt; the
dev split is decoded and scored every -eval-every steps. The defaults are
docs/policy.md's recipe. The same -out resumes exactly; -restart starts
over. Model presets: ` + strings.Join(nn.PresetNames(), ", ") + `.

-task review trains the reviewer that 'sqlrl pipeline run -reviewer' ranks
candidates with, from the planner and its split (docs/agents.md):

  sqlrl train sft -task review -init runs/sft75 -epochs 6 -lr 1e-3 -out runs/reviewer data/bench`,
		args:  argsExactly(1, "one DATA argument"),
		flags: sftFlags,
	})
}

func sftFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o, d := train.DefaultSFTOptions(), train.SFTData{}
	o.Flags(fs)
	d.Flags(fs)
	quiet := quietFlag(fs)
	return func(ctx context.Context, args []string) error {
		if o.Out == "" {
			return usagef("-out is required")
		}
		if err := d.Model(&o); err != nil {
			return trainErr(err)
		}
		o.Progress = progressTo(*quiet)
		data, err := d.Load(&o, args[0])
		if err != nil {
			return trainErr(err)
		}
		defer data.Close()
		start := time.Now()
		res, err := train.SFT(ctx, data, o)
		if err != nil {
			return trainErr(err)
		}
		printTrained(res, start)
		if res.Skipped > 0 {
			fmt.Printf("%d examples longer than the model's context were skipped\n", res.Skipped)
		}
		return nil
	}
}

// trainErr says how to resume a run that a signal stopped.
// A train.UsageError is the caller's: its usage is printed.
func trainErr(err error) error {
	var ue train.UsageError
	if errors.As(err, &ue) {
		return usagef("%s", ue.Msg)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted; run again with the same -out to resume from the last checkpoint")
	}
	return err
}

// printTrained is a finished run's summary on stdout.
func printTrained(res *train.Result, start time.Time) {
	fmt.Printf("trained %s: step %d, loss %.4f, %d tokens, %.0fs training (%s wall)\n", res.Checkpoint, res.State.Step,
		res.State.Loss, res.State.Tokens, res.State.ElapsedSec, time.Since(start).Round(time.Second))
	if res.LastEval != nil {
		fmt.Println(res.LastEval)
	}
}
