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
	correctedStore(t, storePath, "student_club")
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

// TestDataFromFeedbackConfig exports a store by the serve config that
// wrote it: the store is the config's, and the databases are read under
// the names they were served by (here "club", which no -db-root layout
// could name), so the TRL files get their prompts; the server's API keys
// need not be in the environment to export.
func TestDataFromFeedbackConfig(t *testing.T) {
	dir := t.TempDir()
	correctedStore(t, filepath.Join(dir, "fb.sqlite"), "club")
	db, _ := filepath.Abs("../../datasets/bird-dev-sample/dev_databases/student_club/student_club.sqlite")
	cfg := filepath.Join(dir, "serve.json")
	os.WriteFile(cfg, []byte(`{"databases": {"club": {"sqlite": "`+db+`"}}, "store": "fb.sqlite",
		"generator": {"openai": {"base_url": "http://127.0.0.1:1/v1", "model": "m", "api_key_env": "SQLRL_TEST_UNSET_KEY"}},
		"api_keys": {"admin": {"env": "SQLRL_TEST_UNSET_KEY"}}}`), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code := sqlrl(t, "data", "from-feedback", "-config", cfg, "-out", out, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "trl_kto.jsonl"))
	if err != nil || strings.Count(string(b), "\n") != 2 || !strings.Contains(string(b), "CREATE TABLE member") {
		t.Errorf("trl_kto.jsonl: %v\n%.400s", err, b)
	}
	if _, stderr, code := sqlrl(t, "data", "from-feedback", "-config", cfg, "-db-root", dir, "-out", out); code != 2 || !strings.Contains(stderr, "-db-root") {
		t.Errorf("-config with -db-root: exit %d, %s", code, stderr)
	}
	os.WriteFile(cfg, []byte(`{"databases": {"club": {"sqlite": "nope.sqlite"}}}`), 0o644)
	if _, stderr, code := sqlrl(t, "data", "from-feedback", "-config", cfg, "-out", out); code != 1 || !strings.Contains(stderr, "databases.club.sqlite") {
		t.Errorf("bad config: exit %d, %s", code, stderr)
	}
}

// correctedStore writes a store at path with one answer on db (a
// student_club database) and a thumb down with a correction that ran.
func correctedStore(t *testing.T, path, db string) {
	t.Helper()
	ctx := context.Background()
	st, err := feedback.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.RecordAnswer(ctx, feedback.Answer{DBID: db, Question: "How many members?", SQL: "SELECT COUNT(*) FROM event", Outcome: feedback.OutcomeOK})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordFeedback(ctx, feedback.Feedback{AnswerID: a.ID, Verdict: feedback.VerdictDown,
		CorrectedSQL: "SELECT COUNT(*) FROM member", Correction: feedback.CorrectionOK}); err != nil {
		t.Fatal(err)
	}
}
