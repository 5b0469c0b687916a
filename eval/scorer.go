package eval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// Mode selects the published metric a Scorer reproduces.
type Mode string

// Modes.
const (
	// ModeBIRD is BIRD's EX: set equality, one timeout for the pair.
	ModeBIRD Mode = "bird"
	// ModeSpider is the Spider test-suite execution match: bags (lists under
	// ORDER BY), column permutations, every database of the suite.
	ModeSpider Mode = "spider"
)

// Verdict classes beyond the execution failures of sqlexec.
const (
	ClassCorrect   = "correct"
	ClassWrong     = "wrong_result"
	ClassMissing   = "missing_prediction"
	ClassGoldError = "gold_error"
)

// Outcome is the score of one prediction against one gold query.
type Outcome struct {
	Correct bool `json:"correct"`
	// Class is "correct", "wrong_result", "gold_error" or the sqlexec class
	// of the prediction's failure (syntax_error, unknown_column, timeout...).
	Class string `json:"class"`
	// Error is the database's message when the prediction failed.
	Error string `json:"error,omitempty"`
	// GoldClass is the sqlexec class of the gold's failure when Class is
	// gold_error, so that a caller can tell a broken label (syntax_error,
	// write_attempt) from a gold the machine could not run just now
	// (timeout: see Transient).
	GoldClass string `json:"gold_class,omitempty"`
	// SoftF1 is mini-dev's soft F1 (BIRD mode); 1 when correct.
	SoftF1   float64 `json:"soft_f1"`
	PredRows int     `json:"pred_rows"`
	GoldRows int     `json:"gold_rows"`
	// Pred is the prediction's result, kept only when Scorer.KeepResults.
	Pred *sqlexec.Result `json:"-"`
	Gold *sqlexec.Result `json:"-"`
}

// Scorer executes predictions and gold queries and compares them. Gold
// results are computed once per (database, SQL) and shared by every
// prediction for that question, and identical predictions are executed once;
// both caches make scoring K samples per question cost little more than one.
// A Scorer is safe for concurrent use.
type Scorer struct {
	Engine sqlexec.Engine
	Mode   Mode
	// Timeout bounds a prediction and its gold together (BIRD: 30 s for the
	// pair); in Spider mode it bounds each query (the evaluator's 60 s).
	Timeout time.Duration
	// Suite lists the database variants a Spider question must match on
	// (test-suite evaluation); nil means just the question's db.
	Suite func(db string) []string
	// CachePredictions executes an identical (db, SQL) prediction only once.
	CachePredictions bool
	// KeepResults keeps both results in each Outcome (agents show rows).
	KeepResults bool
	// MaxCacheEntries bounds each cache (results, verdicts); 0 means
	// unbounded, right for one evaluation run and wrong for a server.
	MaxCacheEntries int
	// SoftF1 computes BIRD mini-dev's Soft-F1, which needs every row of a
	// prediction; without it a wrong prediction is stopped at its first row
	// that is not in the gold result.
	SoftF1 bool
	// OwnTimeout gives a BIRD-mode prediction the whole Timeout of its own
	// instead of what the gold's measured time leaves of it (BIRD's pair
	// timer, which `sqlrl eval` keeps). Rewards set it: a reward server
	// measures a gold once, perhaps during a CPU spike, and that one
	// measurement must not shorten (and turn into timeouts) the correct
	// predictions scored after the machine is quiet again; nor is a valid
	// cached gold dropped because a prediction timed out.
	OwnTimeout bool
	// KeepDistinct disables the Spider evaluator's default removal of
	// DISTINCT before execution (its --keep_distinct flag).
	KeepDistinct bool

	results   cache
	verdicts  sync.Map // db, normalized gold, normalized pred -> Outcome
	nverdicts atomic.Int64
	goldSets  sync.Map // *sqlexec.Result -> set of row keys
}

type cacheEntry struct {
	done chan struct{}
	res  *sqlexec.Result
	err  error
	// cut is set when the run was stopped by its caller's context, which
	// says nothing about the query: waiters with time left run it again.
	cut bool
}

// Transient reports whether a failure says something about the machine at
// the time rather than about the SQL: a timeout or cancellation (whichever
// limit produced it: the caller's, the pair budget, the engine's own, or a
// wait for a pooled connection on a busy database), a database that could
// not be opened, or SQLite running out of memory or disk, or finding a
// file locked. The same query may succeed a moment later, so no cache may
// keep such an outcome: a reward server that remembered a timeout met under
// load would fail that label (or that completion) for the rest of a
// training run. msg is the database's message (Outcome.Error).
func Transient(class, msg string) bool {
	switch sqlexec.Class(class) {
	case sqlexec.ClassTimeout, sqlexec.ClassCanceled, sqlexec.ClassNoDatabase:
		return true
	case sqlexec.ClassRuntime, sqlexec.ClassTooLarge:
		// SQLite's out-of-memory is classed too large (like a value over
		// the length limit), but unlike that limit it depends on the
		// machine, so only the messages below make it transient.
		for _, m := range machineFailures {
			if strings.Contains(msg, m) {
				return true
			}
		}
	}
	return false
}

// machineFailures are SQLite messages of runtime errors caused by the
// machine's state (memory, disk, locks, an interrupt), not by the query.
var machineFailures = []string{
	"out of memory", "disk I/O error", "database or disk is full", "database is locked",
	"database table is locked", "unable to open database file", "interrupted",
}

// transientErr is Transient for an execution error.
func transientErr(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	var e *sqlexec.Error
	if errors.As(err, &e) {
		msg = e.Msg
	}
	return Transient(string(sqlexec.ClassOf(err)), msg)
}

// maxCachedBytes keeps huge results (a wrong prediction that returns a whole
// table) out of the cache; they are rare and cheap to recompute relative to
// the memory they would pin.
const maxCachedBytes = 8 << 20

// cache memoises query results, executing each key once even under
// concurrent demand.
type cache struct {
	mu     sync.Mutex
	m      map[string]*cacheEntry
	counts cacheCounters // see stats.go
}

// get returns key's result, running it once. When max > 0 and the cache
// already holds max results, it starts afresh: a long-lived scorer (a reward
// server) must not grow without bound, and dropping everything at once is
// cheap next to tracking recency on every hit. Waiters on a dropped entry
// still get its result.
func (c *cache) get(ctx context.Context, key string, max int, run func(context.Context) (*sqlexec.Result, error)) (*sqlexec.Result, error) {
	for {
		c.mu.Lock()
		if c.m == nil || (max > 0 && len(c.m) >= max) {
			c.m = map[string]*cacheEntry{}
		}
		e, ok := c.m[key]
		if !ok {
			c.counts.misses.Add(1)
			e = &cacheEntry{done: make(chan struct{})}
			c.m[key] = e
			c.mu.Unlock()
			e.res, e.err = run(ctx)
			transient := transientErr(e.err)
			e.cut = transient && ctx.Err() != nil
			// Waiters that arrived during the run share its outcome, even
			// a timeout met under the same load; later callers run the
			// query again.
			if transient || (e.res != nil && e.res.Bytes > maxCachedBytes) {
				c.mu.Lock()
				delete(c.m, key)
				c.mu.Unlock()
			}
			close(e.done)
			return e.res, e.err
		}
		c.mu.Unlock()
		c.counts.hits.Add(1)
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctxErr(ctx)
		}
		if !e.cut || ctx.Err() != nil {
			return e.res, e.err
		}
	}
}

func ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &sqlexec.Error{Class: sqlexec.ClassTimeout, Msg: "query timed out", Err: ctx.Err()}
	}
	return &sqlexec.Error{Class: sqlexec.ClassCanceled, Msg: "query canceled", Err: ctx.Err()}
}

// nondeterministic reports whether sql may return different rows on each
// run, so that caching its result would change a verdict.
func nondeterministic(sql string) bool {
	l := strings.ToLower(sql)
	return strings.Contains(l, "random") || strings.Contains(l, "'now'") ||
		strings.Contains(l, "current_") || strings.Contains(l, "changes(")
}

// GoldResult returns the (cached) result of a gold query.
func (s *Scorer) GoldResult(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	return s.results.get(ctx, cacheKey(db, sql), s.MaxCacheEntries, func(ctx context.Context) (*sqlexec.Result, error) {
		return s.Engine.Query(ctx, db, sql)
	})
}

// predResult executes a prediction, sharing the cache with gold queries: a
// prediction that is the gold SQL verbatim costs nothing more.
func (s *Scorer) predResult(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	if !s.CachePredictions || nondeterministic(sql) {
		return s.Engine.Query(ctx, db, sql)
	}
	return s.results.get(ctx, cacheKey(db, sql), s.MaxCacheEntries, func(ctx context.Context) (*sqlexec.Result, error) {
		return s.Engine.Query(ctx, db, sql)
	})
}

// forget drops key's result, so that the next lookup runs the query again.
func (c *cache) forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// remember stores a verdict, emptying the verdict and gold-set maps first
// when they hold MaxCacheEntries verdicts (see cache.get).
func (s *Scorer) remember(key string, o Outcome) {
	if Transient(o.Class, o.Error) {
		return
	}
	if s.MaxCacheEntries > 0 && s.nverdicts.Add(1) > int64(s.MaxCacheEntries) {
		s.nverdicts.Store(1)
		s.verdicts.Clear()
		s.goldSets.Clear()
	}
	s.verdicts.Store(key, o)
}

// cacheKey identifies a query; surrounding whitespace cannot change what it
// returns.
func cacheKey(db, sql string) string { return db + "\x00" + strings.TrimSpace(sql) }

// Score executes pred and gold on db and compares them under the Scorer's
// mode.
func (s *Scorer) Score(ctx context.Context, db, gold, pred string) Outcome {
	if s.Mode == ModeSpider {
		return s.scoreSpider(ctx, db, gold, pred)
	}
	return s.scoreBIRD(ctx, db, gold, pred)
}

func (s *Scorer) scoreBIRD(ctx context.Context, db, gold, pred string) Outcome {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = BIRDPairTimeout
	}
	g, gerr := s.GoldResult(ctx, db, gold)
	if gerr != nil {
		return goldFailed(gerr)
	}
	cacheable := s.CachePredictions && !nondeterministic(pred) && !nondeterministic(gold)
	var vkey string
	if cacheable {
		gk, pk := NormalizeSQL(gold), NormalizeSQL(pred)
		vkey = db + "\x00" + gk + "\x00" + pk
		if o, ok := s.verdicts.Load(vkey); ok {
			return o.(Outcome)
		}
		if gk == pk && !s.KeepResults {
			// The same statement up to case, spacing and comments returns
			// the same rows: the verdict is known without running it.
			out := Outcome{Correct: true, Class: ClassCorrect, SoftF1: 1, PredRows: len(g.Rows), GoldRows: len(g.Rows)}
			if hasInvalidUTF8(g.Rows) {
				out = invalidText(len(g.Rows), len(g.Rows))
			}
			s.remember(vkey, out)
			return out
		}
	}
	// The official script runs both queries under one timer; the gold's
	// share of it is its own execution time (unless OwnTimeout).
	budget := timeout
	if !s.OwnTimeout {
		budget -= g.Elapsed
	}
	if budget <= 0 {
		// The gold's time was measured once, perhaps on a busy machine:
		// measure it again next time rather than fail the question for
		// good.
		s.results.forget(cacheKey(db, gold))
		return Outcome{Class: string(sqlexec.ClassTimeout), Error: "gold query alone exceeds the timeout", GoldRows: len(g.Rows)}
	}
	pctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	var out Outcome
	if st, ok := s.Engine.(rowStreamer); ok && !s.SoftF1 && !s.KeepResults {
		out = s.streamBIRD(pctx, st, db, pred, g)
	} else {
		out = s.fullBIRD(pctx, db, pred, g)
	}
	if out.Class == string(sqlexec.ClassTimeout) && g.Elapsed > 0 && !s.OwnTimeout {
		// The prediction's budget is what the gold's measured time left
		// of the pair's. That time may have been measured under load and
		// would shorten every later prediction of the question: measure
		// the gold again next time, so a quiet machine scores as quiet.
		s.results.forget(cacheKey(db, gold))
	}
	if cacheable {
		s.remember(vkey, out) // not when Transient
	}
	return out
}

// goldFailed is the verdict when the gold query fails: no verdict on the
// prediction, with the gold's failure class kept for the caller.
func goldFailed(err error) Outcome {
	return Outcome{Class: ClassGoldError, Error: err.Error(), GoldClass: string(sqlexec.ClassOf(err))}
}

// fullBIRD executes the prediction to the end: needed for Soft-F1 and for
// callers that want the rows.
func (s *Scorer) fullBIRD(ctx context.Context, db, pred string, g *sqlexec.Result) Outcome {
	p, perr := s.predResult(ctx, db, pred)
	if perr != nil {
		return failed(perr, g)
	}
	if hasInvalidUTF8(p.Rows) || hasInvalidUTF8(g.Rows) {
		return invalidText(len(p.Rows), len(g.Rows))
	}
	out := Outcome{PredRows: len(p.Rows), GoldRows: len(g.Rows)}
	out.Correct = BirdEX(p.Rows, g.Rows)
	out.SoftF1 = SoftF1(p.Rows, g.Rows)
	out.Class = ClassWrong
	if out.Correct {
		out.Class = ClassCorrect
	}
	if s.KeepResults {
		out.Pred, out.Gold = p, g
	}
	return out
}

// rowStreamer is an Engine that can hand rows over one at a time and stop
// early (sqlexec.SQLite does).
type rowStreamer interface {
	QueryRows(ctx context.Context, db, sql string, fn func(cols []string, row []sqlexec.Value) bool) (*sqlexec.Result, error)
}

// streamBIRD decides EX while the prediction runs: a column count unlike
// the gold's, or the first row that is not in the gold set, proves
// set(pred) != set(gold), so the query is stopped there. The verdict is the official one (0), whatever the rest of
// the query would have done: more rows, a runtime error or a timeout all
// score 0 as well.
func (s *Scorer) streamBIRD(ctx context.Context, st rowStreamer, db, pred string, g *sqlexec.Result) Outcome {
	if hasInvalidUTF8(g.Rows) {
		return invalidText(0, len(g.Rows))
	}
	gset := s.goldSet(g)
	seen := make(map[string]struct{}, len(gset))
	var buf []byte
	var wrong, invalid bool
	nrows := 0
	_, err := st.QueryRows(ctx, db, pred, func(cols []string, row []sqlexec.Value) bool {
		if row == nil {
			// Rows of another width never equal the gold's, and no rows
			// cannot equal a non-empty gold: a prediction with the wrong
			// number of columns is wrong whatever it would return (or
			// whichever error or timeout it would hit), so it never runs.
			if len(cols) != len(g.Columns) && len(g.Rows) > 0 {
				wrong = true
				return false
			}
			return true
		}
		nrows++
		for _, v := range row {
			if v.Kind == sqlexec.KindText && !utf8.ValidString(v.S) {
				invalid = true
				return false
			}
		}
		buf = rowKey(buf, row)
		if _, ok := gset[string(buf)]; !ok {
			wrong = true
			return false
		}
		if _, ok := seen[string(buf)]; !ok {
			seen[string(buf)] = struct{}{}
		}
		return true
	})
	switch {
	case err != nil:
		return failed(err, g)
	case invalid:
		return invalidText(nrows, len(g.Rows))
	}
	out := Outcome{PredRows: nrows, GoldRows: len(g.Rows), Class: ClassWrong}
	if !wrong && len(seen) == len(gset) {
		out.Correct, out.Class, out.SoftF1 = true, ClassCorrect, 1
	}
	return out
}

// goldSet returns the set of a gold result's row keys, built once per
// result.
func (s *Scorer) goldSet(g *sqlexec.Result) map[string]struct{} {
	if v, ok := s.goldSets.Load(g); ok {
		return v.(map[string]struct{})
	}
	set := rowSet(g.Rows)
	s.goldSets.Store(g, set)
	return set
}

// invalidText is the verdict on a result holding text that is not UTF-8:
// Python's sqlite3 raises while fetching it, and BIRD's script scores 0.
func invalidText(predRows, goldRows int) Outcome {
	return Outcome{Class: string(sqlexec.ClassRuntime), Error: "Could not decode to UTF-8", PredRows: predRows, GoldRows: goldRows}
}

func failed(err error, g *sqlexec.Result) Outcome {
	o := Outcome{Class: string(sqlexec.ClassOf(err)), Error: err.Error()}
	var e *sqlexec.Error
	if errors.As(err, &e) {
		o.Error = e.Msg
	}
	if g != nil {
		o.GoldRows = len(g.Rows)
	}
	return o
}

func hasInvalidUTF8(rows [][]sqlexec.Value) bool {
	for _, r := range rows {
		for _, v := range r {
			if v.Kind == sqlexec.KindText && !utf8.ValidString(v.S) {
				return true
			}
		}
	}
	return false
}
