package feedback

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrationFS embed.FS

// querier runs statements; within backend.tx it is the transaction. SQL is
// written with ? placeholders (the PostgreSQL backend renumbers them) and
// values come back as int64, float64, string or nil.
type querier interface {
	query(ctx context.Context, sql string, args ...any) ([][]any, error)
	// script runs several statements without parameters (a migration).
	script(ctx context.Context, sql string) error
}

// backend is what the two stores differ in: connections, locking, and how
// a write is made durable.
type backend interface {
	// read runs a read on a connection that may be one of many.
	read(ctx context.Context, sql string, args ...any) ([][]any, error)
	// write runs one statement in its own transaction, durable on return.
	write(ctx context.Context, sql string, args ...any) ([][]any, error)
	// tx runs fn in a transaction that excludes every other tx on the
	// store (other processes and replicas included): migrations.
	tx(ctx context.Context, fn func(q querier) error) error
	kind() string // "sqlite" or "postgres": the migrations folder
	where() string
	close() error
}

// store implements Store over a backend.
type store struct{ b backend }

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns kind's migrations in version order. File names start
// with their version: 0001_name.sql.
func migrations(kind string) ([]migration, error) {
	dir := path.Join("migrations", kind)
	ents, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations %s: %w", kind, err)
	}
	var out []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("migration %s/%s: name is not NNNN_name.sql", dir, e.Name())
		}
		b, err := migrationFS.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations %s: %s is version %d, want %d", kind, m.name, m.version, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the newest schema this binary knows; both backends have
// the same number of migrations.
func SchemaVersion() int {
	ms, err := migrations("sqlite")
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate brings b's schema to version upto (all migrations when upto <
// 0), in one exclusive transaction, so replicas starting together migrate
// once. A store newer than this binary is refused with ErrTooNew.
func migrate(ctx context.Context, b backend, upto int) error {
	ms, err := migrations(b.kind())
	if err != nil {
		return err
	}
	if upto < 0 || upto > len(ms) {
		upto = len(ms)
	}
	return b.tx(ctx, func(q querier) error {
		if err := q.script(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); err != nil {
			return fmt.Errorf("migrate %s: %w", b.where(), err)
		}
		rows, err := q.query(ctx, "SELECT version FROM schema_version")
		if err != nil {
			return fmt.Errorf("migrate %s: %w", b.where(), err)
		}
		cur := 0
		switch len(rows) {
		case 0:
			if _, err := q.query(ctx, "INSERT INTO schema_version (version) VALUES (0)"); err != nil {
				return fmt.Errorf("migrate %s: %w", b.where(), err)
			}
		case 1:
			cur = int(asInt(rows[0][0]))
		default:
			return fmt.Errorf("migrate %s: schema_version has %d rows, want 1", b.where(), len(rows))
		}
		if cur > len(ms) {
			return fmt.Errorf("open %s: schema version %d, this sqlrl knows up to %d: %w (upgrade sqlrl)", b.where(), cur, len(ms), ErrTooNew)
		}
		for _, m := range ms[cur:upto] {
			if err := q.script(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate %s to version %d (%s): %w", b.where(), m.version, m.name, err)
			}
			if _, err := q.query(ctx, "UPDATE schema_version SET version = ?", m.version); err != nil {
				return fmt.Errorf("migrate %s to version %d: %w", b.where(), m.version, err)
			}
		}
		return nil
	})
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func (s *store) Close() error { return s.b.close() }

func (s *store) RecordAnswer(ctx context.Context, a Answer) (Answer, error) {
	if err := a.check(); err != nil {
		return Answer{}, err
	}
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	a.Time = fromMicros(micros(a.Time))
	rows, err := s.b.write(ctx, `INSERT INTO answers (created_us, db_id, question, evidence, model, sql, outcome, error_class, error_message, row_count, latency_us, confidence)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		micros(a.Time), a.DBID, a.Question, a.Evidence, a.Model, a.SQL, string(a.Outcome), a.ErrorClass, a.ErrorMessage, a.Rows, a.Latency.Microseconds(), a.Confidence)
	if err != nil {
		return Answer{}, fmt.Errorf("record answer in %s: %w", s.b.where(), err)
	}
	if len(rows) != 1 {
		return Answer{}, fmt.Errorf("record answer in %s: no id returned", s.b.where())
	}
	a.ID = asInt(rows[0][0])
	return a, nil
}

func (s *store) RecordFeedback(ctx context.Context, f Feedback) (Feedback, error) {
	if err := f.check(); err != nil {
		return Feedback{}, err
	}
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	f.Time = fromMicros(micros(f.Time))
	// One statement: the answer's existence is checked where the row is
	// written, so no other writer can come between.
	rows, err := s.b.write(ctx, `INSERT INTO feedback (answer_id, created_us, verdict, corrected_sql, correction, correction_error, comment, author)
SELECT id, ?, ?, ?, ?, ?, ?, ? FROM answers WHERE id = ? RETURNING id`,
		micros(f.Time), string(f.Verdict), f.CorrectedSQL, string(f.Correction), f.CorrectionError, f.Comment, f.Author, f.AnswerID)
	if err != nil {
		return Feedback{}, fmt.Errorf("record feedback on answer %d in %s: %w", f.AnswerID, s.b.where(), err)
	}
	if len(rows) != 1 {
		return Feedback{}, fmt.Errorf("record feedback on answer %d: %w", f.AnswerID, ErrNotFound)
	}
	f.ID = asInt(rows[0][0])
	return f, nil
}

const answerCols = "a.id, a.created_us, a.db_id, a.question, a.evidence, a.model, a.sql, a.outcome, a.error_class, a.error_message, a.row_count, a.latency_us, a.confidence"

func scanAnswer(r []any) Answer {
	return Answer{
		ID: asInt(r[0]), Time: fromMicros(asInt(r[1])), DBID: asString(r[2]), Question: asString(r[3]),
		Evidence: asString(r[4]), Model: asString(r[5]), SQL: asString(r[6]), Outcome: Outcome(asString(r[7])),
		ErrorClass: asString(r[8]), ErrorMessage: asString(r[9]), Rows: asInt(r[10]),
		Latency: time.Duration(asInt(r[11])) * time.Microsecond, Confidence: asString(r[12]),
	}
}

// attach reads the feedback of entries (one query) and fills it in.
func (s *store) attach(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	idx := map[int64]int{}
	ph := make([]string, len(entries))
	args := make([]any, len(entries))
	for i, e := range entries {
		idx[e.ID] = i
		ph[i], args[i] = "?", e.ID
	}
	rows, err := s.b.read(ctx, `SELECT id, answer_id, created_us, verdict, corrected_sql, correction, correction_error, comment, author
FROM feedback WHERE answer_id IN (`+strings.Join(ph, ", ")+`) ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("read feedback from %s: %w", s.b.where(), err)
	}
	for _, r := range rows {
		f := Feedback{
			ID: asInt(r[0]), AnswerID: asInt(r[1]), Time: fromMicros(asInt(r[2])), Verdict: Verdict(asString(r[3])),
			CorrectedSQL: asString(r[4]), Correction: CorrectionStatus(asString(r[5])), CorrectionError: asString(r[6]),
			Comment: asString(r[7]), Author: asString(r[8]),
		}
		e := &entries[idx[f.AnswerID]]
		e.Feedback = append(e.Feedback, f)
	}
	return nil
}

func (s *store) Answer(ctx context.Context, id int64) (Entry, error) {
	rows, err := s.b.read(ctx, "SELECT "+answerCols+" FROM answers a WHERE a.id = ?", id)
	if err != nil {
		return Entry{}, fmt.Errorf("read answer %d from %s: %w", id, s.b.where(), err)
	}
	if len(rows) == 0 {
		return Entry{}, fmt.Errorf("answer %d: %w", id, ErrNotFound)
	}
	es := []Entry{{Answer: scanAnswer(rows[0])}}
	if err := s.attach(ctx, es); err != nil {
		return Entry{}, err
	}
	return es[0], nil
}

// latestVerdict is the answer's latest thumbs up or down (NULL when none).
const latestVerdict = "(SELECT f.verdict FROM feedback f WHERE f.answer_id = a.id AND f.verdict <> '' ORDER BY f.id DESC LIMIT 1)"

const hasCorrection = "EXISTS (SELECT 1 FROM feedback f WHERE f.answer_id = a.id AND f.correction = 'ok')"

// MaxPage is the largest History page.
const MaxPage = 1000

func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + strings.ToLower(r.Replace(s)) + "%"
}

func (s *store) History(ctx context.Context, f Filter) (Page, error) {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = 50
	case limit > MaxPage:
		limit = MaxPage
	}
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
	if f.DBID != "" {
		add("a.db_id = ?", f.DBID)
	}
	switch f.Outcome {
	case "":
	case OutcomeOK, OutcomeError:
		add("a.outcome = ?", string(f.Outcome))
	default:
		return Page{}, fmt.Errorf("history: outcome %q: want ok or error", f.Outcome)
	}
	switch f.Kind {
	case KindAny:
	case KindUp, KindDown:
		add(latestVerdict+" = ?", string(f.Kind))
	case KindCorrected:
		add(hasCorrection)
	case KindNone:
		add("NOT EXISTS (SELECT 1 FROM feedback f WHERE f.answer_id = a.id)")
	default:
		return Page{}, fmt.Errorf("history: feedback kind %q: want up, down, corrected or none", f.Kind)
	}
	if !f.Since.IsZero() {
		add("a.created_us >= ?", micros(f.Since))
	}
	if !f.Until.IsZero() {
		add("a.created_us < ?", micros(f.Until))
	}
	if f.Text != "" {
		p := likePattern(f.Text)
		add(`(LOWER(a.question) LIKE ? ESCAPE '\' OR LOWER(a.sql) LIKE ? ESCAPE '\')`, p, p)
	}
	if f.Before > 0 {
		add("a.id < ?", f.Before)
	}
	q := "SELECT " + answerCols + " FROM answers a"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += fmt.Sprintf(" ORDER BY a.id DESC LIMIT %d", limit+1)
	rows, err := s.b.read(ctx, q, args...)
	if err != nil {
		return Page{}, fmt.Errorf("history from %s: %w", s.b.where(), err)
	}
	var p Page
	if len(rows) > limit {
		rows = rows[:limit]
		p.Next = asInt(rows[limit-1][0])
	}
	p.Entries = make([]Entry, len(rows))
	for i, r := range rows {
		p.Entries[i].Answer = scanAnswer(r)
	}
	if err := s.attach(ctx, p.Entries); err != nil {
		return Page{}, err
	}
	return p, nil
}

func (s *store) Stats(ctx context.Context, sq StatsQuery) ([]Bucket, error) {
	bucket := sq.Bucket
	if bucket == 0 {
		bucket = 24 * time.Hour
	}
	if bucket < time.Microsecond {
		return nil, errors.New("stats: bucket shorter than a microsecond")
	}
	bus := bucket.Microseconds()
	var where []string
	args := []any{bus}
	if !sq.Since.IsZero() {
		where, args = append(where, "a.created_us >= ?"), append(args, micros(sq.Since))
	}
	if !sq.Until.IsZero() {
		where, args = append(where, "a.created_us < ?"), append(args, micros(sq.Until))
	}
	// Floor division (times before 1970 are negative) written so that
	// SQLite and PostgreSQL agree: both truncate integer division.
	q := `SELECT b, COUNT(*),
	SUM(CASE WHEN v = 'up' THEN 1 ELSE 0 END),
	SUM(CASE WHEN c THEN 1 ELSE 0 END),
	SUM(CASE WHEN a_outcome = 'error' THEN 1 ELSE 0 END)
FROM (SELECT (a.created_us - (CASE WHEN a.created_us < 0 THEN CAST(? AS BIGINT) - 1 ELSE 0 END)) / CAST(? AS BIGINT) AS b,
	` + latestVerdict + ` AS v, ` + hasCorrection + ` AS c, a.outcome AS a_outcome FROM answers a`
	args = append([]any{bus, bus}, args[1:]...)
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += ") t GROUP BY b ORDER BY b"
	rows, err := s.b.read(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("stats from %s: %w", s.b.where(), err)
	}
	out := make([]Bucket, len(rows))
	for i, r := range rows {
		out[i] = Bucket{Start: fromMicros(asInt(r[0]) * bus), Answers: asInt(r[1]), Accepted: asInt(r[2]), Corrected: asInt(r[3]), Errors: asInt(r[4])}
	}
	return out, nil
}
