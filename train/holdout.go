package train

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
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
		// Text data (an agent's prompts, written by package agents): each
		// question's prompt is given, one variant, no schema to shuffle.
		// Offline objectives train on them; online ones need databases.
		out := make([]RLPrompt, 0, len(exs))
		for _, ex := range exs {
			if ex.Prompt == "" {
				return nil, fmt.Errorf("train: RL needs a benchmark (its schemas and databases) or text prompts; question %d has neither", ex.QuestionID)
			}
			out = append(out, RLPrompt{Example: ex, Text: ex.Prompt})
		}
		return out, nil
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

// NoteRLQuestions is the Data.Notes key UseQuestions sets to the question
// file's path, so that a run's fingerprint and its errors name the file
// its prompts came from.
const NoteRLQuestions = "rl_questions"

// UseQuestions makes the questions of a BIRD-layout question file the RL
// prompt pool: RLPrompts then renders exactly those (in d.Format, over the
// databases of dbRoot, as <dbRoot>/<db_id>/<db_id>.sqlite), in their
// original schema order only (variant 0), with no split involved. It is for
// a file whose questions no benchmark split holds, the case of `sqlrl data
// from-feedback`'s feedback.json, whose question_ids are the feedback
// store's answer ids: offline RL on its rollouts.jsonl must find those ids
// in the pool. It replaces d.Holdout and d.TrainPrompter (RL's only uses of
// them) and leaves the dev split as it was, so that a run still evaluates
// on a benchmark's dev split when d came from LoadBench. Every question's
// database is read here, so that a missing one fails before any training,
// naming its question.
func (d *Data) UseQuestions(ctx context.Context, path, dbRoot string) error {
	exs, p, _, err := d.openQuestions(ctx, "RL questions", path, dbRoot)
	if err != nil {
		return err
	}
	d.TrainPrompter, d.Holdout, d.HoldoutAugment = p, exs, 1
	d.Notes[NoteRLQuestions] = path
	d.Notes["rl_db_root"] = dbRoot
	return nil
}

// NoteSFTQuestions is the Data.Notes key UseSFTQuestions sets to the
// question file's path, for the run's fingerprint and the checkpoint's
// provenance.
const NoteSFTQuestions = "sft_questions"

// UseSFTQuestions makes the questions of a BIRD-layout question file that
// have SQL SFT's training examples (d.Train), rendered in d.Format over
// the databases of dbRoot (<dbRoot>/<db_id>/<db_id>.sqlite), with the
// databases' text values as the renaming's words. It is for a file that
// is no benchmark's split, the case of `sqlrl data from-feedback`'s
// feedback.json, whose SQL is the answer a user accepted or corrected and
// empty where there is neither: those are left out and counted in
// skipped. Every question's database is read here, so that a missing one
// fails before any training, naming its question.
func (d *Data) UseSFTQuestions(ctx context.Context, path, dbRoot string) (skipped int, err error) {
	exs, p, eng, err := d.openQuestions(ctx, "SFT questions", path, dbRoot)
	if err != nil {
		return 0, err
	}
	kept := slices.DeleteFunc(exs, func(ex Example) bool { return strings.TrimSpace(ex.SQL) == "" })
	if len(kept) == 0 {
		return len(exs), fmt.Errorf("SFT questions %s: none of its %d questions has SQL to train on", path, len(exs))
	}
	base := make([]dataset.Example, len(kept))
	for i := range kept {
		base[i] = kept[i].Example
	}
	if d.Words, err = dbWords(eng, p, base); err != nil {
		return 0, fmt.Errorf("SFT questions %s: %w", path, err)
	}
	d.TrainPrompter, d.Train = p, kept
	d.Notes[NoteSFTQuestions] = path
	d.Notes["sft_db_root"] = dbRoot
	return len(exs) - len(kept), nil
}

// openQuestions reads the question file at path (what names it in
// errors) and opens its databases under dbRoot for prompts in d.Format,
// reading each question's schema once. The engine joins d's, closed by
// Close.
func (d *Data) openQuestions(ctx context.Context, what, path, dbRoot string) ([]Example, *policy.Prompter, sqlexec.Engine, error) {
	b, err := dataset.LoadQuestions(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(b.Examples) == 0 {
		return nil, nil, nil, fmt.Errorf("%s %s: no questions", what, path)
	}
	if dbRoot == "" {
		return nil, nil, nil, fmt.Errorf("%s %s: no database root to render their prompts from", what, path)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: dbRoot, Limits: sqlexec.Limits{Timeout: time.Minute}})
	p, err := policy.NewPrompter(eng, dbRoot, d.Format)
	if err != nil {
		eng.Close()
		return nil, nil, nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	exs := make([]Example, 0, len(b.Examples))
	read := map[string]bool{}
	for _, ex := range b.Examples {
		if !read[ex.DBID] {
			if _, err := p.Schema(ctx, ex.DBID); err != nil {
				eng.Close()
				return nil, nil, nil, fmt.Errorf("%s %s: question %d: database %s under %s: %w", what, path, ex.QuestionID, ex.DBID, dbRoot, err)
			}
			read[ex.DBID] = true
		}
		exs = append(exs, Example{Example: ex})
	}
	d.engines = append(d.engines, eng)
	if d.Notes == nil {
		d.Notes = map[string]string{}
	}
	return exs, p, eng, nil
}
