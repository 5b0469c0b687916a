package confidence

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
)

// outcomes is a set of judged answers: agreement 4/4 mostly right, 2/4
// half right, 0-1/4 mostly wrong, errors and values in no column wrong.
func outcomes() []Outcome {
	var outs []Outcome
	add := func(n, right int, s Signals, difficulty string) {
		for i := range n {
			outs = append(outs, Outcome{QuestionID: len(outs), DB: "db", Difficulty: difficulty, Correct: i < right, Signals: s})
		}
	}
	ok := func(agree int) Signals { return Signals{Rows: 1, Columns: 1, Samples: 4, Agree: agree} }
	add(10, 9, ok(4), "simple")
	add(4, 3, ok(3), "simple")
	add(4, 2, ok(2), "moderate")
	add(6, 1, ok(1), "moderate")
	add(4, 0, ok(0), "challenging")
	add(3, 0, Signals{ErrorClass: "unknown_column", ErrorText: "the column x does not exist in table t"}, "simple")
	add(2, 0, Signals{Rows: 1, Columns: 1, Samples: 4, Agree: 4, Literals: []Literal{{Text: "'x'"}}}, "moderate")
	add(2, 1, Signals{Rows: 0, Columns: 1, Samples: 4, Agree: 4}, "simple")
	for i := range outs {
		outs[i].Level = DefaultRule.Judge(outs[i].Signals).Level
	}
	return outs
}

func TestMeasure(t *testing.T) {
	outs := outcomes()
	r := Rule{RightShare: 0.75, WrongShare: 0.5, UnknownWrong: true}
	c := Measure(outs, func(o Outcome) Level { return r.Judge(o.Signals).Level }, 0.8, 1.0/3)
	want := []LevelRow{
		{Level: LikelyRight, Label: "Likely right", Count: 14, Share: 14.0 / 35, Right: 12, Accuracy: 12.0 / 14, Coverage: 12.0 / 16},
		{Level: Unsure, Label: "Not sure", Count: 6, Share: 6.0 / 35, Right: 3, Accuracy: 0.5, Coverage: 3.0 / 16},
		{Level: LikelyWrong, Label: "Likely wrong", Count: 15, Share: 15.0 / 35, Right: 1, Accuracy: 1.0 / 15, Coverage: 1.0 / 16},
	}
	if c.Answers != 35 || c.Right != 16 || !c.Met {
		t.Errorf("answers %d right %d met %t", c.Answers, c.Right, c.Met)
	}
	for i, l := range c.Levels {
		if l != want[i] {
			t.Errorf("level %d:\n got %+v\nwant %+v", i, l, want[i])
		}
	}
	if c.Reliability[0].Name != "error (no result)" || c.Reliability[1].Name != "0 of 4 agree" || c.Reliability[len(c.Reliability)-1].Name != "4 of 4 agree" {
		t.Errorf("reliability order: %+v", c.Reliability)
	}
	// A target the answers cannot meet is reported as not met.
	if c := Measure(outs, func(o Outcome) Level { return r.Judge(o.Signals).Level }, 0.95, 1.0/3); c.Met {
		t.Errorf("met at 95%%: %+v", c.Levels[0])
	}
}

func TestTune(t *testing.T) {
	outs := outcomes()
	tests := []struct {
		target float64
		want   Rule
		ok     bool
	}{
		// 3 or 4 of 4 agreeing is right 12 times in 14; the rest, with the
		// errors, values in no column and empty results, is wrong 17
		// times in 21.
		{0.8, Rule{RightShare: 0.75, WrongShare: 0.75, UnknownWrong: true, SuspectWrong: true}, true},
		// 2 of 4 agreeing too is right 14 times in 18.
		{0.7, Rule{RightShare: 0.5, WrongShare: 0.5, UnknownWrong: true, SuspectWrong: true}, true},
		{0.99, Rule{}, false},
	}
	for _, tc := range tests {
		got, ok := Tune(outs, tc.target, 1.0/3)
		if ok != tc.ok || ok && got.Rule != tc.want {
			t.Errorf("target %v: %+v (ok %t), want %+v (ok %t)", tc.target, got.Rule, ok, tc.want, tc.ok)
		}
		if ok && (!got.Calibration.Met || got.Candidates == 0) {
			t.Errorf("target %v: tuned calibration %+v", tc.target, got.Calibration)
		}
	}
}

func TestReportMarkdown(t *testing.T) {
	outs := outcomes()
	byLevel := func(o Outcome) Level { return o.Level }
	r := &Report{Command: "sqlrl serve calibrate -model m -out o data/bench", Commit: "abc123", CPU: "AMD EPYC", Kernel: "openblas/Haswell re8d14beb", Date: "2026-12-04T10:00:00Z",
		Model: "native:m", Benchmark: "data/bench", Split: "dev", Samples: 4, Temp: 1, Rule: DefaultRule, Seconds: 12,
		Calibration: Measure(outs, byLevel, 0.8, 1.0/3), ByDifficulty: map[string]Calibration{}, Answers: outs}
	for _, d := range []string{"simple", "moderate", "challenging"} {
		var part []Outcome
		for _, o := range outs {
			if o.Difficulty == d {
				part = append(part, o)
			}
		}
		r.Difficulties = append(r.Difficulties, d)
		r.ByDifficulty[d] = Measure(part, byLevel, 0.8, 1.0/3)
	}
	if tuned, ok := Tune(outs, 0.7, 1.0/3); ok {
		r.Tuned = &tuned
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "report.md"), b.Bytes())
}
