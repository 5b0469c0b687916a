// Package feedback is the production flywheel's memory: every answer `sqlrl
// serve` gives (question, SQL, how its execution went) and every human
// verdict on one (thumbs up or down, a corrected SQL with how its own
// execution went, a comment), kept so that they can become the next
// training set (Export, `sqlrl data from-feedback`).
//
// A Store acknowledges a write only once it is durable: SQLite in WAL mode
// with synchronous=FULL (the commit is fsynced before the call returns), or
// a committed PostgreSQL transaction. Several `sqlrl serve` replicas share a
// PostgreSQL store; ids come from the database, so they are unique across
// replicas. Both backends keep a versioned schema (migrations/, applied in
// order on Open; a store written by a newer sqlrl is refused).
package feedback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Outcome is how an answer's SQL ran.
type Outcome string

// Outcomes.
const (
	OutcomeOK    Outcome = "ok"
	OutcomeError Outcome = "error"
)

// Verdict is a thumbs up or down; empty when a feedback carries only a
// correction or a comment.
type Verdict string

// Verdicts.
const (
	VerdictNone Verdict = ""
	VerdictUp   Verdict = "up"
	VerdictDown Verdict = "down"
)

// CorrectionStatus is how a corrected SQL ran when the server validated it
// (read-only) before storing it: only a correction that ran becomes a
// training target.
type CorrectionStatus string

// Correction statuses.
const (
	CorrectionNone  CorrectionStatus = ""
	CorrectionOK    CorrectionStatus = "ok"
	CorrectionError CorrectionStatus = "error"
)

// Answer is one answer the server gave.
type Answer struct {
	// ID and Time are set by RecordAnswer (Time only when zero).
	ID       int64
	Time     time.Time
	DBID     string
	Question string
	Evidence string
	// Model names the pipeline or model that wrote SQL, so that feedback
	// on one model is not taken as feedback on another.
	Model string
	SQL   string
	// Outcome, with ErrorClass (a sqlexec error class such as
	// "syntax_error") and ErrorMessage when it is OutcomeError.
	Outcome      Outcome
	ErrorClass   string
	ErrorMessage string
	Rows         int64
	Latency      time.Duration
	// Confidence is what the server showed of how far to trust the answer
	// (askserver writes its judgement as JSON); empty for answers recorded
	// before it was kept.
	Confidence string
}

// Feedback is one human verdict on an answer.
type Feedback struct {
	// ID and Time are set by RecordFeedback (Time only when zero).
	ID       int64
	AnswerID int64
	Time     time.Time
	Verdict  Verdict
	// CorrectedSQL is the user's SQL for the question, Correction how it
	// ran and CorrectionError the error when it did not.
	CorrectedSQL    string
	Correction      CorrectionStatus
	CorrectionError string
	Comment         string
	// Author is the name of the API key that gave the feedback.
	Author string
}

// Entry is an answer with its feedback, oldest first.
type Entry struct {
	Answer
	Feedback []Feedback
}

// Kind selects answers by their feedback in History.
type Kind string

// Feedback kinds. An answer's verdict is its latest thumbs up or down.
const (
	KindAny       Kind = ""
	KindUp        Kind = "up"
	KindDown      Kind = "down"
	KindCorrected Kind = "corrected" // has a correction that ran
	KindNone      Kind = "none"      // no feedback at all
)

// Filter selects History's answers; zero fields select everything.
type Filter struct {
	DBID    string
	Outcome Outcome
	Kind    Kind
	// Since (inclusive) and Until (exclusive) bound the answer's time.
	Since, Until time.Time
	// Text is a case-insensitive substring of the question or the SQL.
	Text string
	// Before is the paging cursor: only answers with a smaller id (a
	// Page's Next). Limit is the page size (default 50, at most 1000).
	Before int64
	Limit  int
}

// Page is one page of History, newest first. Next is the cursor of the
// following page, 0 when this is the last.
type Page struct {
	Entries []Entry
	Next    int64
}

// Bucket is the flywheel's numbers over one time bucket.
type Bucket struct {
	Start   time.Time
	Answers int64
	// Accepted: latest verdict thumbs-up; Corrected: a correction that
	// ran; Errors: the SQL failed to execute.
	Accepted, Corrected, Errors int64
}

// Share returns n as a share of the bucket's answers (0 for none).
func (b Bucket) Share(n int64) float64 {
	if b.Answers == 0 {
		return 0
	}
	return float64(n) / float64(b.Answers)
}

// StatsQuery asks for the numbers per Bucket (default one day) from Since
// to Until (zero: no bound). Buckets start at multiples of Bucket since the
// Unix epoch, UTC; empty ones are left out.
type StatsQuery struct {
	Bucket       time.Duration
	Since, Until time.Time
}

// Store keeps answers and feedback. Every method is safe for concurrent
// use; a write returns only once it is durable.
type Store interface {
	RecordAnswer(ctx context.Context, a Answer) (Answer, error)
	// RecordFeedback returns ErrNotFound when the answer does not exist.
	RecordFeedback(ctx context.Context, f Feedback) (Feedback, error)
	// Answer returns ErrNotFound when there is no such answer.
	Answer(ctx context.Context, id int64) (Entry, error)
	History(ctx context.Context, f Filter) (Page, error)
	Stats(ctx context.Context, q StatsQuery) ([]Bucket, error)
	Close() error
}

// ErrNotFound is returned for an answer id the store does not hold.
var ErrNotFound = errors.New("no such answer")

// ErrTooNew is wrapped by Open when a store's schema is newer than this
// binary's: an older sqlrl must not write into a schema it does not know.
var ErrTooNew = errors.New("store schema is newer than this sqlrl")

// IsPostgres reports whether a store location is a PostgreSQL DSN rather
// than a SQLite file name.
func IsPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens (creating and migrating it when needed) the store at
// location: a postgres:// DSN, or else a SQLite file name.
func Open(ctx context.Context, location string) (Store, error) {
	if IsPostgres(location) {
		return OpenPostgres(ctx, location)
	}
	return OpenSQLite(ctx, location)
}

func (a *Answer) check() error {
	switch {
	case a.DBID == "":
		return errors.New("record answer: no database id")
	case a.Question == "":
		return errors.New("record answer: no question")
	case a.Outcome != OutcomeOK && a.Outcome != OutcomeError:
		return fmt.Errorf("record answer: outcome %q: want %q or %q", a.Outcome, OutcomeOK, OutcomeError)
	case a.Rows < 0 || a.Latency < 0:
		return errors.New("record answer: negative row count or latency")
	case a.Confidence != "" && !json.Valid([]byte(a.Confidence)):
		return errors.New("record answer: confidence is not JSON")
	}
	return nil
}

func (f *Feedback) check() error {
	switch {
	case f.Verdict != VerdictNone && f.Verdict != VerdictUp && f.Verdict != VerdictDown:
		return fmt.Errorf("record feedback on answer %d: verdict %q: want up, down or none", f.AnswerID, f.Verdict)
	case f.Correction != CorrectionNone && f.Correction != CorrectionOK && f.Correction != CorrectionError:
		return fmt.Errorf("record feedback on answer %d: correction status %q: want ok or error", f.AnswerID, f.Correction)
	case (f.CorrectedSQL == "") != (f.Correction == CorrectionNone):
		return fmt.Errorf("record feedback on answer %d: a corrected SQL needs its validation status, and only it", f.AnswerID)
	case f.Verdict == VerdictNone && f.CorrectedSQL == "" && f.Comment == "":
		return fmt.Errorf("record feedback on answer %d: empty (no verdict, correction or comment)", f.AnswerID)
	}
	return nil
}
