package policy

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/tokenizer"
)

// TestInterpolate checks the merged weights at both ends, halfway and
// beyond, by hand on every parameter, and that the inputs are left as
// they were.
func TestInterpolate(t *testing.T) {
	base := testPolicy(t)
	tuned := testPolicy(t)
	for i := range tuned.Model.Params {
		tuned.Model.Params[i] += float32(i%7) - 3
	}
	tuned.Info.Step, base.Info.Step = 400, 2256
	tuned.Info.Notes = map[string]string{"seed": "1"}
	keepBase := append([]float32(nil), base.Model.Params...)
	keepTuned := append([]float32(nil), tuned.Model.Params...)
	for _, alpha := range []float64{0, 0.5, 1, 2} {
		m, err := Interpolate(base, tuned, alpha)
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range m.Model.Params {
			want := float64(keepBase[i]) + alpha*(float64(keepTuned[i])-float64(keepBase[i]))
			if math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("alpha %v: param %d = %v, want %v", alpha, i, got, want)
			}
		}
		n := m.Info.Notes
		if m.Info.Step != 400 || n["merge_alpha"] != fmt.Sprint(alpha) || n["merge_base_step"] != "2256" || n["seed"] != "1" {
			t.Errorf("alpha %v: info %+v", alpha, m.Info)
		}
	}
	for i := range keepBase {
		if base.Model.Params[i] != keepBase[i] || tuned.Model.Params[i] != keepTuned[i] {
			t.Fatal("Interpolate changed its inputs")
		}
	}
	if _, ok := tuned.Info.Notes["merge_alpha"]; ok {
		t.Error("Interpolate wrote into tuned's notes")
	}
}

// TestInterpolateRefuses checks that two checkpoints that are not one
// run's start and end are refused with what differs.
func TestInterpolateRefuses(t *testing.T) {
	otherTok := func(p *Policy) {
		tok, err := tokenizer.Train([]string{"SELECT name FROM orders WHERE total > 10", "orders: id, name, total"}, tokenizer.TrainOptions{VocabSize: 280})
		if err != nil {
			t.Fatal(err)
		}
		p.Tok = tok
	}
	cases := []struct {
		name   string
		change func(p *Policy)
		alpha  float64
		want   string
	}{
		{"other architecture", func(p *Policy) { p.Model = testPolicyDim(t, 8).Model }, 0.5, "models differ"},
		{"other prompt format", func(p *Policy) { p.Info.Prompt.Kind = FormatText }, 0.5, "prompt formats differ"},
		{"other task", func(p *Policy) { p.Info.Task = TaskReview }, 0.5, "tasks differ"},
		{"other tokenizer", otherTok, 0.5, "different tokenizers"},
		{"alpha not a number", func(*Policy) {}, math.NaN(), "alpha"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tuned := testPolicy(t)
			c.change(tuned)
			_, err := Interpolate(testPolicy(t), tuned, c.alpha)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
