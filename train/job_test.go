package train

import (
	"context"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// TestJobPromptFormat checks that an SFT job's settings reach the
// checkpoint's prompt format, which RL, evaluation and serving read: value
// linking always, the description phrase only with descriptions shown.
func TestJobPromptFormat(t *testing.T) {
	dir := tinyBench(t)
	for _, tc := range []struct {
		name                       string
		descriptions               bool
		values, descPhrase         bool
		wantValues, wantDescPhrase bool
	}{
		{"neither", true, false, false, false, false},
		{"values", true, true, false, true, false},
		{"desc phrase", true, false, true, false, true},
		{"desc phrase without descriptions", false, false, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tinyOptions(t.TempDir())
			o.MaxSteps, o.EvalEvery = 1, -1
			o.Values, o.DescPhrase = tc.values, tc.descPhrase
			cfg := o.SFTConfig
			j := Job{Bench: dir, SplitSeed: 1, Format: policy.Format{Kind: policy.FormatCompact, Descriptions: tc.descriptions},
				SFT: &cfg, Run: o.Run}
			if _, err := Do(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			ck, err := policy.Resolve(o.Out)
			if err != nil {
				t.Fatal(err)
			}
			info, err := policy.ReadInfo(ck)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Prompt; got.Values != tc.wantValues || got.DescPhrase != tc.wantDescPhrase {
				t.Errorf("checkpoint's format %+v: want values %v, desc phrase %v", got, tc.wantValues, tc.wantDescPhrase)
			}
		})
	}
}
