package train

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameBench(t *testing.T) {
	wd, _ := os.Getwd()
	for _, c := range []struct {
		recorded, dir string
		want          bool
	}{
		{"data/bench", "data/bench/", true},
		{"data/bench", filepath.Join("/elsewhere", "data", "bench"), true},
		{".", wd, true},
		{"data/bench", "/elsewhere/bench", false},
		{"/abs/data/bench", "/other/data/bench", false},
		{"bench", "/x/mybench", false},
	} {
		if got := SameBench(c.recorded, c.dir); got != c.want {
			t.Errorf("SameBench(%q, %q) = %v, want %v", c.recorded, c.dir, got, c.want)
		}
	}
}

// TestStartSplit: RL cuts the split its start trained on; a larger SFT
// share is RL's pool, a smaller one or another seed is refused.
func TestStartSplit(t *testing.T) {
	notes := map[string]string{"sft_fraction": "0.75", "split_seed": "3"}
	for _, c := range []struct {
		notes           map[string]string
		frac            float64
		fracSet         bool
		seed            uint64
		seedSet         bool
		wantF, wantPool float64
		wantSeed        uint64
		bad             bool
	}{
		{notes, 0, false, 0, false, 0.75, 0, 3, false},
		{notes, 0.875, true, 3, true, 0.75, 0.875, 3, false},
		{notes, 0.5, true, 0, false, 0, 0, 0, true},
		{notes, 0, false, 4, true, 0, 0, 0, true},
		{nil, 0.5, true, 7, true, 0.5, 0, 7, false},
	} {
		f, s, pool, err := StartSplit(c.notes, c.frac, c.fracSet, c.seed, c.seedSet)
		if (err != nil) != c.bad || !c.bad && (f != c.wantF || s != c.wantSeed || pool != c.wantPool) {
			t.Errorf("%+v: %v %v %v %v", c, f, s, pool, err)
		}
	}
}
