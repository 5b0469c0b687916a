// Package consensus picks one SQL query among a model's candidates by
// executing them: self-consistency over results. Candidates that fail (a
// syntax error, an unknown column, a timeout) are dropped; the rest vote
// with their results, candidates whose results BIRD would call equal (the
// same set of rows) voting together, and the largest group wins.
//
// A small model's samples disagree most on the questions it gets wrong and
// agree on the ones it gets right, so the vote recovers much of the gap
// between pass@1 and the oracle pass@K without a gold query: this is the
// selector of execution-guided decoding (Wang et al. 2018) and of the MATS
// and CHESS pipelines, and the cheapest use of K samples.
package consensus

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Options configure Pick.
type Options struct {
	// Timeout bounds each candidate's execution (default 10s).
	Timeout time.Duration
	// KeepEmpty lets candidates that return no rows win over those that
	// return some. By default an empty result only wins when every
	// candidate that ran returned nothing: questions are asked about data
	// that exists, so "no rows" is more often a wrong filter than an answer.
	KeepEmpty bool
	// Results are complete results the caller already has, by candidate
	// text: such a candidate is not executed again.
	Results map[string]*sqlexec.Result
}

// Choice is what Pick decided.
type Choice struct {
	// Index of the chosen candidate; -1 when none ran.
	Index int
	// Votes is the size of the chosen group, Ran the number of candidates
	// that executed.
	Votes, Ran int
}

// Pick executes the candidates on db and returns the choice. Ties go to the
// group holding the earliest candidate, so put the one to trust most first
// (a greedy decode). Equal texts run once.
func Pick(ctx context.Context, eng sqlexec.Engine, db string, candidates []string, o Options) (Choice, error) {
	v, err := Count(ctx, eng, db, candidates, o)
	ch := Choice{Index: -1, Ran: v.Ran}
	if err != nil {
		return ch, err
	}
	if g := v.Best(o.KeepEmpty); g >= 0 {
		ch.Index, ch.Votes = v.First[g], v.Size[g]
	}
	return ch, nil
}

// Votes is how candidates group by their results: candidates whose
// results BIRD would call equal vote together.
type Votes struct {
	// Of is each candidate's group, -1 for one that did not run (empty
	// text, an error, a timeout).
	Of []int
	// Size, First and Empty describe each group, in order of its first
	// candidate: how many candidates it holds, the first of them, and
	// whether its result has no rows.
	Size  []int
	First []int
	Empty []bool
	// Ran is the number of candidates that executed.
	Ran int
}

// Count executes the candidates on db (equal texts once, each under
// o.Timeout) and groups them by result. It stops at ctx's end with ctx's
// error.
func Count(ctx context.Context, eng sqlexec.Engine, db string, candidates []string, o Options) (Votes, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	v := Votes{Of: make([]int, len(candidates))}
	var rows [][][]sqlexec.Value
	ran := map[string]int{} // text -> group, -1 when it did not run
	for i, sql := range candidates {
		v.Of[i] = -1
		if err := ctx.Err(); err != nil {
			return v, err
		}
		g, seen := ran[sql]
		if !seen {
			g = -1
			if strings.TrimSpace(sql) != "" {
				res, err := o.Results[sql], error(nil)
				if res == nil {
					qctx, cancel := context.WithTimeout(ctx, o.Timeout)
					res, err = eng.Query(qctx, db, sql)
					cancel()
				}
				if err == nil {
					g = slices.IndexFunc(rows, func(r [][]sqlexec.Value) bool { return eval.BirdEX(res.Rows, r) })
					if g < 0 {
						g = len(rows)
						rows = append(rows, res.Rows)
						v.Size, v.First, v.Empty = append(v.Size, 0), append(v.First, i), append(v.Empty, len(res.Rows) == 0)
					}
				}
			}
			ran[sql] = g
		}
		if g >= 0 {
			v.Of[i] = g
			v.Size[g]++
			v.Ran++
		}
	}
	return v, nil
}

// Best is the winning group (-1 when none ran): the largest, ties to the
// earliest; unless keepEmpty, a group with rows beats an empty one.
func (v Votes) Best(keepEmpty bool) int {
	best := -1
	for g := range v.Size {
		if best < 0 || better(v.Size[g], !v.Empty[g], v.Size[best], !v.Empty[best], keepEmpty) {
			best = g
		}
	}
	return best
}

// better reports whether a group with votes a (and rows or not) beats one
// with votes b; groups come in order of their first candidate, so equal
// groups keep the earlier.
func better(a int, aRows bool, b int, bRows bool, keepEmpty bool) bool {
	if !keepEmpty && aRows != bRows {
		return aRows
	}
	return a > b
}

// Budget bounds running all of one question's candidates: past it a vote
// keeps the greedy decode. The server's (askserver) and every evaluation
// that votes as the server does (train.EvalOptions).
const Budget = 15 * time.Second

// TopP is the nucleus a vote's samples are drawn from, by the server
// (askserver) and by evaluations that vote (train.Vote).
const TopP = 0.9

// Sampling is how a vote's candidates are drawn: besides the greedy
// decode, Samples completions at Temperature, nucleus TopP. Samples 0
// means no vote: the greedy decode alone.
type Sampling struct {
	Samples     int     `json:"samples"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
}

// On reports whether s asks for a vote.
func (s Sampling) On() bool { return s.Samples > 0 }

// String names s for reports: "greedy decode" or "a vote of the greedy
// decode and 8 samples at T 0.7, top-p 0.9".
func (s Sampling) String() string {
	if !s.On() {
		return "greedy decode"
	}
	return fmt.Sprintf("a vote of the greedy decode and %d samples at T %g, top-p %g", s.Samples, s.Temperature, s.TopP)
}

// Check refuses settings that cannot be sampled.
func (s Sampling) Check() error {
	if s.Samples < 0 || (s.On() && (s.Temperature <= 0 || s.TopP <= 0 || s.TopP > 1)) {
		return fmt.Errorf("a vote wants samples >= 0, and with samples a temperature > 0 and 0 < top-p <= 1 (got %d, %g, %g)", s.Samples, s.Temperature, s.TopP)
	}
	return nil
}

// Lead returns the votes of the same candidates with candidate i moved to
// the front, the others in their order: the votes as counted for a list
// that leads with the winner, without running anything again.
func (v Votes) Lead(i int) Votes {
	out := Votes{Of: make([]int, 0, len(v.Of)), Size: slices.Clone(v.Size), First: make([]int, len(v.First)), Empty: slices.Clone(v.Empty), Ran: v.Ran}
	out.Of = append(out.Of, v.Of[i])
	out.Of = append(out.Of, v.Of[:i]...)
	out.Of = append(out.Of, v.Of[i+1:]...)
	for g := range out.First {
		out.First[g] = slices.Index(out.Of, g)
	}
	return out
}
