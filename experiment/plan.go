package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/train"
)

// Preset sizes an experiment: the SFT and RL runs' settings (templates
// that each arm of a study varies), the final evaluation's size and the
// default seeds.
type Preset struct {
	Name string `json:"name"`
	// SFT is the SFT template; Fraction is set per run.
	SFT SFTConfig `json:"sft"`
	// RL is the recipe's run (online KTO on the 25% holdout, x4, hybrid
	// reward); the studies change one setting each.
	RL RLConfig `json:"rl"`
	// EvalN dev questions per final evaluation of each model on each split
	// (0: all).
	EvalN int      `json:"eval_n"`
	Seeds []uint64 `json:"seeds"`
	// SFT100 adds SFT on all of train (the SFT template, fraction 1) to
	// the flywheel study: the recipe's headline compares SFT-75 + OKTO
	// with it. The OKTO studies have it in "holdout" and "final" anyway.
	SFT100 bool `json:"sft100,omitempty"`
	// SFT100KTO adds to the flywheel study the preset's online KTO from
	// SFT-100 on train's own questions (the holdout study's arm rl_seen:
	// RL on data SFT saw), and SFT-100 with it: the other way to spend
	// the holdout's gold SQL, measured against the recipe's.
	SFT100KTO bool `json:"sft100_kto,omitempty"`
	// Merge > 0 adds to the flywheel study the online KTO run merged back
	// towards its SFT-75 start, start + Merge x (KTO - start)
	// (policy.Interpolate, WiSE-FT): the arm "okto_merged".
	Merge float64 `json:"merge,omitempty"`
	// Rounds > 1 adds to the flywheel study rounds 2..Rounds of the
	// preset's online KTO, each from the model of the round before, which
	// is also its frozen reference (iterated KTO: a fresh reference lets
	// the policy move on where the last round's KL term held it), with a
	// fresh optimizer and schedule: the arms okto_r2, okto_r3, ...
	Rounds int `json:"kto_rounds,omitempty"`
	// Budget is the arithmetic behind the sizes, for the report.
	Budget string `json:"budget"`
}

// MicroModel is the quick preset's model: a few thousand parameters,
// enough to run every code path, not to learn SQL.
var MicroModel = nn.Config{Dim: 32, Layers: 1, Heads: 2, Hidden: 64, MaxSeq: 1024, PrevToken: true, Copy: true}

// Quick runs every study end to end in about a minute on 2 cores, for CI:
// numbers from it say that the machinery works, nothing about the recipe.
func Quick() Preset {
	m := MicroModel
	return Preset{
		Name: "quick",
		SFT: SFTConfig{Preset: "tiny", Model: &m, VocabSize: 400, Epochs: 1, MaxSteps: 3, BatchSize: 4,
			LoopConfig: train.LoopConfig{LR: 3e-3, EvalEvery: -1, EvalN: 4}, Split: train.Split{DevSplit: "dev"}},
		RL: RLConfig{Algorithm: train.Algorithm{Algo: "kto", Online: true, Steps: 2, Beta: 0.1},
			Split:      train.Split{On: "holdout", Fraction: 0.75, Augment: 4, DevSplit: "dev"},
			Sampling:   train.Sampling{Prompts: 2, K: 2, Temperature: 1, MaxTokens: 24},
			LoopConfig: train.LoopConfig{LR: 1e-4, EvalEvery: 1, EvalN: 2},
			Reward:     reward.Config{Kind: "gate"}},
		EvalN:  4,
		Seeds:  []uint64{1},
		Budget: "quick: micro model (d32 L1), 3 SFT steps, 2 RL steps of 2 prompts x K=2, 4 dev questions: about a minute on 2 cores",
	}
}

// Full is the default, sized to finish within about two hours on 2 cores
// with 3 seeds and one dev split, on the bundled small benchmark: preset
// tiny for 6 epochs (the small preset's SFT alone would take about that
// long a seed), RL sampling up to the evaluation's token budget. Budget
// spells out the arithmetic; the measured costs behind it are in docs.
func Full() Preset {
	return Preset{
		Name: "full",
		SFT: SFTConfig{Preset: "tiny", VocabSize: 2048, Epochs: 6, BatchSize: 16,
			LoopConfig: train.LoopConfig{LR: 2e-3, EvalEvery: -1, EvalN: 30}, Split: train.Split{DevSplit: "dev"}},
		// RL draws from half the holdout (Pool 0.875); the other half is
		// the split "heldout", on which every model that never saw it is
		// evaluated too: RL on the holdout generalises to unseen questions
		// of its own databases before it does to renamed ones (docs/rl.md).
		RL: RLConfig{Algorithm: train.Algorithm{Algo: "kto", Online: true, Steps: 30, Beta: 0.1},
			Split:      train.Split{On: "holdout", Fraction: 0.75, Pool: 0.875, Augment: 4, DevSplit: "dev"},
			Sampling:   train.Sampling{Prompts: 8, K: 4, Temperature: 1, MaxTokens: train.DevMaxTokens},
			LoopConfig: train.LoopConfig{LR: 2e-5, EvalEvery: 15, EvalN: 30},
			Reward:     reward.Config{Kind: "gate"}},
		EvalN: 100,
		Seeds: []uint64{1, 2, 3},
		Budget: "full, per seed on 2 cores: SFT-75 + SFT-100 (tiny, 6 epochs, 0.17 s/step) ~5.6 min; 10 online RL runs " +
			"(30 steps of 8 prompts x K=4, up to 256 tokens, ~4.2 s/step) ~21 min; offline KTO (K=4 samples of 1500 prompts, then 30 steps) ~5 min; " +
			"13 final evaluations of 100 dev questions and 11 of 100 held-out ones ~9 min; in-run dev EX ~2.6 min: ~43 min a seed, ~130 min for 3 seeds and one dev split " +
			"(an upper bound: measured alone on the machine, 3 seeds took 47 min, 41 min of it in runs)",
	}
}

// Study is one question the recipe answers by comparing arms.
type Study struct {
	Name     string `json:"name"`
	Question string `json:"question"`
	Arms     []Arm  `json:"arms"`
}

// Arm is one model of a study, trained once per seed. Key names the arm
// across studies (the claims look arms up by it); the recipe's run has
// the same key, and the same runs, in every study it appears in.
type Arm struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	// Models are the arm's model runs, one per seed, in seed order.
	Models []*Run `json:"-"`
	// Start, for an RL arm, is the key of the SFT arm it starts from; for
	// a merge arm, the key of the RL arm it merges.
	Start string `json:"start,omitempty"`
}

// Run is one unit of cached work.
type Run struct {
	Name   string
	Config RunConfig
	ID     string
	Parent *Run
	// Evals are the final evaluations of a model run, by split.
	Evals map[string]*Run
}

// ArmSFT100 is the key of SFT on all of train (Preset.SFT100).
const ArmSFT100 = "sft100"

// RunArm is the arm key of a trained run's name ("sft100/seed1" ->
// "sft100"); an evaluation's name ("eval/okto/seed1/dev") gives "eval".
func RunArm(name string) string {
	arm, _, _ := strings.Cut(name, "/")
	return arm
}

// StudyFlywheel is the main job's one comparison (sqlrl experiment
// flywheel): SFT-75 against SFT-75 + online KTO, the recipe's run. It is
// not one of the OKTO studies (its two arms are in "final" already), so
// an experiment runs it only when named.
const StudyFlywheel = "flywheel"

// StudyNames lists the studies, in report order.
func StudyNames() []string {
	return []string{"algorithms", "holdout", "augmentation", "reward", "final"}
}

// Plan is what an experiment runs: the studies and their runs, each run
// once, parents before children.
type Plan struct {
	Preset  Preset
	Seeds   []uint64
	Splits  []string
	Studies []*Study
	Runs    []*Run
	byID    map[string]*Run
}

// NewPlan lays out the studies named (all when empty) for the seeds and
// splits. Runs shared between studies (the SFT-75 start, the recipe's
// online KTO) are planned once.
func NewPlan(p Preset, bench string, seeds []uint64, splits, studies []string) (*Plan, error) {
	if len(seeds) == 0 {
		seeds = p.Seeds
	}
	if len(studies) == 0 {
		studies = StudyNames()
	}
	for _, s := range studies {
		if !slices.Contains(StudyNames(), s) && s != StudyFlywheel {
			return nil, fmt.Errorf("unknown study %q (want some of %s)", s, strings.Join(StudyNames(), ", "))
		}
	}
	if len(splits) == 0 {
		return nil, fmt.Errorf("no evaluation split")
	}
	if p.RL.Pool > 0 {
		if !(p.RL.Pool > p.RL.Fraction && p.RL.Pool < 1) {
			return nil, fmt.Errorf("RL pool share %v: want between the SFT share %v and 1", p.RL.Pool, p.RL.Fraction)
		}
		if !slices.Contains(splits, train.DevHeldOut) {
			splits = append(slices.Clip(splits), train.DevHeldOut)
		}
	}
	pl := &Plan{Preset: p, Seeds: seeds, Splits: splits, byID: map[string]*Run{}}
	type armDef struct {
		key, label, start string
		sft               float64           // SFT arm: fraction
		rl                func(r *RLConfig) // RL arm: changes to the recipe's run
		merge             float64           // merge arm: alpha, start the RL arm merged
	}
	recipe := func(*RLConfig) {}
	sft75 := armDef{key: "sft75", label: "SFT-75", sft: 0.75}
	sft100 := armDef{key: ArmSFT100, label: "SFT-100", sft: 1}
	okto := armDef{key: "okto", label: "SFT-75 + online KTO-25 (x4, hybrid)", start: "sft75", rl: recipe}
	rlSeen := armDef{key: "rl_seen", label: "SFT-100 + online KTO on the same data", start: ArmSFT100, rl: func(r *RLConfig) { r.On, r.Fraction, r.Pool = train.RLOnTrain, 1, 0 }}
	algo := func(key, label, a string, online bool) armDef {
		return armDef{key: key, label: label, start: "sft75", rl: func(r *RLConfig) {
			r.Algo, r.Online = a, online
			if !online {
				// an offline file's completions are in its prompts' own
				// names: the flywheel's renaming applies to online samples
				r.Rename, r.RenameText, r.RenameFamilies = 0, false, false
			}
		}}
	}
	defs := map[string]struct {
		q    string
		arms []armDef
	}{
		"algorithms": {"Which RL algorithm gains most from the same SFT-75 start (holdout x4, hybrid reward)?", []armDef{
			func() armDef { a := sft75; a.label = "SFT-75 (the start)"; return a }(),
			func() armDef { a := okto; a.label = "online KTO"; return a }(),
			algo("kto_offline", "offline KTO", "kto", false),
			algo("dpo", "online DPO", "dpo", true),
			algo("ppo", "PPO", "ppo", true),
			algo("rloo", "RLOO", "rloo", true),
			algo("grpo", "GRPO", "grpo", true),
			algo("orpo", "ORPO", "orpo", true),
		}},
		"holdout": {"Does RL need data SFT did not see?", []armDef{
			sft100,
			rlSeen,
			sft75,
			func() armDef { a := okto; a.label = "SFT-75 + online KTO on the 25% holdout"; return a }(),
		}},
		"augmentation": {"Do 4 schema-order shuffles of each holdout prompt help?", []armDef{
			{key: "aug1", label: "holdout x1", start: "sft75", rl: func(r *RLConfig) { r.Augment = 1 }},
			func() armDef { a := okto; a.label = "holdout x4"; return a }(),
		}},
		"reward": {"Execution, judge, or both?", []armDef{
			{key: "reward_exec", label: "execution only", start: "sft75", rl: func(r *RLConfig) { r.Reward.Kind = "binary" }},
			{key: "reward_judge", label: "judge only", start: "sft75", rl: func(r *RLConfig) { r.Reward.Kind = "judge" }},
			func() armDef { a := okto; a.label = "hybrid (gate)"; return a }(),
		}},
		"final": {"Does SFT-75 + OKTO-25 beat SFT on all the data?", []armDef{
			sft100, sft75, func() armDef { a := okto; a.label = "SFT-75 + OKTO-25"; return a }(),
		}},
		StudyFlywheel: {"What does online KTO on the 25% holdout SFT never saw add to its SFT-75 start?", []armDef{
			sft75, func() armDef { a := okto; a.label = "SFT-75 + OKTO"; return a }(),
		}},
	}
	fw := defs[StudyFlywheel]
	if p.Merge > 0 {
		fw.arms = append(fw.arms, armDef{key: "okto_merged", label: fmt.Sprintf("SFT-75 + OKTO merged %g", p.Merge), start: "okto", merge: p.Merge})
	}
	for r := 2; r <= p.Rounds; r++ {
		fw.arms = append(fw.arms, armDef{key: RoundKey(r), label: fmt.Sprintf("SFT-75 + OKTO x%d", r), start: RoundKey(r - 1), rl: recipe})
	}
	if p.SFT100 || p.SFT100KTO {
		fw.arms = append(fw.arms, sft100)
	}
	if p.SFT100KTO {
		a := rlSeen
		a.label = "SFT-100 + OKTO"
		fw.arms = append(fw.arms, a)
	}
	defs[StudyFlywheel] = fw
	models := map[string][]*Run{} // arm key -> runs by seed
	var model func(d armDef, seed uint64, si int) *Run
	byKey := map[string]armDef{"sft75": sft75, ArmSFT100: sft100, "okto": okto}
	model = func(d armDef, seed uint64, si int) *Run {
		if rs := models[d.key]; len(rs) > si && rs[si] != nil {
			return rs[si]
		}
		c := RunConfig{Kind: KindSFT, Bench: bench, Seed: seed, SplitSeed: 1}
		var parent *Run
		switch {
		case d.merge > 0:
			parent = model(byKey[d.start], seed, si)
			c.Kind, c.Merge, c.Parent = KindMerge, &MergeConfig{Alpha: d.merge}, parent.ID
		case d.rl == nil:
			s := p.SFT
			s.Fraction = d.sft
			c.SFT = &s
		default:
			parent = model(byKey[d.start], seed, si)
			r := p.RL
			d.rl(&r)
			if r.Rename == 0 { // words are renamed only where KTO renames its prompts
				r.RenameText = false
			}
			if r.Replay > 0 {
				r.ReplayAs = p.SFT.ReplayAs() // every RL arm starts from p.SFT's runs or RL on them
			}
			c.Kind, c.RL, c.Parent = KindRL, &r, parent.ID
		}
		run := pl.add(&Run{Name: fmt.Sprintf("%s/seed%d", d.key, seed), Config: c, Parent: parent, Evals: map[string]*Run{}}) // RunArm reads it back
		for len(models[d.key]) <= si {
			models[d.key] = append(models[d.key], nil)
		}
		models[d.key][si] = run
		return run
	}
	for _, name := range studies {
		def := defs[name]
		st := &Study{Name: name, Question: def.q}
		for _, d := range def.arms {
			byKey[d.key] = d
			arm := Arm{Key: d.key, Label: d.label, Start: d.start}
			for si, seed := range seeds {
				arm.Models = append(arm.Models, model(d, seed, si))
			}
			st.Arms = append(st.Arms, arm)
		}
		pl.Studies = append(pl.Studies, st)
	}
	// Final evaluations, after all training so that a partial experiment
	// has its models first.
	models0 := slices.Clone(pl.Runs)
	for _, m := range models0 {
		for _, split := range splits {
			ev := &EvalConfig{EvalConfig: train.EvalConfig{Split: split, N: p.EvalN, Guide: true}, Decoder: decoderKey()}
			if split == train.DevHeldOut {
				if !heldOutUnseen(m, p.RL) {
					continue
				}
				ev.HeldOut = p.RL.Pool
			}
			c := RunConfig{Kind: KindEval, Bench: bench, Seed: m.Config.Seed, SplitSeed: m.Config.SplitSeed, Parent: m.ID, Eval: ev}
			m.Evals[split] = pl.add(&Run{Name: fmt.Sprintf("eval/%s/%s", m.Name, split), Config: c, Parent: m})
		}
	}
	return pl, nil
}

// heldOutUnseen reports whether the model of m has seen none of the
// held-out questions: an SFT run on the recipe's share, an RL run on
// the holdout at the preset's pool, or a merge of two such runs.
func heldOutUnseen(m *Run, rl RLConfig) bool {
	c := m.Config
	switch {
	case c.Merge != nil:
		return m.Parent != nil && m.Parent.Parent != nil && heldOutUnseen(m.Parent, rl) && heldOutUnseen(m.Parent.Parent, rl)
	case c.SFT != nil:
		return c.SFT.Fraction <= rl.Fraction
	case c.RL != nil:
		return c.RL.On == train.RLOnHoldout && c.RL.Fraction == rl.Fraction && c.RL.Pool == rl.Pool &&
			(m.Parent == nil || heldOutUnseen(m.Parent, rl)) // a later KTO round: its start too
	}
	return false
}

// RoundKey is the flywheel study's arm key of KTO round r
// (Preset.Rounds): okto for the first, okto_r2, okto_r3, ... after it.
func RoundKey(r int) string {
	if r <= 1 {
		return "okto"
	}
	return fmt.Sprintf("okto_r%d", r)
}

// roundOf is the KTO round whose arm key is key (RoundKey): 1 for okto,
// 0 for any other arm.
func roundOf(key string) int {
	if key == "okto" {
		return 1
	}
	var r int
	if n, err := fmt.Sscanf(key, "okto_r%d", &r); err != nil || n != 1 || RoundKey(r) != key {
		return 0
	}
	return r
}

// keepArms narrows pl to the arms keys of its studies: their models, the
// runs those start from, and their evaluations (a pre-registered study
// trains only the arms it compares). A study left with no arm is dropped.
func (pl *Plan) keepArms(keys []string) {
	need := map[string]bool{}
	mark := func(r *Run) {
		for ; r != nil && !need[r.ID]; r = r.Parent {
			need[r.ID] = true
		}
	}
	studies := pl.Studies[:0]
	for _, st := range pl.Studies {
		arms := st.Arms[:0]
		for _, a := range st.Arms {
			if !slices.Contains(keys, a.Key) {
				continue
			}
			arms = append(arms, a)
			for _, m := range a.Models {
				mark(m)
				for _, ev := range m.Evals {
					mark(ev)
				}
			}
		}
		if st.Arms = arms; len(arms) > 0 {
			studies = append(studies, st)
		}
	}
	pl.Studies = studies
	runs := pl.Runs[:0]
	for _, r := range pl.Runs {
		if need[r.ID] {
			runs = append(runs, r)
		} else {
			delete(pl.byID, r.ID)
		}
	}
	pl.Runs = runs
}

func (pl *Plan) add(r *Run) *Run {
	r.ID = r.Config.ID()
	if old, ok := pl.byID[r.ID]; ok {
		return old
	}
	pl.byID[r.ID] = r
	pl.Runs = append(pl.Runs, r)
	return r
}
