package reward

import (
	"context"
	"fmt"
)

// Rule says how Hybrid combines the executor and the judge.
type Rule string

// Combination rules. The values are stable: they appear in flags and logs.
const (
	// RuleGate: the executor gates the judge. A completion that fails to
	// execute (or has no SQL) gets ErrorValue; one whose result matches the
	// gold gets 1; any other gets min(judge, MaxWrongPoints)/50. So errors
	// < every executing answer < a match, and the judge ranks the wrong
	// ones.
	RuleGate Rule = "gate"
	// RuleSum: WExec * Scheme(verdict) + WJudge * judge/50, the judge's
	// grade of a completion that does not match capped at MaxWrongPoints.
	// Both parts always count; with the analytic judge and the binary
	// scheme an error still earns the judge's small structural credit.
	RuleSum Rule = "sum"
)

// MaxWrongPoints caps what the judge's grade counts for in either rule
// when the result does not match the gold: a judge alone never lifts a
// wrong answer to a match's value, so a policy that learns to please the
// judge gains less than one that is right, and "desirable iff the reward
// reaches the correct level" (KTO) still means a match. It is the analytic
// judge's highest grade for a wrong answer (analyticExecBase +
// analyticExecSpan), so analytic rewards are unchanged; an LLM judge's
// 46 to 50 for a wrong answer counts as 45.
const MaxWrongPoints = analyticExecBase + analyticExecSpan

// Hybrid is the OKTO reward: DB executor + judge.
type Hybrid struct {
	Scorer Scorer
	Judge  Judge
	Rule   Rule
	// ErrorValue is the gate rule's reward for an error (the CLI default is
	// -1; 0 is the other common choice).
	ErrorValue float64
	// Scheme is the sum rule's execution part (default binary).
	Scheme Scheme
	// WExec and WJudge weight the sum rule's parts.
	WExec, WJudge float64
	// AskOnMatch asks the judge about answers whose result matches the
	// gold too. Off by default: EX is ground truth, a match is worth full
	// marks (the judge component logs 50), and an LLM judge call is saved.
	AskOnMatch bool
}

// Reward executes the completion, asks the judge, and combines.
func (h *Hybrid) Reward(ctx context.Context, s Sample) (Score, error) {
	s.SQL = s.Query()
	out, err := Execute(ctx, h.Scorer, s)
	if err != nil {
		return Score{}, err
	}
	c := execComponents(out)
	ok := executed(out)
	var points float64
	switch {
	case out.Correct && !h.AskOnMatch:
		points = MaxPoints
		c["judge_skipped"] = 1
	case !ok && h.Rule != RuleSum:
		// The gate decides; the judge's opinion would not count.
		c["judge_skipped"] = 1
	default:
		g, err := h.Judge.Grade(ctx, view(ctx, h.Scorer, s, &out))
		if err != nil {
			return Score{}, fmt.Errorf("judge: %w", err)
		}
		points = g.Points
		mergeInto(c, g.Components)
	}
	c["judge"] = points
	if !out.Correct && points > MaxWrongPoints {
		points = MaxWrongPoints
		c["judge_capped"] = 1
	}
	var v float64
	switch h.Rule {
	case RuleSum:
		scheme := h.scheme()
		ev := scheme.Value(out)
		c["exec"] = ev
		v = h.WExec*ev + h.WJudge*points/MaxPoints
	default:
		switch {
		case !ok:
			v = h.ErrorValue
		case out.Correct:
			v = 1
		default:
			v = points / MaxPoints
		}
		c["exec"] = b2f(ok)
	}
	return Score{Value: v, Components: c, Class: out.Class, Error: out.Error}, nil
}

func (h *Hybrid) scheme() Scheme {
	if h.Scheme == "" {
		return SchemeBinary
	}
	return h.Scheme
}

// Bounds implements Bounded.
func (h *Hybrid) Bounds() (lo, hi float64) {
	if h.Rule == RuleSum {
		elo, ehi := h.scheme().Bounds()
		return h.WExec * elo, h.WExec*ehi + h.WJudge
	}
	return min(0, h.ErrorValue), max(1, h.ErrorValue)
}

// Counters forwards the judge's counters.
func (h *Hybrid) Counters() map[string]int64 {
	if c, ok := h.Judge.(Counter); ok {
		return c.Counters()
	}
	return nil
}

// Counters forwards the judge's counters.
func (j *JudgeReward) Counters() map[string]int64 {
	if c, ok := j.Judge.(Counter); ok {
		return c.Counters()
	}
	return nil
}
