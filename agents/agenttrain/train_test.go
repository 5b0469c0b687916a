package agenttrain

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/train"
)

func TestFeedbackLabels(t *testing.T) {
	tests := []struct {
		text                  string
		positive, candCorrect bool
		indep, collab, fix    bool
	}{
		{"Selects x as asked. Conclude: correct.", true, true, true, true, false},
		{"Selects x as asked. Conclude: correct.", false, false, false, false, false}, // accepts a wrong one
		{"Misses a filter. Conclude: incorrect.", false, false, true, false, true},    // the fix decides
		{"Misses a filter. Conclude: incorrect.", true, true, false, false, true},     // rejects a right one: the fix decides
		{"Conclude: correct. Conclude: incorrect.", true, true, false, false, false},  // two conclusions: bad
		{"garbage", false, false, false, false, false},
	}
	for _, tc := range tests {
		i, c, f := feedbackLabels(tc.text, tc.positive, tc.candCorrect)
		if i != tc.indep || c != tc.collab || f != tc.fix {
			t.Errorf("%q (positive %v, correct %v): indep %v collab %v fix %v, want %v %v %v", tc.text, tc.positive, tc.candCorrect, i, c, f, tc.indep, tc.collab, tc.fix)
		}
	}
}

func TestPreferencePairs(t *testing.T) {
	mk := func(prompt string, val bool, texts []string, indep, collab []bool) *sampled {
		return &sampled{ex: agents.TrainExample{Prompt: prompt}, val: val, texts: texts, indep: indep, collab: collab}
	}
	set := []*sampled{
		mk("p1", false, []string{"a", "b", "c"}, []bool{false, true, false}, []bool{true, true, true}),
		mk("p2", false, []string{"a", "a"}, []bool{true, false}, []bool{false, true}), // same texts: no pair
		mk("p3", true, []string{"x", "y"}, []bool{true, false}, []bool{false, true}),
	}
	got := preferencePairs(set, PairsIndep, false)
	if len(got) != 1 || got[0] != (pair{"p1", "b", "a"}) {
		t.Errorf("indep train pairs %+v", got)
	}
	if got := preferencePairs(set, PairsCollab, false); len(got) != 0 {
		t.Errorf("collab train pairs %+v (p1 is all good, p2 repeats a text)", got)
	}
	if got := preferencePairs(set, PairsCollab, true); len(got) != 1 || got[0] != (pair{"p3", "y", "x"}) {
		t.Errorf("collab held-out pairs %+v", got)
	}
}

// TestTrainOnDerivedExamples runs planner rollouts of a scripted
// planner (the gold for some questions, a wrong or a failing query for
// others) on the tiny benchmark's train split, then Train on them:
// every role gets examples, the held-out split is by question, and the
// checkpoint it writes loads.
func TestTrainOnDerivedExamples(t *testing.T) {
	ctx := context.Background()
	dir := tinyBench(t)
	planner := tinyPlanner(t, dir)
	plannerDir := filepath.Join(t.TempDir(), "planner")
	if err := planner.Save(plannerDir); err != nil {
		t.Fatal(err)
	}
	b, err := dataset.Load(dir, "train")
	if err != nil {
		t.Fatal(err)
	}
	exs := b.Examples[:40]
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	t.Cleanup(func() { eng.Close() })
	pr, err := policy.NewPrompter(eng, b.DBRoot, planner.Info.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := pr.FitAll(ctx, exs, planner.FitOptions(train.DevMaxTokens))
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string]string{}
	for i, ex := range exs {
		if fb.Fits[i] != nil {
			gold[fb.Fits[i].Text] = ex.SQL
		}
	}
	k := 0
	gen := generatorFunc(func(_ context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
		out := make([][]policy.Completion, len(prompts))
		for i, p := range prompts {
			for j := range max(o.N, 1) {
				k++
				sql := gold[p]
				switch {
				case j == 1:
					sql = "SELECT no_such_column FROM nowhere"
				case k%3 == 0:
					sql = strings.Replace(sql, "SELECT", "SELECT 1,", 1)
				}
				out[i] = append(out[i], policy.Completion{Text: sql})
			}
		}
		return out, policy.Stats{}, nil
	})
	ts, err := agents.LoadTemplates(agents.SetNative, "")
	if err != nil {
		t.Fatal(err)
	}
	p := &agents.Pipeline{Planner: &agents.Agent{Role: agents.RolePlanner, Gen: gen, Set: agents.SetNative, Templates: ts},
		K: 3, Sampling: agents.Sampling{Temperature: 1}, Engine: eng, Scorer: &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, KeepResults: true}}
	recs, _, err := p.Run(ctx, exs, agents.Prompts{agents.SetNative: fb})
	if err != nil {
		t.Fatal(err)
	}
	rollouts := filepath.Join(t.TempDir(), "rollouts.jsonl")
	if err := agents.SaveRecords(rollouts, recs); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	rep, err := Train(ctx, Options{Dir: dir, Rollouts: []string{rollouts}, Planner: plannerDir, Out: out, MaxSteps: 2, BatchSize: 4, ValFraction: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"validator/selection", "validator/condition", "validator/join", "fixer", "selector"} {
		if rep.Train[role] == 0 {
			t.Errorf("no %s training examples: %v", role, rep.Train)
		}
	}
	if rep.Val["validator/join"] == 0 {
		t.Errorf("nothing held out: %v", rep.Val)
	}
	if _, ok := rep.ValAccuracy["validator/join"]; !ok {
		t.Errorf("no held-out accuracy: %+v", rep)
	}
	// Every example of a question falls on one side.
	sides := map[int]string{}
	for _, name := range []string{"train", "val"} {
		f, err := os.Open(filepath.Join(out, "data", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e agents.TrainExample
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			id := e.QuestionID
			if s, ok := sides[id]; ok && s != name {
				t.Errorf("question %d has examples in train and val", id)
			}
			sides[id] = name
		}
		f.Close()
	}
	if _, err := policy.Load(rep.Checkpoint); err != nil {
		t.Fatal(err)
	}
	// Rollouts of another benchmark are refused.
	recs[0].Gold = "SELECT 42"
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := agents.SaveRecords(bad, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(ctx, Options{Dir: dir, Rollouts: []string{bad}, Planner: plannerDir, Out: t.TempDir(), MaxSteps: 1}); err == nil || !strings.Contains(err.Error(), "another benchmark") {
		t.Errorf("rollouts with another gold: %v", err)
	}
}

// tinyBench generates the benchmark generator's "tiny" preset once.
func tinyBench(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("generates a benchmark")
	}
	dir := filepath.Join(os.TempDir(), "sqlrl-agenttrain-test-bench")
	if _, err := os.Stat(filepath.Join(dir, "dev.json")); err != nil {
		os.RemoveAll(dir)
		if _, err := bench.Generate(context.Background(), bench.Options{Preset: "tiny", Seed: 1, Out: dir}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tinyPlanner returns an untrained planner (a context of 768 tokens) with
// a tokenizer trained on the prompts and SQL of the benchmark's first
// training questions: what agent training reads of a planner is its
// tokenizer, context and prompt format, not what its weights learnt.
func tinyPlanner(t *testing.T, dir string) *policy.Policy {
	t.Helper()
	d, err := train.LoadBench(train.BenchOptions{Dir: dir, Seed: 1, Format: policy.Format{Kind: policy.FormatCompact, Types: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	var corpus []string
	for _, ex := range d.Train[:48] {
		p, err := d.TrainPrompter.Prompt(context.Background(), ex.Example)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, p, ex.SQL)
	}
	p := policytest.New(t, policytest.Options{Corpus: corpus, Vocab: 400, Preset: "custom",
		Config: nn.Config{Dim: 32, Layers: 1, Heads: 2, Hidden: 64, MaxSeq: 768}, Format: d.Format, Seed: 1})
	p.Info.SQLWords = d.SQLWords
	return p
}

type generatorFunc func(ctx context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error)

func (f generatorFunc) Generate(ctx context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	return f(ctx, prompts, o)
}

// TestSplitFolds: the two folds of a 0.5 split hold out
// complementary halves, and a run's split reads back from its folder.
func TestSplitFolds(t *testing.T) {
	a, b := Split{ValFraction: 0.5, Seed: 3}, Split{ValFraction: 0.5, Seed: 3, Fold: 1}
	n := 0
	for id := range 1000 {
		if a.HeldOut(id) == b.HeldOut(id) {
			t.Fatalf("question %d held out by both folds or neither", id)
		}
		if a.HeldOut(id) {
			n++
		}
	}
	if n < 400 || n > 600 {
		t.Errorf("fold 0 holds out %d of 1000", n)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "split.json"), []byte(`{"val_fraction":0.5,"seed":3,"fold":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSplit(dir)
	if err != nil || got != b {
		t.Errorf("ReadSplit = %+v, %v; want %+v", got, err, b)
	}
	if _, err := ReadSplit(t.TempDir()); err == nil {
		t.Error("a folder without split.json: want an error")
	}
}
