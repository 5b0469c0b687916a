package reward

import (
	"fmt"
	"strings"
)

// Kinds of reward that New builds, by name. The names are stable: they
// appear in flags (sqlrl reward serve --reward) and logs.
const (
	KindBinary     = "binary"      // executes: 1, else 0
	KindEX         = "ex"          // BIRD EX: 1, else 0
	KindArctic     = "arctic"      // 1 match / 0.1 executes / 0
	KindMATS       = "mats"        // 1 match / 0 wrong / -1 error
	KindJudge      = "judge"       // judge/50, judge sees both results
	KindJudgeBlind = "judge-blind" // judge/50, nothing executed (ablation)
	KindGate       = "gate"        // hybrid, RuleGate
	KindSum        = "sum"         // hybrid, RuleSum
)

// Kinds lists the reward kinds New accepts.
func Kinds() []string {
	return []string{KindBinary, KindEX, KindArctic, KindMATS, KindJudge, KindJudgeBlind, KindGate, KindSum}
}

// Config describes a reward.
type Config struct {
	// Kind is one of Kinds().
	Kind string
	// Judge grades for the judge and hybrid kinds (default Analytic).
	Judge Judge
	// ErrorValue: gate's reward for an error.
	ErrorValue float64
	// Scheme, WExec, WJudge: the sum rule (see Hybrid).
	Scheme        Scheme
	WExec, WJudge float64
	// AskOnMatch: see Hybrid.
	AskOnMatch bool
}

// NeedsResults reports whether the kind's judge looks at result rows, so the
// scorer must keep them (eval.Scorer.KeepResults); execution-only kinds can
// use a scorer that stops a wrong query at its first stray row.
func NeedsResults(kind string) bool {
	switch kind {
	case KindJudge, KindGate, KindSum:
		return true
	}
	return false
}

// New builds the reward cfg describes on top of sc.
func New(cfg Config, sc Scorer) (Func, error) {
	j := cfg.Judge
	if j == nil {
		j = Analytic{}
	}
	switch cfg.Kind {
	case KindBinary, KindEX, KindArctic, KindMATS:
		return &Exec{Scorer: sc, Scheme: Scheme(cfg.Kind)}, nil
	case KindJudge:
		return &JudgeReward{Scorer: sc, Judge: j}, nil
	case KindJudgeBlind:
		return &JudgeReward{Judge: j, Blind: true}, nil
	case KindGate:
		return &Hybrid{Scorer: sc, Judge: j, Rule: RuleGate, ErrorValue: cfg.ErrorValue, AskOnMatch: cfg.AskOnMatch}, nil
	case KindSum:
		scheme := cfg.Scheme
		if scheme == "" {
			scheme = SchemeBinary
		}
		if _, err := ParseScheme(string(scheme)); err != nil {
			return nil, err
		}
		if cfg.WExec < 0 || cfg.WJudge < 0 || cfg.WExec+cfg.WJudge == 0 {
			return nil, fmt.Errorf("sum reward: weights %g and %g: want non-negative, not both 0", cfg.WExec, cfg.WJudge)
		}
		return &Hybrid{Scorer: sc, Judge: j, Rule: RuleSum, Scheme: scheme, WExec: cfg.WExec, WJudge: cfg.WJudge, AskOnMatch: cfg.AskOnMatch}, nil
	}
	return nil, fmt.Errorf("unknown reward %q (want one of %s)", cfg.Kind, strings.Join(Kinds(), ", "))
}
