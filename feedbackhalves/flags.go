package feedbackhalves

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/experiment"
)

// DefaultOptions are `sqlrl experiment feedback-halves`' defaults.
func DefaultOptions() Options {
	return Options{Out: "out/feedback-halves", Seeds: DefaultSeeds, Train: TrainKTO, KTO: DefaultKTO(), SFT: DefaultSFT()}
}

// Flags declares the command's settings on fs, bound to o.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Model, "model", o.Model, "the served native model: a checkpoint or run `dir` (required)")
	fs.StringVar(&o.Questions, "questions", o.Questions, "BIRD-layout `file` of questions with gold SQL (required)")
	fs.StringVar(&o.DBRoot, "db-root", o.DBRoot, "the questions' databases as `dir`/<db_id>/<db_id>.sqlite (default: <split>_databases beside -questions)")
	fs.StringVar(&o.Out, "out", o.Out, "`dir` for the runs, test-reads.json and the report; the same -out resumes")
	fs.Func("seeds", fmt.Sprintf("comma-separated `seeds`, one split into halves each (default %s)", joinSeeds(o.Seeds)), func(s string) (err error) {
		o.Seeds, err = experiment.ParseSeeds(s)
		return err
	})
	fs.IntVar(&o.KTO.Steps, "steps", o.KTO.Steps, "offline KTO steps on each half's feedback")
	fs.IntVar(&o.KTO.Prompts, "prompts", o.KTO.Prompts, "questions a KTO step")
	fs.Float64Var(&o.KTO.LR, "lr", o.KTO.LR, "KTO's learning rate")
	fs.StringVar(&o.Train, "train", o.Train, "`kind` of training on each half's feedback: kto (offline KTO on its labels: -steps, -prompts, -lr) or sft (SFT from -model on the answers the user accepted or corrected: -sft-epochs, -sft-lr)")
	fs.IntVar(&o.SFT.Epochs, "sft-epochs", o.SFT.Epochs, "with -train sft: passes over the accepted and corrected answers (choose on a synthetic dev split as -questions, not on the human questions)")
	fs.Float64Var(&o.SFT.LR, "sft-lr", o.SFT.LR, "with -train sft: peak learning rate, warmup then cosine to a tenth (choose on a synthetic dev split as -questions, not on the human questions)")
}

func joinSeeds(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, x := range seeds {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
