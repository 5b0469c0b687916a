package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
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

// RunConfig is everything that decides what one run computes. Its canonical
// JSON (MarshalJSON: fixed field order, no maps) is hashed
// into the run's directory name, so that the same config always lands in
// the same directory (a rerun finds its result or its checkpoints) and any
// change of setting, data or starting point gets a new one.
type RunConfig struct {
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

// SFTConfig is one supervised run: train's settings, the SFT share
// (Fraction) and the split evaluated during training (DevSplit) included.
type SFTConfig = train.SFTConfig

// RLConfig is one reinforcement-learning run from an SFT checkpoint:
// train's settings. Split.On is "holdout" (the share SFT did not see) or
// "train"; Split.Fraction is the parent's SFT share; Split.Pool, above it,
// cuts RL's pool there and leaves the rest as the split "heldout".
type RLConfig = train.RLConfig

// EvalConfig is the final greedy, guided evaluation of a model on a split
// (train.EvalConfig; HeldOut is RL's pool share for the split
// train.DevHeldOut).
type EvalConfig struct {
	train.EvalConfig
	// Decoder is policy.DecodeVersion when above 1 (version 1 hashes as
	// the configs written before the field), so that a change of the
	// guide redoes the evaluations cached under the old one.
	Decoder int `json:"decoder,omitempty"`
	// Test is the sealed test split's fingerprint (TestFingerprint) in a
	// final evaluation on it, which Fingerprint leaves out: a changed test
	// split redoes the evaluations on it.
	Test string `json:"test,omitempty"`
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
func (c RunConfig) Canonical() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		// Only a NaN or infinite setting makes Marshal fail; Go's own
		// rendering of the layout is as deterministic (pointers are
		// followed, never printed).
		w := c.toJSON()
		var sft sftJSON
		var rl rlJSON
		var ev EvalConfig
		var mg MergeConfig
		if w.SFT != nil {
			sft = *w.SFT
		}
		if w.RL != nil {
			rl = *w.RL
		}
		if w.Eval != nil {
			ev = *w.Eval
		}
		if w.Merge != nil {
			mg = *w.Merge
		}
		w.SFT, w.RL, w.Eval, w.Merge = nil, nil, nil, nil
		return fmt.Appendf(nil, "%+v|%+v|%+v|%+v|%+v", w, sft, rl, ev, mg)
	}
	return b
}

// ID names the run's directory: its kind and 12 hex digits of the
// SHA-256 of its canonical JSON.
func (c RunConfig) ID() string {
	h := sha256.Sum256(c.Canonical())
	return c.Kind + "-" + hex.EncodeToString(h[:6])
}

// Fingerprint hashes the benchmark's question files (<split>.json and
// <split>_tables.json) in name order: what decides the data of every run.
// The databases are generated with the questions, so the questions stand
// for them. The sealed test split's files are left out (no run but a final
// evaluation reads them, and that run hashes them itself: TestFingerprint),
// so that a benchmark keeps the fingerprint, and its runs their IDs, that
// it had before it had a test split.
func Fingerprint(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("fingerprint benchmark %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !sealedFile(e.Name()) {
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
// with a <split>_databases directory beside it, except train and the
// sealed test split (a final evaluation's alone), "dev" first
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
		if e.IsDir() || !ok || name == "train" || name == dataset.SplitTest || strings.HasSuffix(name, "_tables") {
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

// sealedFile reports whether name is one of the sealed test split's
// question files.
func sealedFile(name string) bool {
	return name == dataset.SplitTest+".json" || name == dataset.SplitTest+"_tables.json"
}

// TestFingerprint hashes the sealed test split's question files (what
// Fingerprint leaves out), for the final evaluations' configs; "" when the
// benchmark has none.
func TestFingerprint(dir string) (string, error) {
	h := sha256.New()
	for _, n := range []string{dataset.SplitTest + ".json", dataset.SplitTest + "_tables.json"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("fingerprint test split: %w", err)
		}
		fmt.Fprintf(h, "%s\n", n)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}
