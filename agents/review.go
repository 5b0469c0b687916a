package agents

import (
	"context"
	"fmt"
	"math"

	"github.com/sqlrl/sqlrl/policy"
)

// Reviewer scores a completion after its prompt: log P(completion |
// prompt). A reviewer checkpoint (policy.TaskReview) loaded as a
// *policy.Policy is one; the pipeline asks it how likely the question is
// given each candidate query.
type Reviewer interface {
	CompletionLogProbs(ctx context.Context, prompts, completions []string) ([]policy.SeqLogProb, error)
}

// review scores every distinct candidate that executed (the planner's and
// the fixer's) with the reviewer: Candidate.Review is log P(question |
// schema, evidence, SQL), the question as the native prompt shows it.
// Candidates with an earlier candidate's text take its score. A question
// without a native prompt, or a pair too long for the reviewer's context,
// goes unreviewed (ReviewTokens 0), which the selection strategies read
// as "no opinion".
func (p *Pipeline) review(ctx context.Context, recs []*Record, data func(int, string) (PromptData, bool)) error {
	type at struct{ r, c int }
	var prompts, comps []string
	var where []at
	for i, r := range recs {
		d, ok := data(i, SetNative)
		if !ok {
			continue
		}
		for j := range r.Candidates {
			c := &r.Candidates[j]
			c.Review, c.ReviewTokens = 0, 0
			if !c.Exec.OK || c.Same >= 0 {
				continue
			}
			pr, err := policy.ReviewPrompt(d.Prompt, c.SQL)
			if err != nil {
				r.Errors = append(r.Errors, fmt.Sprintf("reviewer on candidate %d: %v", j, err))
				continue
			}
			prompts, comps = append(prompts, pr), append(comps, policy.ReviewCompletion(d.Question))
			where = append(where, at{i, j})
		}
	}
	const chunk = 64
	report := p.stageProgress(StageReview)
	for lo := 0; lo < len(prompts); lo += chunk {
		hi := min(lo+chunk, len(prompts))
		lps, err := p.Reviewer.CompletionLogProbs(ctx, prompts[lo:hi], comps[lo:hi])
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			for _, w := range where[lo:hi] {
				recs[w.r].Errors = append(recs[w.r].Errors, fmt.Sprintf("reviewer on candidate %d: %v", w.c, err))
			}
			continue
		}
		for k, lp := range lps {
			w := where[lo+k]
			c := &recs[w.r].Candidates[w.c]
			c.Review, c.ReviewTokens = lp.Sum, lp.Tokens
		}
		report.Report(hi, len(prompts))
	}
	for _, r := range recs {
		for j := range r.Candidates {
			if s := r.Candidates[j].Same; s >= 0 && r.Candidates[j].Exec.OK {
				r.Candidates[j].Review, r.Candidates[j].ReviewTokens = r.Candidates[s].Review, r.Candidates[s].ReviewTokens
			}
		}
	}
	return nil
}

// hasReviews says whether any candidate of r was reviewed.
func hasReviews(r *Record) bool {
	for _, c := range r.Candidates {
		if c.ReviewTokens > 0 {
			return true
		}
	}
	return false
}

// selectReview takes the reviewed candidate with the highest Review + w
// LogProb; a candidate with rows beats an empty one, as in the vote. -1
// when none was reviewed.
func selectReview(r *Record, w float64) int {
	best := -1
	for i, c := range r.Candidates {
		if c.ReviewTokens == 0 || !c.Exec.OK {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := r.Candidates[best]
		rows, brows := c.Exec.NRows > 0, b.Exec.NRows > 0
		if rows && !brows || rows == brows && c.Review+w*c.LogProb > b.Review+w*b.LogProb+1e-9 {
			best = i
		}
	}
	return best
}

// reviewFeatures are candidate i's reviewer features: its score and the
// best score among the candidates returning its result, each relative to
// the question's best, in units of 10 nats, clipped at -2 (0 and 0 when
// it was not reviewed).
func reviewFeatures(r *Record, i int) (own, group float64) {
	c := r.Candidates[i]
	if c.ReviewTokens == 0 {
		return 0, 0
	}
	top, mine := math.Inf(-1), math.Inf(-1)
	for _, d := range r.Candidates {
		if d.ReviewTokens == 0 {
			continue
		}
		top = max(top, d.Review)
		if d.Exec.OK && d.Exec.Group == c.Exec.Group {
			mine = max(mine, d.Review)
		}
	}
	rel := func(v float64) float64 { return max((v-top)/10, -2) }
	return rel(c.Review), rel(mine)
}

// ReviewSweep returns the EX (percent) of the review strategy with each
// weight on the scored records (a question none of whose candidates was
// reviewed counts as wrong, as in the report), and their number n: how
// DefaultReviewWeight was chosen, on the holdout's rollouts, never on the
// questions reported. n is 0 when no record was reviewed.
func ReviewSweep(recs []*Record, weights []float64) (ex []float64, n int) {
	ex = make([]float64, len(weights))
	reviewed := false
	for _, r := range recs {
		if len(r.Candidates) == 0 || !r.Candidates[0].Scored {
			continue
		}
		n++
		reviewed = reviewed || hasReviews(r)
		for k, w := range weights {
			if i := selectReview(r, w); i >= 0 && r.Candidates[i].Correct {
				ex[k]++
			}
		}
	}
	if !reviewed {
		return ex, 0
	}
	for k := range ex {
		ex[k] = 100 * ex[k] / float64(n)
	}
	return ex, n
}
