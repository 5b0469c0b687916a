package feedbackhalves

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
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// shop is the fixture's database.
const shop = `
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), amount REAL);
INSERT INTO customer VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Bergen'), (3, 'Cid', 'Oslo'), (4, 'Dee', 'Tromso');
INSERT INTO orders VALUES (1, 1, 10.5), (2, 1, 20), (3, 2, 7), (4, 3, 12), (5, 4, 3), (6, 4, 30);
`

// fixtureQuestions are a user's questions over shop, by difficulty.
var fixtureQuestions = []struct{ q, sql, level string }{
	{"How many customers are there?", "SELECT COUNT(*) FROM customer", "simple"},
	{"List the names of customers in Oslo.", "SELECT name FROM customer WHERE city = 'Oslo'", "simple"},
	{"What city does Bob live in?", "SELECT city FROM customer WHERE name = 'Bob'", "simple"},
	{"How many orders are there?", "SELECT COUNT(*) FROM orders", "simple"},
	{"What is the largest order amount?", "SELECT MAX(amount) FROM orders", "simple"},
	{"How many customers live in Bergen?", "SELECT COUNT(*) FROM customer WHERE city = 'Bergen'", "simple"},
	{"What is the total amount ordered by Ann?", "SELECT SUM(o.amount) FROM orders o JOIN customer c ON c.id = o.customer_id WHERE c.name = 'Ann'", "moderate"},
	{"How many orders did customers in Oslo place?", "SELECT COUNT(*) FROM orders o JOIN customer c ON c.id = o.customer_id WHERE c.city = 'Oslo'", "moderate"},
	{"Which customer placed the largest order?", "SELECT c.name FROM orders o JOIN customer c ON c.id = o.customer_id ORDER BY o.amount DESC LIMIT 1", "moderate"},
	{"What is the average order amount of Dee?", "SELECT AVG(o.amount) FROM orders o JOIN customer c ON c.id = o.customer_id WHERE c.name = 'Dee'", "moderate"},
	{"Which city has the most orders?", "SELECT c.city FROM orders o JOIN customer c ON c.id = o.customer_id GROUP BY c.city ORDER BY COUNT(*) DESC LIMIT 1", "challenging"},
	{"Which customers ordered more than 20 in total?", "SELECT c.name FROM orders o JOIN customer c ON c.id = o.customer_id GROUP BY c.id HAVING SUM(o.amount) > 20", "challenging"},
}

// fixture writes a BIRD-layout dev.json over shop (dev_databases/ beside
// it) and a tiny random native policy; it returns the question file and
// the checkpoint.
func fixture(t *testing.T) (questions, model string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "dev_databases", "shop", "shop.sqlite")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := sqlexec.CreateSQLite(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(shop); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	corpus := []string{shop}
	for i, f := range fixtureQuestions {
		recs = append(recs, map[string]any{"question_id": 100 + i, "db_id": "shop", "question": f.q, "evidence": "", "SQL": f.sql, "difficulty": f.level})
		corpus = append(corpus, f.q, f.sql)
	}
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	questions = filepath.Join(dir, "dev.json")
	if err := os.WriteFile(questions, b, 0o644); err != nil {
		t.Fatal(err)
	}
	pol := policytest.New(t, policytest.Options{Corpus: corpus, Vocab: 300, Seed: 1, Format: policy.Format{Kind: policy.FormatCompact},
		Config: nn.Config{Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 768}})
	model = filepath.Join(t.TempDir(), "ckpt")
	if err := pol.Save(model); err != nil {
		t.Fatal(err)
	}
	return questions, model
}

func quickOptions(t *testing.T, questions, model string) Options {
	return Options{Model: model, Questions: questions, Out: filepath.Join(t.TempDir(), "out"), Seeds: []uint64{1, 2},
		KTO: KTO{Steps: 2, Prompts: 2, LR: 1e-3}, Threads: 1, Command: "test"}
}

// TestRun runs both halves of two seeds with a micro model, checks that
// the halves are disjoint, stratified and swapped, that the export (read
// back from disk) holds only the trained half's questions, that the
// report has every run, and that a second run reads every run back.
func TestRun(t *testing.T) {
	questions, model := fixture(t)
	o := quickOptions(t, questions, model)
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(fixtureQuestions))
	level := map[int]string{}
	idOf := map[string]int{}
	for i, f := range fixtureQuestions {
		all[i] = 100 + i
		level[100+i] = f.level
		idOf[f.q] = 100 + i
	}
	if len(rep.Runs) != 4 {
		t.Fatalf("%d runs, want 2 seeds x 2 halves", len(rep.Runs))
	}
	for k := 0; k < 4; k += 2 {
		ab, ba := rep.Runs[k], rep.Runs[k+1]
		if ab.Seed != ba.Seed || ab.Trained != HalfA || ba.Trained != HalfB || ab.Scored != HalfB || ba.Scored != HalfA {
			t.Errorf("runs %s and %s: want seed s's A->B then B->A", ab.Name, ba.Name)
		}
		if !slices.Equal(ab.TrainedIDs, ba.ScoredIDs) || !slices.Equal(ab.ScoredIDs, ba.TrainedIDs) {
			t.Errorf("seed %d: the halves are not swapped: %v/%v and %v/%v", ab.Seed, ab.TrainedIDs, ab.ScoredIDs, ba.TrainedIDs, ba.ScoredIDs)
		}
		union := append(slices.Clone(ab.TrainedIDs), ab.ScoredIDs...)
		slices.Sort(union)
		if !slices.Equal(union, all) {
			t.Errorf("seed %d: halves %v and %v: want every question in exactly one", ab.Seed, ab.TrainedIDs, ab.ScoredIDs)
		}
		per := map[string]int{}
		for _, id := range ab.TrainedIDs {
			per[level[id]]++
		}
		for _, id := range ab.ScoredIDs {
			per[level[id]]--
		}
		for l, d := range per {
			if d < -1 || d > 1 {
				t.Errorf("seed %d: %s questions differ by %d between the halves: want a stratified split", ab.Seed, l, d)
			}
		}
	}
	for _, r := range rep.Runs {
		if r.Feedback.Questions != len(r.TrainedIDs) || r.Feedback.Up+r.Feedback.Down != r.Feedback.Questions {
			t.Errorf("%s: feedback %+v on %d questions: want one verdict each", r.Name, r.Feedback, len(r.TrainedIDs))
		}
		if r.KTOSteps != o.KTO.Steps || r.Before.N != len(r.ScoredIDs) || r.After.N != len(r.ScoredIDs) || len(r.Verdicts) != len(r.ScoredIDs) {
			t.Errorf("%s: %d KTO steps, scored %d/%d of %d questions", r.Name, r.KTOSteps, r.Before.N, r.After.N, len(r.ScoredIDs))
		}
		// The export on disk, read as the trainer reads it: only questions
		// of the trained half.
		b, err := dataset.LoadQuestions(filepath.Join(r.Dir, ExportDir, feedback.FileQuestions))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Examples) == 0 || len(b.Examples) != len(r.ExportedIDs) {
			t.Errorf("%s: %d exported questions, %d ids recorded", r.Name, len(b.Examples), len(r.ExportedIDs))
		}
		for _, ex := range b.Examples {
			id, ok := idOf[ex.Question]
			if !ok || !slices.Contains(r.TrainedIDs, id) || slices.Contains(r.ScoredIDs, id) {
				t.Errorf("%s: the export holds %q (question %d): want only half %s's questions", r.Name, ex.Question, id, r.Trained)
			}
		}
	}
	if len(rep.PerSeed) != 2 || rep.Pooled.Seeds != 2 || rep.Pooled.Questions != len(all) || rep.PerSeed[0].Questions != len(all) {
		t.Errorf("per seed %+v, pooled %+v: want 2 seeds over every question", rep.PerSeed, rep.Pooled)
	}
	var saved Report
	if b, err := os.ReadFile(filepath.Join(o.Out, ReportJSON)); err != nil || json.Unmarshal(b, &saved) != nil || len(saved.Runs) != 4 {
		t.Fatalf("report.json: %v, %d runs", err, len(saved.Runs))
	}
	md, err := os.ReadFile(filepath.Join(o.Out, ReportMD))
	if err != nil || !strings.Contains(string(md), "## Check") || strings.Count(string(md), "\n| 2 | ") != 3 {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if rep.TestReads != 4 {
		t.Errorf("%d test reads recorded, want one per run", rep.TestReads)
	}

	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again.Runs {
		if !r.Resumed {
			t.Errorf("%s: done again, want it read back", r.Name)
		}
	}
	if again.TestReads != 4 || fmt.Sprint(again.Pooled) != fmt.Sprint(rep.Pooled) {
		t.Errorf("rerun: %d reads, pooled %+v; want 4 and %+v", again.TestReads, again.Pooled, rep.Pooled)
	}
}

// TestBadInput: each mistake stops before any work with a message naming
// what to fix.
func TestBadInput(t *testing.T) {
	questions, model := fixture(t)
	notNative := t.TempDir()
	for name, text := range map[string]string{policy.FileConfig: `{"format": "hf-transformers"}`, policy.FileModel: "weights"} {
		if err := os.WriteFile(filepath.Join(notNative, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orphan := filepath.Join(t.TempDir(), "dev.json")
	var recs []string
	for i := range 4 {
		db := "shop"
		if i == 2 {
			db = "gone"
		}
		recs = append(recs, fmt.Sprintf(`{"question_id": %d, "db_id": %q, "question": "q%d?", "evidence": "", "SQL": "SELECT 1", "difficulty": "simple"}`, i, db, i))
	}
	if err := os.WriteFile(orphan, []byte("["+strings.Join(recs, ",")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"no model", func(o *Options) { o.Model = "" }, "-model is required"},
		{"missing questions", func(o *Options) { o.Questions = filepath.Join(t.TempDir(), "nope.json") }, "nope.json"},
		{"not native", func(o *Options) { o.Model = notNative }, "not a native model"},
		{"not a checkpoint", func(o *Options) { o.Model = t.TempDir() }, "not a checkpoint"},
		{"no database", func(o *Options) {
			o.Questions, o.DBRoot = orphan, filepath.Join(filepath.Dir(questions), "dev_databases")
		}, `db_id "gone" has no database`},
		{"no databases folder", func(o *Options) { o.Questions = orphan }, "set -db-root"},
		{"seed twice", func(o *Options) { o.Seeds = []uint64{1, 1} }, "seed 1 given twice"},
		{"no steps", func(o *Options) { o.KTO.Steps = 0 }, "-steps 0"},
		{"unknown training", func(o *Options) { o.Train = "dpo" }, `-train "dpo": want kto`},
		{"no SFT epochs", func(o *Options) { o.Train, o.SFT = TrainSFT, SFT{LR: 1e-3, Batch: 4} }, "-sft-epochs 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := quickOptions(t, questions, model)
			tc.edit(&o)
			_, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(o.Out, RunsDir)); err == nil {
				t.Errorf("%s: work started", o.Out)
			}
		})
	}
}

// TestCheck states the check from the per-seed gains.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		gains     []float64
		met, goal bool
	}{
		{[]float64{6, 7, 8}, true, true},
		{[]float64{2, 3, 4}, true, false},
		{[]float64{-1, 3, 7}, false, false},
		{[]float64{-2, -1, -1.5}, false, false},
	} {
		c := check(experiment.StatOf(tc.gains), significance.Comparison{Level: 0.95})
		if c.Met != tc.met || c.GoalMet != tc.goal {
			t.Errorf("gains %v: met %v, goal %v; want %v, %v (%s)", tc.gains, c.Met, c.GoalMet, tc.met, tc.goal, c.Text)
		}
	}
}
