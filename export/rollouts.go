package export

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/sqlrl/sqlrl/jsonl"
)

// Rollout is one line of a rollouts file: a completion sampled for a
// prompt, with its score, the material KTO labels and DPO pairs are made
// of. A line has question_id, completion, and reward (a number) or label
// (true: desirable); variant (default 0) names the augmented prompt it was
// sampled on. The other fields are what a writer records beside them
// (online RL: correct, truncated, step; a feedback export: source);
// readers ignore fields they do not know. A field that is nil or empty is
// not written.
type Rollout struct {
	QuestionID int    `json:"question_id"`
	Variant    int    `json:"variant"`
	Completion string `json:"completion"`
	// Reward is nil when the line gave only a label; Label is nil when it
	// gave only a reward.
	Reward *float64 `json:"reward,omitempty"`
	// Correct is whether the reward is the correct level (RL's samples).
	Correct *bool `json:"correct,omitempty"`
	// Truncated marks a completion cut at the sampling budget: a failure
	// of the budget as much as the model's.
	Truncated bool  `json:"truncated,omitempty"`
	Label     *bool `json:"label,omitempty"`
	// Step is the RL step that sampled the completion (0: before any).
	Step *int64 `json:"step,omitempty"`
	// Source says where a feedback export's completion came from:
	// "model" (the answer's SQL) or "correction" (a human's SQL).
	Source string `json:"source,omitempty"`
	// Line is the line number in the file it was read from, for error
	// messages; not written.
	Line int `json:"-"`
}

// WriteRollouts writes rs to w, one JSON line each.
func WriteRollouts(w io.Writer, rs []Rollout) error {
	var buf []byte
	for _, r := range rs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("write rollouts: question %d: %w", r.QuestionID, err)
		}
		buf = append(append(buf, b...), '\n')
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write rollouts: %w", err)
	}
	return nil
}

// AppendRollouts appends rs to the rollouts file at path, creating it
// when missing.
func AppendRollouts(path string, rs []Rollout) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("rollouts %s: %w", path, err)
	}
	if err := WriteRollouts(f, rs); err != nil {
		f.Close()
		return fmt.Errorf("rollouts %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rollouts %s: %w", path, err)
	}
	return nil
}

// ReadRollouts reads a rollouts file. Each line must have question_id,
// completion, and reward or label; a bad line is reported with its number.
// Rollout files of a long online run are large; ctx stops the read.
func ReadRollouts(ctx context.Context, path string) ([]Rollout, error) {
	var out []Rollout
	err := jsonl.ReadFile(path, func(line int, b []byte) error {
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		// The pointers tell a missing field from a zero one.
		var r struct {
			Rollout
			QuestionID *int    `json:"question_id"`
			Completion *string `json:"completion"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		switch {
		case r.QuestionID == nil:
			return errors.New("missing question_id")
		case r.Completion == nil:
			return fmt.Errorf("question_id %d: missing completion", *r.QuestionID)
		case r.Reward == nil && r.Label == nil:
			return fmt.Errorf("question_id %d: neither reward nor label", *r.QuestionID)
		case r.Reward != nil && (math.IsNaN(*r.Reward) || math.IsInf(*r.Reward, 0)):
			return fmt.Errorf("question_id %d: reward is not a finite number", *r.QuestionID)
		}
		if r.Variant < 0 {
			return fmt.Errorf("question_id %d: negative variant", *r.QuestionID)
		}
		ro := r.Rollout
		ro.QuestionID, ro.Completion, ro.Line = *r.QuestionID, *r.Completion, line
		out = append(out, ro)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read rollouts: %w", err)
	}
	if len(out) == 0 {
		// Training on nothing would finish "successfully" with no signal.
		return nil, fmt.Errorf("%s: no rollouts: the file is empty or blank", path)
	}
	return out, nil
}

// PreferenceOptions decide how rollouts become KTO labels and DPO pairs.
type PreferenceOptions struct {
	// LabelThreshold: a rollout without a label is desirable when its
	// reward is at least this (0.5 splits 1/0, 1/0.1/0 and 1/0/-1 rewards
	// alike: only a result match is desirable).
	LabelThreshold float64
	// MaxPairs bounds the DPO pairs per prompt; 0 makes max(desirable,
	// undesirable) pairs, so every distinct completion is used once.
	MaxPairs int
	// GoldAsChosen pairs the gold SQL against undesirable completions of a
	// prompt that has no desirable one, instead of dropping the prompt.
	GoldAsChosen bool
}

// RolloutStats are the counts the manifest reports about a rollouts file.
type RolloutStats struct {
	File       string `json:"file"`
	SHA256     string `json:"sha256"`
	Records    int    `json:"records"`
	SkippedSFT int    `json:"skipped_sft"`
	Duplicates int    `json:"duplicates"`
	// Desirable and Undesirable count the KTO records.
	Desirable   int `json:"desirable"`
	Undesirable int `json:"undesirable"`
	DPOPairs    int `json:"dpo_pairs"`
	// PromptsOneSided counts prompts whose completions all got the same
	// label: KTO uses them, DPO cannot (unless GoldAsChosen).
	PromptsOneSided int `json:"prompts_one_sided"`
	GoldChosen      int `json:"gold_chosen"`
}

type promptKey struct{ qid, variant int }

type ktoItem struct {
	rec        *Record
	completion string
	label      bool
}

type dpoItem struct {
	rec              *Record
	chosen, rejected string
}

// preferences turns rollouts into KTO items and DPO pairs, grouped by
// prompt in (question_id, variant) order. Rollouts on SFT questions are
// skipped and counted (RLHF on SFT data is what the recipe avoids); a
// rollout on a question outside the split, or on a variant that was not
// written, is an error.
func preferences(path string, rolls []Rollout, prompts map[promptKey]*Record, sft map[int]bool, opts PreferenceOptions) ([]ktoItem, []dpoItem, RolloutStats, error) {
	st := RolloutStats{Records: len(rolls)}
	type cand struct {
		completion string
		reward     float64
		good       bool
		order      int
	}
	groups := map[promptKey][]cand{}
	seen := map[promptKey]map[string]bool{}
	for i, r := range rolls {
		k := promptKey{r.QuestionID, r.Variant}
		if sft[r.QuestionID] {
			st.SkippedSFT++
			continue
		}
		if prompts[k] == nil {
			if prompts[promptKey{r.QuestionID, 0}] != nil {
				return nil, nil, st, fmt.Errorf("%s: line %d: question %d has no variant %d", path, r.Line, r.QuestionID, r.Variant)
			}
			return nil, nil, st, fmt.Errorf("%s: line %d: question_id %d is not in the split", path, r.Line, r.QuestionID)
		}
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		if seen[k][r.Completion] {
			st.Duplicates++
			continue
		}
		seen[k][r.Completion] = true
		c := cand{completion: r.Completion, order: i}
		switch {
		case r.Label != nil:
			c.good = *r.Label
			if r.Reward != nil {
				c.reward = *r.Reward
			} else if c.good {
				c.reward = 1
			}
		default:
			c.reward = *r.Reward
			c.good = c.reward >= opts.LabelThreshold
		}
		groups[k] = append(groups[k], c)
	}
	keys := make([]promptKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b promptKey) int {
		return cmp.Or(cmp.Compare(a.qid, b.qid), cmp.Compare(a.variant, b.variant))
	})
	var kto []ktoItem
	var dpo []dpoItem
	for _, k := range keys {
		rec, cs := prompts[k], groups[k]
		var pos, neg []cand
		for _, c := range cs {
			kto = append(kto, ktoItem{rec: rec, completion: c.completion, label: c.good})
			if c.good {
				st.Desirable++
				pos = append(pos, c)
			} else {
				st.Undesirable++
				neg = append(neg, c)
			}
		}
		// Best chosen against worst rejected first; file order breaks ties.
		slices.SortStableFunc(pos, func(a, b cand) int { return cmp.Compare(b.reward, a.reward) })
		slices.SortStableFunc(neg, func(a, b cand) int { return cmp.Compare(a.reward, b.reward) })
		if len(pos) == 0 || len(neg) == 0 {
			st.PromptsOneSided++
		}
		if len(pos) == 0 && len(neg) > 0 && opts.GoldAsChosen && !seen[k][rec.SQL] {
			pos = []cand{{completion: rec.SQL}}
			st.GoldChosen++
		}
		if len(pos) == 0 || len(neg) == 0 {
			continue
		}
		n := max(len(pos), len(neg))
		if opts.MaxPairs > 0 {
			n = min(n, opts.MaxPairs)
		}
		for i := range n {
			dpo = append(dpo, dpoItem{rec: rec, chosen: pos[i%len(pos)].completion, rejected: neg[i%len(neg)].completion})
		}
	}
	st.DPOPairs = len(dpo)
	return kto, dpo, st, nil
}
