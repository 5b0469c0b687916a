package train

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// A reviewer trains on the same questions with the query in the prompt
// and the question as the completion, shares each group's schema lines,
// starts from a planner and is saved as a reviewer, which SFT of SQL then
// refuses to start from.
func TestReviewerSFT(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := loadTiny(t)
	o := tinyOptions(filepath.Join(dir, "planner"))
	o.Epochs = 1
	planner, err := SFT(ctx, d, o)
	if err != nil {
		t.Fatal(err)
	}

	d.Task = policy.TaskReview
	ro := tinyOptions(filepath.Join(dir, "reviewer"))
	ro.Epochs, ro.Init = 1, planner.Checkpoint
	ro.defaults()
	tr := newSFT(d, ro)
	pol, err := policy.Load(planner.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(ctx, pol); err != nil {
		t.Fatal(err)
	}
	if err := tr.epochPlan(ctx, 0); err != nil {
		t.Fatal(err)
	}
	n, shared := 0, 0
	for _, b := range tr.plan {
		for _, s := range b {
			n++
			pr := tr.pol.Tok.Decode(s.Tokens[:s.PromptLen])
			comp := tr.pol.Tok.Decode(s.Tokens[s.PromptLen : len(s.Tokens)-1])
			if !strings.HasSuffix(pr, policy.ReviewCue) || !strings.Contains(pr, "\nSQL: SELECT") || strings.Contains(pr, "\nquestion: "+comp) {
				t.Fatalf("reviewer prompt %q -> %q: want the query in the prompt and the question as the completion", pr, comp)
			}
			if !strings.HasSuffix(comp, "?") && !strings.HasSuffix(comp, ".") {
				t.Errorf("completion %q is not a question", comp)
			}
			if s.Shared > 0 {
				shared++
			}
		}
	}
	if n == 0 || shared < n*9/10 {
		t.Errorf("%d of %d reviewer sequences share their schema lines", shared, n)
	}

	res, err := SFT(ctx, d, ro)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := policy.Load(res.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if rev.Info.Task != policy.TaskReview {
		t.Errorf("reviewer saved with task %q", rev.Info.Task)
	}
	d.Task = ""
	so := tinyOptions(filepath.Join(dir, "sql-from-reviewer"))
	so.Init = res.Checkpoint
	if _, err := SFT(ctx, d, so); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("SQL training from a reviewer: error %v, want one about the task", err)
	}
}
