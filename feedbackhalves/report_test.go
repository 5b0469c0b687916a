package feedbackhalves

import (
	"math"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/train"
)

// evalOf is the train.Eval a run's verdicts give, before or after.
func evalOf(vs []Verdict, after bool) *train.Eval {
	e := &train.Eval{N: len(vs), Levels: map[string]float64{}, Counts: map[string]int{}}
	right := map[string]int{}
	total := 0
	for _, v := range vs {
		ok := v.Before
		if after {
			ok = v.After
		}
		e.Counts[v.Difficulty]++
		right[v.Difficulty] += b2i(ok)
		total += b2i(ok)
	}
	for l, n := range e.Counts {
		e.Levels[l] = float64(right[l]) / float64(n)
	}
	e.EX = float64(total) / float64(len(vs))
	return e
}

// TestReport pools two seeds' runs whose verdicts are known: seed 1 gains
// two questions of eight (+25 points), seed 2 one (+12.5); the report's
// figures, the check and report.md (a golden file) follow.
func TestReport(t *testing.T) {
	levels := []string{"simple", "simple", "simple", "simple", "moderate", "moderate", "challenging", "challenging"}
	in := &input{sum: "abcdef0123456789", root: "/data/dev_databases", checkpoint: "/models/kto/step-000100", modelSHA: "0123456789abcdef"}
	for i, l := range levels {
		in.exs = append(in.exs, dataset.Example{QuestionID: i + 1, DBID: "shop", Difficulty: l})
	}
	// right before: questions 1 and 2 in both seeds; right after: also
	// 3 and 4 (seed 1), 3 (seed 2)
	afterRight := map[uint64][]int{1: {1, 2, 3, 4}, 2: {1, 2, 3}}
	var runs []*RunResult
	for _, seed := range []uint64{1, 2} {
		for _, half := range []struct {
			trained, scored string
			ids             []int
		}{{HalfA, HalfB, []int{1, 3, 5, 7}}, {HalfB, HalfA, []int{2, 4, 6, 8}}} {
			r := &RunResult{Name: "run", Seed: seed, Trained: half.trained, Scored: half.scored, ScoredIDs: half.ids, ExportedIDs: []int{9, 10, 11, 12},
				KTOSteps: 100, KTOSeconds: 90, KTOLeftOut: 1, Seconds: 150,
				Feedback: Tally{Questions: 4, Up: 1, Down: 3}, Export: &feedback.ExportManifest{Desirable: 4, Undesirable: 3}}
			for _, id := range half.ids {
				v := Verdict{QuestionID: id, Difficulty: levels[id-1], Before: id <= 2}
				for _, a := range afterRight[seed] {
					v.After = v.After || a == id
				}
				r.Verdicts = append(r.Verdicts, v)
			}
			r.Before, r.After = evalOf(r.Verdicts, false), evalOf(r.Verdicts, true)
			runs = append(runs, r)
		}
	}
	o := Options{Questions: "dev.json", Seeds: []uint64{1, 2}, KTO: DefaultKTO(), Command: "sqlrl experiment feedback-halves -model M -questions dev.json -seeds 1,2"}
	rep, err := newReport(o, in, runs)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	p := rep.Pooled
	if !near(p.Control, 25) || !near(p.Treatment, 43.75) || !near(p.Diff, 18.75) || p.Wins != 3 || p.Losses != 0 || !near(p.P, 0.25) {
		t.Errorf("pooled %+v: want 25 -> 43.75, +18.75, 3 wins, no loss, p 0.25", p)
	}
	if len(rep.PerSeed) != 2 || !near(rep.PerSeed[0].Gain, 25) || !near(rep.PerSeed[1].Gain, 12.5) || rep.PerSeed[0].McNemar.Wins != 2 {
		t.Errorf("per seed %+v: want +25 (2 wins) and +12.5", rep.PerSeed)
	}
	if c := rep.Check; !near(c.Gain, 18.75) || !near(c.Spread, 12.5) || !c.Met || !c.GoalMet {
		t.Errorf("check %+v: want gain 18.75 above the spread 12.5, goal met", c)
	}
	if l := rep.Levels[0]; l.Level != "simple" || l.Questions != 4 || !near(l.Before.Mean, 50) || !near(l.After.Mean, 87.5) {
		t.Errorf("simple %+v: want 4 questions, 50 -> 87.5", l)
	}
	rep.Machine = experiment.Machine{CPUs: 2, CPU: "Test CPU", Kernel: "go", Commit: "abc123"}
	rep.TestReads, rep.TestReadsAll = 4, 5
	testkit.Golden(t, "testdata/report.md", rep.Markdown())

	// the same runs trained by SFT: the report names SFT, its settings
	// and the renaming's source, and no KTO
	for _, r := range runs {
		r.Train, r.SFTExamples, r.SFTSteps, r.SFTLeftOut, r.SFTSeconds = TrainSFT, 4, 4, 1, 30
		r.KTOSteps, r.KTOLeftOut, r.KTOSeconds = 0, 0, 0
	}
	o.Train = TrainSFT
	o.Command = "sqlrl experiment feedback-halves -train sft -model M -questions dev.json -seeds 1,2"
	o.SFT = DefaultSFT()
	if rep, err = newReport(o, in, runs); err != nil {
		t.Fatal(err)
	}
	if rep.Train != TrainSFT || rep.KTO != nil || rep.SFT == nil || *rep.SFT != o.SFT {
		t.Errorf("report: train %q, KTO %+v, SFT %+v; want SFT's settings alone", rep.Train, rep.KTO, rep.SFT)
	}
	rep.Machine = experiment.Machine{CPUs: 2, CPU: "Test CPU", Kernel: "go", Commit: "abc123"}
	rep.TestReads, rep.TestReadsAll = 4, 5
	testkit.Golden(t, "testdata/report-sft.md", rep.Markdown())
}

// TestLevelCell: a difficulty no scored question has is "-", whether the
// scorer left it out or counted it at 0 (questions without BIRD's
// difficulties); otherwise before -> after and the count.
func TestLevelCell(t *testing.T) {
	before := &train.Eval{EX: 0.25, Levels: map[string]float64{"simple": 0.5, "moderate": 0}, Counts: map[string]int{"simple": 2, "moderate": 0}}
	after := &train.Eval{EX: 0.75, Levels: map[string]float64{"simple": 1, "moderate": 0}, Counts: map[string]int{"simple": 2, "moderate": 0}}
	for _, c := range []struct{ level, want string }{
		{"simple", "50.0 -> 100.0 (2)"},
		{"moderate", "-"},
		{"challenging", "-"},
		{"total", "25.0 -> 75.0"},
	} {
		if got := levelCell(before, after, c.level); got != c.want {
			t.Errorf("levelCell(%q) = %q, want %q", c.level, got, c.want)
		}
	}
	if got := levelCell(nil, after, "simple"); got != "" {
		t.Errorf("levelCell without a before eval = %q, want empty", got)
	}
}
