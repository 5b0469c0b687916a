package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/train"
)

// TestIDsPinned pins run IDs computed before the training settings moved
// into package train: cached runs are found by these IDs, so a change of
// the settings' Go shape must not change a byte of the canonical JSON.
func TestIDsPinned(t *testing.T) {
	m := MicroModel
	all := RunConfig{Kind: KindRL, Bench: "fp", Seed: 2, SplitSeed: 1, Parent: "sft-0123456789ab",
		SFT: &SFTConfig{Split: train.Split{Fraction: 0.75, DevSplit: "dev"}, Preset: "tiny", Model: &m, VocabSize: 400, Epochs: 1, MaxSteps: 3, BatchSize: 4,
			LoopConfig: train.LoopConfig{LR: 3e-3, EvalEvery: -1, EvalN: 4}},
		RL: &RLConfig{Algorithm: train.Algorithm{Algo: "kto", Online: true, Steps: 200, Beta: 0.1},
			Split:       train.Split{On: "holdout", Fraction: 0.75, Pool: 0.875, Augment: 4, DevSplit: "dev"},
			Sampling:    train.Sampling{Prompts: 8, K: 4, Temperature: 0.7, MaxTokens: 256, Guided: true},
			LoopConfig:  train.LoopConfig{LR: 5e-5, EvalEvery: 50, EvalN: 50},
			Renaming:    train.Renaming{Rename: 0.9, RenameFamilies: true},
			ExtraLosses: train.ExtraLosses{Replay: 8, GoldUnsolved: 1},
			Reward:      reward.Config{Kind: "gate", ErrorValue: -1}},
		Eval:  &EvalConfig{EvalConfig: train.EvalConfig{Split: "heldout", N: 10, Guide: true, HeldOut: 0.875}, Decoder: 2},
		Merge: &MergeConfig{Alpha: 0.5}}
	fw := Flywheel()
	for _, c := range []struct {
		name      string
		c         RunConfig
		canonical string
		id        string
	}{
		{"every field", all, `{"kind":"rl","bench":"fp","seed":2,"split_seed":1,"parent":"sft-0123456789ab","sft":{"fraction":0.75,"preset":"tiny","model":{"vocab":0,"dim":32,"layers":1,"heads":2,"hidden":64,"max_seq":1024,"rope_base":0,"prev_token":true,"copy":true},"vocab":400,"epochs":1,"max_steps":3,"batch":4,"lr":0.003,"eval_every":-1,"eval_n":4,"dev_split":"dev"},"rl":{"algo":"kto","online":true,"on":"holdout","fraction":0.75,"pool":0.875,"augment":4,"reward":"gate","steps":200,"prompts":8,"k":4,"temperature":0.7,"max_tokens":256,"beta":0.1,"lr":0.00005,"eval_every":50,"eval_n":50,"dev_split":"dev","replay":8,"guided":true,"rename":0.9,"rename_families":true,"error_value":-1,"gold_unsolved":1},"eval":{"split":"heldout","n":10,"guide":true,"held_out":0.875,"decoder":2},"merge":{"alpha":0.5}}`, "rl-0ca2096ee618"},
		{"flywheel sft", RunConfig{Kind: KindSFT, Bench: "fp", Seed: 1, SplitSeed: 1, SFT: &fw.SFT}, "", "sft-d357014f5a95"},
		{"flywheel rl", RunConfig{Kind: KindRL, Bench: "fp", Seed: 1, SplitSeed: 1, Parent: "sft-0123456789ab", RL: &fw.RL}, "", "rl-f26ec12412d5"},
		{"flywheel eval", RunConfig{Kind: KindEval, Bench: "fp", Seed: 1, SplitSeed: 1, Parent: "rl-0123456789ab", Eval: &EvalConfig{EvalConfig: train.EvalConfig{Split: "dev", Guide: true}}}, "", "eval-7753a1596316"},
	} {
		if c.canonical != "" && string(c.c.Canonical()) != c.canonical {
			t.Errorf("%s: canonical\n%s\nwant\n%s", c.name, c.c.Canonical(), c.canonical)
		}
		if got := c.c.ID(); got != c.id {
			t.Errorf("%s: ID %s, want %s\n%s", c.name, got, c.id, c.c.Canonical())
		}
	}
}

// TestPlanIDsPinned pins every run ID of the presets' plans at once.
func TestPlanIDsPinned(t *testing.T) {
	fwAll := Flywheel()
	fwAll.SFT100, fwAll.SFT100KTO, fwAll.Merge, fwAll.Rounds = true, true, 0.5, 2
	for _, c := range []struct {
		name    string
		p       Preset
		studies []string
		digest  string
	}{
		{"quick", Quick(), nil, "7ac6b7371752daba"},
		{"full", Full(), nil, "640f23d5dd918d37"},
		{"flywheel studies", FlywheelStudies(), nil, "a6627bc1b2efcd7d"},
		{"flywheel", Flywheel(), []string{StudyFlywheel}, "50714c011caa40f9"},
		{"flywheel, every arm", fwAll, []string{StudyFlywheel}, "1b0151ca17941bae"},
	} {
		pl, err := NewPlan(c.p, "fp", nil, []string{"dev", "dev_renamed"}, c.studies)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range pl.Runs {
			ids = append(ids, r.ID)
		}
		sort.Strings(ids)
		h := sha256.Sum256([]byte(strings.Join(ids, "\n")))
		if got := hex.EncodeToString(h[:8]); got != c.digest {
			t.Errorf("%s: %d runs, digest %s, want %s", c.name, len(ids), got, c.digest)
		}
	}
}

// TestCanonicalCoversEverySetting: a config with every setting set reads
// back from its canonical JSON as it was, so no setting of train's
// configs is left out of the ID.
func TestCanonicalCoversEverySetting(t *testing.T) {
	var c RunConfig
	n := 0
	fill(reflect.ValueOf(&c).Elem(), &n)
	c.RL.Reward.Judge, c.RL.Reward.Judging.Key = nil, "" // not recorded: a built judge, a secret
	var back RunConfig
	if err := json.Unmarshal(c.Canonical(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("read back\n%+v\nwant\n%+v", back.toJSON(), c.toJSON())
	}
}

// fill sets every settable leaf of v to a distinct non-zero value.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	}
}
