package agents

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestRunConfigFlags: the flags bind to the settings with the pipeline's
// defaults, and Check names the flag out of range.
func TestRunConfigFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"-k", "0"}, "-k >= 1"},
		{[]string{"-temperature", "-1"}, "-temperature >= 0"},
		{[]string{"-top-p", "1.5"}, "-top-p <= 1"},
		{[]string{"-fix-when", "always"}, `-fix-when "always"`},
		{[]string{"-remote-api", "grpc"}, `-remote-api "grpc"`},
		{[]string{"-final", "best"}, `-final "best"`},
		{[]string{"-final", StrategyVote, "-k", "3", "-temperature", "0.7"}, ""},
	} {
		cfg := DefaultRunConfig()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg.Flags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		err := cfg.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: Check() = %v, want %q", c.args, err, c.want)
		}
	}
	cfg := DefaultRunConfig()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cfg.Flags(fs)
	fs.Parse([]string{"-k", "3", "-temperature", "0.7", "-seed", "9", "-guide=false"})
	if cfg.K != 3 || cfg.Temperature != 0.7 || cfg.TopP != 0.9 || cfg.Seed != 9 || cfg.Guide || cfg.FixWhen != FixIncorrect || cfg.Tournament != 4 {
		t.Errorf("parsed %+v", cfg)
	}
}
