package benchstats

import (
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
)

// sqlShape is what the report reads of one gold.
type sqlShape struct {
	Joins, Subqueries, SetOps, Windows int
	// Case counts CASE expressions and IIF calls: BIRD's golds write a
	// conditional both ways, and a benchmark that only uses one still
	// tests conditionals.
	Case, Cast, Arithmetic, Aggregates int

	GroupBy, Having, OrderLimit, Distinct bool
	NullTest, DateFunc, Like              bool

	// Skeleton is the gold with names and literals masked
	// (sqlparse.Shape.Skeleton).
	Skeleton string
	// Strings are the gold's string literals, unquoted.
	Strings []string
}

// analyzeSQL reads the features and skeleton of a gold with
// sqlparse.Analyze, and its string literals from its tokens.
func analyzeSQL(sql string) (*sqlShape, error) {
	sh, err := sqlparse.Analyze(sql)
	if err != nil {
		return nil, err
	}
	s := &sqlShape{
		Joins: sh.Joins, Subqueries: sh.Subqueries, SetOps: sh.SetOps, Windows: sh.Windows,
		Case: sh.Case, Cast: sh.Cast, Arithmetic: sh.Arithmetic, Aggregates: sh.Aggregates,
		GroupBy: sh.GroupBy > 0, Having: sh.Having > 0, OrderLimit: sh.OrderBy > 0 && sh.Limit > 0,
		Distinct: sh.Distinct > 0, NullTest: sh.NullTests > 0, DateFunc: sh.DateFuncs > 0, Like: sh.Like > 0,
		Skeleton: sh.Skeleton,
	}
	toks := sqlparse.Tokenize(sql)
	prev := -1 // index of the previous non-trivia token
	for i, t := range toks {
		if t.IsTrivia() {
			continue
		}
		switch t.Kind {
		case sqlparse.KindString:
			body := t.Text[1 : len(t.Text)-1]
			s.Strings = append(s.Strings, strings.ReplaceAll(body, "''", "'"))
		case sqlparse.KindPunctuation:
			if t.Text == "(" && prev >= 0 && toks[prev].Kind == sqlparse.KindIdentifier && strings.EqualFold(toks[prev].Text, "iif") {
				s.Case++
			}
		}
		prev = i
	}
	return s, nil
}
