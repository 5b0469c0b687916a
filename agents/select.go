package agents

import (
	"slices"
)

// Selection strategies: how one candidate is chosen among a question's.
// Every one reads the rollout record only, so `sqlrl pipeline report`
// recomputes them (and a new ranker's) from the file.
const (
	// StrategyGreedy is the planner's greedy decode: planner@1.
	StrategyGreedy = "greedy"
	// StrategyVote groups the candidates that executed by result and takes
	// the largest group (package consensus's rule: an empty result wins
	// only when every result is empty; ties to the group holding the
	// earliest candidate, the greedy one first).
	StrategyVote = "vote"
	// StrategyValidatorVote weighs each candidate's vote by its
	// validators: 1/2 plus the share of its validators that concluded
	// "correct", so that agreement still counts but a result every
	// validator rejects needs three times the votes of one they all accept.
	StrategyValidatorVote = "validator_vote"
	// StrategyTournament takes the distinct result that won the most of
	// the selector's comparisons (Record.Matches); ties go to the more
	// voted. Without usable matches it falls back to the greedy candidate
	// if it executed, else to the vote.
	StrategyTournament = "tournament"
	// StrategyReview is Coder-Reviewer reranking: the candidate with the
	// highest log P(question | SQL) + w log P(SQL | question), the
	// reviewer's score (Candidate.Review) plus w times the planner's
	// (Candidate.LogProb), rows before empty results (Selection.ReviewWeight).
	StrategyReview = "review"
	// StrategyRanker takes the candidate the learned ranker scores
	// highest (Ranker).
	StrategyRanker = "ranker"
)

// Strategies lists the strategies in report order.
var Strategies = []string{StrategyGreedy, StrategyVote, StrategyValidatorVote, StrategyTournament, StrategyReview, StrategyRanker}

// Selection holds the settings of the strategies that have any.
type Selection struct {
	// Ranker, when set, adds StrategyRanker.
	Ranker *Ranker
	// ReviewWeight is w of StrategyReview: how much the planner's
	// log-probability of a query counts beside the reviewer's of the
	// question (0: the reviewer alone). DefaultReviewWeight is the
	// command line's.
	ReviewWeight float64
}

// DefaultReviewWeight is the review strategy's weight on the planner's
// log-probability, chosen on the holdout's rollouts among 0, 1/4, 1/2 and 1
// (the sweep is in docs/history.md, "The reviewer"): the two directions
// are about equally informative, the reviewer a little more.
const DefaultReviewWeight = 0.5

// Reselect fills the strategies of the records that have none, or of
// every record with all (a ranker or review weight given afresh).
func Reselect(recs []*Record, s Selection, all bool) {
	for _, r := range recs {
		if all || len(r.Selected) == 0 {
			SelectAll(r, s)
		}
	}
}

// SelectAll fills r.Selected with every strategy the record supports:
// the validator vote when it has validations, the tournament when it has
// matches or a selector ran (Final says so), the review when a reviewer
// scored its candidates, the ranker when one is given.
func SelectAll(r *Record, s Selection) {
	if r.Selected == nil {
		r.Selected = map[string]int{}
	}
	r.Selected[StrategyGreedy] = selectGreedy(r)
	r.Selected[StrategyVote] = selectVote(r, func(int) float64 { return 1 })
	if hasValidations(r) {
		r.Selected[StrategyValidatorVote] = selectVote(r, func(i int) float64 { return 0.5 + validatorShare(r, i) })
	}
	if len(r.Matches) > 0 || r.Final == StrategyTournament {
		r.Selected[StrategyTournament] = selectTournament(r)
	}
	if hasReviews(r) {
		r.Selected[StrategyReview] = selectReview(r, s.ReviewWeight)
	}
	if s.Ranker != nil {
		r.Selected[StrategyRanker] = s.Ranker.Select(r)
	}
}

// Choice is the candidate the record's final strategy picked (-1: none).
func (r *Record) Choice() int {
	if i, ok := r.Selected[r.Final]; ok {
		return i
	}
	return selectGreedy(r)
}

func selectGreedy(r *Record) int {
	if len(r.Candidates) == 0 {
		return -1
	}
	return 0
}

// selectVote returns the first candidate of the group with the largest
// total weight among candidates that executed; -1 when none did.
func selectVote(r *Record, weight func(i int) float64) int {
	type group struct {
		first int
		w     float64
		rows  bool
	}
	var groups []*group
	byID := map[int]*group{}
	for i, c := range r.Candidates {
		if !c.Exec.OK || c.Exec.Group < 0 {
			continue
		}
		g, ok := byID[c.Exec.Group]
		if !ok {
			g = &group{first: i, rows: c.Exec.NRows > 0}
			byID[c.Exec.Group] = g
			groups = append(groups, g)
		}
		g.w += weight(i)
	}
	var best *group
	for _, g := range groups {
		if best == nil || (g.rows && !best.rows) || (g.rows == best.rows && g.w > best.w+1e-12) {
			best = g
		}
	}
	if best == nil {
		return -1
	}
	return best.first
}

func hasValidations(r *Record) bool {
	for i := range r.Candidates {
		if len(r.validations(i)) > 0 {
			return true
		}
	}
	return false
}

// validatorShare is the share of candidate i's validators that concluded
// "correct" (a bad feedback counts as neither: it is in the denominator);
// 1/2 when it has none, e.g. a fix, which was not validated.
func validatorShare(r *Record, i int) float64 {
	vs := r.validations(i)
	if len(vs) == 0 {
		return 0.5
	}
	n := 0
	for _, v := range vs {
		if v.Verdict == VerdictCorrect {
			n++
		}
	}
	return float64(n) / float64(len(vs))
}

// TournamentEntrants returns the candidates the selector compares: the
// first candidate of each distinct result, most voted first (ties: the
// earlier), at most size of them. Empty results enter only when no result
// has rows.
func TournamentEntrants(r *Record, size int) []int {
	votes := map[int]int{}
	first := map[int]int{}
	var groups []int
	anyRows := false
	for i, c := range r.Candidates {
		if !c.Exec.OK || c.Exec.Group < 0 {
			continue
		}
		if _, ok := first[c.Exec.Group]; !ok {
			first[c.Exec.Group] = i
			groups = append(groups, c.Exec.Group)
		}
		votes[c.Exec.Group]++
		anyRows = anyRows || c.Exec.NRows > 0
	}
	groups = slices.DeleteFunc(groups, func(g int) bool { return anyRows && r.Candidates[first[g]].Exec.NRows == 0 })
	slices.SortStableFunc(groups, func(a, b int) int { return votes[b] - votes[a] })
	if len(groups) > size {
		groups = groups[:size]
	}
	out := make([]int, len(groups))
	for k, g := range groups {
		out[k] = first[g]
	}
	return out
}

// selectTournament counts each entrant's wins in r.Matches.
func selectTournament(r *Record) int {
	wins := map[int]int{}
	usable := 0
	for _, m := range r.Matches {
		if m.Winner >= 0 {
			wins[m.Winner]++
			usable++
		}
	}
	entrants := TournamentEntrants(r, len(r.Candidates))
	if len(entrants) == 1 {
		return entrants[0]
	}
	if usable == 0 {
		if len(r.Candidates) > 0 && r.Candidates[0].Exec.OK {
			return 0
		}
		return selectVote(r, func(int) float64 { return 1 })
	}
	best := -1
	for _, e := range entrants { // most voted first: ties keep it
		if best < 0 || wins[e] > wins[best] {
			best = e
		}
	}
	return best
}
