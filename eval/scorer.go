package eval

import (
	"context"
	"errors"
	"strings"
	"sync"
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
	// KeepDistinct disables the Spider evaluator's default removal of
	// DISTINCT before execution (its --keep_distinct flag).
	KeepDistinct bool

	results cache
}

type cacheEntry struct {
	done chan struct{}
	res  *sqlexec.Result
	err  error
	// cut is set when the run was stopped by its caller's context, which
	// says nothing about the query: waiters with time left run it again.
	cut bool
}

// maxCachedBytes keeps huge results (a wrong prediction that returns a whole
// table) out of the cache; they are rare and cheap to recompute relative to
// the memory they would pin.
const maxCachedBytes = 8 << 20

// cache memoises query results, executing each key once even under
// concurrent demand.
type cache struct {
	mu sync.Mutex
	m  map[string]*cacheEntry
}

func (c *cache) get(ctx context.Context, key string, run func(context.Context) (*sqlexec.Result, error)) (*sqlexec.Result, error) {
	for {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*cacheEntry{}
		}
		e, ok := c.m[key]
		if !ok {
			e = &cacheEntry{done: make(chan struct{})}
			c.m[key] = e
			c.mu.Unlock()
			e.res, e.err = run(ctx)
			k := sqlexec.ClassOf(e.err)
			e.cut = ctx.Err() != nil && (k == sqlexec.ClassCanceled || k == sqlexec.ClassTimeout)
			if e.cut || (e.res != nil && e.res.Bytes > maxCachedBytes) {
				c.mu.Lock()
				delete(c.m, key)
				c.mu.Unlock()
			}
			close(e.done)
			return e.res, e.err
		}
		c.mu.Unlock()
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
	return s.results.get(ctx, cacheKey(db, sql), func(ctx context.Context) (*sqlexec.Result, error) {
		return s.Engine.Query(ctx, db, sql)
	})
}

// predResult executes a prediction, sharing the cache with gold queries: a
// prediction that is the gold SQL verbatim costs nothing more.
func (s *Scorer) predResult(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	if !s.CachePredictions || nondeterministic(sql) {
		return s.Engine.Query(ctx, db, sql)
	}
	return s.results.get(ctx, cacheKey(db, sql), func(ctx context.Context) (*sqlexec.Result, error) {
		return s.Engine.Query(ctx, db, sql)
	})
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
		timeout = 30 * time.Second
	}
	g, gerr := s.GoldResult(ctx, db, gold)
	if gerr != nil {
		return Outcome{Class: ClassGoldError, Error: gerr.Error()}
	}
	// The official script runs both queries under one timer; the gold's
	// share of it is its own execution time.
	budget := timeout - g.Elapsed
	if budget <= 0 {
		return Outcome{Class: string(sqlexec.ClassTimeout), Error: "gold query alone exceeds the timeout", GoldRows: len(g.Rows)}
	}
	pctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	p, perr := s.predResult(pctx, db, pred)
	if perr != nil {
		return failed(perr, g)
	}
	out := Outcome{PredRows: len(p.Rows), GoldRows: len(g.Rows)}
	if hasInvalidUTF8(p.Rows) || hasInvalidUTF8(g.Rows) {
		// Python's sqlite3 raises on text that is not UTF-8, and BIRD's
		// script scores the pair 0.
		out.Class = string(sqlexec.ClassRuntime)
		out.Error = "Could not decode to UTF-8"
		return out
	}
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
