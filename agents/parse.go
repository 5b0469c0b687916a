package agents

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlrl/sqlrl/textclip"
)

// Parse errors: an answer an agent's parser refuses is a failed call,
// recorded with the question and replaced by the stage's fallback.
var (
	ErrNoSQL        = errors.New("no SQL in the answer")
	ErrNoConclusion = errors.New("no \"Conclude: correct.\" or \"Conclude: incorrect.\" in the feedback")
	ErrTwoVerdicts  = errors.New("the feedback concludes more than once")
	ErrNoChoice     = errors.New("no choice of A or B in the answer")
)

var (
	finalSQLRe = regexp.MustCompile(`(?i)final\s+sql\s+query\s*:`)
	fenceRe    = regexp.MustCompile("(?s)```[ \t]*([A-Za-z]*)[ \t]*\n?(.*?)```")
	concludeRe = regexp.MustCompile(`(?i)conclude\s*:\s*\**\s*(correct|incorrect)\b`)
	choiceRe   = regexp.MustCompile(`(?i)^\W*(?:(?:final\s+)?(?:answer|choice|better|winner)\s*(?:is)?\s*:?\s*)?\**\s*\(?([AB])\)?\**\s*\.?\s*$`)
	startSQLRe = regexp.MustCompile(`(?i)^\s*(select|with)\b`)
)

// ParseSQL reads the SQL of a planner's or fixer's answer. Accepted forms,
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
	if locs := finalSQLRe.FindAllStringIndex(text, -1); len(locs) > 0 {
		var got []string
		for k, loc := range locs {
			end := len(text)
			if k+1 < len(locs) {
				end = locs[k+1][0]
			}
			sql, err := sqlAfter(text[loc[1]:end])
			if err != nil {
				return "", err
			}
			got = append(got, sql)
		}
		for _, s := range got[1:] {
			if s != got[0] {
				return "", fmt.Errorf("two different final queries: %q and %q", textclip.Clip(got[0], 60), textclip.Clip(s, 60))
			}
		}
		return got[0], nil
	}
	if blocks := fenceRe.FindAllStringSubmatch(text, -1); len(blocks) > 0 {
		for k := len(blocks) - 1; k >= 0; k-- {
			lang := strings.ToLower(blocks[k][1])
			if lang == "" || lang == "sql" || lang == "sqlite" {
				if sql := cleanSQL(blocks[k][2]); sql != "" {
					return sql, nil
				}
			}
		}
		return "", ErrNoSQL
	}
	if startSQLRe.MatchString(text) {
		if sql := cleanSQL(text); sql != "" {
			return sql, nil
		}
	}
	return "", ErrNoSQL
}

// sqlAfter reads the query that follows "Final SQL query:": a fenced block
// when one starts it, else the text up to a blank line.
func sqlAfter(rest string) (string, error) {
	trim := strings.TrimLeft(rest, " \t\r\n")
	if strings.HasPrefix(trim, "```") {
		if m := fenceRe.FindStringSubmatch(trim); m != nil {
			if sql := cleanSQL(m[2]); sql != "" {
				return sql, nil
			}
		}
		return "", fmt.Errorf("%w: the final query's block is empty or not closed", ErrNoSQL)
	}
	if i := strings.Index(trim, "\n\n"); i >= 0 {
		trim = trim[:i]
	}
	if !startSQLRe.MatchString(trim) {
		return "", fmt.Errorf("%w: \"Final SQL query:\" is not followed by a query", ErrNoSQL)
	}
	return cleanSQL(trim), nil
}

// cleanSQL trims space and trailing semicolons.
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
