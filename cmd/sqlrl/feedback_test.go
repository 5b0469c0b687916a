package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/feedback"
)

func TestDataFromFeedback(t *testing.T) {
	dir := t.TempDir()
	storePath := filepath.Join(dir, "feedback.db")
	ctx := context.Background()
	st, err := feedback.OpenSQLite(ctx, storePath)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.RecordAnswer(ctx, feedback.Answer{DBID: "student_club", Question: "How many members?", SQL: "SELECT COUNT(*) FROM event", Outcome: feedback.OutcomeOK})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordFeedback(ctx, feedback.Feedback{AnswerID: a.ID, Verdict: feedback.VerdictDown,
		CorrectedSQL: "SELECT COUNT(*) FROM member", Correction: feedback.CorrectionOK}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out := filepath.Join(dir, "out")
	_, stderr, code := sqlrl(t, "data", "from-feedback", "-store", storePath, "-out", out, "-db-root", "datasets/bird-dev-sample/dev_databases")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "rollouts.jsonl")); err != nil || strings.Count(string(b), "\n") != 2 {
		t.Errorf("rollouts: %q %v", b, err)
	}
	for _, n := range []string{"feedback.json", "rollouts.jsonl", "trl_kto.jsonl", "trl_dpo_chat.jsonl", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Error(err)
		}
	}
	// A store that does not exist is an error, not an empty export.
	if _, stderr, code := sqlrl(t, "data", "from-feedback", "-store", filepath.Join(dir, "nope.db"), "-out", out); code != 1 || !strings.Contains(stderr, "nope.db") {
		t.Errorf("missing store: exit %d, %s", code, stderr)
	}
	if _, _, code := sqlrl(t, "data", "from-feedback", "-out", out); code != 2 {
		t.Errorf("no -store: exit %d, want 2", code)
	}
}
