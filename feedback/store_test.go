package feedback

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/pgtest"
)

// backendCase opens a fresh store of one kind at schema version upto (-1:
// all) and returns a function reopening the same location.
type backendCase struct {
	name string
	open func(t *testing.T, upto int) (s *store, reopen func(upto int) (*store, error))
}

var backends = []backendCase{
	{"sqlite", func(t *testing.T, upto int) (*store, func(int) (*store, error)) {
		path := filepath.Join(t.TempDir(), "feedback.db")
		reopen := func(upto int) (*store, error) { return openSQLite(context.Background(), path, upto) }
		s, err := reopen(upto)
		if err != nil {
			t.Fatal(err)
		}
		return s, reopen
	}},
	{"postgres", func(t *testing.T, upto int) (*store, func(int) (*store, error)) {
		db := pgtest.NewDB(t)
		reopen := func(upto int) (*store, error) { return openPostgres(context.Background(), db.Admin, upto) }
		s, err := reopen(upto)
		if err != nil {
			t.Fatal(err)
		}
		return s, reopen
	}},
}

// each runs fn against a fresh, fully migrated store of every backend.
func each(t *testing.T, fn func(t *testing.T, s Store)) {
	for _, bc := range backends {
		t.Run(bc.name, func(t *testing.T) {
			s, _ := bc.open(t, -1)
			defer s.Close()
			fn(t, s)
		})
	}
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func answer(i int, db string, outcome Outcome) Answer {
	a := Answer{
		Time: t0.Add(time.Duration(i) * time.Hour), DBID: db, Question: fmt.Sprintf("question %d", i),
		Model: "native", SQL: fmt.Sprintf("SELECT %d", i), Outcome: outcome, Rows: int64(i), Latency: time.Duration(i) * time.Millisecond,
	}
	if outcome == OutcomeError {
		a.ErrorClass, a.ErrorMessage, a.Rows = "syntax_error", "near \"SELEC\": syntax error", 0
	}
	return a
}

func mustAnswer(t *testing.T, s Store, a Answer) Answer {
	t.Helper()
	got, err := s.RecordAnswer(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func mustFeedback(t *testing.T, s Store, f Feedback) Feedback {
	t.Helper()
	got, err := s.RecordFeedback(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		a := answer(1, "student_club", OutcomeError)
		a.Evidence = "it's <script>alert(1)</script> 100% \\ _x"
		a.Confidence = `{"level":"likely_wrong","label":"Likely wrong","reasons":["the value 'x' occurs in no column"]}`
		got := mustAnswer(t, s, a)
		if got.ID == 0 {
			t.Fatal("no id")
		}
		f := mustFeedback(t, s, Feedback{AnswerID: got.ID, Time: t0.Add(2 * time.Hour), Verdict: VerdictDown,
			CorrectedSQL: "SELECT 2", Correction: CorrectionOK, Comment: "wrong table", Author: "alice"})
		e, err := s.Answer(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		a.ID = got.ID
		if e.Answer != a {
			t.Errorf("answer read back:\n got %+v\nwant %+v", e.Answer, a)
		}
		if len(e.Feedback) != 1 || e.Feedback[0] != f {
			t.Errorf("feedback read back: got %+v, want [%+v]", e.Feedback, f)
		}
		if _, err := s.Answer(ctx, got.ID+1000); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing answer: err %v, want ErrNotFound", err)
		}
		if _, err := s.RecordFeedback(ctx, Feedback{AnswerID: got.ID + 1000, Verdict: VerdictUp}); !errors.Is(err, ErrNotFound) {
			t.Errorf("feedback on a missing answer: err %v, want ErrNotFound", err)
		}
	})
}

func TestRefusesBadRecords(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		id := mustAnswer(t, s, answer(1, "db", OutcomeOK)).ID
		for _, a := range []Answer{
			{DBID: "db", Question: "q", Outcome: "maybe"},
			{Question: "q", Outcome: OutcomeOK},
			{DBID: "db", Outcome: OutcomeOK},
			{DBID: "db", Question: "q", Outcome: OutcomeOK, Confidence: "likely_right"},
		} {
			if _, err := s.RecordAnswer(ctx, a); err == nil {
				t.Errorf("answer %+v accepted", a)
			}
		}
		for _, f := range []Feedback{
			{AnswerID: id},
			{AnswerID: id, Verdict: "meh"},
			{AnswerID: id, CorrectedSQL: "SELECT 1"},
			{AnswerID: id, Correction: CorrectionOK},
		} {
			if _, err := s.RecordFeedback(ctx, f); err == nil {
				t.Errorf("feedback %+v accepted", f)
			}
		}
	})
}

// fixture records 6 answers over 3 days with feedback of every kind and
// returns their ids in order.
func fixture(t *testing.T, s Store) []int64 {
	var ids []int64
	for i, c := range []struct {
		db      string
		outcome Outcome
	}{{"a", OutcomeOK}, {"a", OutcomeError}, {"b", OutcomeOK}, {"b", OutcomeOK}, {"a", OutcomeOK}, {"b", OutcomeError}} {
		a := answer(i*12, c.db, c.outcome)
		if i == 4 {
			a.Question = "How many MEMBERS 100%?"
		}
		ids = append(ids, mustAnswer(t, s, a).ID)
	}
	fb := func(i int, f Feedback) {
		f.AnswerID, f.Time = ids[i], t0.Add(time.Duration(i*12+1)*time.Hour)
		mustFeedback(t, s, f)
	}
	fb(0, Feedback{Verdict: VerdictUp})
	fb(1, Feedback{Verdict: VerdictDown, CorrectedSQL: "SELECT 1", Correction: CorrectionOK})
	fb(2, Feedback{Verdict: VerdictUp})
	fb(2, Feedback{Verdict: VerdictDown}) // changed its mind: down
	fb(3, Feedback{Comment: "slow"})
	fb(4, Feedback{CorrectedSQL: "DELETE FROM x", Correction: CorrectionError, CorrectionError: "write attempt"})
	return ids
}

func TestHistoryFilters(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		ids := fixture(t, s)
		pick := func(is ...int) []int64 {
			var out []int64
			for _, i := range is {
				out = append(out, ids[i])
			}
			return out
		}
		for _, c := range []struct {
			name string
			f    Filter
			want []int64
		}{
			{"all", Filter{}, pick(5, 4, 3, 2, 1, 0)},
			{"db", Filter{DBID: "a"}, pick(4, 1, 0)},
			{"errors", Filter{Outcome: OutcomeError}, pick(5, 1)},
			{"up", Filter{Kind: KindUp}, pick(0)},
			{"down: the latest verdict counts", Filter{Kind: KindDown}, pick(2, 1)},
			{"corrected: only a correction that ran", Filter{Kind: KindCorrected}, pick(1)},
			{"none", Filter{Kind: KindNone}, pick(5)},
			{"since/until", Filter{Since: t0.Add(24 * time.Hour), Until: t0.Add(48 * time.Hour)}, pick(3, 2)},
			{"text, case-insensitive, % literal", Filter{Text: "members 100%"}, pick(4)},
			{"text matches SQL", Filter{Text: "select 36"}, pick(3)},
			{"wildcards are literal", Filter{Text: "_"}, nil},
			{"combined", Filter{DBID: "b", Outcome: OutcomeOK, Kind: KindDown}, pick(2)},
		} {
			p, err := s.History(context.Background(), c.f)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var got []int64
			for _, e := range p.Entries {
				got = append(got, e.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) || p.Next != 0 {
				t.Errorf("%s: got %v (next %d), want %v", c.name, got, p.Next, c.want)
			}
		}
		if _, err := s.History(context.Background(), Filter{Kind: "weird"}); err == nil {
			t.Error("unknown kind accepted")
		}
	})
}

func TestHistoryPages(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		ids := fixture(t, s)
		var got []int64
		f := Filter{Limit: 4}
		pages := 0
		for {
			p, err := s.History(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range p.Entries {
				got = append(got, e.ID)
				if e.ID == ids[2] && len(e.Feedback) != 2 {
					t.Errorf("answer %d has %d feedback, want 2", e.ID, len(e.Feedback))
				}
			}
			if p.Next == 0 {
				break
			}
			f.Before = p.Next
		}
		if pages != 2 || len(got) != 6 || got[0] != ids[5] || got[5] != ids[0] {
			t.Errorf("paged history: %d pages, ids %v", pages, got)
		}
	})
}

func TestStats(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		fixture(t, s)
		got, err := s.Stats(context.Background(), StatsQuery{Bucket: 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		// Answers at t0 + 0,12 | 24,36 | 48,60 hours; t0 is noon.
		day := func(d int) time.Time { return time.Date(2025, 3, 1+d, 0, 0, 0, 0, time.UTC) }
		want := []Bucket{
			{Start: day(0), Answers: 1, Accepted: 1},
			{Start: day(1), Answers: 2, Corrected: 1, Errors: 1},
			{Start: day(2), Answers: 2},
			{Start: day(3), Answers: 1, Errors: 1},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("stats:\n got %v\nwant %v", got, want)
		}
		got, err = s.Stats(context.Background(), StatsQuery{Bucket: time.Hour, Since: t0.Add(12 * time.Hour), Until: t0.Add(13 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Answers != 1 || got[0].Errors != 1 || !got[0].Start.Equal(t0.Add(12*time.Hour)) || got[0].Share(got[0].Errors) != 1 {
			t.Errorf("one-hour bucket: %v", got)
		}
	})
}

func TestMigrations(t *testing.T) {
	for _, bc := range backends {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			// Upgrade: a version-1 store (no indexes, no confidence) with
			// an answer written as version 1 wrote it.
			s, reopen := bc.open(t, 1)
			a := answer(1, "db", OutcomeOK)
			rows, err := s.b.write(ctx, `INSERT INTO answers (created_us, db_id, question, evidence, model, sql, outcome, error_class, error_message, row_count, latency_us)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, micros(a.Time), a.DBID, a.Question, a.Evidence, a.Model, a.SQL, string(a.Outcome), a.ErrorClass, a.ErrorMessage, a.Rows, a.Latency.Microseconds())
			if err != nil || len(rows) != 1 {
				t.Fatalf("write a version-1 answer: %v", err)
			}
			a.ID = asInt(rows[0][0])
			if v := version(t, s); v != 1 {
				t.Fatalf("store at version %d, want 1", v)
			}
			s.Close()
			s, err = reopen(-1)
			if err != nil {
				t.Fatalf("upgrade from version 1: %v", err)
			}
			if v := version(t, s); v != SchemaVersion() || v < 2 {
				t.Errorf("after upgrade: version %d, want %d", v, SchemaVersion())
			}
			// The old answer reads back as it was, with no confidence.
			if e, err := s.Answer(ctx, a.ID); err != nil {
				t.Errorf("answer lost in the upgrade: %v", err)
			} else if e.Answer != a {
				t.Errorf("answer after the upgrade:\n got %+v\nwant %+v", e.Answer, a)
			}
			// Idempotent: opening again changes nothing.
			s.Close()
			if s, err = reopen(-1); err != nil {
				t.Fatalf("reopen: %v", err)
			}
			if v := version(t, s); v != SchemaVersion() {
				t.Errorf("after reopening: version %d", v)
			}
			// A store from a newer sqlrl is refused, and left as it was.
			if _, err := s.b.write(ctx, "UPDATE schema_version SET version = ?", SchemaVersion()+1); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if _, err := reopen(-1); !errors.Is(err, ErrTooNew) {
				t.Fatalf("newer store opened: err %v, want ErrTooNew", err)
			} else {
				t.Logf("refused: %v", err)
			}
		})
	}
}

func version(t *testing.T, s *store) int {
	t.Helper()
	rows, err := s.b.read(context.Background(), "SELECT version FROM schema_version")
	if err != nil || len(rows) != 1 {
		t.Fatalf("schema_version: %v %v", rows, err)
	}
	return int(asInt(rows[0][0]))
}

// TestConcurrentWrites: many goroutines write answers and feedback while
// others read; every acknowledged write is there afterwards.
func TestConcurrentWrites(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		const writers, each = 16, 25
		var mu sync.Mutex
		acked := map[int64]int64{} // answer id -> feedback id
		var wg sync.WaitGroup
		errs := make(chan error, writers*2)
		for w := range writers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range each {
					a, err := s.RecordAnswer(ctx, answer(w*each+i, fmt.Sprint("db", w), OutcomeOK))
					if err != nil {
						errs <- err
						return
					}
					f, err := s.RecordFeedback(ctx, Feedback{AnswerID: a.ID, Verdict: VerdictUp, Author: "k"})
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					acked[a.ID] = f.ID
					mu.Unlock()
				}
			}()
			go func() {
				defer wg.Done()
				for range each {
					if _, err := s.History(ctx, Filter{DBID: fmt.Sprint("db", w), Limit: 10}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(acked) != writers*each {
			t.Fatalf("%d distinct answer ids acknowledged, want %d", len(acked), writers*each)
		}
		n := 0
		for f := (Filter{Limit: MaxPage}); ; {
			p, err := s.History(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				if fid, ok := acked[e.ID]; ok && len(e.Feedback) == 1 && e.Feedback[0].ID == fid {
					n++
				}
			}
			if p.Next == 0 {
				break
			}
			f.Before = p.Next
		}
		if n != len(acked) {
			t.Errorf("%d of %d acknowledged answer+feedback pairs read back", n, len(acked))
		}
	})
}
