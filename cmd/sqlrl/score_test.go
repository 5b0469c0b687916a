package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
)

// TestScore: a checkpoint scored on a question file greedily and by vote
// writes reports compare reads; a test read is recorded; bad input names
// the flag.
func TestScore(t *testing.T) {
	dir := t.TempDir()
	model := tinyCheckpoint(t, 600)
	// 12 questions of the sample: enough to exercise both paths.
	var recs []json.RawMessage
	b, err := os.ReadFile(filepath.Join(testkit.BirdSample(), "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	qs := filepath.Join(dir, "qs.json")
	js, _ := json.Marshal(recs[:12])
	if err := os.WriteFile(qs, js, 0o644); err != nil {
		t.Fatal(err)
	}
	root := testkit.BirdSampleDBs()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"missing flags", []string{"score", "-model", model}, 2, "", "are required"},
		{"bad root", []string{"score", "-model", model, "-questions", qs, "-db-root", "no/such", "-json", filepath.Join(dir, "x.json")}, 2, "", "-db-root no/such"},
		{"negative vote", []string{"score", "-model", model, "-questions", qs, "-db-root", root, "-json", filepath.Join(dir, "x.json"), "-vote", "-1"}, 2, "", "-vote must be 0 or more"},
		{"greedy", []string{"score", "-q", "-threads", "1", "-model", model, "-questions", qs, "-db-root", root, "-json", filepath.Join(dir, "greedy.json")}, 0, "(greedy): EX", ""},
		{"vote, a test read", []string{"score", "-q", "-threads", "1", "-model", model, "-questions", qs, "-db-root", root, "-json", filepath.Join(dir, "vote.json"), "-vote", "2", "-test-reads", dir}, 0, "and 2 samples at T 1, top-p 0.9): EX", ""},
		{"compare reads them", []string{"compare", filepath.Join(dir, "greedy.json"), filepath.Join(dir, "vote.json")}, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, errs, code := sqlrlOS(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(errs, tc.err) {
				t.Fatalf("code %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, stdout, errs)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "test-reads.json")); err != nil {
		t.Error(err)
	}
	// The report holds every question of the file, in its order.
	var rep struct {
		Questions []struct {
			QuestionID int    `json:"question_id"`
			Pred       string `json:"pred"`
		} `json:"questions"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "vote.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var want []struct {
		QuestionID int `json:"question_id"`
	}
	json.Unmarshal(js, &want)
	if len(rep.Questions) != 12 {
		t.Fatalf("%d questions in the report, want 12", len(rep.Questions))
	}
	for i, q := range rep.Questions {
		if q.QuestionID != want[i].QuestionID {
			t.Errorf("question %d: id %d, want %d", i, q.QuestionID, want[i].QuestionID)
		}
	}
}
