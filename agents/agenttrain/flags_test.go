package agenttrain

import (
	"strings"
	"testing"
)

// Check names the flag of a setting Train cannot run.
func TestOptionsCheck(t *testing.T) {
	ok := DefaultOptions()
	ok.Planner, ok.Out = "p", "o"
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no planner", func(o *Options) { o.Planner = "" }, "-planner"},
		{"val fraction", func(o *Options) { o.ValFraction = 1 }, "-val-fraction"},
		{"no val fraction", func(o *Options) { o.ValFraction = 0 }, "want (0, 1)"},
		{"fold", func(o *Options) { o.Fold = 2 }, "-fold"},
	} {
		o := ok
		c.edit(&o)
		err := o.Check()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check() = %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// WriteText prints a row per role, with dashes where nothing was held out.
func TestReportWriteText(t *testing.T) {
	r := &Report{Checkpoint: "ck", Train: map[string]int{"fixer": 3, "selector": 2}, Val: map[string]int{"fixer": 1},
		ValAccuracy: map[string]float64{"fixer": 50}, Majority: map[string]float64{"fixer": 25}, ValBad: map[string]float64{}}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{"agents checkpoint: ck", "| fixer | 3 | 1 | 50.0% | 25.0% | 0.0% |", "| selector | 2 | 0 | - | - | - |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
