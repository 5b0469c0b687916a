package reward

import (
	"flag"
	"io"
	"testing"
)

// TestConfigFlags: -reward takes every kind and the old spelling exec,
// refuses others, and the correct level follows the sum's weights.
func TestConfigFlags(t *testing.T) {
	for _, c := range []struct {
		args    []string
		kind    string
		correct float64
		bad     bool
	}{
		{nil, KindGate, 1, false},
		{[]string{"-reward", "exec"}, KindEX, 1, false},
		{[]string{"-reward", "mats"}, KindMATS, 1, false},
		{[]string{"-reward", "sum", "-w-exec", "1", "-w-judge", "0.25"}, KindSum, 1.25, false},
		{[]string{"-reward", "vibes"}, "", 0, true},
		{[]string{"-exec-scheme", "vibes"}, "", 0, true},
	} {
		cfg := DefaultConfig()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg.Flags(fs)
		err := fs.Parse(c.args)
		if c.bad {
			if err == nil {
				t.Errorf("%v: accepted", c.args)
			}
			continue
		}
		if err != nil || cfg.Check() != nil {
			t.Fatalf("%v: %v, %v", c.args, err, cfg.Check())
		}
		if cfg.Kind != c.kind || cfg.CorrectLevel() != c.correct {
			t.Errorf("%v: kind %q, correct level %v; want %q, %v", c.args, cfg.Kind, cfg.CorrectLevel(), c.kind, c.correct)
		}
	}
	cfg := DefaultConfig()
	cfg.Judging = JudgeConfig{Kind: JudgeLLM}
	if cfg.Check() == nil {
		t.Error("an llm judge without URL and model passed the check")
	}
}
