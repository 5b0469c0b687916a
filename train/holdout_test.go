package train

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// TestHoldoutSplit: LoadBench keeps the share SFT leaves out as Holdout
// (disjoint from Train, together the whole split), and SFT fraction 1
// trains on everything and leaves none, which RLPrompts refuses unless
// RL is on the train questions.
func TestHoldoutSplit(t *testing.T) {
	f := policy.Format{Kind: policy.FormatCompact, Types: true}
	all, err := LoadBench(BenchOptions{Dir: tinyBench(t), Seed: 1, Format: f, SFTFraction: 1, DevSplit: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if len(all.Holdout) != 0 {
		t.Errorf("SFT fraction 1: %d holdout questions", len(all.Holdout))
	}
	if _, err := all.RLPrompts(context.Background(), RLOnHoldout); err != ErrNoHoldout {
		t.Errorf("RL on an empty holdout: %v", err)
	}
	if ps, err := all.RLPrompts(context.Background(), RLOnTrain); err != nil || len(ps) != len(all.Train) {
		t.Errorf("RL on train: %d prompts for %d questions: %v", len(ps), len(all.Train), err)
	}
	d, err := LoadBench(BenchOptions{Dir: tinyBench(t), Seed: 1, Format: f, DevSplit: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ids := map[int]bool{}
	for _, ex := range d.Train {
		ids[ex.QuestionID] = true
	}
	for _, ex := range d.Holdout {
		if ids[ex.QuestionID] {
			t.Errorf("question %d is in both SFT and holdout", ex.QuestionID)
		}
		ids[ex.QuestionID] = true
	}
	if len(ids) != len(all.Train) || len(d.Holdout) == 0 || len(d.Train) < 2*len(d.Holdout) {
		t.Errorf("%d SFT + %d holdout questions of %d", len(d.Train), len(d.Holdout), len(all.Train))
	}
	if _, err := LoadBench(BenchOptions{Dir: tinyBench(t), Format: f, SFTFraction: 1.5, DevSplit: "-"}); err == nil {
		t.Error("SFT fraction 1.5 accepted")
	}
}

// TestRLPromptsAugment: x4 gives each question its original prompt
// (variant 0, the prompter's own) and up to 3 distinct schema orders of
// the same table lines, the question part unchanged.
func TestRLPromptsAugment(t *testing.T) {
	d := rlData(t)
	d.HoldoutAugment = 4
	ps, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	byQ := map[int][]RLPrompt{}
	for _, p := range ps {
		byQ[p.QuestionID] = append(byQ[p.QuestionID], p)
	}
	if len(byQ) != len(d.Holdout) {
		t.Fatalf("%d questions, holdout %d", len(byQ), len(d.Holdout))
	}
	shuffled := 0
	for q, vs := range byQ {
		orig, err := d.TrainPrompter.Prompt(context.Background(), vs[0].Example.Example)
		if err != nil {
			t.Fatal(err)
		}
		if vs[0].Variant != 0 || vs[0].Text != orig {
			t.Errorf("question %d: variant 0 is not the original prompt", q)
		}
		if len(vs) > 4 {
			t.Errorf("question %d: %d variants", q, len(vs))
		}
		seen := map[string]bool{}
		for i, v := range vs {
			if v.Variant != i || seen[v.Text] {
				t.Errorf("question %d: variant %d (at %d) repeats or is misnumbered", q, v.Variant, i)
			}
			seen[v.Text] = true
			a, b := strings.Split(orig, "\n"), strings.Split(v.Text, "\n")
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("question %d variant %d is not a reordering of the original", q, v.Variant)
			}
			if i > 0 {
				shuffled++
			}
		}
	}
	if shuffled == 0 {
		t.Error("no shuffled variant at all")
	}
}

// TestDevHeldOut: with RLFraction, Holdout is RL's pool, the "heldout" dev
// split the rest of the policy's holdout: together the whole of it, and
// neither shares a question with SFT's share, which stays the policy's.
// A share at or below SFT's, or the split without a share, is refused.
func TestDevHeldOut(t *testing.T) {
	f := policy.Format{Kind: policy.FormatCompact, Types: true}
	dir := tinyBench(t)
	all, err := LoadBench(BenchOptions{Dir: dir, Seed: 1, Format: f, DevSplit: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	d, err := LoadBench(BenchOptions{Dir: dir, Seed: 1, Format: f, DevSplit: DevHeldOut, RLFraction: 0.875})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if len(d.Train) != len(all.Train) {
		t.Errorf("SFT share %d questions, the policy's %d", len(d.Train), len(all.Train))
	}
	where := map[int]string{}
	for _, ex := range d.Train {
		where[ex.QuestionID] = "sft"
	}
	for _, ex := range d.Holdout {
		if where[ex.QuestionID] != "" {
			t.Fatalf("RL's question %d is in SFT's share", ex.QuestionID)
		}
		where[ex.QuestionID] = "rl"
	}
	for _, ex := range d.Dev {
		if w := where[ex.QuestionID]; w != "" {
			t.Fatalf("held-out question %d is in %s", ex.QuestionID, w)
		}
		where[ex.QuestionID] = "dev"
	}
	if len(d.Dev) == 0 || len(d.Holdout) == 0 || len(d.Dev)+len(d.Holdout) != len(all.Holdout) {
		t.Errorf("%d held out + %d RL questions; holdout %d", len(d.Dev), len(d.Holdout), len(all.Holdout))
	}
	if d.DevEngine == nil || d.DevPrompter == nil {
		t.Error("no engine or prompter for the held-out questions")
	}
	for _, share := range []float64{0.75, 0.5, 1} {
		if _, err := LoadBench(BenchOptions{Dir: dir, Seed: 1, Format: f, DevSplit: DevHeldOut, RLFraction: share}); err == nil || !strings.Contains(err.Error(), "must lie between") {
			t.Errorf("RL share %v: %v", share, err)
		}
	}
	if _, err := LoadBench(BenchOptions{Dir: dir, Seed: 1, Format: f, DevSplit: DevHeldOut}); err == nil || !strings.Contains(err.Error(), "no holdout question is kept") {
		t.Errorf("heldout without an RL share: %v", err)
	}
}
