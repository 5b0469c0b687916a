package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// tinyCheckpoint saves a policy with random weights, a byte-level-ish
// tokenizer and a context of maxSeq tokens: too short for some BIRD prompts
// whatever their pruning, long enough for others.
func tinyCheckpoint(t *testing.T, maxSeq int) string {
	t.Helper()
	var corpus []string
	for range 10 {
		corpus = append(corpus, "superhero: id integer key, superhero_name text\nquestion: How many heroes?\nSQL: ", "SELECT COUNT(*) FROM superhero")
	}
	p := policytest.New(t, policytest.Options{Corpus: corpus, Vocab: 300, Seed: 1,
		Config: nn.Config{Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: maxSeq}, Format: policy.Format{Kind: policy.FormatCompact, Descriptions: true}})
	dir := filepath.Join(t.TempDir(), "ck")
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// generate runs over the whole BIRD sample with a model whose context some
// prompts cannot fit: the run goes on, those questions get an empty sql and
// an error (and a warning naming them), the others a prediction, and eval
// scores the file, the failed questions as wrong.
func TestGenerateFitsOrRecordsEachQuestion(t *testing.T) {
	dir := t.TempDir()
	model := tinyCheckpoint(t, 200)
	pred := filepath.Join(dir, "pred.jsonl")
	out, errs, code := sqlrlOS(t, "generate", "-model", model, "-out", pred, "-max-tokens", "8", "-threads", "1", "datasets/bird-dev-sample")
	if code != 0 {
		t.Fatalf("generate: code %d\n%s\n%s", code, out, errs)
	}
	f, err := os.Open(pred)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs, failed int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			QuestionID int     `json:"question_id"`
			SQL        *string `json:"sql"`
			Error      string  `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs++
		if r.SQL == nil {
			t.Fatalf("question %d: no sql field", r.QuestionID)
		}
		if r.Error != "" {
			failed++
			if *r.SQL != "" || !strings.Contains(r.Error, "does not fit") {
				t.Errorf("question %d: sql %q with error %q", r.QuestionID, *r.SQL, r.Error)
			}
			if !strings.Contains(errs, "question "+itoa(r.QuestionID)+" ") {
				t.Errorf("question %d failed without a warning", r.QuestionID)
			}
		}
	}
	if recs != 287 || failed == 0 || failed == recs {
		t.Fatalf("%d records, %d failed: want 287, some but not all failed\n%s", recs, failed, errs)
	}
	if !strings.Contains(out, itoa(failed)+" questions failed") || !strings.Contains(out, "pruned") {
		t.Errorf("summary does not count %d failures:\n%s", failed, out)
	}

	report := filepath.Join(dir, "r.json")
	_, errs, code = sqlrlOS(t, "eval", "--data", "datasets/bird-dev-sample", "--split", "dev", "--pred", pred, "--quiet", "--json", report)
	if code != 0 {
		t.Fatalf("eval: code %d: %s", code, errs)
	}
	var rep struct{ Total struct{ Count, Correct int } }
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total.Count != 287 || rep.Total.Correct > recs-failed {
		t.Fatalf("eval report %+v with %d failed questions", rep.Total, failed)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// sqlrlOS is sqlrl with the process's own stdout and stderr captured too:
// commands such as generate print their progress and summary there.
func sqlrlOS(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	fo, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	fe, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	so, se := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = fo, fe
	out, errs, code := sqlrl(t, args...)
	os.Stdout, os.Stderr = so, se
	fo.Close()
	fe.Close()
	bo, _ := os.ReadFile(fo.Name())
	be, _ := os.ReadFile(fe.Name())
	return out + string(bo), errs + string(be), code
}

// TestPartsAsSplits reads train's parts by the names the reports use:
// eval's gold and generate's questions on -split holdout and heldout are
// the questions dataset.LoadPart cuts with the same flags, and a cut that
// would hand RL questions SFT trained on is refused.
func TestPartsAsSplits(t *testing.T) {
	dir := t.TempDir()
	b := tinyBench(t, dir)
	for _, c := range []struct {
		split string
		flags []string
		parts dataset.Parts
	}{
		{"holdout", nil, dataset.Parts{SFTFraction: 0.75, Seed: 1}},
		{"heldout", nil, dataset.Parts{SFTFraction: 0.75, RLFraction: 0.875, Seed: 1}},
		{"heldout", []string{"-sft-fraction", "0.5", "-rl-fraction", "0.75", "-split-seed", "2"}, dataset.Parts{SFTFraction: 0.5, RLFraction: 0.75, Seed: 2}},
	} {
		want, err := dataset.LoadPart(b, c.split, c.parts)
		if err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(dir, "r.json")
		args := append([]string{"eval", "--gold-as-pred", "--quiet", "--data", b, "--split", c.split, "--json", report}, c.flags...)
		if _, errs, code := sqlrl(t, args...); code != 0 {
			t.Fatalf("%v: code %d: %s", args, code, errs)
		}
		var rep struct{ Total struct{ Count, Correct int } }
		readJSONFile(t, report, &rep)
		if rep.Total.Count != len(want.Examples) || rep.Total.Correct != rep.Total.Count || rep.Total.Count == 0 {
			t.Errorf("%v: %+v; want all %d questions of the part right", args, rep.Total, len(want.Examples))
		}
		pred := filepath.Join(dir, "p.jsonl")
		args = append([]string{"generate", "-model", tinyCheckpoint(t, 512), "-out", pred, "-max-tokens", "4", "-limit", "3", "-threads", "1", "-split", c.split}, append(c.flags, b)...)
		if out, errs, code := sqlrlOS(t, args...); code != 0 {
			t.Fatalf("%v: code %d\n%s\n%s", args, code, out, errs)
		}
		preds, err := dataset.ReadPredictions(pred)
		if err != nil {
			t.Fatal(err)
		}
		if len(preds) != 3 {
			t.Fatalf("%v: %d predictions, want 3", args, len(preds))
		}
		for i, p := range preds {
			if p.QuestionID != want.Examples[i].QuestionID {
				t.Errorf("%v: prediction %d is question %d, want %d", args, i, p.QuestionID, want.Examples[i].QuestionID)
			}
		}
	}
	_, errs, code := sqlrl(t, "eval", "--gold-as-pred", "--quiet", "--data", b, "--split", "heldout", "--rl-fraction", "0.7")
	if code == 0 || !strings.Contains(errs, "between the SFT share") {
		t.Errorf("RL share below SFT's: code %d, %s", code, errs)
	}
}
