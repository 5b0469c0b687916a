package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// Kinds of run.
const (
	KindSFT  = "sft"
	KindRL   = "rl"
	KindEval = "eval"
	// KindMerge is an RL run's weights merged back towards its SFT start
	// (MergeConfig): no training, a checkpoint of its own to evaluate.
	KindMerge = "merge"
)

// Config is everything that decides what one run computes. Its canonical
// JSON (json.Marshal of the struct: fixed field order, no maps) is hashed
// into the run's directory name, so that the same config always lands in
// the same directory (a rerun finds its result or its checkpoints) and any
// change of setting, data or starting point gets a new one.
type Config struct {
	Kind string `json:"kind"`
	// Bench is the content fingerprint of the benchmark (Fingerprint), not
	// its path: moving the benchmark keeps the cache, changing it does not.
	Bench string `json:"bench"`
	// Seed drives the trainer (initialisation, data order, sampling) and
	// the sample of dev questions.
	Seed uint64 `json:"seed"`
	// SplitSeed picks the SFT/holdout split of the train split; it is the
	// same for every seed so that the seeds' spread is the training's.
	SplitSeed uint64 `json:"split_seed"`
	// Parent is the ID of the run this one starts from (RL: its SFT run)
	// or evaluates (eval): a changed parent changes the child's ID too.
	Parent string      `json:"parent,omitempty"`
	SFT    *SFTConfig  `json:"sft,omitempty"`
	RL     *RLConfig   `json:"rl,omitempty"`
	Eval   *EvalConfig `json:"eval,omitempty"`
	// Merge is a merge run's (KindMerge; Parent is the RL run, whose own
	// parent is the start it is merged towards).
	Merge *MergeConfig `json:"merge,omitempty"`
}

// MergeConfig is an RL run's end merged with its start: start + Alpha x
// (end - start) (policy.Interpolate). Alpha 1 is the RL run itself.
type MergeConfig struct {
	Alpha float64 `json:"alpha"`
}

// SFTConfig is one supervised run.
type SFTConfig struct {
	// Fraction of the train split SFT trains on: 0.75 (the recipe) or 1.
	Fraction float64 `json:"fraction"`
	// Preset names the model (nn.Presets); Model, when set, replaces it
	// (the quick preset's micro model).
	Preset    string     `json:"preset"`
	Model     *nn.Config `json:"model,omitempty"`
	Vocab     int        `json:"vocab"`
	Epochs    int        `json:"epochs"`
	MaxSteps  int        `json:"max_steps,omitempty"`
	Batch     int        `json:"batch"`
	LR        float64    `json:"lr"`
	EvalEvery int        `json:"eval_every"`
	EvalN     int        `json:"eval_n"`
	// DevSplit is evaluated during training (the curves); the final
	// numbers come from eval runs on every split.
	DevSplit string `json:"dev_split"`
}

// RLConfig is one reinforcement-learning run from an SFT checkpoint.
type RLConfig struct {
	Algo   string `json:"algo"` // kto dpo orpo ppo rloo grpo
	Online bool   `json:"online"`
	// On is "holdout" (the share SFT did not see) or "train" (the SFT
	// share: RL on seen data).
	On string `json:"on"`
	// Fraction is the SFT share of the split (the parent's), which
	// decides what the holdout is.
	Fraction float64 `json:"fraction"`
	// Pool, above Fraction, is the SFT share at which RL cuts its pool
	// instead: RL draws from that part of the holdout, and the rest is
	// the "heldout" split (train.DevHeldOut), evaluated like a dev split:
	// unseen questions on the databases SFT and RL trained on. 0: the
	// whole holdout (the recipe).
	Pool float64 `json:"pool,omitempty"`
	// Augment is prompts per holdout question (schema-order shuffles, the
	// original included): 1 or 4.
	Augment     int     `json:"augment"`
	Reward      string  `json:"reward"` // reward.Kinds()
	Steps       int     `json:"steps"`
	Prompts     int     `json:"prompts"`
	K           int     `json:"k"`
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens"`
	Beta        float64 `json:"beta"`
	LR          float64 `json:"lr"`
	EvalEvery   int     `json:"eval_every"`
	EvalN       int     `json:"eval_n"`
	DevSplit    string  `json:"dev_split"`
	// Replay adds to every RL step the SFT loss of this many renamed
	// examples of the SFT share (train.RLOptions.Replay, weight 1); 0,
	// the recipe, leaves the config's ID as it was before the option.
	Replay int `json:"replay,omitempty"`
	// Guided samples under the schema guide, each token scored under the
	// guide's renormalised distribution (train.RLOptions.Guided); false,
	// the recipe, leaves the config's ID as it was before the option.
	Guided bool `json:"guided,omitempty"`
	// Rename > 0 renames each schema name of a sampled prompt with this
	// probability, afresh every step, as SFT renames its examples
	// (train.RLOptions.Rename); 0, the recipe, leaves the config's ID as
	// it was before the option.
	Rename float64 `json:"rename,omitempty"`
	// RenameFamilies renames word by word, so that names sharing a word
	// keep sharing one (train.RLOptions.RenameFamilies); false leaves the
	// config's ID as it was before the option.
	RenameFamilies bool `json:"rename_families,omitempty"`
	// ErrorValue is the gate reward's value for SQL that fails to execute
	// (reward.Config.ErrorValue). Every preset and every measurement in
	// docs/ used 0, which leaves the config's ID as it was before the
	// option; `train kto` and `reward serve` default to -1, as MATS's
	// pairs rank an error below a wrong result. KTO's labels do not
	// depend on it (desirable needs a result match), the advantages of
	// PPO, RLOO and GRPO do.
	ErrorValue float64 `json:"error_value,omitempty"`
	// GoldUnsolved, above 0, adds to each step the SFT loss of the gold
	// SQL of the prompts none of whose samples was correct, at this weight
	// (train.RLOptions.GoldUnsolved); 0, the recipe, leaves the config's
	// ID as it was before the option.
	GoldUnsolved float64 `json:"gold_unsolved,omitempty"`
}

// EvalConfig is the final greedy, guided evaluation of a model on a split.
type EvalConfig struct {
	Split string `json:"split"`
	N     int    `json:"n"` // questions (0: all)
	Guide bool   `json:"guide"`
	// HeldOut is RL's pool share (RLConfig.Pool) for the split
	// train.DevHeldOut.
	HeldOut float64 `json:"held_out,omitempty"`
	// Decoder is policy.DecodeVersion when above 1 (version 1 hashes as
	// the configs written before the field), so that a change of the
	// guide redoes the evaluations cached under the old one.
	Decoder int `json:"decoder,omitempty"`
}

// decodeVersion is policy.DecodeVersion, a variable so that a test can
// plan under another version.
var decodeVersion = policy.DecodeVersion

// decoderKey is EvalConfig.Decoder for the decoder of this build.
func decoderKey() int {
	if decodeVersion > 1 {
		return decodeVersion
	}
	return 0
}

// Canonical is the JSON the ID hashes.
func (c Config) Canonical() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		// Only a NaN or infinite setting makes Marshal fail; Go's own
		// rendering of the struct is as deterministic.
		// (pointers are followed, never printed).
		var sft SFTConfig
		var rl RLConfig
		var ev EvalConfig
		var mg MergeConfig
		if c.Merge != nil {
			mg = *c.Merge
		}
		if c.SFT != nil {
			sft = *c.SFT
		}
		if c.RL != nil {
			rl = *c.RL
		}
		if c.Eval != nil {
			ev = *c.Eval
		}
		c.SFT, c.RL, c.Eval, c.Merge = nil, nil, nil, nil
		return fmt.Appendf(nil, "%+v|%+v|%+v|%+v|%+v", c, sft, rl, ev, mg)
	}
	return b
}

// ID names the run's directory: its kind and 12 hex digits of the
// SHA-256 of its canonical JSON.
func (c Config) ID() string {
	h := sha256.Sum256(c.Canonical())
	return c.Kind + "-" + hex.EncodeToString(h[:6])
}

// Fingerprint hashes the benchmark's question files (<split>.json and
// <split>_tables.json) in name order: what decides the data of every run.
// The databases are generated with the questions, so the questions stand
// for them.
func Fingerprint(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("fingerprint benchmark %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return "", fmt.Errorf("fingerprint benchmark: %w", err)
		}
		fmt.Fprintf(h, "%s\n", n)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("fingerprint benchmark %s: %w", filepath.Join(dir, n), err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// DevSplits lists the benchmark's evaluation splits: every <split>.json
// with a <split>_databases directory beside it, except train, "dev" first
// then by name. New splits (dev_id, dev_compositional) are picked up as
// soon as their files are there.
func DevSplits(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list splits of %s: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if e.IsDir() || !ok || name == "train" || strings.HasSuffix(name, "_tables") {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, name+"_databases")); err == nil && st.IsDir() {
			out = append(out, name)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == "dev") != (out[j] == "dev") {
			return out[i] == "dev"
		}
		return out[i] < out[j]
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no evaluation split (want <split>.json with <split>_databases/, such as dev.json)", dir)
	}
	return out, nil
}
