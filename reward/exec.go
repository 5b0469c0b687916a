package reward

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// Scorer is what a reward needs of eval's Scorer: execute a prediction and
// its gold and compare them. *eval.Scorer in BIRD mode is the
// implementation; it must keep results (KeepResults) for judges that look
// at rows. The interface exists so that a server can swap scorers (to
// bound cache memory) under running Funcs.
type Scorer interface {
	Score(ctx context.Context, db, gold, pred string) eval.Outcome
}

// ClassNoSQL is the verdict class of a completion with no SQL in it. It is
// never executed: SQLite runs an empty statement as an empty result, which
// would "match" every gold that returns no rows.
const ClassNoSQL = "no_sql"

// Execute scores s's SQL against its gold with sc, the one place every
// reward executes through. The error is non-nil only when no verdict on the
// completion can be given (ErrGold, or the caller's context ended).
func Execute(ctx context.Context, sc Scorer, s Sample) (eval.Outcome, error) {
	sql := s.Query()
	if !hasStatement(sql) {
		return eval.Outcome{Class: ClassNoSQL, Error: "no SQL statement found in the completion"}, nil
	}
	out := sc.Score(ctx, s.DBID, s.GoldSQL, sql)
	if out.Class == eval.ClassGoldError {
		if eval.Transient(out.GoldClass, out.Error) {
			return out, fmt.Errorf("%w: %w on database %q: %s", ErrTransient, ErrGold, s.DBID, out.Error)
		}
		return out, fmt.Errorf("%w on database %q: %s", ErrGold, s.DBID, out.Error)
	}
	// A query stopped because the caller gave up says nothing about it.
	if err := ctx.Err(); err != nil && (out.Class == string(sqlexec.ClassCanceled) || out.Class == string(sqlexec.ClassTimeout)) {
		return out, fmt.Errorf("scoring on %q: %w", s.DBID, err)
	}
	return out, nil
}

// hasStatement reports whether sql holds anything but whitespace, comments
// and semicolons.
func hasStatement(sql string) bool {
	// Fast path: text that starts with a word or "(" is not empty.
	if t := strings.TrimLeft(sql, " \t\r\n\f"); t != "" && (isWordByte(t[0]) || t[0] == '(') {
		return true
	}
	for _, t := range sqlparse.Tokenize(sql) {
		if !t.IsTrivia() && t.Text != ";" {
			return true
		}
	}
	return false
}

// executed reports whether the completion ran without error.
func executed(o eval.Outcome) bool {
	return o.Class == eval.ClassCorrect || o.Class == eval.ClassWrong
}

// Scheme is an execution reward's mapping from verdict to value.
type Scheme string

// Execution schemes. The values are stable: they appear in flags and logs.
const (
	// SchemeBinary: 1 when the SQL executes, else 0 (the OKTO executor).
	SchemeBinary Scheme = "binary"
	// SchemeEX: 1 when the result matches the gold (BIRD EX), else 0.
	SchemeEX Scheme = "ex"
	// SchemeArctic: 1 match, 0.1 executes but wrong, 0 error
	// (Arctic-Text2SQL-R1).
	SchemeArctic Scheme = "arctic"
	// SchemeMATS: 1 match, 0 wrong, -1 error (the MATS planner).
	SchemeMATS Scheme = "mats"
)

// Schemes lists the execution schemes.
func Schemes() []Scheme { return []Scheme{SchemeBinary, SchemeEX, SchemeArctic, SchemeMATS} }

// Value maps a verdict to the scheme's reward.
func (sc Scheme) Value(o eval.Outcome) float64 {
	switch {
	case o.Correct:
		return 1
	case executed(o):
		switch sc {
		case SchemeBinary:
			return 1
		case SchemeArctic:
			return 0.1
		}
		return 0
	default:
		if sc == SchemeMATS {
			return -1
		}
		return 0
	}
}

// Bounds returns the scheme's lowest and highest value.
func (sc Scheme) Bounds() (lo, hi float64) {
	if sc == SchemeMATS {
		return -1, 1
	}
	return 0, 1
}

// ParseScheme checks a scheme name.
func ParseScheme(name string) (Scheme, error) {
	for _, s := range Schemes() {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown execution scheme %q (want %s)", name, joinSchemes())
}

func joinSchemes() string {
	var names []string
	for _, s := range Schemes() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// Exec is an execution reward.
type Exec struct {
	Scorer Scorer
	Scheme Scheme
}

// Reward executes the completion and maps the verdict with the scheme.
func (e *Exec) Reward(ctx context.Context, s Sample) (Score, error) {
	out, err := Execute(ctx, e.Scorer, s)
	if err != nil {
		return Score{}, err
	}
	v := e.Scheme.Value(out)
	c := execComponents(out)
	c["exec"] = v
	return Score{Value: v, Components: c, Class: out.Class, Error: out.Error}, nil
}

// Bounds implements Bounded.
func (e *Exec) Bounds() (lo, hi float64) { return e.Scheme.Bounds() }

// execComponents are the parts every executing reward logs. (Soft-F1 is
// not among them: a scorer that streams EX stops a wrong query at its first
// stray row and never computes it; the analytic judge logs its own overlap.)
func execComponents(o eval.Outcome) map[string]float64 {
	return map[string]float64{
		"ex":      b2f(o.Correct),
		"exec_ok": b2f(executed(o)),
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
