// Package reward turns a model's SQL completion into a training signal.
//
// Every reward is a Func: (question, gold, completion) -> Score, where a
// Score is one number plus named parts for logging. The server, the online
// training loop and the experiments call the same Funcs, so a number in a
// training log means the same thing everywhere.
//
// Three families compose:
//
//   - Execution rewards (Exec) run the completion's SQL and the gold read-only
//     and compare results with eval's BIRD EX, the same code `sqlrl eval`
//     runs, so an execution reward is at its top value exactly when EX is 1.
//     Schemes: binary (executes or not), Arctic-Text2SQL-R1 (1 / 0.1 / 0),
//     MATS (1 / 0 / -1) and plain EX (1 / 0).
//   - Judges grade a completion out of 50, like a professor grading a
//     student, from the generated SQL, the gold SQL and the result (or error)
//     of each: an LLM behind any OpenAI-compatible server (LLMJudge) or a
//     built-in analytic judge (Analytic) that gives partial credit from result
//     overlap, schema linking and SQL structure.
//   - Hybrid combines an execution gate with a judge (the OKTO recipe: the
//     executor alone cannot rank wrong answers, a judge alone cannot know
//     what the SQL returns); the rule is configurable (see Rule).
//
// A Func returns an error only when no reward can be defined: the gold query
// fails, the database is missing, or the caller gave up (context). Anything
// the completion does wrong - no SQL, a syntax error, a write attempt, a
// query that runs forever - is a scored outcome, never an error, because it
// is exactly what training must learn to avoid.
package reward

import (
	"context"
	"errors"
	"math"
)

// Sample is one completion to score, with what its question says.
type Sample struct {
	DBID     string
	Question string
	Evidence string
	GoldSQL  string
	// Completion is the model's raw output (reasoning, fences, special
	// tokens and all).
	Completion string
	// SQL is the query to score; when empty it is extracted from
	// Completion with ExtractSQL.
	SQL string
}

// Query returns the SQL the sample answers with.
func (s *Sample) Query() string {
	if s.SQL != "" {
		return s.SQL
	}
	return ExtractSQL(s.Completion)
}

// Score is a reward with the parts it was made of.
type Score struct {
	Value float64
	// Components are named parts for logging (ex, exec_ok, judge, ...);
	// trainers plot their means.
	Components map[string]float64
	// Class is eval's verdict class on the completion: correct,
	// wrong_result, no_sql or a sqlexec failure class (syntax_error,
	// timeout, ...); empty when nothing was executed (blind judge).
	Class string
	// Error is the database's message when the completion failed.
	Error string
}

// Func computes a reward. Implementations must be safe for concurrent use.
type Func interface {
	Reward(ctx context.Context, s Sample) (Score, error)
}

// Bounded is implemented by Funcs whose values lie in a known range; servers
// use it to rescale rewards to [0, 1] (OpenRLHF's "scores").
type Bounded interface {
	Bounds() (lo, hi float64)
}

// Normalize maps v into [0, 1] with f's bounds (default [0, 1]), clamping.
func Normalize(f Func, v float64) float64 {
	lo, hi := 0.0, 1.0
	if b, ok := f.(Bounded); ok {
		lo, hi = b.Bounds()
	}
	if hi <= lo || math.IsNaN(v) {
		return 0
	}
	return math.Min(1, math.Max(0, (v-lo)/(hi-lo)))
}

// ErrGold marks a reward that cannot be computed because the gold query
// itself fails: a label problem, not a completion problem.
var ErrGold = errors.New("gold query failed")

// ErrTransient marks a reward that cannot be computed now for a reason of
// the machine's, not the label's: the gold query timed out (under load, or
// waiting for a connection to a busy database) or its file could not be
// opened. It comes together with ErrGold; a server answers it with a
// retryable status rather than the "bad label" one, and nothing caches it.
var ErrTransient = errors.New("transient failure, retry later")

// ErrJudge marks a reward that cannot be computed because the judge failed
// and no fallback was configured.
var ErrJudge = errors.New("judge failed")
