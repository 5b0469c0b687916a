package askserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/confidence"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// sampleBench is the bundled BIRD sample's first n dev questions.
func sampleBench(t *testing.T, n int) *dataset.Benchmark {
	t.Helper()
	b, err := dataset.Load(testkit.BirdSample(), "dev")
	if err != nil {
		t.Fatal(err)
	}
	b.Examples = b.Examples[:n]
	return b
}

// TestCalibrate runs six questions of the bundled sample through the ask
// path with a generator whose answers are known: three golds its samples
// agree with, one that fails, one wrong answer its samples disagree with,
// and one wrong answer they agree with. The report counts each level's
// answers and how many were right, as report.json and report.md.
func TestCalibrate(t *testing.T) {
	b := sampleBench(t, 6)
	gen := &sampleGen{fakeGen: fakeGen{sql: map[string]string{}}, samples: map[string][]string{}}
	for i, ex := range b.Examples {
		switch i {
		case 0, 1, 2:
			gen.sql[ex.Question] = ex.SQL
		case 3:
			gen.sql[ex.Question] = "SELECT nope FROM superhero"
		case 4:
			gen.sql[ex.Question] = "SELECT id FROM superhero WHERE id = 1"
			gen.samples[ex.Question] = []string{ex.SQL, ex.SQL, ex.SQL, ex.SQL, ex.SQL, ex.SQL, ex.SQL, ex.SQL}
		case 5:
			gen.sql[ex.Question] = "SELECT id FROM superhero WHERE id = 2"
		}
	}
	out := t.TempDir()
	r, err := Calibrate(context.Background(), CalibrateOptions{Bench: b, Split: "dev", Gen: gen, Generator: GeneratorConfig{},
		Concurrency: 3, Target: 0.7, MinCoverage: 1.0 / 3, Tune: true, Out: out, Command: "sqlrl serve calibrate test"})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Calibration
	want := map[confidence.Level][2]int{confidence.LikelyRight: {4, 3}, confidence.Unsure: {0, 0}, confidence.LikelyWrong: {2, 0}}
	for _, l := range c.Levels {
		if got := [2]int{l.Count, l.Right}; got != want[l.Level] {
			t.Errorf("%s: %d answers, %d right; want %v", l.Level, l.Count, l.Right, want[l.Level])
		}
	}
	if c.Answers != 6 || c.Right != 3 || !c.Met || r.Samples != DefaultSamples || r.Model != "fake" {
		t.Errorf("calibration %+v (samples %d, model %s)", c, r.Samples, r.Model)
	}
	for i, a := range r.Answers {
		if a.QuestionID != b.Examples[i].QuestionID || a.Correct != (i < 3) {
			t.Errorf("answer %d: %+v", i, a)
		}
	}
	if r.Tuned == nil || !r.Tuned.Calibration.Met {
		t.Errorf("tuned: %+v", r.Tuned)
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back confidence.Report
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Answers) != 6 || back.Calibration.Levels[0].Count != 4 {
		t.Errorf("report.json: %v, %+v", err, back.Calibration)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "| Likely right | 4 | 66.7% | 3 | 75.0% | 100.0% |") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
}

// TestCalibrateNative runs two questions through the ask path with a tiny
// random native policy saved as a checkpoint: its samples are drawn
// through the batcher, and every answer that ran was compared with them.
func TestCalibrateNative(t *testing.T) {
	var corpus []string
	for range 20 {
		corpus = append(corpus, "SELECT COUNT(*) FROM superhero WHERE id = 1", "superhero: id integer key, superhero_name text", "question: how many heroes?")
	}
	pol := policytest.New(t, policytest.Options{Corpus: corpus, Vocab: 300, Seed: 1, Format: policy.Format{Kind: policy.FormatCompact},
		Config: nn.Config{Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 1024}})
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	if err := pol.Save(ckpt); err != nil {
		t.Fatal(err)
	}
	three := 3
	r, err := Calibrate(context.Background(), CalibrateOptions{Bench: sampleBench(t, 2), Split: "dev",
		Generator: GeneratorConfig{Native: ckpt, MaxTokens: 16, Samples: &three}, Concurrency: 2, Target: 0.8, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Samples != 3 || len(r.Answers) != 2 || !strings.HasPrefix(r.Model, "native:") {
		t.Fatalf("report: samples %d, model %s, %d answers", r.Samples, r.Model, len(r.Answers))
	}
	for _, a := range r.Answers {
		if s := a.Signals; s.ErrorClass == "" && s.Samples != 3 || strings.HasPrefix(s.ErrorClass, "generation") {
			t.Errorf("question %d: %+v", a.QuestionID, s)
		}
	}
	// The samples themselves: N of them, the same for the same seed.
	o := CalibrateOptions{Bench: sampleBench(t, 1), Generator: GeneratorConfig{Native: ckpt, MaxTokens: 16}}
	cfg, err := calibrateConfig(o, filepath.Join(t.TempDir(), "serve.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := Question{DB: "superhero", Question: "How many heroes are there?"}
	var draws [2][]string
	for i := range draws {
		if draws[i], err = s.gen.(SQLSampler).Sample(context.Background(), q, SampleOptions{N: 3, Temperature: 1, Seed: seedOf(q)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(draws[0]) != 3 || !slices.Equal(draws[0], draws[1]) {
		t.Errorf("samples %q, then %q: want 3, the same twice", draws[0], draws[1])
	}
}
