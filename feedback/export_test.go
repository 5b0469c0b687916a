package feedback

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	// Deterministic (TestExportFailureKeepsPrevious checks the replacing).
	if _, err := Export(context.Background(), s, opts); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(out, n))
		if string(b) != string(first[n]) {
			t.Errorf("%s differs between two exports of one store", n)
		}
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
	if _, err := Export(context.Background(), s, ExportOptions{Out: out}); err == nil || !strings.Contains(err.Error(), "precious.txt") {
		t.Fatalf("error %v, want a refusal naming precious.txt", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "precious.txt")); string(b) != "keep" {
		t.Error("the foreign directory was changed")
	}
}

// readDir maps each file of dir to its content.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestExportFailureKeepsPrevious fails an export over an earlier one at
// each file it writes (leaving that file half written), and cancels one
// between two files, and checks that the earlier export is then there
// whole with nothing beside it. The earlier export has the trainer files
// (-db-root) and the failing one has not, so a mix shows. A last export
// that succeeds replaces the earlier one whole.
func TestExportFailureKeepsPrevious(t *testing.T) {
	t.Cleanup(func() { writeFile = os.WriteFile })
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exportFixture(t, s)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if _, err := Export(context.Background(), s, ExportOptions{Out: out, DBRoot: testkit.BirdSampleDBs()}); err != nil {
		t.Fatal(err)
	}
	old := readDir(t, out)
	if len(old) != 8 {
		t.Fatalf("first export: %d files, want 8", len(old))
	}
	check := func(t *testing.T) {
		t.Helper()
		if got := readDir(t, out); !maps.Equal(got, old) {
			t.Errorf("the previous export is not whole: files %v", slices.Sorted(maps.Keys(got)))
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Errorf("leftovers beside the output: %v", ents)
		}
	}

	injected := errors.New("injected failure")
	// An export without -db-root writes three files.
	for k := range 3 {
		t.Run(fmt.Sprintf("fail file %d", k), func(t *testing.T) {
			n := 0
			writeFile = func(path string, data []byte, perm os.FileMode) error {
				if n++; n-1 == k {
					os.WriteFile(path, data[:len(data)/2], perm)
					return injected
				}
				return os.WriteFile(path, data, perm)
			}
			_, err := Export(context.Background(), s, ExportOptions{Out: out})
			writeFile = os.WriteFile
			if !errors.Is(err, injected) {
				t.Fatalf("error %v, want the injected one", err)
			}
			if n != k+1 {
				t.Errorf("%d files written after the failure", n-k-1)
			}
			check(t)
		})
	}
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		writeFile = func(path string, data []byte, perm os.FileMode) error {
			cancel()
			return os.WriteFile(path, data, perm)
		}
		_, err := Export(ctx, s, ExportOptions{Out: out})
		writeFile = os.WriteFile
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want a cancellation", err)
		}
		check(t)
	})

	if _, err := Export(context.Background(), s, ExportOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	got := readDir(t, out)
	if names := strings.Join(slices.Sorted(maps.Keys(got)), " "); names != "feedback.json manifest.json rollouts.jsonl" {
		t.Errorf("after a successful export without -db-root: %s (the earlier trainer files must go)", names)
	}
	if got[FileRollouts] != old[FileRollouts] || got[FileManifest] == old[FileManifest] {
		t.Error("the new export's rollouts should equal the old one's and its manifest differ (prompts: false)")
	}
}

// TestExportSkipsJunkCorrections: a store written before corrections were
// checked may hold ones stored as "ok" that read the catalog, call a
// PRAGMA function or run two statements; none becomes a target, and the
// thumbs beside them still count.
func TestExportSkipsJunkCorrections(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	junk := []string{"PRAGMA table_info(member)", "SELECT * FROM sqlite_master", "SELECT * FROM pragma_table_info('member')", "SELECT 1; DELETE FROM member"}
	for i, c := range junk {
		a := mustAnswer(t, s, Answer{Time: t0.Add(time.Duration(i) * time.Minute), DBID: "student_club", Model: "native",
			Question: fmt.Sprintf("question %d", i), SQL: "SELECT COUNT(*) FROM member", Outcome: OutcomeOK, Rows: 1})
		mustFeedback(t, s, Feedback{AnswerID: a.ID, Time: a.Time.Add(time.Second), Author: "alice", Verdict: VerdictDown, CorrectedSQL: c, Correction: CorrectionOK})
	}
	out := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), s, ExportOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m.Desirable != 0 || m.Undesirable != len(junk) || m.DPOPairs != 0 {
		t.Errorf("manifest %+v: want the %d thumbs-down only", m, len(junk))
	}
	b, err := os.ReadFile(filepath.Join(out, FileRollouts))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range junk {
		if strings.Contains(string(b), c) {
			t.Errorf("junk correction %q exported:\n%s", c, b)
		}
	}
}

// TestExportReconciles: a question asked again with the same SQL and
// judged otherwise gives one label, the latest; a question corrected on
// two answers gives one target, the latest correction.
func TestExportReconciles(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(min int, q, sql string, f Feedback) {
		a := mustAnswer(t, s, Answer{Time: t0.Add(time.Duration(min) * time.Minute), DBID: "student_club", Model: "native",
			Question: q, SQL: sql, Outcome: OutcomeOK, Rows: 1})
		f.AnswerID, f.Time, f.Author = a.ID, a.Time.Add(time.Second), "alice"
		mustFeedback(t, s, f)
	}
	count := "SELECT COUNT(*) FROM member"
	add(1, "How many members?", count, Feedback{Verdict: VerdictUp})
	add(2, "How  many members?", count, Feedback{Verdict: VerdictDown}) // the same question, judged again
	add(3, "How many events?", "SELECT 1", Feedback{CorrectedSQL: "SELECT COUNT(*) FROM event", Correction: CorrectionOK})
	add(4, "How many events?", "SELECT 2", Feedback{CorrectedSQL: "SELECT COUNT(event_id) FROM event", Correction: CorrectionOK})
	out := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), s, ExportOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, FileRollouts))
	if err != nil {
		t.Fatal(err)
	}
	rolls := string(b)
	// members: one label, the later thumbs-down; events: both model SQLs
	// undesirable (each differs from a correction), one correction
	if m.Desirable != 1 || m.Undesirable != 3 || strings.Count(rolls, count) != 1 || !strings.Contains(rolls, `"label":false`) {
		t.Errorf("manifest %+v, rollouts:\n%s", m, rolls)
	}
	if strings.Contains(rolls, "SELECT COUNT(*) FROM event") || !strings.Contains(rolls, "SELECT COUNT(event_id) FROM event") {
		t.Errorf("want only the latest correction:\n%s", rolls)
	}
}
