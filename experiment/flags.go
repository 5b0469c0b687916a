package experiment

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/nn"
)

// Flags declares -out and -seeds, bound to o: the experiment directory
// (default defaultOut, defaultOut-quick with -quick; OutFor) and the seeds
// (default the preset's).
func (o *Options) Flags(fs *flag.FlagSet, defaultOut string) {
	fs.StringVar(&o.Out, "out", o.Out, fmt.Sprintf("experiment directory (default %s, %s-quick with -quick)", defaultOut, defaultOut))
	fs.Func("seeds", "comma-separated `seeds` (default: the preset's)", func(s string) (err error) {
		o.Seeds, err = parseSeeds(s)
		return err
	})
}

// StudyFlags declares `experiment study`'s -out (default: out/study-NAME,
// StudyOut) and -run-seeds, bound to o.
func (o *Options) StudyFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "experiment directory (default out/study-NAME, NAME the config's name); share one with `experiment flywheel` to reuse its runs")
	fs.Func("run-seeds", "comma-separated `seeds` of the config's to run in this invocation (default all): to spread a study's seeds over machines or OpenBLAS kernels (OPENBLAS_CORETYPE); the report covers every seed that finished", func(s string) (err error) {
		o.RunSeeds, err = parseSeeds(s)
		return err
	})
}

// StudyOut is a study's default directory: out/study-NAME.
func StudyOut(name string) string { return "out/study-" + name }

// parseSeeds reads a comma-separated list of seeds.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed", f)
		}
		out = append(out, n)
	}
	return out, nil
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

// flywheelSetting is one of the flywheel's flags: its name, its help and
// the field of a Preset it sets (an *int, *float64 or *bool). value, when
// set, is the flag's own Value on a preset (it checks or converts what it
// is given); copy, when set, carries the setting from one preset to
// another where copying the field would not (-heldout's pool depends on
// the preset's SFT share).
type flywheelSetting struct {
	name, usage string
	field       func(*Preset) any
	value       func(*Preset) flag.Value
	copy        func(dst, src *Preset)
}

var flywheelSettings = []flywheelSetting{
	{name: "sft-epochs", usage: "SFT-75's (and SFT-100's) epochs; a changed value trains SFT and everything after it anew", field: func(p *Preset) any { return &p.SFT.Epochs }},
	{name: "values", usage: "link the stored values a question quotes in its prompt (train sft -values); a changed value trains SFT and everything after it anew", field: func(p *Preset) any { return &p.SFT.Values }},
	{name: "ctx", usage: "the model's context in `tokens`, prompt and completion (0: the preset's); a changed value trains SFT and everything after it anew",
		value: func(p *Preset) flag.Value { return contextValue{p} },
		copy: func(dst, src *Preset) {
			if src.SFT.Model != nil {
				_ = contextValue{dst}.Set(strconv.Itoa(src.SFT.Model.MaxSeq))
			}
		}},
	{name: "desc-phrase", usage: "show an abbreviated column's readable name alone and leave out descriptions that only restate the names (train sft -desc-phrase; databases whose names are the question's words); a changed value trains SFT and everything after it anew", field: func(p *Preset) any { return &p.SFT.DescPhrase }},
	{name: "rename-text", usage: "rename the words of the schema's names wherever they occur, question and evidence included, in SFT's examples and in KTO's renamed prompts (train sft and kto -rename-text; databases whose names are the question's words); a changed value trains SFT and everything after it anew",
		value: func(p *Preset) flag.Value { return renameTextValue{p} },
		copy:  func(dst, src *Preset) { dst.SFT.RenameText, dst.RL.RenameText = src.SFT.RenameText, src.RL.RenameText }},
	{name: "rename-each", usage: "probability that SFT renames each name of an example (with -rename-text: each word; 0: train's default); a changed value trains SFT and everything after it anew", field: func(p *Preset) any { return &p.SFT.RenameEach }},
	{name: "kto-steps", usage: "KTO optimizer steps", field: func(p *Preset) any { return &p.RL.Steps }},
	{name: "kto-lr", usage: "KTO peak learning rate", field: func(p *Preset) any { return &p.RL.LR }},
	{name: "kto-beta", usage: "KTO beta", field: func(p *Preset) any { return &p.RL.Beta }},
	{name: "kto-temperature", usage: "KTO sampling temperature (KTO needs labels, not on-policy ratios: below 1 is sound)", field: func(p *Preset) any { return &p.RL.Temperature }},
	{name: "k", usage: "completions sampled per prompt", field: func(p *Preset) any { return &p.RL.K }},
	{name: "prompts", usage: "prompts per KTO step", field: func(p *Preset) any { return &p.RL.Prompts }},
	{name: "kto-max-tokens", usage: "tokens per sampled completion", field: func(p *Preset) any { return &p.RL.MaxTokens }},
	{name: "kto-eval-every", usage: "dev EX during KTO every N steps (-1: never)", field: func(p *Preset) any { return &p.RL.EvalEvery }},
	{name: "kto-eval-n", usage: "dev questions per evaluation during KTO", field: func(p *Preset) any { return &p.RL.EvalN }},
	{name: "kto-gold-unsolved", usage: "add the SFT loss of the gold SQL of each prompt none of whose samples was correct, at this weight (train kto -gold-unsolved; 0: none)", field: func(p *Preset) any { return &p.RL.GoldUnsolved }},
	{name: "replay", usage: "add to every KTO step the SFT loss of this many renamed SFT examples (train kto -replay; 0: plain KTO)", field: func(p *Preset) any { return &p.RL.Replay }},
	{name: "guided", usage: "sample KTO's completions under the schema guide (train kto -guided; false: unguided, as the recipe)", field: func(p *Preset) any { return &p.RL.Guided }},
	{name: "rename", usage: "rename each schema name of a sampled KTO prompt with this probability (train kto -rename; 0: none, as the recipe)", field: func(p *Preset) any { return &p.RL.Rename }},
	{name: "rename-families", usage: "rename KTO prompts' names word by word (train kto -rename-families)", field: func(p *Preset) any { return &p.RL.RenameFamilies }},
	{name: "error-value", usage: "gate reward of SQL that fails to execute (train kto and reward serve default to -1)", field: func(p *Preset) any { return &p.RL.Reward.ErrorValue }},
	{name: "merge", usage: "also evaluate KTO merged back towards SFT-75, SFT-75 + M x (KTO - SFT-75), as the arm okto_merged (0: not)", field: func(p *Preset) any { return &p.Merge }},
	{name: "sft100", usage: "also train and evaluate SFT on all of train: the recipe's headline, SFT-75 + OKTO >= SFT-100", field: func(p *Preset) any { return &p.SFT100 }},
	{name: "sft100-kto", usage: "also run the same KTO from SFT-100 on train's own questions (implies -sft100)", field: func(p *Preset) any { return &p.SFT100KTO }},
	{name: "heldout", usage: "`share` of the holdout kept from KTO and evaluated as the split \"heldout\" (0: KTO on all of it)",
		value: func(p *Preset) flag.Value { return heldOutValue{p} },
		copy:  func(dst, src *Preset) { dst.RL.Pool = PoolFor(dst.RL.Fraction, HeldOutShare(src.RL)) }},
	{name: "kto-rounds", usage: "`rounds` of KTO from SFT-75, each from the model of the round before, also its reference (arms okto_rN)",
		field: func(p *Preset) any { return &p.Rounds }, value: func(p *Preset) flag.Value { return roundsValue{&p.Rounds} }},
}

// FlywheelFlags declares the flywheel's settings on fs, bound to p, their
// defaults p's. -heldout sets the RL pool (PoolFor) and -kto-rounds the
// rounds, each checked as it is parsed.
func (p *Preset) FlywheelFlags(fs *flag.FlagSet) {
	for _, s := range flywheelSettings {
		if s.value != nil {
			fs.Var(s.value(p), s.name, s.usage)
			continue
		}
		switch v := s.field(p).(type) {
		case *int:
			fs.IntVar(v, s.name, *v, s.usage)
		case *float64:
			fs.Float64Var(v, s.name, *v, s.usage)
		case *bool:
			fs.BoolVar(v, s.name, *v, s.usage)
		}
	}
}

// FlywheelPreset is the preset `experiment flywheel` runs: f, its flags
// bound to fs by FlywheelFlags and parsed, or with quick FlywheelQuick
// with the settings of the flags the command line set copied from f;
// checked (CheckFlywheel), with the budget of its settings.
func FlywheelPreset(f Preset, quick bool, fs *flag.FlagSet) (Preset, error) {
	if quick {
		q := FlywheelQuick()
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		for _, s := range flywheelSettings {
			switch {
			case !set[s.name]:
				continue
			case s.copy != nil:
				s.copy(&q, &f)
				continue
			}
			switch dst := s.field(&q).(type) {
			case *int:
				*dst = *s.field(&f).(*int)
			case *float64:
				*dst = *s.field(&f).(*float64)
			case *bool:
				*dst = *s.field(&f).(*bool)
			}
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

// minContext is the shortest context -ctx takes: a compact prompt of a
// few tables and a completion.
const minContext = 256

// contextValue is -ctx: the SFT model's context, the preset's shape
// otherwise (SFTConfig.Model, left unset at the preset's own context so
// that the runs' IDs stay those of the preset).
type contextValue struct{ p *Preset }

func (v contextValue) String() string {
	if v.p == nil || v.p.SFT.Model == nil {
		return "0"
	}
	return strconv.Itoa(v.p.SFT.Model.MaxSeq)
}

func (v contextValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 0 && n < minContext {
		return fmt.Errorf("%q: want a number of tokens, at least %d (0: the preset's)", s, minContext)
	}
	preset, err := nn.Preset(v.p.SFT.Preset, 0)
	if err != nil {
		return err
	}
	cfg := preset
	if v.p.SFT.Model != nil {
		cfg = *v.p.SFT.Model
	}
	if n == 0 {
		n = preset.MaxSeq
	}
	cfg.MaxSeq = n
	// The preset's own shape is no model at all, so that its runs keep
	// the IDs they had before -ctx (a preset whose default sets a
	// context, as specialise's does, gets the preset's back with -ctx 0).
	if cfg == preset {
		v.p.SFT.Model = nil
	} else {
		v.p.SFT.Model = &cfg
	}
	return nil
}

// renameTextValue is -rename-text: words renamed rather than names, in
// SFT and in KTO alike (KTO renames only where -rename is above 0).
type renameTextValue struct{ p *Preset }

func (v renameTextValue) String() string {
	return strconv.FormatBool(v.p != nil && v.p.SFT.RenameText)
}

func (v renameTextValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q: want true or false", s)
	}
	v.p.SFT.RenameText, v.p.RL.RenameText = b, b
	return nil
}

func (renameTextValue) IsBoolFlag() bool { return true }

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
