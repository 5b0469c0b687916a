package experiment

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/train"
)

// Measured costs behind the flywheel's budget (docs/policy.md, the small
// preset's recipe on the bundled benchmark, 2 cores): they turn the
// settings into the minutes --help and the report quote, so that a
// changed flag changes the estimate with it.
const (
	// sftStepSec: 2,256 steps (16 epochs of 75% of 3,000 questions,
	// batch 16) in 729 s of training, 12 min 29 s wall on a quiet machine
	// with the tokenizer and four dev samples.
	sftStepSec = 729.0 / 2256
	// ktoStepSec is the online KTO step of 8 prompts x K=4 on the small
	// preset, measured at 128 tokens: 2.19 s the median of 100 steps (docs/rl.md),
	// 2.3 s over 200 steps of `train kto -sft-fraction 0.875` alone on
	// the machine, with every sample's cache a copy of its prompt's and
	// KTO's mismatched pairs each running their prompt. Sharing both
	// prompts (nn/cache_share.go, train.mismatchedSeqs) took the median
	// of 30 such steps from 1.49-1.50 s to 1.09-1.13 s (old and new
	// builds alternately alone at 2 threads, docs/rl.md): x 0.74.
	// Completions stop at their end token (the SFT policy's SQL is
	// mostly under 64 tokens), so a larger -kto-max-tokens costs more
	// only where completions run on: the default's 256 tokens (was 128)
	// sampled 1.12-1.17x the tokens a step over the first 200 steps of
	// the 24-epoch starts' 800-step runs (three seeds, docs/rl.md "The
	// sampling budget"), and a step's work follows its tokens.
	ktoStepSec = 2.3 * 1.11 / 1.495 * 1.15
	// replayExampleSec is what each replayed SFT example adds to an RL
	// step: 30 steps of `train kto -sft-fraction 0.875` alone on 2
	// threads took 2.53 s a step, 2.64 with -replay 8 and 2.90 with
	// -replay 8 -guided (docs/rl.md); guided sampling alone costs
	// nothing measurable (2.56).
	replayExampleSec = 0.37 / 8
	// renameStepSec is what renamed prompts add to a step (a prompt
	// tokenized and a guide built afresh for each renamed schema): the
	// flywheel's seed-1 run with -rename 0.9 took 3.97 s a step alone on
	// 2 threads over its first 127 steps, in-run dev samples included,
	// against 2.90 for -guided -replay 8 without them. The cost is a
	// prompt's, not a name's, and so does not scale with the rename
	// probability P: a prompt is rendered afresh when any of its n
	// names is renamed, which all but (1-P)^n of draws do (under 1e-4
	// of them for P 0.5 and a schema of 15 names).
	renameStepSec = 0.9
	// evalQuestionSec: 500 dev questions decoded greedily under the guide
	// in 22 s on a quiet machine, scoring included about 30 s; a loaded
	// machine takes up to 2-3 min.
	evalQuestionSec = 30.0 / 500
	// devQuestions and trainQuestions are the bundled benchmark's splits.
	devQuestions   = 500
	trainQuestions = 3000
)

// Flywheel is the main job's preset (sqlrl experiment flywheel): the SFT
// recipe of docs/policy.md (preset small, 16 epochs, batch 16, lr 2e-3,
// on the 75% share that `sqlrl data prepare` cuts), then the recipe's
// online KTO with the hybrid gate reward on half the 25% holdout x4, the
// other half kept as the split "heldout", and a greedy guided evaluation
// of every question of every split. KTO's rate and steps (5e-5, 200) are
// above train.DefaultRLConfig's (2e-5, 100), which barely move the policy
// (docs/rl.md). KTO samples as flywheelAdditions says, not as the recipe
// does.
// One seed: the flywheel is the product, the studies measure the spread.
func Flywheel() Preset {
	p := flywheelRecipe()
	flywheelAdditions(&p.RL)
	p.Budget = FlywheelBudget(p)
	return p
}

// flywheelAdditions are the main job's changes to the recipe's KTO: its
// prompts renamed as SFT renames its examples, afresh every step (Rename
// 0.9), its samples drawn under the schema guide, as evaluation decodes,
// and scored under the guide's renormalised distribution (Guided), and 8
// renamed SFT examples replayed every step (Replay): the one setting
// measured to lift the renamed dev databases (docs/rl.md).
func flywheelAdditions(r *RLConfig) { r.Rename, r.Guided, r.Replay = 0.9, true, 8 }

// flywheelRecipe is the flywheel's preset with the recipe's KTO, without
// flywheelAdditions and its budget.
func flywheelRecipe() Preset {
	return Preset{
		Name: "flywheel",
		SFT: SFTConfig{Preset: "small", VocabSize: 2048, Epochs: 16, BatchSize: 16,
			LoopConfig: train.LoopConfig{LR: 2e-3, EvalEvery: -1}, Split: train.Split{DevSplit: "dev"}},
		RL: RLConfig{Algorithm: train.Algorithm{Algo: "kto", Online: true, Steps: 200, Beta: 0.1},
			Split:      train.Split{On: "holdout", Fraction: 0.75, Pool: PoolFor(0.75, 0.5), Augment: 4, DevSplit: "dev"},
			Sampling:   train.Sampling{Prompts: 8, K: 4, Temperature: 1, MaxTokens: train.DevMaxTokens},
			LoopConfig: train.LoopConfig{LR: 5e-5, EvalEvery: 50, EvalN: 50},
			Reward:     reward.Config{Kind: "gate"}},
		EvalN: 0,
		Seeds: []uint64{1},
	}
}

// CheckFlywheel refuses flywheel settings that cannot run, before any
// work.
func (p Preset) CheckFlywheel() error {
	r := p.RL
	switch {
	case r.Steps < 1 || r.Prompts < 1 || r.K < 1 || r.MaxTokens < 1 || !(r.LR > 0) || !(r.Beta > 0) || !(r.Temperature > 0):
		return fmt.Errorf("KTO's steps, prompts, k, max tokens, learning rate, beta and temperature must be positive")
	case !(r.GoldUnsolved >= 0):
		return fmt.Errorf("gold for unsolved prompts at weight %v: want 0 or more", r.GoldUnsolved)
	case r.Replay < 0:
		return fmt.Errorf("replay of %d examples: want 0 or more", r.Replay)
	case !(r.Rename >= 0 && r.Rename <= 1):
		return fmt.Errorf("rename probability %v: want one in [0, 1]", r.Rename)
	case r.RenameText && r.RenameFamilies || p.SFT.RenameText && p.SFT.RenameFamilies:
		return fmt.Errorf("renaming words (rename-text) and renaming by word families: choose one")
	case p.SFT.Rename < 0 && (p.SFT.RenameText || p.SFT.RenameEach != 0):
		return fmt.Errorf("SFT renames no example here (specialise's default): rename-text and rename-each would change nothing")
	case !(p.SFT.RenameEach >= 0 && p.SFT.RenameEach <= 1):
		return fmt.Errorf("SFT's rename probability %v: want one in [0, 1] (0: train's default)", p.SFT.RenameEach)
	case r.RenameFamilies && r.Rename == 0:
		return fmt.Errorf("renaming by word families renames KTO's prompts: it needs a rename probability above 0")
	case p.SFT.Epochs < 1:
		return fmt.Errorf("SFT epochs %d: want 1 or more", p.SFT.Epochs)
	case !(p.Merge >= 0 && p.Merge <= 2):
		return fmt.Errorf("merge %v: want 0 (no merge) or a share in (0, 2] of the way from SFT-75 to KTO", p.Merge)
	case r.EvalEvery > 0 && r.EvalN < 1:
		return fmt.Errorf("KTO's evaluations during training need 1 or more dev questions")
	}
	return nil
}

// FlywheelStudies runs the OKTO studies at the flywheel's settings (sqlrl
// experiment okto -preset flywheel): the small model SFT-75 of the main
// job is the studies' SFT-75, so an experiment directory shared with
// `experiment flywheel` reuses it and its evaluations, and every RL arm,
// the recipe's plain online KTO included (the main job's KTO adds guided
// samples and replay), trains at the scale where online KTO's effect is
// measurable (docs/rl.md). Too long for all studies and 3 seeds on 2
// cores (each RL arm ~8-10 min a seed, SFT-100 ~16 min): pick with
// -studies and -seeds.
func FlywheelStudies() Preset {
	p := flywheelRecipe() // every arm as the recipe runs it
	p.Seeds = []uint64{1, 2, 3}
	p.Budget = studiesBudget(p)
	return p
}

// studiesBudget is the arithmetic of the cost of p's OKTO studies on 2
// cores (FlywheelStudies), from the measured costs above.
func studiesBudget(p Preset) string {
	return fmt.Sprintf("flywheel settings on 2 cores: SFT-75 ~%.0f min and SFT-100 ~%.0f min a seed, each RL arm %d steps of %dx%d ~%.0f-10 min a seed (offline KTO adds sampling 4 completions of every pool prompt), each evaluation of every question ~1 min, for the bundled v1 benchmark (other benchmarks scale with their questions and prompt tokens); runs shared with `experiment flywheel` in the same directory are reused",
		float64(sftSteps(p.SFT, p.RL.Fraction))*sftStepSec/60, float64(sftSteps(p.SFT, 1))*sftStepSec/60, p.RL.Steps, p.RL.Prompts, p.RL.K, float64(p.RL.Steps)*ktoStepSec/60)
}

// HeldOutShare is the share of the holdout r keeps from RL (RLConfig.Pool
// as a share of the holdout; 0 when RL draws from all of it).
func HeldOutShare(r RLConfig) float64 {
	if r.Pool <= r.Fraction {
		return 0
	}
	return (1 - r.Pool) / (1 - r.Fraction)
}

// PoolFor is the RL pool share (RLConfig.Pool) that keeps the share
// heldOut of the holdout at SFT share fraction from RL (0 for none).
func PoolFor(fraction, heldOut float64) float64 {
	if heldOut <= 0 {
		return 0
	}
	return fraction + (1-fraction)*(1-heldOut)
}

// FlywheelQuick is the quick preset's micro model and few steps with the
// flywheel's two arms: the whole command end to end in seconds, for tests.
func FlywheelQuick() Preset {
	p := Quick()
	p.Name = "flywheel-quick"
	p.RL.Pool = flywheelRecipe().RL.Pool // the held-out split's path too
	flywheelAdditions(&p.RL)             // and the main job's KTO
	// Enough dev questions that every difficulty has some (the tiny
	// benchmark's seeded sample), so the table has all its rows.
	p.EvalN = 30
	p.Budget = "quick: micro model (d32 L1), 3 SFT steps, 2 KTO steps of 2 prompts x K=2, 30 dev questions: seconds; the numbers mean nothing"
	return p
}

// sftSteps is the number of steps of SFT c on the share fraction of the
// bundled benchmark's train split.
func sftSteps(c SFTConfig, fraction float64) int {
	share := int(math.Round(trainQuestions * fraction))
	n := c.Epochs * ((share + c.BatchSize - 1) / c.BatchSize)
	if c.MaxSteps > 0 {
		n = min(n, c.MaxSteps)
	}
	return n
}

// FlywheelBudget is the arithmetic of p's cost on 2 cores, from the
// measured costs above, for the bundled v1 benchmark (3,000 train
// questions, 500 dev; the string says so, since a study on another
// benchmark prints it too): SFT steps, KTO steps scaled by completion length, in-run dev
// samples and the final evaluations; SFT-100 and its evaluation where
// p.SFT100.
func FlywheelBudget(p Preset) string {
	sftShare := int(math.Round(trainQuestions * p.RL.Fraction))
	steps75 := sftSteps(p.SFT, p.RL.Fraction)
	sft := float64(steps75) * sftStepSec
	sft100 := ""
	with100 := p.SFT100 || p.SFT100KTO
	if with100 {
		steps100 := sftSteps(p.SFT, 1)
		sft += float64(steps100) * sftStepSec
		sft100 = fmt.Sprintf("SFT-100 %d steps ~ %.0f min; ", steps100, float64(steps100)*sftStepSec/60)
	}
	// A step's work grows with its samples, prompts x K.
	step := ktoStepSec*float64(p.RL.Prompts*p.RL.K)/32 + float64(p.RL.Replay)*replayExampleSec
	if p.RL.Rename > 0 {
		step += renameStepSec * float64(p.RL.Prompts) / 8
	}
	if p.RL.GoldUnsolved > 0 {
		// A gold costs what a replayed example does; a quarter of the
		// prompts unsolved is a guess (the 24-epoch starts' samples were
		// right 50-65% of the time).
		step += float64(p.RL.Prompts) / 4 * replayExampleSec
	}
	kto := float64(p.RL.Steps) * step
	ktoRuns := ""
	runs := max(1, p.Rounds)
	if p.SFT100KTO {
		// the same KTO again, from SFT-100 on train's questions
		runs++
	}
	if runs > 1 {
		kto *= float64(runs)
		from := "from SFT-75"
		if p.Rounds > 1 {
			from = fmt.Sprintf("%d rounds from SFT-75", p.Rounds)
		}
		if p.SFT100KTO {
			from += " and one from SFT-100"
		}
		ktoRuns = fmt.Sprintf("%d runs (%s) of ", runs, from)
	}
	var inRun float64
	if p.RL.EvalEvery > 0 {
		inRun = float64(p.RL.Steps/p.RL.EvalEvery) * float64(p.RL.EvalN) * evalQuestionSec
	}
	n := p.EvalN
	if n <= 0 {
		n = devQuestions
	}
	// the held-out part of the holdout, evaluated like a dev split
	held := int(math.Round((trainQuestions - float64(sftShare)) * HeldOutShare(p.RL)))
	if p.EvalN > 0 {
		held = min(held, p.EvalN)
	}
	each := float64(n+held) * evalQuestionSec
	evals := 1 + max(1, p.Rounds) // SFT-75 and each KTO round, and the merge where there is one
	if p.Merge > 0 {
		evals++
	}
	ev := float64(evals) * each
	heldText := ""
	if held > 0 {
		heldText = fmt.Sprintf(" and %d held-out", held)
	}
	switch {
	case p.SFT100KTO:
		ev += 2 * float64(n) * evalQuestionSec
		heldText += fmt.Sprintf(" (and SFT-100's and SFT-100 + OKTO's of the %d dev)", n)
	case with100:
		ev += float64(n) * evalQuestionSec
		heldText += fmt.Sprintf(" (and SFT-100's of the %d dev)", n)
	}
	inRun *= float64(runs)
	return fmt.Sprintf("SFT-75 %d steps x %.2f s ~ %.0f min (measured); %sonline KTO %s%d steps of %dx%d x ~%.1f s ~ %.0f min (measured; more where completions run to %d tokens); "+
		"dev EX on %d questions every %d KTO steps ~ %.1f min; %d evaluations of %d dev%s questions ~ %.0f s each quiet (up to 3 min loaded): ~%.0f min on a quiet 2-core machine, for the bundled v1 benchmark (other benchmarks scale with their questions and prompt tokens; the Runs table has what each run took)",
		steps75, sftStepSec, float64(steps75)*sftStepSec/60, sft100, ktoRuns, p.RL.Steps, p.RL.Prompts, p.RL.K, step, kto/60, p.RL.MaxTokens, p.RL.EvalN, p.RL.EvalEvery, inRun/60, evals, n, heldText, each, (sft+kto+inRun+ev)/60)
}

// FlywheelReport is the main job's report.json: EX before (SFT-75) and
// after (SFT-75 + online KTO) by difficulty on every dev split, the
// claim check on them, each stage's time and the KTO run's curves.
type FlywheelReport struct {
	Command string        `json:"command"`
	Machine Machine       `json:"machine"`
	Preset  Preset        `json:"preset"`
	Seeds   []uint64      `json:"seeds"`
	Splits  []string      `json:"splits"`
	Tables  []BeforeAfter `json:"tables"`
	Claims  []Claim       `json:"claims"`
	Stages  []RunRow      `json:"stages"`
	Curves  []Curve       `json:"curves,omitempty"`
	// Flips compare the two checkpoints of each seed question by
	// question, where both evaluations kept their questions (EvalFile).
	Flips []Flip `json:"flips,omitempty"`
	// Comparisons are each trained arm against its SFT start pooled over
	// seeds, with intervals and corrected p-values (Report.Comparisons).
	Comparisons []ComparisonRow `json:"comparisons,omitempty"`
	WallSeconds float64         `json:"wall_seconds"`
	plots       map[string][]byte
}

// Flip is one seed's trained model and its SFT start (SFT-75 + OKTO and
// SFT-75, SFT-100 + OKTO and SFT-100) on one split, question by
// question: the questions KTO turned right and those it turned wrong,
// and the exact sign test on the two (eval.Compare). A gain is the net of
// both; the test says whether it is more than the luck of which questions
// flipped, which the seeds' spread says only across seeds.
type Flip struct {
	// Arm and Label name the after model, the flywheel study's arm
	// (okto; okto_merged where Preset.Merge; rl_seen, SFT-100 + OKTO,
	// where Preset.SFT100KTO).
	Arm   string `json:"arm"`
	Label string `json:"label"`
	// From is the model it is compared with: its SFT start (SFT-75, or
	// SFT-100 for the arm rl_seen).
	From        string  `json:"from"`
	Split       string  `json:"split"`
	Seed        uint64  `json:"seed"`
	TurnedRight int     `json:"turned_right"`
	TurnedWrong int     `json:"turned_wrong"`
	P           float64 `json:"p"`
}

// BeforeAfter is one split's table: a row per difficulty, then the total.
type BeforeAfter struct {
	Split string   `json:"split"`
	Rows  []Change `json:"rows"`
}

// Change is one level's EX in points before and after KTO (over the
// seeds) and the change of the means.
type Change struct {
	Level     string  `json:"level"`
	Questions int     `json:"questions"`
	Before    Stat    `json:"before"`
	After     Stat    `json:"after"`
	Delta     float64 `json:"delta"`
	// Gain is After minus Before seed by seed (its mean is Delta where
	// both finished on the same seeds), and MergedGain the same for
	// Merged: with more than one seed, the table shows their spread.
	Gain       *Stat `json:"gain,omitempty"`
	MergedGain *Stat `json:"merged_gain,omitempty"`
	// SFT100 is SFT on all of train (Preset.SFT100), where it was
	// evaluated: not on "heldout", whose questions it trained on.
	SFT100 *Stat `json:"sft100,omitempty"`
	// Merged is SFT-75 + OKTO merged towards SFT-75 (Preset.Merge), where
	// it was evaluated.
	Merged *Stat `json:"merged,omitempty"`
	// SFT100KTO is SFT-100 + online KTO on train's questions
	// (Preset.SFT100KTO), and SFT100KTOGain its gain over its own
	// SFT-100 start seed by seed, where they were evaluated.
	SFT100KTO     *Stat `json:"sft100_kto,omitempty"`
	SFT100KTOGain *Stat `json:"sft100_kto_gain,omitempty"`
	// Rounds are KTO's later rounds (Preset.Rounds), round 2 first, where
	// they were evaluated.
	Rounds []Round `json:"rounds,omitempty"`
}

// Round is one later KTO round's EX on a level and its gain over SFT-75
// seed by seed (the whole of the rounds up to it, not the round alone:
// the flips against the round before say what the round itself did).
type Round struct {
	Round int   `json:"round"`
	After Stat  `json:"after"`
	Gain  *Stat `json:"gain,omitempty"`
}

// ExecuteFlywheel runs the flywheel's plan (the study StudyFlywheel of
// o.Preset: SFT-75, online KTO from it, the final evaluations) through
// the same cached, resumable runner as Execute, then writes report.md,
// report.json and the plots to o.Out. Done.Flywheel holds the report.
func ExecuteFlywheel(ctx context.Context, o Options) (*Done, error) {
	o.Studies = []string{StudyFlywheel}
	done, rep, results, err := execute(ctx, o, func(o *Options, splits []string) {
		// The in-run dev samples use the benchmark's first split when it
		// has no "dev".
		if !slices.Contains(splits, o.Preset.SFT.DevSplit) {
			o.Preset.SFT.DevSplit = splits[0]
		}
		if !slices.Contains(splits, o.Preset.RL.DevSplit) {
			o.Preset.RL.DevSplit = splits[0]
		}
	}, nil)
	if err != nil {
		return done, err
	}
	fr := NewFlywheelReport(done.Plan, rep, results)
	if fr.Flips, err = flips(done.Plan, filepath.Join(o.Out, "runs")); err != nil {
		return done, err
	}
	if err := fr.Write(o.Out); err != nil {
		return done, err
	}
	done.Report, done.Flywheel = rep, fr
	return done, nil
}

// flips compares, for every seed and split, each trained arm of the
// flywheel study (SFT-75 + OKTO, merged or not, and SFT-100 + OKTO) with
// its SFT start, question by question from their evaluations'
// EvalFiles, where both have one.
func flips(pl *Plan, runsDir string) ([]Flip, error) {
	arms := map[string]Arm{}
	var order []Arm
	for _, s := range pl.Studies {
		if s.Name == StudyFlywheel {
			for _, a := range s.Arms {
				arms[a.Key] = a
			}
			order = s.Arms
		}
	}
	var out []Flip
	for _, after := range order {
		start, ok := arms[after.Start]
		for ok && start.Start != "" { // a merge: its RL arm's start
			start, ok = arms[start.Start]
		}
		if !ok {
			continue
		}
		fl, err := armFlips(pl, runsDir, start, after)
		if err != nil {
			return nil, err
		}
		out = append(out, fl...)
		// A later KTO round against the round before too: what the
		// round itself changed.
		if prev, ok := arms[after.Start]; ok && roundOf(after.Key) > 1 {
			fl, err := armFlips(pl, runsDir, prev, after)
			if err != nil {
				return nil, err
			}
			out = append(out, fl...)
		}
	}
	return out, nil
}

// armFlips compares arm before with arm after for every seed and split.
func armFlips(pl *Plan, runsDir string, before, after Arm) ([]Flip, error) {
	var out []Flip
	for _, split := range pl.Splits {
		for si, seed := range pl.Seeds {
			if si >= len(before.Models) || si >= len(after.Models) {
				continue
			}
			b, a := before.Models[si].Evals[split], after.Models[si].Evals[split]
			if b == nil || a == nil {
				continue
			}
			rb, err := readEvalFile(filepath.Join(runsDir, b.ID))
			if err != nil {
				return nil, err
			}
			ra, err := readEvalFile(filepath.Join(runsDir, a.ID))
			if err != nil {
				return nil, err
			}
			if rb == nil || ra == nil {
				continue
			}
			d, err := eval.Compare(rb, ra, Levels[:3], nil)
			if err != nil {
				return nil, fmt.Errorf("compare %s with %s: %w", b.Name, a.Name, err)
			}
			out = append(out, Flip{Arm: after.Key, Label: after.Label, From: before.Label, Split: split, Seed: seed, TurnedRight: d.Total.TurnRight, TurnedWrong: d.Total.TurnWrong, P: d.Total.P})
		}
	}
	return out, nil
}

// NewFlywheelReport takes the flywheel study's tables from rep into a
// before/after table per split; the question counts come from the SFT-75
// evaluations' results.
func NewFlywheelReport(pl *Plan, rep *Report, results map[string]*Result) *FlywheelReport {
	fr := &FlywheelReport{Command: rep.Command, Machine: rep.Machine, Preset: rep.Preset, Seeds: rep.Seeds, Splits: rep.Splits,
		Claims: rep.Claims, Stages: rep.Runs, Curves: rep.Curves, Comparisons: rep.Comparisons, WallSeconds: rep.WallSeconds}
	st := rep.study(StudyFlywheel)
	var before Arm
	for _, s := range pl.Studies {
		if s.Name == StudyFlywheel {
			before = s.Arms[0]
		}
	}
	for _, t := range st.Tables {
		if len(t.Rows) < 2 {
			continue
		}
		byKey := func(key string) Row {
			if i := slices.IndexFunc(t.Rows, func(r Row) bool { return r.Key == key }); i >= 0 && t.Rows[i].Cells["total"].N > 0 {
				return t.Rows[i]
			}
			return Row{}
		}
		sft100, merged, seen := byKey(ArmSFT100).Cells, byKey("okto_merged"), byKey("rl_seen")
		var later []Row // KTO rounds 2.. (Preset.Rounds)
		for r := 2; r <= fr.Preset.Rounds; r++ {
			later = append(later, byKey(RoundKey(r)))
		}
		counts := map[string]int{}
		for _, m := range before.Models {
			if ev := m.Evals[t.Split]; ev != nil && results[ev.ID] != nil && results[ev.ID].Score != nil {
				sc := results[ev.ID].Score
				for l, n := range sc.Counts {
					counts[l] = n
				}
				counts["total"] = sc.N
				break
			}
		}
		ba := BeforeAfter{Split: t.Split}
		for _, l := range Levels {
			b, a := t.Rows[0].Cells[l], t.Rows[1].Cells[l]
			if b.N == 0 || a.N == 0 {
				continue
			}
			c := Change{Level: l, Questions: counts[l], Before: b, After: a, Delta: a.Mean - b.Mean}
			if s, ok := sft100[l]; ok && s.N > 0 {
				c.SFT100 = &s
			}
			if s, ok := merged.Cells[l]; ok && s.N > 0 {
				c.Merged = &s
			}
			if g, ok := t.Rows[1].Gain[l]; ok {
				c.Gain = &g
			}
			if g, ok := merged.Gain[l]; ok {
				c.MergedGain = &g
			}
			if s, ok := seen.Cells[l]; ok && s.N > 0 {
				c.SFT100KTO = &s
			}
			if g, ok := seen.Gain[l]; ok {
				c.SFT100KTOGain = &g
			}
			for i, row := range later {
				s, ok := row.Cells[l]
				if !ok || s.N == 0 {
					continue
				}
				rd := Round{Round: i + 2, After: s}
				if g, ok := row.Gain[l]; ok {
					rd.Gain = &g
				}
				c.Rounds = append(c.Rounds, rd)
			}
			ba.Rows = append(ba.Rows, c)
		}
		fr.Tables = append(fr.Tables, ba)
	}
	// The bars of each split and, from the KTO run's log, its reward
	// mean over steps and its dev EX samples when it took any.
	fr.plots = map[string][]byte{}
	for name, b := range rep.Plots() {
		fr.plots[name] = b
	}
	if !slices.ContainsFunc(fr.Curves, func(c Curve) bool { return len(c.DevEX) > 0 }) {
		delete(fr.plots, "plot-devex.svg")
	}
	return fr
}

// Write writes report.json, report.md and the plots into dir.
func (fr *FlywheelReport) Write(dir string) error {
	return writeReport(dir, fr, fr.plots, fr.Markdown())
}

// delta is a delta column's cell: the change of the means and, with
// more than one seed, the spread of the gain seed by seed.
func (fr *FlywheelReport) delta(d float64, gain *Stat) string {
	if gain != nil && gain.N > 1 {
		return gainText(*gain)
	}
	return fmt.Sprintf("%+.1f", d)
}

func (fr *FlywheelReport) cell(s Stat) string {
	if len(fr.Seeds) > 1 {
		return cellText(s)
	}
	return fmt.Sprintf("%.1f", s.Mean)
}

// Markdown renders report.md.
func (fr *FlywheelReport) Markdown() []byte {
	var b bytes.Buffer
	p := fr.Preset
	writeHeader(&b, "The flywheel: SFT-75, then online KTO on the 25% holdout", fr.Command, fr.Machine, p, fr.Seeds, fr.Splits)
	fmt.Fprintf(&b, "1. SFT-75: model %s, vocab %d, %d epochs", modelText(p.SFT), p.SFT.VocabSize, p.SFT.Epochs)
	if p.SFT.MaxSteps > 0 {
		fmt.Fprintf(&b, " (at most %d steps)", p.SFT.MaxSteps)
	}
	fmt.Fprintf(&b, ", batch %d, lr %g, on %g%% of the train split (the share `sqlrl data prepare` cuts).\n", p.SFT.BatchSize, p.SFT.LR, 100*p.RL.Fraction)
	on := p.RL.On
	if h := HeldOutShare(p.RL); h > 0 {
		on = fmt.Sprintf("%g%% of the holdout (the other %g%% is the split heldout: questions neither SFT nor KTO saw, on their databases)", 100*(1-h), 100*h)
	}
	fmt.Fprintf(&b, "2. Online %s on the %s, x%d schema-order shuffles, reward %s (analytic judge; SQL that fails to execute scores %g): %d steps of %d prompts x K=%d, temperature %g, %d tokens, beta %g, lr %g",
		strings.ToUpper(p.RL.Algo), on, p.RL.Augment, p.RL.Reward.Kind, p.RL.Reward.ErrorValue, p.RL.Steps, p.RL.Prompts, p.RL.K, p.RL.Temperature, p.RL.MaxTokens, p.RL.Beta, p.RL.LR)
	if p.RL.Rename > 0 {
		fmt.Fprintf(&b, "; each schema name of a sampled prompt renamed with probability %g, afresh every step, as SFT renames (rename)", p.RL.Rename)
		if p.RL.RenameFamilies {
			b.WriteString(", word by word, so that names sharing a word keep sharing one (rename families)")
		}
	}
	if p.RL.Guided {
		b.WriteString("; samples drawn under the schema guide and scored under its renormalised distribution (guided)")
	}
	if p.RL.Replay > 0 {
		fmt.Fprintf(&b, "; with the SFT loss of %d renamed SFT-share examples added to every step (replay)", p.RL.Replay)
	}
	if p.RL.GoldUnsolved > 0 {
		fmt.Fprintf(&b, "; with the SFT loss of the gold SQL of every prompt none of whose samples was correct, in the names its prompt showed, at weight %g (gold for the unsolved)", p.RL.GoldUnsolved)
	}
	if p.RL.EvalEvery > 0 {
		fmt.Fprintf(&b, "; dev EX on %s every %d steps", questions(p.RL.EvalN), p.RL.EvalEvery)
	}
	fmt.Fprintf(&b, ".\n")
	n := 3
	if p.Rounds > 1 {
		var names []string
		for r := 2; r <= p.Rounds; r++ {
			names = append(names, fmt.Sprintf("x%d", r))
		}
		fmt.Fprintf(&b, "%d. OKTO %s: step 2 again, each round from the model of the round before, which is also its frozen reference (iterated KTO), with a fresh optimizer and schedule; delta is the gain over SFT-75 seed by seed.\n", n, strings.Join(names, ", "))
		n++
	}
	if p.Merge > 0 {
		fmt.Fprintf(&b, "%d. OKTO merged: the KTO run's weights merged back towards its SFT-75 start, SFT-75 + %g x (OKTO - SFT-75) (WiSE-FT), no further training.\n", n, p.Merge)
		n++
	}
	if p.SFT100 || p.SFT100KTO {
		fmt.Fprintf(&b, "%d. SFT-100, for the recipe's headline (SFT-75 + OKTO >= SFT-100): SFT-75's recipe on all of train, %d epochs (so a third more steps); not evaluated on heldout, whose questions it trained on.\n", n, p.SFT.Epochs)
		n++
	}
	if p.SFT100KTO {
		fmt.Fprintf(&b, "%d. SFT-100 + OKTO: step 2's KTO from SFT-100 on train's own questions, which SFT-100 trained on (the recipe's \"RL on data SFT saw\"; replayed examples from all of train); delta is its gain over SFT-100 seed by seed.\n", n)
		n++
	}
	fmt.Fprintf(&b, "%d. Evaluation of every checkpoint: greedy, schema-guided, %s of every dev split (BIRD EX).\n\n", n, questions(p.EvalN))
	fmt.Fprintf(&b, "Budget: %s.\n\n", p.Budget)
	if len(fr.Seeds) > 1 {
		b.WriteString("Cells are EX in points: mean ± sample std [min-max] (seeds); delta is the gain over SFT-75 seed by seed (the seeds where both finished): mean ± sample std [min, max] (seeds).\n\n")
	} else {
		b.WriteString("Cells are EX in points; delta is after minus before.\n\n")
	}
	for _, t := range fr.Tables {
		with100 := len(t.Rows) > 0 && t.Rows[0].SFT100 != nil
		withMerged := len(t.Rows) > 0 && t.Rows[0].Merged != nil
		withSeen := len(t.Rows) > 0 && t.Rows[0].SFT100KTO != nil
		fmt.Fprintf(&b, "## %s\n\n| difficulty | questions | SFT-75 | SFT-75 + OKTO | delta |", t.Split)
		cols := 5
		rounds := 0
		if len(t.Rows) > 0 {
			rounds = len(t.Rows[0].Rounds)
			for _, rd := range t.Rows[0].Rounds {
				fmt.Fprintf(&b, " OKTO x%d | delta |", rd.Round)
				cols += 2
			}
		}
		if withMerged {
			fmt.Fprintf(&b, " OKTO merged %g | delta |", p.Merge)
			cols += 2
		}
		if with100 {
			okto := "OKTO"
			if rounds > 0 {
				okto = fmt.Sprintf("OKTO x%d", t.Rows[0].Rounds[rounds-1].Round)
			}
			fmt.Fprintf(&b, " SFT-100 | %s - SFT-100 |", okto)
			cols += 2
		}
		if withSeen {
			b.WriteString(" SFT-100 + OKTO | delta |")
			cols += 2
		}
		b.WriteString("\n|" + strings.Repeat("---|", cols) + "\n")
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |", r.Level, r.Questions, fr.cell(r.Before), fr.cell(r.After), fr.delta(r.Delta, r.Gain))
			for i := range rounds {
				if i < len(r.Rounds) {
					fmt.Fprintf(&b, " %s | %s |", fr.cell(r.Rounds[i].After), fr.delta(r.Rounds[i].After.Mean-r.Before.Mean, r.Rounds[i].Gain))
				} else {
					b.WriteString(" - | - |")
				}
			}
			if withMerged && r.Merged != nil {
				fmt.Fprintf(&b, " %s | %s |", fr.cell(*r.Merged), fr.delta(r.Merged.Mean-r.Before.Mean, r.MergedGain))
			}
			if with100 && r.SFT100 != nil {
				last := r.After // the last KTO round's model against SFT-100
				if len(r.Rounds) > 0 {
					last = r.Rounds[len(r.Rounds)-1].After
				}
				fmt.Fprintf(&b, " %s | %+.1f |", fr.cell(*r.SFT100), last.Mean-r.SFT100.Mean)
			}
			if withSeen && r.SFT100KTO != nil && r.SFT100 != nil {
				fmt.Fprintf(&b, " %s | %s |", fr.cell(*r.SFT100KTO), fr.delta(r.SFT100KTO.Mean-r.SFT100.Mean, r.SFT100KTOGain))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n![before and after on %s](%s)\n\n", t.Split, barsName(StudyFlywheel, t.Split))
		var fl []Flip
		for _, f := range fr.Flips {
			if f.Split == t.Split {
				fl = append(fl, f)
			}
		}
		if len(fl) > 0 {
			b.WriteString("Question by question (the model's start -> the model; p: two-sided exact sign test of the two counts):\n\n| model | from | seed | turned right | turned wrong | p |\n|---|---|---|---|---|---|\n")
			for _, f := range fl {
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.2g |\n", f.Label, f.From, f.Seed, f.TurnedRight, f.TurnedWrong, f.P)
			}
			b.WriteString("\n")
		}
		writeComparisons(&b, comparisonsOf(fr.Comparisons, StudyFlywheel, t.Split))
	}
	if len(fr.Claims) > 0 {
		b.WriteString("## Check\n\n")
		if len(fr.Seeds) == 1 {
			b.WriteString("One seed: the spread is not measured, so the check below only says whether the gain is positive; `-seeds 1,2,3` measures it.\n\n")
		}
		writeClaims(&b, fr.Claims)
	}
	if len(fr.Curves) > 0 {
		b.WriteString("## KTO over steps\n\n![reward mean](plot-reward.svg)\n\n")
		if _, ok := fr.plots["plot-devex.svg"]; ok {
			fmt.Fprintf(&b, "![dev EX during KTO](plot-devex.svg)\n\nDev EX during KTO is on a sample of %s; the table above is on all of them.\n\n", questions(p.RL.EvalN))
		}
	}
	b.WriteString(fr.stagesMarkdown())
	return b.Bytes()
}

func (fr *FlywheelReport) stagesMarkdown() string {
	var b strings.Builder
	var total float64
	b.WriteString("## Stages\n\n| stage | run | steps | seconds |\n|---|---|---|---|\n")
	for _, r := range fr.Stages {
		if !r.Done {
			fmt.Fprintf(&b, "| %s | %s | - | not finished |\n", r.Name, r.ID)
			continue
		}
		total += r.Seconds
		steps := "-"
		if r.Kind == KindSFT || r.Kind == KindRL {
			steps = fmt.Sprint(r.Steps)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f |\n", r.Name, r.ID, steps, r.Seconds)
	}
	fmt.Fprintf(&b, "\nSum of stage times %.0f s (training time across resumes, evaluation time); this invocation's wall time %.0f s (finished stages are cached and cost nothing).\n",
		total, fr.WallSeconds)
	b.WriteString(cpusNote(fr.Stages, fr.Machine))
	return b.String()
}

// Text is the before/after tables and the stages' times for a terminal.
func (fr *FlywheelReport) Text() string {
	var b strings.Builder
	for _, t := range fr.Tables {
		with100 := len(t.Rows) > 0 && t.Rows[0].SFT100 != nil
		withMerged := len(t.Rows) > 0 && t.Rows[0].Merged != nil
		fmt.Fprintf(&b, "%-12s %9s %9s %14s %7s", t.Split, "questions", "SFT-75", "SFT-75 + OKTO", "delta")
		rounds := 0
		if len(t.Rows) > 0 {
			rounds = len(t.Rows[0].Rounds)
			for _, rd := range t.Rows[0].Rounds {
				fmt.Fprintf(&b, " %9s %7s", fmt.Sprintf("OKTO x%d", rd.Round), "delta")
			}
		}
		if withMerged {
			fmt.Fprintf(&b, " %12s %7s", "OKTO merged", "delta")
		}
		if with100 {
			fmt.Fprintf(&b, " %8s", "SFT-100")
		}
		withSeen := len(t.Rows) > 0 && t.Rows[0].SFT100KTO != nil
		if withSeen {
			fmt.Fprintf(&b, " %15s %7s", "SFT-100 + OKTO", "delta")
		}
		b.WriteString("\n")
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "%-12s %9d %9.1f %14.1f %+7.1f", r.Level, r.Questions, r.Before.Mean, r.After.Mean, r.Delta)
			for i := range rounds {
				if i < len(r.Rounds) {
					fmt.Fprintf(&b, " %9.1f %+7.1f", r.Rounds[i].After.Mean, r.Rounds[i].After.Mean-r.Before.Mean)
				} else {
					fmt.Fprintf(&b, " %9s %7s", "-", "-")
				}
			}
			if withMerged && r.Merged != nil {
				fmt.Fprintf(&b, " %12.1f %+7.1f", r.Merged.Mean, r.Merged.Mean-r.Before.Mean)
			}
			if with100 && r.SFT100 != nil {
				fmt.Fprintf(&b, " %8.1f", r.SFT100.Mean)
			}
			if withSeen && r.SFT100KTO != nil && r.SFT100 != nil {
				fmt.Fprintf(&b, " %15.1f %+7.1f", r.SFT100KTO.Mean, r.SFT100KTO.Mean-r.SFT100.Mean)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	var total float64
	for _, r := range fr.Stages {
		if r.Done {
			total += r.Seconds
			fmt.Fprintf(&b, "%-40s %8s\n", r.Name, secs(r.Seconds))
		}
	}
	fmt.Fprintf(&b, "%-40s %8s (this invocation: %s)\n", "stages in all", secs(total), secs(fr.WallSeconds))
	return b.String()
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
