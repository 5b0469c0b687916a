package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFeedbackHalvesErrors: a missing flag is a usage error (exit 2); a
// missing file or a model that is not native stops with exit 1, naming it.
func TestFeedbackHalvesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-questions", "datasets/bird-dev-sample/dev.json"}, 2, "-model is required"},
		{[]string{"-model", dir, "-questions", filepath.Join(dir, "nope.json"), "-out", dir}, 1, "not a checkpoint"},
		{[]string{"-model", dir, "-questions", "datasets/bird-dev-sample/dev.json", "-seeds", "1,x"}, 2, `"x" is not a seed`},
		{[]string{"-model", dir, "-questions", "datasets/bird-dev-sample/dev.json", "-train", "dpo"}, 2, `-train "dpo": want kto`},
		{[]string{"-model", dir, "-questions", "datasets/bird-dev-sample/dev.json", "-train", "sft", "-sft-lr", "0"}, 2, "-sft-lr 0"},
	} {
		_, stderr, code := sqlrl(t, append([]string{"experiment", "feedback-halves"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
