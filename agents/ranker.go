package agents

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/sqlrl/sqlrl/atomicfile"
)

// Ranker is a learned selection strategy: a linear score over cheap
// features of each candidate (agreement, log-probability, validator
// verdicts, result shape, tournament wins), trained on rollouts of
// questions with a gold so that the candidates it scores highest are the
// correct ones. The score is a conditional logit: softmax over one
// question's candidates, trained to put its mass on the correct ones, so
// only differences between a question's candidates matter (no bias, no
// calibration across questions needed).
//
// Vote and validator vote fix their trade-offs by hand; the ranker learns
// them (how much a validator's "incorrect" is worth against three more
// votes, whether the greedy decode deserves a bonus) from data the policy
// was not trained on.
type Ranker struct {
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	// Questions and Candidates count what it was trained on; Informative
	// the questions with both a correct and a wrong candidate.
	Questions   int `json:"questions"`
	Candidates  int `json:"candidates"`
	Informative int `json:"informative"`
	// Loss is the final mean negative log-likelihood of the correct set.
	Loss float64 `json:"loss"`
}

// RankerFeatures names the features, in order.
var RankerFeatures = []string{
	"failed", "empty", "vote_share", "top_group", "greedy", "fix",
	"mean_logprob", "logprob", "group_mass", "group_log_mass", "group_best_logprob", "log_rows", "one_column",
	"validator_share", "selection", "condition", "join", "bad_feedback",
	"tournament_wins", "review", "group_review",
}

// features computes candidate i's features.
func features(r *Record, i int) []float64 {
	c := r.Candidates[i]
	x := make([]float64, len(RankerFeatures))
	set := func(name string, v float64) { x[slices.Index(RankerFeatures, name)] = v }
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	if !c.Exec.OK {
		set("failed", 1)
	} else {
		ok, size := 0, map[int]int{}
		for _, d := range r.Candidates {
			if d.Exec.OK && d.Exec.Group >= 0 {
				ok++
				size[d.Exec.Group]++
			}
		}
		top := 0
		for _, n := range size {
			top = max(top, n)
		}
		set("empty", b2f(c.Exec.NRows == 0))
		set("vote_share", float64(size[c.Exec.Group])/float64(max(ok, 1)))
		set("top_group", b2f(size[c.Exec.Group] == top))
		set("log_rows", math.Log1p(float64(c.Exec.NRows)))
		set("one_column", b2f(len(c.Exec.Columns) == 1))
	}
	set("greedy", b2f(c.Source == SourceGreedy))
	set("fix", b2f(c.Source == SourceFix))
	if c.Tokens > 0 {
		set("mean_logprob", c.LogProb/float64(c.Tokens))
		// The sequence's log-probability, clipped: the strongest sign of
		// a confident decode, which the per-token mean dilutes in a long
		// query.
		set("logprob", max(c.LogProb, -20)/10)
	}
	if c.Exec.OK && c.Exec.Group >= 0 {
		// The model's probability of this result: the share of the
		// sequence probability of the planner's distinct candidates that
		// fell on this result, and the best per-token log-probability
		// among the candidates that returned it.
		mx := math.Inf(-1)
		for _, d := range r.Candidates {
			if d.Source != SourceFix && d.Same < 0 && d.Tokens > 0 {
				mx = max(mx, d.LogProb)
			}
		}
		var all, mine float64
		best := math.Inf(-1)
		for _, d := range r.Candidates {
			if d.Source == SourceFix || d.Tokens == 0 {
				continue
			}
			if d.Exec.Group == c.Exec.Group && d.Exec.OK {
				best = max(best, d.LogProb/float64(d.Tokens))
			}
			if d.Same >= 0 {
				continue
			}
			w := math.Exp(d.LogProb - mx)
			all += w
			if d.Exec.OK && d.Exec.Group == c.Exec.Group {
				mine += w
			}
		}
		if all > 0 {
			set("group_mass", mine/all)
			set("group_log_mass", max(math.Log(mine/all), -20)/10)
		}
		if !math.IsInf(best, -1) {
			set("group_best_logprob", best)
		}
	}
	vs := r.validations(i)
	if len(vs) > 0 {
		set("validator_share", validatorShare(r, i)-0.5)
	}
	for _, v := range vs {
		switch v.Verdict {
		case VerdictCorrect:
			set(v.Kind, 1)
		case VerdictIncorrect:
			set(v.Kind, -1)
		default:
			set("bad_feedback", 1)
		}
	}
	if len(r.Matches) > 0 && c.Exec.OK {
		wins, played := 0, 0
		for _, m := range r.Matches {
			a, b := r.Candidates[m.A].Exec.Group, r.Candidates[m.B].Exec.Group
			if m.Winner < 0 || (a != c.Exec.Group && b != c.Exec.Group) {
				continue
			}
			played++
			if r.Candidates[m.Winner].Exec.Group == c.Exec.Group {
				wins++
			}
		}
		if played > 0 {
			set("tournament_wins", float64(wins)/float64(played)-0.5)
		}
	}
	own, group := reviewFeatures(r, i)
	set("review", own)
	set("group_review", group)
	return x
}

// Select returns the index of the candidate r scores highest (ties: the
// earlier); -1 when r has none.
func (rk *Ranker) Select(r *Record) int {
	best, bestS := -1, math.Inf(-1)
	for i := range r.Candidates {
		s := rk.score(features(r, i))
		if s > bestS+1e-12 {
			best, bestS = i, s
		}
	}
	return best
}

func (rk *Ranker) score(x []float64) float64 {
	s := 0.0
	for k, w := range rk.Weights {
		s += w * x[k]
	}
	return s
}

// VotePrior is the ranker that votes: the candidates that ran, weighted
// by the share of them that returned their result, an empty result last.
// Training starts from it and its L2 penalty pulls towards it, not
// towards zero, so that the learnt ranker departs from the execution vote
// only as far as the data supports: with a few hundred informative
// questions, a ranker shrunk to zero loses to the vote (measured by
// cross-fitting on the holdout).
func VotePrior() []float64 {
	w := make([]float64, len(RankerFeatures))
	w[slices.Index(RankerFeatures, "vote_share")] = 8
	w[slices.Index(RankerFeatures, "failed")] = -8
	w[slices.Index(RankerFeatures, "empty")] = -4
	return w
}

// TrainRanker fits a ranker on scored records by full-batch gradient
// descent on the conditional logit's loss with an L2 penalty l2 (default
// 1e-3) towards VotePrior, for epochs steps (default 500). Records without scored candidates
// are skipped; an error says when no question has both a correct and a
// wrong candidate, since then there is nothing to learn.
func TrainRanker(recs []*Record, epochs int, l2 float64) (*Ranker, error) {
	if epochs <= 0 {
		epochs = 500
	}
	if l2 <= 0 {
		l2 = 1e-3
	}
	type q struct {
		x   [][]float64
		pos []bool
	}
	var qs []q
	rk := &Ranker{Features: slices.Clone(RankerFeatures), Weights: VotePrior()}
	prior := VotePrior()
	for _, r := range recs {
		if len(r.Candidates) == 0 || !r.Candidates[0].Scored {
			continue
		}
		rk.Questions++
		rk.Candidates += len(r.Candidates)
		var e q
		np := 0
		for i, c := range r.Candidates {
			e.x = append(e.x, features(r, i))
			e.pos = append(e.pos, c.Correct)
			if c.Correct {
				np++
			}
		}
		if np > 0 && np < len(r.Candidates) {
			qs = append(qs, e)
		}
	}
	rk.Informative = len(qs)
	if len(qs) == 0 {
		return nil, fmt.Errorf("agents: train ranker: none of %d scored questions has both a correct and a wrong candidate", rk.Questions)
	}
	d := len(rk.Weights)
	// Adam on the mean loss: the features differ in scale by an order of
	// magnitude, which plain gradient descent would need tuning for.
	m, v := make([]float64, d), make([]float64, d)
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	for t := 1; t <= epochs; t++ {
		grad := make([]float64, d)
		loss := 0.0
		for _, e := range qs {
			s := make([]float64, len(e.x))
			mx := math.Inf(-1)
			for j, x := range e.x {
				s[j] = rk.score(x)
				mx = max(mx, s[j])
			}
			var z, zp float64
			for j := range s {
				p := math.Exp(s[j] - mx)
				z += p
				if e.pos[j] {
					zp += p
				}
			}
			loss += math.Log(z) - math.Log(zp)
			// d/dw [log Z - log Zp] = E_p[x] - E_{p|pos}[x]
			for j, x := range e.x {
				p := math.Exp(s[j]-mx) / z
				pp := 0.0
				if e.pos[j] {
					pp = math.Exp(s[j]-mx) / zp
				}
				for k := range grad {
					grad[k] += (p - pp) * x[k]
				}
			}
		}
		n := float64(len(qs))
		rk.Loss = loss / n
		for k := range grad {
			g := grad[k]/n + l2*(rk.Weights[k]-prior[k])
			m[k] = b1*m[k] + (1-b1)*g
			v[k] = b2*v[k] + (1-b2)*g*g
			mh := m[k] / (1 - math.Pow(b1, float64(t)))
			vh := v[k] / (1 - math.Pow(b2, float64(t)))
			rk.Weights[k] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return rk, nil
}

// SaveRanker writes rk as JSON.
func SaveRanker(path string, rk *Ranker) error {
	b, err := json.MarshalIndent(rk, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("save ranker: %w", err)
	}
	return nil
}

// LoadRanker reads a ranker. A ranker saved before features were added
// gives them weight 0; one naming a feature this version does not compute
// is refused.
func LoadRanker(path string) (*Ranker, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load ranker %s: %w", path, err)
	}
	rk := &Ranker{}
	if err := json.Unmarshal(b, rk); err != nil {
		return nil, fmt.Errorf("load ranker %s: %w", path, err)
	}
	if len(rk.Weights) != len(rk.Features) {
		return nil, fmt.Errorf("load ranker %s: %d weights for %d features", path, len(rk.Weights), len(rk.Features))
	}
	w := make([]float64, len(RankerFeatures))
	for k, f := range rk.Features {
		at := slices.Index(RankerFeatures, f)
		if at < 0 {
			return nil, fmt.Errorf("load ranker %s: feature %q is not one this sqlrl computes (%v): train it again", path, f, RankerFeatures)
		}
		w[at] = rk.Weights[k]
	}
	rk.Features, rk.Weights = slices.Clone(RankerFeatures), w
	return rk, nil
}

// Fold is one held-out part of a cross-fitting: the EX of the ranker fit
// on the other parts, and of the vote, on its questions.
type Fold struct {
	Questions int     `json:"questions"`
	Ranker    float64 `json:"ranker"`
	Vote      float64 `json:"vote"`
}

// CrossFit splits the scored records into folds by question id, fits a
// ranker (TrainRanker with epochs and l2) on all folds but one and scores
// it and the vote on that one: what the ranker is worth on questions it was
// not fit on, without touching dev. It is how the penalty is chosen.
func CrossFit(recs []*Record, folds, epochs int, l2 float64) ([]Fold, error) {
	if folds < 2 {
		return nil, fmt.Errorf("agents: cross-fitting needs at least 2 folds, got %d", folds)
	}
	out := make([]Fold, folds)
	for f := range folds {
		var fit, held []*Record
		for _, r := range recs {
			if r.QuestionID%folds == f {
				held = append(held, r)
			} else {
				fit = append(fit, r)
			}
		}
		rk, err := TrainRanker(fit, epochs, l2)
		if err != nil {
			return nil, fmt.Errorf("agents: fold %d: %w", f, err)
		}
		var rankerOK, voteOK int
		for _, r := range held {
			if len(r.Candidates) == 0 || !r.Candidates[0].Scored {
				continue
			}
			out[f].Questions++
			if i := rk.Select(r); i >= 0 && r.Candidates[i].Correct {
				rankerOK++
			}
			if i := selectVote(r, func(int) float64 { return 1 }); i >= 0 && r.Candidates[i].Correct {
				voteOK++
			}
		}
		n := float64(max(out[f].Questions, 1))
		out[f].Ranker, out[f].Vote = 100*float64(rankerOK)/n, 100*float64(voteOK)/n
	}
	return out, nil
}
