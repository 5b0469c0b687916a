package experiment

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// Flags declares -out and -seeds, bound to o: the experiment directory
// (default defaultOut, defaultOut-quick with -quick; OutFor) and the seeds
// (default the preset's).
func (o *Options) Flags(fs *flag.FlagSet, defaultOut string) {
	fs.StringVar(&o.Out, "out", o.Out, fmt.Sprintf("experiment directory (default %s, %s-quick with -quick)", defaultOut, defaultOut))
	fs.Func("seeds", "comma-separated `seeds` (default: the preset's)", func(s string) error {
		o.Seeds = nil
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a seed", f)
			}
			o.Seeds = append(o.Seeds, n)
		}
		return nil
	})
}

// OutFor fills in o.Out's default: defaultOut, or defaultOut-quick for a
// quick run, so that a quick run never mixes with a real one.
func (o *Options) OutFor(defaultOut string, quick bool) {
	if o.Out == "" {
		o.Out = defaultOut
		if quick {
			o.Out += "-quick"
		}
	}
}

// StudiesFlag declares -studies, bound to o.Studies (default all).
func (o *Options) StudiesFlag(fs *flag.FlagSet) {
	fs.Func("studies", "comma-separated `studies` (default all: "+strings.Join(StudyNames(), ",")+")", func(s string) error {
		o.Studies = nil
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				o.Studies = append(o.Studies, f)
			}
		}
		return nil
	})
}

// OktoPreset is the preset `experiment okto -preset name` runs: Quick
// with quick, else Full ("full") or FlywheelStudies ("flywheel").
func OktoPreset(name string, quick bool) (Preset, error) {
	switch {
	case quick:
		return Quick(), nil
	case name == "full":
		return Full(), nil
	case name == "flywheel":
		return FlywheelStudies(), nil
	}
	return Preset{}, fmt.Errorf("-preset %q: want full or flywheel", name)
}

// FlywheelFlags declares the flywheel's settings on fs, bound to p, their
// defaults p's. -heldout sets the RL pool (PoolFor) and -kto-rounds the
// rounds, each checked as it is parsed.
func (p *Preset) FlywheelFlags(fs *flag.FlagSet) {
	r := &p.RL
	fs.IntVar(&p.SFT.Epochs, "sft-epochs", p.SFT.Epochs, "SFT-75's (and SFT-100's) epochs; a changed value trains SFT and everything after it anew")
	fs.IntVar(&r.Steps, "kto-steps", r.Steps, "KTO optimizer steps")
	fs.Float64Var(&r.LR, "kto-lr", r.LR, "KTO peak learning rate")
	fs.Float64Var(&r.Beta, "kto-beta", r.Beta, "KTO beta")
	fs.Float64Var(&r.Temperature, "kto-temperature", r.Temperature, "KTO sampling temperature (KTO needs labels, not on-policy ratios: below 1 is sound)")
	fs.IntVar(&r.K, "k", r.K, "completions sampled per prompt")
	fs.IntVar(&r.Prompts, "prompts", r.Prompts, "prompts per KTO step")
	fs.IntVar(&r.MaxTokens, "kto-max-tokens", r.MaxTokens, "tokens per sampled completion")
	fs.IntVar(&r.EvalEvery, "kto-eval-every", r.EvalEvery, "dev EX during KTO every N steps (-1: never)")
	fs.IntVar(&r.EvalN, "kto-eval-n", r.EvalN, "dev questions per evaluation during KTO")
	fs.Float64Var(&r.GoldUnsolved, "kto-gold-unsolved", r.GoldUnsolved, "add the SFT loss of the gold SQL of each prompt none of whose samples was correct, at this weight (train kto -gold-unsolved; 0: none)")
	fs.IntVar(&r.Replay, "replay", r.Replay, "add to every KTO step the SFT loss of this many renamed SFT examples (train kto -replay; 0: plain KTO)")
	fs.BoolVar(&r.Guided, "guided", r.Guided, "sample KTO's completions under the schema guide (train kto -guided; false: unguided, as the recipe)")
	fs.Float64Var(&r.Rename, "rename", r.Rename, "rename each schema name of a sampled KTO prompt with this probability (train kto -rename; 0: none, as the recipe)")
	fs.BoolVar(&r.RenameFamilies, "rename-families", r.RenameFamilies, "rename KTO prompts' names word by word (train kto -rename-families)")
	fs.Float64Var(&r.Reward.ErrorValue, "error-value", r.Reward.ErrorValue, "gate reward of SQL that fails to execute (train kto and reward serve default to -1)")
	fs.Float64Var(&p.Merge, "merge", p.Merge, "also evaluate KTO merged back towards SFT-75, SFT-75 + M x (KTO - SFT-75), as the arm okto_merged (0: not)")
	fs.BoolVar(&p.SFT100, "sft100", p.SFT100, "also train and evaluate SFT on all of train: the recipe's headline, SFT-75 + OKTO >= SFT-100")
	fs.BoolVar(&p.SFT100KTO, "sft100-kto", p.SFT100KTO, "also run the same KTO from SFT-100 on train's own questions (implies -sft100)")
	fs.Var(heldOutValue{p}, "heldout", "`share` of the holdout kept from KTO and evaluated as the split \"heldout\" (0: KTO on all of it)")
	fs.Var(roundsValue{&p.Rounds}, "kto-rounds", "`rounds` of KTO from SFT-75, each from the model of the round before, also its reference (arms okto_rN)")
}

// FlywheelPreset is the preset `experiment flywheel` runs: f, its flags
// bound to fs by FlywheelFlags and parsed, or with quick FlywheelQuick with
// the flags fs's command line set parsed again onto it; checked
// (CheckFlywheel), with the budget of its settings.
func FlywheelPreset(f Preset, quick bool, fs *flag.FlagSet) (Preset, error) {
	if quick {
		q := FlywheelQuick()
		onto := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		q.FlywheelFlags(onto)
		var err error
		fs.Visit(func(fl *flag.Flag) {
			if onto.Lookup(fl.Name) != nil && err == nil {
				err = onto.Set(fl.Name, fl.Value.String())
			}
		})
		if err != nil {
			return q, err
		}
		return q, q.CheckFlywheel()
	}
	f.Budget = FlywheelBudget(f)
	return f, f.CheckFlywheel()
}

// heldOutValue is -heldout: the share of the holdout kept from RL, set as
// the RL pool share that leaves it (PoolFor).
type heldOutValue struct{ p *Preset }

func (v heldOutValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(HeldOutShare(v.p.RL), 'g', -1, 64)
}

func (v heldOutValue) Set(s string) error {
	h, err := strconv.ParseFloat(s, 64)
	if err != nil || !(h >= 0 && h < 1) {
		return fmt.Errorf("%q: want a share in [0, 1)", s)
	}
	v.p.RL.Pool = PoolFor(v.p.RL.Fraction, h)
	return nil
}

// roundsValue is -kto-rounds: unset (0) means the one round.
type roundsValue struct{ n *int }

func (v roundsValue) String() string {
	switch {
	case v.n == nil:
		return "0" // the zero Value, which flag's help compares with
	case *v.n == 0:
		return "1"
	}
	return strconv.Itoa(*v.n)
}

func (v roundsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("%q: want 1 or more", s)
	}
	*v.n = n
	return nil
}
