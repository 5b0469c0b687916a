package reward

import (
	"context"
	"fmt"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// MaxPoints is what a judge grades out of: the OKTO recipe's professor
// grades the student out of 50.
const MaxPoints = 50

// View is what a judge is shown: the question, the gold SQL and the
// student's SQL, and, unless the judge is blind, the result or error of
// each.
type View struct {
	Sample
	// SQL is the student's query (already extracted).
	SQL string
	// Outcome is the execution verdict; nil for a blind judge, which must
	// grade from the SQL text alone.
	Outcome *eval.Outcome
	// Pred and Gold are the results when they were kept (nil on error or
	// when the scorer does not keep results).
	Pred, Gold *sqlexec.Result
	// GoldErr is set when the gold result could not be shown.
	GoldErr error
}

// Grade is a judge's verdict.
type Grade struct {
	// Points is in [0, MaxPoints].
	Points float64
	// Components are the judge's own parts for logging (judge_fallback,
	// judge_result, ...).
	Components map[string]float64
}

// Judge grades a student's SQL out of MaxPoints.
type Judge interface {
	Grade(ctx context.Context, v View) (Grade, error)
}

// view builds a judge's view of an executed sample. The gold result is
// fetched from the scorer's cache when the outcome does not carry it (a
// failed prediction), so the judge always sees what the answer should be.
func view(ctx context.Context, sc Scorer, s Sample, out *eval.Outcome) View {
	v := View{Sample: s, SQL: s.Query(), Outcome: out}
	if out == nil {
		return v
	}
	v.Pred, v.Gold = out.Pred, out.Gold
	if v.Gold == nil {
		if g, ok := sc.(interface {
			GoldResult(ctx context.Context, db, sql string) (*sqlexec.Result, error)
		}); ok {
			v.Gold, v.GoldErr = g.GoldResult(ctx, s.DBID, s.GoldSQL)
		}
	}
	return v
}

// clampPoints keeps a grade inside [0, MaxPoints].
func clampPoints(p float64) float64 {
	switch {
	case p != p || p < 0: // NaN or negative
		return 0
	case p > MaxPoints:
		return MaxPoints
	}
	return p
}

// JudgeReward is a judge on its own: reward = points / 50. With Blind set
// nothing is executed and the judge sees only SQL text (the ablation of the
// OKTO paper: a judge without results cannot know what the SQL returns).
type JudgeReward struct {
	Scorer Scorer
	Judge  Judge
	Blind  bool
}

// Reward grades the completion.
func (j *JudgeReward) Reward(ctx context.Context, s Sample) (Score, error) {
	s.SQL = s.Query()
	if j.Blind {
		g, err := j.Judge.Grade(ctx, View{Sample: s, SQL: s.SQL})
		if err != nil {
			return Score{}, fmt.Errorf("judge: %w", err)
		}
		c := map[string]float64{"judge": g.Points}
		mergeInto(c, g.Components)
		return Score{Value: g.Points / MaxPoints, Components: c}, nil
	}
	out, err := Execute(ctx, j.Scorer, s)
	if err != nil {
		return Score{}, err
	}
	g, err := j.Judge.Grade(ctx, view(ctx, j.Scorer, s, &out))
	if err != nil {
		return Score{}, fmt.Errorf("judge: %w", err)
	}
	c := execComponents(out)
	c["judge"] = g.Points
	mergeInto(c, g.Components)
	return Score{Value: g.Points / MaxPoints, Components: c, Class: out.Class, Error: out.Error}, nil
}

// Bounds implements Bounded.
func (j *JudgeReward) Bounds() (lo, hi float64) { return 0, 1 }

func mergeInto(dst, src map[string]float64) {
	for k, v := range src {
		dst[k] = v
	}
}
