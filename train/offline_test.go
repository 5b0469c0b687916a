package train

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/feedbacktest"
)

// TestOfflineKTODPO samples a small rollouts file from the SFT policy
// (SampleRollouts), checks that export.ReadRollouts reads it, and trains
// offline KTO and DPO on it: finite losses, moved weights.
func TestOfflineKTODPO(t *testing.T) {
	d := rlData(t)
	init := weightsOf(t, rlInit(t))
	path := filepath.Join(t.TempDir(), "rollouts.jsonl")
	o := rlOptions(t, AlgoKTO, "", parityReward{rlStack(t)})
	o.K, o.Prompts = 3, 4
	n, err := SampleRollouts(context.Background(), d, o, path)
	if err != nil {
		t.Fatal(err)
	}
	rolls, err := export.ReadRollouts(context.Background(), path)
	if err != nil || len(rolls) != n || n != 3*len(d.Holdout) {
		t.Fatalf("%d rollouts read, %d written, %d holdout questions: %v", len(rolls), n, len(d.Holdout), err)
	}
	for _, algo := range OfflineAlgos {
		t.Run(algo, func(t *testing.T) {
			out := t.TempDir()
			o := rlOptions(t, algo, out, nil)
			o.Online, o.OfflineFile = false, path
			res, err := RL(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.State.Step != 3 {
				t.Fatalf("state %+v", res.State)
			}
			if slices.Equal(init, weightsOf(t, out)) {
				t.Error("the weights did not move")
			}
		})
	}
	// a label-only file is read too
	lab := filepath.Join(t.TempDir(), "labels.jsonl")
	var b strings.Builder
	for i, r := range rolls {
		l := i%2 == 0
		line, _ := json.Marshal(map[string]any{"question_id": r.QuestionID, "completion": r.Completion, "label": l})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(lab, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o = rlOptions(t, AlgoKTO, t.TempDir(), nil)
	o.Online, o.OfflineFile = false, lab
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
}

// feedbackExport plays a served model's users over the tiny bench's
// holdout questions: the first n get an answer each in a feedback store,
// alternately wrong (thumbs down and the gold as the correction that ran)
// and right (thumbs up), and `sqlrl data from-feedback`'s Export writes the
// store's training files to a folder it returns, with the train split's
// database root.
func feedbackExport(t *testing.T, d *Data, n int) (dir, dbRoot string) {
	t.Helper()
	ctx := context.Background()
	b, err := dataset.Load(tinyBench(t), "train")
	if err != nil {
		t.Fatal(err)
	}
	st, err := feedback.OpenSQLite(ctx, filepath.Join(t.TempDir(), "feedback.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var exs []dataset.Example
	for _, ex := range d.Holdout[:n] {
		exs = append(exs, ex.Example)
	}
	feedbacktest.Record(t, st, exs, "tiny", func(i int) bool { return i%2 == 0 })
	dir = filepath.Join(t.TempDir(), "fb")
	if _, err := feedback.Export(ctx, st, feedback.ExportOptions{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir, b.DBRoot
}

// TestOfflineOnFeedbackExport trains offline KTO on a feedback export
// (rollouts.jsonl) with its questions (feedback.json) as the prompt pool,
// as `sqlrl train kto -online=false -offline DIR/rollouts.jsonl -questions
// DIR/feedback.json -db-root DBROOT` does: the answer ids are in no split,
// yet the pool is exactly the file's questions, rendered as the benchmark
// renders them, and the weights move. A rollout naming a question the file
// does not hold is refused with its line.
func TestOfflineOnFeedbackExport(t *testing.T) {
	ctx := context.Background()
	bench := rlData(t)
	const n = 6
	dir, dbRoot := feedbackExport(t, bench, n)
	questions, rollouts := filepath.Join(dir, "feedback.json"), filepath.Join(dir, "rollouts.jsonl")

	d := &Data{Format: bench.Format}
	t.Cleanup(d.Close)
	if err := d.UseQuestions(ctx, questions, dbRoot); err != nil {
		t.Fatal(err)
	}
	pool, err := d.RLPrompts(ctx, RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	if len(pool) != n {
		t.Fatalf("%d prompts from %d questions", len(pool), n)
	}
	for i, p := range pool {
		// answer ids 1..n, in the holdout's order; the prompt is the
		// benchmark's own for that question
		h := bench.Holdout[i]
		s, err := bench.TrainPrompter.Schema(ctx, h.DBID)
		if err != nil {
			t.Fatal(err)
		}
		if p.QuestionID != i+1 || p.Variant != 0 || p.Text != bench.Format.Compact(s, h.Question, h.Evidence) {
			t.Errorf("prompt %d: question %d variant %d, text %q; want question %d variant 0, the prompt of holdout question %d", i, p.QuestionID, p.Variant, p.Text, i+1, h.QuestionID)
		}
	}

	init := weightsOf(t, rlInit(t))
	out := t.TempDir()
	o := rlOptions(t, AlgoKTO, out, nil)
	o.Online, o.OfflineFile = false, rollouts
	res, err := RL(ctx, d, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Step != 3 {
		t.Fatalf("state %+v", res.State)
	}
	if slices.Equal(init, weightsOf(t, out)) {
		t.Error("the weights did not move")
	}

	// a line naming no question of the file is refused with its number
	b, err := os.ReadFile(rollouts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(b), "\n")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	extra := fmt.Sprintf(`{"question_id": %d, "variant": 0, "completion": "SELECT 2", "label": true}`+"\n", n+100)
	if err := os.WriteFile(bad, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	o = rlOptions(t, AlgoKTO, t.TempDir(), nil)
	o.Online, o.OfflineFile = false, bad
	_, err = RL(ctx, d, o)
	want := fmt.Sprintf("line %d: question %d variant 0 is not among the %d questions of %s", lines+1, n+100, n, questions)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error saying %q", err, want)
	}

	// a question whose prompt leaves no room for a completion is left
	// out, as online runs leave it out of their pool, and the log says so
	raw, err := os.ReadFile(questions)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	recs[0]["question"] = strings.Repeat("a question far too long for the context ", 400)
	long := filepath.Join(t.TempDir(), "feedback.json")
	if raw, err = json.Marshal(recs); err != nil || os.WriteFile(long, raw, 0o644) != nil {
		t.Fatal(err)
	}
	dl := &Data{Format: bench.Format}
	t.Cleanup(dl.Close)
	if err := dl.UseQuestions(ctx, long, dbRoot); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	o = rlOptions(t, AlgoKTO, t.TempDir(), nil)
	o.Online, o.OfflineFile, o.Progress = false, rollouts, &log
	if res, err := RL(ctx, dl, o); err != nil || res.State.Step != 3 || res.Skipped != 1 {
		t.Fatalf("a file with one question too long: %v (%+v), want the run without it, counted as skipped", err, res)
	}
	if want := fmt.Sprintf("1 of the %d questions of %s are left out", n, rollouts); !strings.Contains(log.String(), want) {
		t.Errorf("log %q: want %q", log.String(), want)
	}
}

// TestUseQuestionsErrors: a question file that cannot be the pool fails
// before any training, naming the file and the question.
func TestUseQuestionsErrors(t *testing.T) {
	ctx := context.Background()
	bench := rlData(t)
	b, err := dataset.Load(tinyBench(t), "train")
	if err != nil {
		t.Fatal(err)
	}
	write := func(v any) string {
		p := filepath.Join(t.TempDir(), "q.json")
		raw, _ := json.Marshal(v)
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := bench.Holdout[0]
	for _, c := range []struct {
		name, path, dbRoot, want string
	}{
		{"missing database", write([]map[string]any{{"question_id": 7, "db_id": "no_such_db", "question": "q", "SQL": ""}}), b.DBRoot, "question 7: database no_such_db"},
		{"no questions", write([]map[string]any{}), b.DBRoot, "no questions"},
		{"no database root", write([]map[string]any{{"question_id": 7, "db_id": h.DBID, "question": "q", "SQL": ""}}), "", "no database root"},
		{"not BIRD", write([]map[string]any{{"question_id": 7, "question": "q", "SQL": ""}}), b.DBRoot, "missing db_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &Data{Format: bench.Format}
			defer d.Close()
			err := d.UseQuestions(ctx, c.path, c.dbRoot)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("got %v, want an error naming %s and saying %q", err, c.path, c.want)
			}
		})
	}
}
