package train

import (
	"context"
	"fmt"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/prompt"
)

// Where RL draws its prompts from (RLOptions.RLOn).
const (
	// RLOnHoldout is the OKTO recipe: RL on the questions SFT never saw.
	RLOnHoldout = "holdout"
	// RLOnTrain is RL on SFT's own questions, the study that shows why the
	// recipe holds data out (after SFT on 100% there is nothing else).
	RLOnTrain = "train"
)

// RLPrompt is one prompt RL samples for: a question, its gold, and the
// variant of its schema order (0 is the original order).
type RLPrompt struct {
	Example
	Variant     int
	Permutation dataset.Permutation
	// Text is the rendered prompt.
	Text string
}

// ErrNoHoldout is RLPrompts' error for an empty holdout, the usual cause
// being SFT on 100% of the train split.
var ErrNoHoldout = fmt.Errorf("no holdout questions: -sft-fraction 1 leaves none; use -rl-on train")

// RLPrompts renders the prompts RL draws from: the holdout's questions
// (on = RLOnHoldout, the default) or the SFT questions (RLOnTrain), each in
// HoldoutAugment schema orders. The orders are dataset.Augment's, keyed by
// question_id and AugmentSeed as `sqlrl data prepare` keys them, so that a
// rollouts file's (question_id, variant) names the same prompt here and
// there; a compact prompt shows every table, so its shape is the schema's
// column counts, and a variant's prompt is the compact prompt of the
// schema with its tables (and columns, if shuffled) in the variant's order.
func (d *Data) RLPrompts(ctx context.Context, on string) ([]RLPrompt, error) {
	var exs []Example
	switch on {
	case "", RLOnHoldout:
		if len(d.Holdout) == 0 {
			return nil, ErrNoHoldout
		}
		exs = d.Holdout
	case RLOnTrain:
		exs = d.Train
	default:
		return nil, fmt.Errorf("train: RL on %q (want %s or %s)", on, RLOnHoldout, RLOnTrain)
	}
	if len(exs) == 0 {
		return nil, fmt.Errorf("train: no %s questions for RL", on)
	}
	if d.TrainPrompter == nil {
		return nil, fmt.Errorf("train: RL needs a benchmark (its schemas and databases), not text data")
	}
	k := max(d.HoldoutAugment, 1)
	base := make([]dataset.Example, len(exs))
	byID := map[int]*Example{}
	for i := range exs {
		base[i] = exs[i].Example
		byID[exs[i].QuestionID] = &exs[i]
	}
	aug, err := dataset.Augment(base, func(ex dataset.Example) ([]int, error) {
		s, err := d.TrainPrompter.Schema(ctx, ex.DBID)
		if err != nil {
			return nil, err
		}
		cols := make([]int, len(s.Tables))
		for i, t := range s.Tables {
			cols[i] = len(t.Columns)
		}
		return cols, nil
	}, dataset.AugmentOptions{K: k, Seed: d.AugmentSeed})
	if err != nil {
		return nil, err
	}
	out := make([]RLPrompt, 0, len(aug))
	for _, a := range aug {
		s, err := d.TrainPrompter.Schema(ctx, a.DBID)
		if err != nil {
			return nil, err
		}
		ps, err := permuteSchema(s, a.Permutation)
		if err != nil {
			return nil, fmt.Errorf("question %d variant %d: %w", a.QuestionID, a.Variant, err)
		}
		ex := *byID[a.QuestionID]
		out = append(out, RLPrompt{Example: ex, Variant: a.Variant, Permutation: a.Permutation,
			Text: d.Format.Compact(ps, ex.Question, ex.Evidence)})
	}
	return out, nil
}

// permuteSchema returns a shallow copy of s with its tables in the order
// p.Tables gives (and each table's columns in p.Columns' order, if set).
func permuteSchema(s *prompt.Schema, p dataset.Permutation) (*prompt.Schema, error) {
	if len(p.Tables) != len(s.Tables) {
		return nil, fmt.Errorf("permutation of %d tables for a schema of %d", len(p.Tables), len(s.Tables))
	}
	out := &prompt.Schema{DBID: s.DBID, Tables: make([]*prompt.Table, len(s.Tables))}
	for k, ti := range p.Tables {
		if ti < 0 || ti >= len(s.Tables) {
			return nil, fmt.Errorf("permutation names table %d of %d", ti, len(s.Tables))
		}
		t := s.Tables[ti]
		if p.Columns != nil {
			cp := *t
			cols := p.Columns[ti]
			if len(cols) != len(t.Columns) {
				return nil, fmt.Errorf("permutation of %d columns for table %s of %d", len(cols), t.Name, len(t.Columns))
			}
			cp.Columns = make([]prompt.Column, len(cols))
			for j, c := range cols {
				cp.Columns[j] = t.Columns[c]
			}
			t = &cp
		}
		out.Tables[k] = t
	}
	return out, nil
}
