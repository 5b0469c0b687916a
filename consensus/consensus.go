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
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	type group struct {
		first int
		rows  [][]sqlexec.Value
		votes int
	}
	var groups []*group
	ran := map[string]*group{}
	ch := Choice{Index: -1}
	for i, sql := range candidates {
		if err := ctx.Err(); err != nil {
			return ch, err
		}
		if g, ok := ran[sql]; ok {
			if g != nil {
				g.votes++
				ch.Ran++
			}
			continue
		}
		if strings.TrimSpace(sql) == "" {
			ran[sql] = nil
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, o.Timeout)
		res, err := eng.Query(qctx, db, sql)
		cancel()
		if err != nil {
			ran[sql] = nil
			continue
		}
		ch.Ran++
		var g *group
		for _, h := range groups {
			if eval.BirdEX(res.Rows, h.rows) {
				g = h
				break
			}
		}
		if g == nil {
			g = &group{first: i, rows: res.Rows}
			groups = append(groups, g)
		}
		g.votes++
		ran[sql] = g
	}
	var best *group
	for _, g := range groups {
		if best == nil || better(g.votes, len(g.rows) > 0, best.votes, len(best.rows) > 0, o.KeepEmpty) {
			best = g
		}
	}
	if best != nil {
		ch.Index, ch.Votes = best.first, best.votes
	}
	return ch, nil
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
