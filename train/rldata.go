package train

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
)

// UsageError is a choice of settings that cannot run, found before any
// work: commands print their usage with it.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// RLData is where an RL run's prompts come from: the train split of a
// benchmark cut as the start (RLOptions.Init) cut it, or a question file
// such as a feedback export's (Data.UseQuestions), which no split holds.
type RLData struct {
	// TrainSplit is the benchmark split the start trained on.
	TrainSplit string
	// Fraction and SplitSeed may repeat the start's cut or, for the
	// fraction, raise it (StartSplit); not given, the start's are taken.
	Fraction  float64
	SplitSeed uint64
	// Questions and DBRoot: a question file and its databases
	// (DIR/<db_id>/<db_id>.sqlite) instead of a split.
	Questions, DBRoot string
	// Warn receives warnings (such as another benchmark than the
	// start's); nil discards them.
	Warn io.Writer
}

// Flags declares where the prompts come from, bound to d.
func (d *RLData) Flags(fs *flag.FlagSet) {
	d.TrainSplit = "train"
	fs.Float64Var(&d.Fraction, "sft-fraction", 0, "SFT share of the train split (default: the -init run's); a larger share leaves RL a part of that run's holdout, the rest unseen by both")
	fs.Uint64Var(&d.SplitSeed, "split-seed", 0, "seed of the SFT/holdout split (default: the -init run's)")
	fs.StringVar(&d.TrainSplit, "train-split", d.TrainSplit, "benchmark split SFT trained on")
	fs.StringVar(&d.Questions, "questions", "", "take the RL prompts from this BIRD-layout question file (a feedback export's feedback.json), not a split")
	fs.StringVar(&d.DBRoot, "db-root", "", "with -questions: the databases, as DIR/<db_id>/<db_id>.sqlite")
}

// Load loads o's prompts from fs's arguments (BENCH_DIR; optional with
// Questions, for its dev split) and returns the directory of the databases
// their rewards are scored over ("" unless scored). fs is parsed: with
// Questions, the flags given that shape a split's pool or an online reward
// are refused rather than ignored.
func (d RLData) Load(ctx context.Context, o *RLOptions, fs *flag.FlagSet, scored, sampleOnly bool) (*Data, string, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	set, args := func(name string) bool { return given[name] }, fs.Args()
	if d.Questions != "" || d.DBRoot != "" {
		data, err := d.loadQuestions(ctx, o, args, sampleOnly, set)
		return data, d.DBRoot, err
	}
	if len(args) != 1 {
		return nil, "", usagef("want one BENCH_DIR argument, got %d", len(args))
	}
	data, notes, err := d.bench(o, args[0], set("sft-fraction"), set("split-seed"))
	if err != nil {
		return nil, "", err
	}
	if b := notes["data"]; b != "" && !SameBench(b, args[0]) && d.Warn != nil {
		fmt.Fprintf(d.Warn, "warning: -init trained on %s, RL reads %s\n", b, args[0])
	}
	if !scored {
		return data, "", nil
	}
	b, err := dataset.Load(args[0], d.TrainSplit)
	if err != nil {
		data.Close()
		return nil, "", err
	}
	return data, b.DBRoot, nil
}

// bench loads dir's train split cut as o.Init's and its dev split.
func (d RLData) bench(o *RLOptions, dir string, fracSet, seedSet bool) (*Data, map[string]string, error) {
	if err := dataset.CheckSplit(dir, d.TrainSplit); err != nil {
		return nil, nil, usagef("%v", err)
	}
	p, err := policy.Load(o.Init)
	if err != nil {
		return nil, nil, fmt.Errorf("-init: %w", err)
	}
	fraction, sseed, pool, err := StartSplit(p.Info.Notes, d.Fraction, fracSet, d.SplitSeed, seedSet)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	o.Fraction, o.Pool = fraction, pool
	bo := o.Split.Bench(dir, sseed, p.Info.Prompt)
	bo.TrainSplit = d.TrainSplit
	data, err := LoadBench(bo)
	return data, p.Info.Notes, err
}

// loadQuestions loads the data of a run on a question file. BENCH_DIR is
// optional: given, its dev split is evaluated during the run.
func (d RLData) loadQuestions(ctx context.Context, o *RLOptions, args []string, sampleOnly bool, set func(string) bool) (*Data, error) {
	switch {
	case sampleOnly:
		return nil, usagef("-questions: -sample-only is not available; sample a split's holdout instead")
	case len(args) > 1:
		return nil, usagef("-questions: want at most one BENCH_DIR argument (for its dev split), got %d", len(args))
	case d.Questions == "" || d.DBRoot == "":
		return nil, usagef("-questions and -db-root go together: the questions' prompts are rendered over the databases of -db-root")
	}
	for _, name := range []string{"rl-on", "sft-fraction", "split-seed", "reward-url", "rollouts-out"} {
		if set(name) {
			return nil, usagef("-%s: -questions takes its prompts from the file, with no split, and scores them in process", name)
		}
	}
	if st, err := os.Stat(d.DBRoot); err != nil || !st.IsDir() {
		return nil, usagef("-db-root %s is not a directory", d.DBRoot)
	}
	var data *Data
	if len(args) == 1 && o.DevSplit != "-" {
		augment := o.Augment
		o.Augment = 0 // a split's holdout is not used
		b, _, err := d.bench(o, args[0], false, false)
		if err != nil {
			return nil, err
		}
		data, o.Augment = b, augment
	} else {
		p, err := policy.Load(o.Init)
		if err != nil {
			return nil, fmt.Errorf("-init: %w", err)
		}
		data = &Data{Format: p.Info.Prompt, Notes: map[string]string{}}
	}
	if err := data.UseQuestions(ctx, d.Questions, d.DBRoot); err != nil {
		data.Close()
		return nil, err
	}
	if set("augment") {
		data.HoldoutAugment = o.Augment // schema-order shuffles of each question, as a holdout's
	}
	return data, nil
}
