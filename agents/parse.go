package agents

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/textclip"
)

// Parse errors: an answer an agent's parser refuses is a failed call,
// recorded with the question and replaced by the stage's fallback.
var (
	ErrNoSQL        = reward.ErrNoSQL
	ErrNoConclusion = errors.New("no \"Conclude: correct.\" or \"Conclude: incorrect.\" in the feedback")
	ErrTwoVerdicts  = errors.New("the feedback concludes more than once")
	ErrNoChoice     = errors.New("no choice of A or B in the answer")
)

var (
	concludeRe = regexp.MustCompile(`(?i)conclude\s*:\s*\**\s*(correct|incorrect)\b`)
	choiceRe   = regexp.MustCompile(`(?i)^\W*(?:(?:final\s+)?(?:answer|choice|better|winner)\s*(?:is)?\s*:?\s*)?\**\s*\(?([AB])\)?\**\s*\.?\s*$`)
)

// ParseSQL reads the SQL of a planner's or fixer's answer: the reward's
// extraction (reward.Extract) in the recipe's strict format, so an agent
// and the reward read the same query out of the same text. Accepted forms,
// most explicit first:
//
//	... Final SQL query: ```sql SELECT ... ```   (the recipe's format: a plan, then the query)
//	... Final SQL query: SELECT ...              (to the end of the line's paragraph)
//	... ```sql SELECT ... ```                     (the last fenced block)
//	SELECT ...                                   (a bare query: the native model's answer)
//
// A trailing semicolon is dropped. "Final SQL query:" twice with different
// queries is refused: the model contradicted itself, and neither is its
// answer more than the other.
func ParseSQL(text string) (string, error) {
	return reward.Extract(text, reward.ExtractOptions{Final: true})
}

// cleanSQL trims space and trailing semicolons: the native model's answer
// is the query itself.
func cleanSQL(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return s
}

// ParseVerdict reads a validator's feedback: true for "Conclude:
// correct.", false for "Conclude: incorrect.". A feedback without a
// conclusion, or with two (even equal ones), is refused: the recipe counts
// it as bad, because a reader cannot tell which part of the text to trust.
func ParseVerdict(text string) (bool, error) {
	m := concludeRe.FindAllStringSubmatch(text, -1)
	switch {
	case len(m) == 0:
		return false, ErrNoConclusion
	case len(m) > 1:
		return false, ErrTwoVerdicts
	}
	return strings.EqualFold(m[0][1], "correct"), nil
}

// ParseChoice reads a selector's answer: 0 for A, 1 for B. The answer's
// last non-empty line must be the choice ("A", "B", "Answer: B", "(A)",
// "Final answer: A."); a reasoning before it is allowed, a line naming
// both is not.
func ParseChoice(text string) (int, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return 0, ErrNoChoice
	}
	m := choiceRe.FindStringSubmatch(last)
	if m == nil {
		return 0, fmt.Errorf("%w: last line %q", ErrNoChoice, textclip.Clip(last, 60))
	}
	if strings.EqualFold(m[1], "a") {
		return 0, nil
	}
	return 1, nil
}
