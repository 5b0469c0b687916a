package feedback

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/internal/testkit"
)

// exportFixture records answers on the bundled student_club database with
// one case of every labelling rule.
func exportFixture(t *testing.T, s Store) {
	add := func(i int, a Answer, fb ...Feedback) {
		a.Time, a.DBID, a.Model = t0.Add(time.Duration(i)*time.Minute), "student_club", "native"
		got := mustAnswer(t, s, a)
		for k, f := range fb {
			f.AnswerID, f.Time, f.Author = got.ID, a.Time.Add(time.Duration(k+1)*time.Second), "alice"
			mustFeedback(t, s, f)
		}
	}
	ok := func(q, sql string) Answer { return Answer{Question: q, SQL: sql, Outcome: OutcomeOK, Rows: 1} }
	// thumbs-up: desirable
	add(1, ok("How many members are there?", "SELECT COUNT(*) FROM member"), Feedback{Verdict: VerdictUp})
	// thumbs-down, then corrected: model undesirable, correction desirable, one DPO pair
	add(2, ok("How many events were held in 2019?", "SELECT COUNT(*) FROM event"),
		Feedback{Verdict: VerdictDown},
		Feedback{CorrectedSQL: "SELECT COUNT(*) FROM event WHERE event_date LIKE '2019%'", Correction: CorrectionOK, Comment: "only 2019 <b>events</b>"})
	// execution error, no feedback: undesirable
	add(3, Answer{Question: "List the majors.", SQL: "SELEC major_name FROM major", Outcome: OutcomeError, ErrorClass: "syntax_error", ErrorMessage: `near "SELEC": syntax error`})
	// no feedback, ran: no signal, not exported
	add(4, ok("What is the total budget?", "SELECT SUM(amount) FROM budget"))
	// a correction that failed validation: ignored; the thumbs-down stays
	add(5, ok("Who is the president?", "SELECT first_name FROM member"),
		Feedback{Verdict: VerdictDown, CorrectedSQL: "DELETE FROM member", Correction: CorrectionError, CorrectionError: "write attempt"})
	// only a comment: no signal
	add(6, ok("How many zip codes?", "SELECT COUNT(*) FROM zip_code"), Feedback{Comment: "fine"})
}

func TestExportGolden(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exportFixture(t, s)
	out := filepath.Join(t.TempDir(), "out")
	opts := ExportOptions{Out: out, DBRoot: testkit.BirdSampleDBs()}
	m, err := Export(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Questions != 4 || m.Desirable != 2 || m.Undesirable != 3 || m.DPOPairs != 1 {
		t.Errorf("manifest counts: %+v", m)
	}
	names := []string{FileQuestions, FileRollouts, FileManifest, export.FileTRLKTO, export.FileTRLKTOChat, export.FileOpenRLHFKTO, export.FileTRLDPO, export.FileTRLDPOChat}
	first := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		first[n] = b
		testkit.Golden(t, filepath.Join("testdata", "export", n), b)
	}
	// The rollouts file is what the trainers' readers accept.
	rolls, err := export.ReadRollouts(context.Background(), filepath.Join(out, FileRollouts))
	if err != nil || len(rolls) != 5 {
		t.Errorf("ReadRollouts: %d rollouts, %v", len(rolls), err)
	}
	// Deterministic, and an earlier export is replaced whole.
	os.WriteFile(filepath.Join(out, "stale.txt"), []byte("x"), 0o644)
	if _, err := Export(context.Background(), s, opts); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(out, n))
		if string(b) != string(first[n]) {
			t.Errorf("%s differs between two exports of one store", n)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "stale.txt")); err == nil {
		t.Error("a file of the previous export survived")
	}
	ents, _ := os.ReadDir(filepath.Dir(out))
	if len(ents) != 1 {
		t.Errorf("leftovers beside the output: %v", ents)
	}
}

func TestExportWithoutDBRoot(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exportFixture(t, s)
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Export(context.Background(), s, ExportOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != "feedback.json manifest.json rollouts.jsonl" {
		t.Errorf("files without -db-root: %v", got)
	}
}

func TestExportRefusesForeignDir(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "precious.txt"), []byte("keep"), 0o644)
	if _, err := Export(context.Background(), s, ExportOptions{Out: out}); err == nil {
		t.Fatal("a directory that is not an export was replaced")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "precious.txt")); string(b) != "keep" {
		t.Error("the foreign directory was changed")
	}
}
