package feedbackhalves

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/train"
)

// GoalPoints is the goal for the gain on the held-back half.
const GoalPoints = 5.0

// levels are BIRD's difficulties in table order.
var levels = []string{"simple", "moderate", "challenging"}

// Verdict is one held-back question's outcome before and after training.
type Verdict struct {
	QuestionID int    `json:"question_id"`
	Difficulty string `json:"difficulty,omitempty"`
	Before     bool   `json:"before"`
	After      bool   `json:"after"`
}

// RunResult is one (seed, half) run: the feedback on the trained half,
// its export, the training on it (KTO or SFT) and the held-back half's
// scores.
type RunResult struct {
	Name    string `json:"name"`
	Seed    uint64 `json:"seed"`
	Trained string `json:"trained"`
	Scored  string `json:"scored"`
	// TrainedIDs and ScoredIDs are the halves' question ids; ExportedIDs
	// those the export's records came from (a subset of TrainedIDs).
	TrainedIDs  []int                    `json:"trained_ids"`
	ScoredIDs   []int                    `json:"scored_ids"`
	ExportedIDs []int                    `json:"exported_ids"`
	Feedback    Tally                    `json:"feedback"`
	Export      *feedback.ExportManifest `json:"export"`
	KTOSteps    int                      `json:"kto_steps"`
	// KTOLeftOut counts the exported questions KTO left out: their
	// prompts leave no room for a completion in the model's context.
	KTOLeftOut int     `json:"kto_left_out"`
	KTOSeconds float64 `json:"kto_seconds"`
	// Train is "" for KTO (the runs before -train) or TrainSFT; then
	// SFTExamples counts the accepted and corrected answers SFT trained
	// on, SFTLeftOut those longer than the model's context.
	Train       string  `json:"train,omitempty"`
	SFTExamples int     `json:"sft_examples,omitempty"`
	SFTSteps    int     `json:"sft_steps,omitempty"`
	SFTLeftOut  int     `json:"sft_left_out,omitempty"`
	SFTSeconds  float64 `json:"sft_seconds,omitempty"`
	// Before and After are the held-back half's EX (in [0, 1]) by
	// difficulty; Verdicts its questions one by one.
	Before     *train.Eval `json:"before"`
	After      *train.Eval `json:"after"`
	Verdicts   []Verdict   `json:"verdicts"`
	Seconds    float64     `json:"seconds"`
	FinishedAt time.Time   `json:"finished_at"`
	// Dir is the run's directory; Resumed says it was read back.
	Dir     string `json:"-"`
	Resumed bool   `json:"-"`
}

// SeedRow is one seed's two runs together: every question scored once,
// by the model trained on the other half's feedback.
type SeedRow struct {
	Seed      uint64 `json:"seed"`
	Questions int    `json:"questions"`
	// Before, After and Gain are EX points (0-100).
	Before  float64               `json:"before"`
	After   float64               `json:"after"`
	Gain    float64               `json:"gain"`
	McNemar significance.SeedTest `json:"mcnemar"`
}

// LevelRow is one difficulty's EX over the seeds (each seed's two runs
// together), in points.
type LevelRow struct {
	Level     string          `json:"level"`
	Questions int             `json:"questions"`
	Before    experiment.Stat `json:"before"`
	After     experiment.Stat `json:"after"`
	Gain      experiment.Stat `json:"gain"`
}

// Check is the check: the mean gain on the held-back halves above
// the seeds' spread (the range of the per-seed gains), and the goal.
type Check struct {
	Gain    float64 `json:"gain"`
	Spread  float64 `json:"spread"`
	Met     bool    `json:"met"`
	Goal    float64 `json:"goal"`
	GoalMet bool    `json:"goal_met"`
	Text    string  `json:"text"`
}

// Report is report.json; report.md is drawn from it.
type Report struct {
	Command         string   `json:"command"`
	Model           string   `json:"model"`
	ModelSHA256     string   `json:"model_sha256"`
	Questions       string   `json:"questions"`
	QuestionsSHA256 string   `json:"questions_sha256"`
	QuestionCount   int      `json:"question_count"`
	DBRoot          string   `json:"db_root"`
	Seeds           []uint64 `json:"seeds"`
	// Train is "" for KTO, with its settings in KTO, or TrainSFT, with
	// SFT's.
	Train   string             `json:"train,omitempty"`
	KTO     *KTO               `json:"kto,omitempty"`
	SFT     *SFT               `json:"sft,omitempty"`
	Machine experiment.Machine `json:"machine"`
	Runs    []*RunResult       `json:"runs"`
	PerSeed []SeedRow          `json:"per_seed"`
	Levels  []LevelRow         `json:"levels"`
	// Pooled is the after-minus-before comparison over every question
	// and seed, with its paired bootstrap interval.
	Pooled significance.Comparison `json:"pooled"`
	// Gains summarises the per-seed gains in points.
	Gains experiment.Stat `json:"gains"`
	Check Check           `json:"check"`
	// TestReads counts the reads of the question file recorded in the
	// folder (this report's runs' included); TestReadsAll every read.
	TestReads    int `json:"test_reads"`
	TestReadsAll int `json:"test_reads_all"`
	// Seconds is the runs' time summed (a run read back counts its own).
	Seconds float64 `json:"seconds"`
}

// newReport pools the runs: per seed, the two runs' verdicts cover every
// question once.
func newReport(o Options, in *input, runs []*RunResult) (*Report, error) {
	rep := &Report{Command: o.Command, Model: in.checkpoint, ModelSHA256: in.modelSHA, Questions: o.Questions, QuestionsSHA256: in.sum,
		QuestionCount: len(in.exs), DBRoot: in.root, Seeds: o.Seeds, Machine: experiment.ThisMachine(), Runs: runs}
	if o.Train == TrainSFT {
		rep.Train, rep.SFT = TrainSFT, &o.SFT
	} else {
		rep.KTO = &o.KTO
	}
	var seeds []significance.Seed
	var gains []float64
	levelEX := map[string][2][]float64{}
	levelN := map[string]int{}
	for _, seed := range o.Seeds {
		var vs []Verdict
		for _, r := range runs {
			if r.Seed == seed {
				vs = append(vs, r.Verdicts...)
			}
		}
		if len(vs) != len(in.exs) {
			return nil, fmt.Errorf("seed %d: %d questions scored over both halves, want %d", seed, len(vs), len(in.exs))
		}
		slices.SortFunc(vs, func(a, b Verdict) int { return a.QuestionID - b.QuestionID })
		s := significance.Seed{Seed: seed}
		right := map[string][2]int{}
		n := map[string]int{}
		for _, v := range vs {
			s.Treatment, s.Control = append(s.Treatment, v.After), append(s.Control, v.Before)
			for _, l := range []string{v.Difficulty, "total"} {
				c := right[l]
				c[0] += b2i(v.Before)
				c[1] += b2i(v.After)
				right[l] = c
				n[l]++
			}
		}
		seeds = append(seeds, s)
		for l, c := range right {
			e := levelEX[l]
			e[0] = append(e[0], 100*float64(c[0])/float64(n[l]))
			e[1] = append(e[1], 100*float64(c[1])/float64(n[l]))
			levelEX[l], levelN[l] = e, n[l]
		}
		t := right["total"]
		row := SeedRow{Seed: seed, Questions: len(vs), Before: 100 * float64(t[0]) / float64(len(vs)), After: 100 * float64(t[1]) / float64(len(vs))}
		row.Gain = row.After - row.Before
		gains = append(gains, row.Gain)
		rep.PerSeed = append(rep.PerSeed, row)
	}
	var err error
	if rep.Pooled, err = significance.Compare(seeds, significance.Options{Seed: 1}); err != nil {
		return nil, err
	}
	for i := range rep.PerSeed {
		rep.PerSeed[i].McNemar = rep.Pooled.PerSeed[i]
	}
	for _, l := range append(slices.Clone(levels), "total") {
		e, ok := levelEX[l]
		if !ok {
			continue
		}
		g := make([]float64, len(e[0]))
		for i := range g {
			g[i] = e[1][i] - e[0][i]
		}
		rep.Levels = append(rep.Levels, LevelRow{Level: l, Questions: levelN[l], Before: experiment.StatOf(e[0]), After: experiment.StatOf(e[1]), Gain: experiment.StatOf(g)})
	}
	for _, r := range runs {
		rep.Seconds += r.Seconds
	}
	rep.Gains = experiment.StatOf(gains)
	rep.Check = check(rep.Gains, rep.Pooled)
	return rep, nil
}

// check states the check on the per-seed gains g, with the
// pooled comparison's interval beside it.
func check(g experiment.Stat, p significance.Comparison) Check {
	c := Check{Gain: g.Mean, Spread: g.Range(), Goal: GoalPoints}
	c.Met = c.Gain > 0 && c.Gain > c.Spread
	c.GoalMet = c.Gain >= GoalPoints
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "not met"
	}
	c.Text = fmt.Sprintf("Raises EX on the held-back half by more than the seeds' spread: %s (mean gain %+.1f points, spread %.1f points over %s). Goal +%.0f points: %s.",
		verdict(c.Met), c.Gain, c.Spread, plural(g.N, "seed"), GoalPoints, verdict(c.GoalMet))
	excludes := "includes 0"
	if p.Low > 0 || p.High < 0 {
		excludes = "excludes 0"
	}
	c.Text += fmt.Sprintf(" The pooled paired bootstrap %.0f%% interval of the change, [%+.1f, %+.1f], %s.", 100*p.Level, p.Low, p.High, excludes)
	if g.N < 2 {
		c.Text += " One seed has no spread: run more seeds (-seeds) before taking the check as met."
	}
	return c
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write writes report.json and report.md to dir.
func (rep *Report) Write(dir string) error {
	if err := writeJSON(filepath.Join(dir, ReportJSON), rep); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReportMD), rep.Markdown())
}

// Markdown is report.md.
func (rep *Report) Markdown() []byte {
	var b bytes.Buffer
	m := rep.Machine
	fmt.Fprintf(&b, "# The flywheel on real questions: feedback on one half, EX on the other\n\n")
	fmt.Fprintf(&b, "Command: `%s`\n\n", rep.Command)
	fmt.Fprintf(&b, "- model: %s (model.bin sha256 %s)\n", rep.Model, short(rep.ModelSHA256))
	fmt.Fprintf(&b, "- questions: %s (sha256 %s), %d questions over %s; read %d times in this folder (%s), %d reads in all\n",
		rep.Questions, short(rep.QuestionsSHA256), rep.QuestionCount, rep.DBRoot, rep.TestReads, ReadsFile, rep.TestReadsAll)
	fmt.Fprintf(&b, "- halves: cut by seed, stratified by database and difficulty; for each seed, feedback on half A scored on half B, and the swap\n")
	fmt.Fprintf(&b, "- serving: `sqlrl serve`'s API in process (askserver), the model's greedy guided answer, no confidence samples\n")
	fmt.Fprintf(&b, "- scripted user: BIRD EX of the answer against the gold -> thumbs up; else thumbs down with the gold SQL as the correction\n")
	trained := "KTO"
	if c := rep.SFT; rep.Train == TrainSFT && c != nil {
		trained = "SFT"
		fmt.Fprintf(&b, "- training: the store's export (`data from-feedback`), SFT from the model on the answers the user accepted or corrected (feedback.json's questions with SQL), in the model's prompt format: %d epochs of batch %d, lr %g (warmup, cosine to a tenth), no renaming, seed = the split's seed\n",
			c.Epochs, c.Batch, c.LR)
	} else if k := rep.KTO; k != nil {
		fmt.Fprintf(&b, "- training: the store's export (`data from-feedback`), offline KTO from the model: %d steps of %d questions, lr %g, seed = the split's seed\n",
			k.Steps, k.Prompts, k.LR)
	}
	fmt.Fprintf(&b, "- scoring: greedy guided EX on the held-back half, before and after\n")
	fmt.Fprintf(&b, "- machine: %s, %d CPUs, kernel %s, commit %s; the runs took %s\n\n", orUnknown(m.CPU), m.CPUs, orUnknown(m.Kernel), orUnknown(m.Commit), dur(rep.Seconds))

	fmt.Fprintf(&b, "## Check\n\n%s\n\n", rep.Check.Text)

	p := rep.Pooled
	fmt.Fprintf(&b, "## Pooled over seeds\n\nEvery question is scored once per seed, by the model trained on the other half's feedback.\n\n")
	fmt.Fprintf(&b, "| questions | seeds | before | after | change | %.0f%% interval (paired bootstrap) | wins / losses | McNemar p |\n|---|---|---|---|---|---|---|---|\n", 100*p.Level)
	fmt.Fprintf(&b, "| %d | %d | %.1f | %.1f | %+.1f | [%+.1f, %+.1f] | %d / %d | %.3g |\n\n", p.Questions, p.Seeds, p.Control, p.Treatment, p.Diff, p.Low, p.High, p.Wins, p.Losses, p.P)

	fmt.Fprintf(&b, "## Per seed\n\n| seed | questions | before | after | change | wins / losses | McNemar p |\n|---|---|---|---|---|---|---|\n")
	for _, s := range rep.PerSeed {
		fmt.Fprintf(&b, "| %d | %d | %.1f | %.1f | %+.1f | %d / %d | %.3g |\n", s.Seed, s.Questions, s.Before, s.After, s.Gain, s.McNemar.Wins, s.McNemar.Losses, s.McNemar.P)
	}
	g := rep.Gains
	fmt.Fprintf(&b, "\nGain over seeds: mean %+.1f, std %.1f, range %.1f (min %+.1f, max %+.1f).\n\n", g.Mean, g.Std, g.Range(), g.Min, g.Max)

	fmt.Fprintf(&b, "## By difficulty (mean over seeds, EX points)\n\n| difficulty | questions | before | after | change (min, max) |\n|---|---|---|---|---|\n")
	for _, l := range rep.Levels {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %+.1f (%+.1f, %+.1f) |\n", l.Level, l.Questions, l.Before.Mean, l.After.Mean, l.Gain.Mean, l.Gain.Min, l.Gain.Max)
	}

	fmt.Fprintf(&b, "\n## Per seed and half\n\nEX on the held-back half, before -> after %s, by difficulty.\n\n", trained)
	fmt.Fprintf(&b, "| seed | feedback on | thumbs up / down | exported (desirable / undesirable) | %s | scored | simple | moderate | challenging | total |\n|---|---|---|---|---|---|---|---|---|---|\n", trained)
	for _, r := range rep.Runs {
		var cells []string
		for _, l := range append(slices.Clone(levels), "total") {
			cells = append(cells, levelCell(r.Before, r.After, l))
		}
		des, undes := 0, 0
		if r.Export != nil {
			des, undes = r.Export.Desirable, r.Export.Undesirable
		}
		run := fmt.Sprintf("%d steps, %s, %d left out", r.KTOSteps, dur(r.KTOSeconds), r.KTOLeftOut)
		if r.Train == TrainSFT {
			run = fmt.Sprintf("%d answers, %d steps, %s, %d left out", r.SFTExamples, r.SFTSteps, dur(r.SFTSeconds), r.SFTLeftOut)
		}
		fmt.Fprintf(&b, "| %d | %s (%d) | %d / %d | %d / %d | %s | %s (%d) | %s |\n", r.Seed, r.Trained, r.Feedback.Questions,
			r.Feedback.Up, r.Feedback.Down, des, undes, run, r.Scored, len(r.ScoredIDs), strings.Join(cells, " | "))
	}
	failed, left, exported, sftLeft, sftExamples := 0, 0, 0, 0, 0
	for _, r := range rep.Runs {
		failed += r.Feedback.CorrectionsFailed
		left += r.KTOLeftOut
		exported += len(r.ExportedIDs)
		sftLeft += r.SFTLeftOut
		sftExamples += r.SFTExamples
	}
	if left > 0 {
		fmt.Fprintf(&b, "\nKTO left out %d of the %d exported questions over all runs: their prompts leave no room for a completion in the model's context.\n", left, exported)
	}
	if sftLeft > 0 {
		fmt.Fprintf(&b, "\nSFT left out %d of the %d accepted or corrected answers over all runs: prompt and answer are longer than the model's context.\n", sftLeft, sftExamples)
	}
	if failed > 0 {
		fmt.Fprintf(&b, "\n%d golds sent as corrections did not run on the server (nothing to train towards on those).\n", failed)
	}
	return b.Bytes()
}

// levelCell is "before -> after (n)" for difficulty l ("total": all).
func levelCell(before, after *train.Eval, l string) string {
	if before == nil || after == nil {
		return ""
	}
	if l == "total" {
		return fmt.Sprintf("%.1f -> %.1f", 100*before.EX, 100*after.EX)
	}
	n := before.Counts[l]
	if n == 0 { // no question of this difficulty (a file without BIRD's difficulties)
		return "-"
	}
	return fmt.Sprintf("%.1f -> %.1f (%d)", 100*before.Levels[l], 100*after.Levels[l], n)
}

func short(s string) string { return s[:min(12, len(s))] }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func dur(sec float64) string {
	return (time.Duration(sec * float64(time.Second))).Round(time.Second).String()
}
