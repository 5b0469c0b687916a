package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
)

// writeQuestions writes recs as a BIRD-layout question file.
func writeQuestions(t *testing.T, recs []map[string]any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "feedback.json")
	raw, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUseSFTQuestions trains SFT from a checkpoint on a question file that
// is no split, as a feedback export's feedback.json: the questions with
// SQL are the examples, in the file's order and rendered as the
// benchmark renders them; the one without SQL (a thumbs down nobody
// corrected) is left out and counted; the weights move from the start's.
func TestUseSFTQuestions(t *testing.T) {
	ctx := context.Background()
	bench := rlData(t)
	b, err := dataset.Load(tinyBench(t), "train")
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for i, h := range bench.Holdout[:5] {
		sql := h.SQL
		if i == 1 {
			sql = ""
		}
		recs = append(recs, map[string]any{"question_id": 1 + i, "db_id": h.DBID, "question": h.Question, "evidence": h.Evidence, "SQL": sql})
	}
	path := writeQuestions(t, recs)
	d := &Data{Format: bench.Format}
	t.Cleanup(d.Close)
	skipped, err := d.UseSFTQuestions(ctx, path, b.DBRoot)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, ex := range d.Train {
		ids = append(ids, ex.QuestionID)
	}
	if skipped != 1 || !slices.Equal(ids, []int{1, 3, 4, 5}) {
		t.Fatalf("skipped %d, trains on %v; want 1 and [1 3 4 5]", skipped, ids)
	}
	for i, ex := range d.Train {
		h := bench.Holdout[ex.QuestionID-1]
		s, err := bench.TrainPrompter.Schema(ctx, h.DBID)
		if err != nil {
			t.Fatal(err)
		}
		p, c, err := d.render(ctx, &d.Train[i], nil, 0, nil)
		if err != nil || p != bench.Format.Compact(s, h.Question, h.Evidence) || c != h.SQL {
			t.Errorf("example %d: %v, prompt %q, completion %q; want the benchmark's prompt and the gold", ex.QuestionID, err, p, c)
		}
	}
	if len(d.Words) == 0 || d.Notes[NoteSFTQuestions] != path {
		t.Errorf("%d words, notes %v: want the databases' words and the file in the notes", len(d.Words), d.Notes)
	}

	init := rlInit(t)
	out := t.TempDir()
	o := tinyOptions(out)
	o.Init, o.Model, o.Epochs, o.BatchSize, o.Rename = init, nil, 2, 2, -1
	res, err := SFT(ctx, d, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Step != 4 {
		t.Errorf("step %d: want 2 epochs of 2 batches", res.State.Step)
	}
	if slices.Equal(weightsOf(t, init), weightsOf(t, out)) {
		t.Error("the weights did not move")
	}
}

// TestUseSFTQuestionsErrors: a file that cannot be trained on fails before
// any training, naming the file and what is wrong.
func TestUseSFTQuestionsErrors(t *testing.T) {
	ctx := context.Background()
	bench := rlData(t)
	b, err := dataset.Load(tinyBench(t), "train")
	if err != nil {
		t.Fatal(err)
	}
	h := bench.Holdout[0]
	q := func(id int, db, sql string) map[string]any {
		return map[string]any{"question_id": id, "db_id": db, "question": "q", "SQL": sql}
	}
	for _, c := range []struct {
		name, path, dbRoot, want string
	}{
		{"no SQL", writeQuestions(t, []map[string]any{q(1, h.DBID, ""), q(2, h.DBID, " ")}), b.DBRoot, "none of its 2 questions has SQL"},
		{"missing database", writeQuestions(t, []map[string]any{q(7, "no_such_db", "SELECT 1")}), b.DBRoot, "question 7: database no_such_db"},
		{"no questions", writeQuestions(t, []map[string]any{}), b.DBRoot, "no questions"},
		{"no database root", writeQuestions(t, []map[string]any{q(7, h.DBID, "SELECT 1")}), "", "no database root"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &Data{Format: bench.Format}
			defer d.Close()
			_, err := d.UseSFTQuestions(ctx, c.path, c.dbRoot)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("got %v, want an error naming %s and saying %q", err, c.path, c.want)
			}
			if len(d.Train) != 0 {
				t.Errorf("%d training examples set on error", len(d.Train))
			}
		})
	}
}
