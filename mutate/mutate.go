// Package mutate derives deliberately wrong, subtly different, unsafe or
// equivalent SQL from a gold query.
//
// The mutations serve two purposes: test material for the evaluators (each
// kind exercises a specific rule of BIRD's EX / Soft-F1 or of Spider's
// test-suite execution match, see the Kind constants) and, later, hard
// negatives for preference training (chosen = gold, rejected = a mutation
// whose result differs).
//
// Mutations work on tokens from a small internal lexer, so everything not
// mutated (spacing, comments, quoting, case) is kept byte for byte. They do
// not know the schema: a mutation is syntactic and its effect on the result
// depends on the data (for instance flipping ORDER BY direction changes
// nothing when the query returns one row). Only executing both queries tells
// whether a mutation is actually wrong, which is exactly what the evaluators
// are tested on.
//
// Kinds in the "write" and "runaway" categories must never be run against a
// database that matters: they try to modify it or run (almost) forever.
package mutate

import (
	"math/rand"
	"strings"
)

// Mutation is one derived prediction: Kind names the rule that produced it.
type Mutation struct {
	Kind string
	SQL  string
}

// Kind names. The comment on each says why the kind exists.
const (
	// KindGold is not a mutation: BuildSet uses it for the unmodified gold,
	// which must score 1 under every metric.
	KindGold = "gold"

	// KindCompareOp changes one comparison operator (= to <>, < to <=, ...)
	// outside JOIN ... ON conditions. Usually changes the result; sometimes
	// not (> vs >= when no row equals the bound), which tests that verdicts
	// come from results, not from text.
	KindCompareOp = "compare-op"
	// KindLiteralValue changes one literal: an integer n becomes n+1, a
	// decimal gets +1, a string's last letter or digit is bumped ('2019-%'
	// becomes '2010-%'). The classic wrong-value error.
	KindLiteralValue = "literal-value"
	// KindLiteralCase flips the case of the first letter of a string
	// literal. Wrong under = and GLOB, but equal under LIKE, which SQLite
	// matches case-insensitively for ASCII.
	KindLiteralCase = "literal-case"
	// KindDropConjunct drops one AND-conjunct of the main WHERE clause (the
	// whole WHERE when it has one condition). A missing filter: usually more
	// rows.
	KindDropConjunct = "drop-where-conjunct"
	// KindSwapAndOr turns one AND into OR or the reverse inside WHERE or
	// HAVING (never the AND of BETWEEN).
	KindSwapAndOr = "swap-and-or"
	// KindAggregate swaps an aggregate: COUNT->SUM, SUM->COUNT, AVG->SUM,
	// MAX->MIN, MIN->MAX (COUNT(*) is left alone). SUM vs COUNT agree when
	// every summed value is 1, a real coincidence in BIRD data.
	KindAggregate = "aggregate"
	// KindDistinct adds DISTINCT to the main SELECT, or removes it. BIRD EX
	// compares sets, so it never notices; Spider's evaluator deletes every
	// DISTINCT before running (keep_distinct False), so it never notices
	// either. Only a bag comparison would.
	KindDistinct = "distinct"
	// KindCountDistinct toggles DISTINCT inside COUNT(...). A real error for
	// BIRD (the count changes), invisible to Spider's evaluator, which
	// strips DISTINCT tokens everywhere, COUNT(DISTINCT x) included.
	KindCountDistinct = "count-distinct"
	// KindReorderSelect swaps two columns of the main SELECT list. Spider's
	// execution match allows column permutations (still correct); BIRD's
	// EX compares row tuples (wrong).
	KindReorderSelect = "reorder-select"
	// KindDropSelectColumn removes one column of a multi-column SELECT.
	// Wrong under EX; partial credit under Soft-F1.
	KindDropSelectColumn = "drop-select-column"
	// KindLimit changes LIMIT n to n+1, or appends LIMIT 1. Often harmless
	// (one-row results), otherwise fewer or more rows.
	KindLimit = "limit"
	// KindOrderDirection flips the direction of the first ORDER BY key (or
	// adds DESC). BIRD ignores row order; Spider compares rows as lists when
	// the gold has ORDER BY. Combined with LIMIT it changes the rows.
	KindOrderDirection = "order-direction"
	// KindIntText swaps an integer literal and its quoted text form
	// (1 <-> '1'). In a comparison with a numeric column SQLite's affinity
	// rules convert it back (same result); in a SELECT list 1 and '1'
	// differ, and both evaluators say so (Python 1 != '1').
	KindIntText = "int-text-literal"
	// KindCastReal removes a CAST(x AS REAL) (integer division returns) or
	// wraps the left operand of a division in one. The most common BIRD
	// ratio bug.
	KindCastReal = "cast-real"
	// KindDuplicateJoin cross-joins the first FROM item with a two-row
	// derived table, so every row appears twice (aggregates double). Same
	// set for BIRD when no aggregate is involved, different bag for Spider.
	KindDuplicateJoin = "duplicate-join"

	// KindUnknownColumn misspells one column reference: "no such column".
	// Caveat kept on purpose: SQLite treats an unknown double-quoted
	// identifier as a string literal, so a misspelt "name" is not an error.
	KindUnknownColumn = "unknown-column"
	// KindUnknownTable misspells one table name: "no such table".
	KindUnknownTable = "unknown-table"
	// KindSyntaxError breaks the syntax (FROM -> FORM, or a missing ")").
	KindSyntaxError = "syntax-error"
	// KindMultiStatement appends a second, read-only statement ("; SELECT
	// 1"). Python's sqlite3 refuses to run more than one statement, so both
	// official evaluators score it 0; a driver that silently runs only the
	// first statement would score it as the gold.
	KindMultiStatement = "multi-statement"

	// KindTrailingSemicolon adds a trailing ";" (or removes one): must score
	// like the gold.
	KindTrailingSemicolon = "trailing-semicolon"
	// KindKeywordCase flips the case of every keyword: must score like the
	// gold.
	KindKeywordCase = "keyword-case"

	// KindWriteDelete is a DELETE FROM a table the gold reads.
	KindWriteDelete = "write-delete"
	// KindWriteDrop is a DROP TABLE.
	KindWriteDrop = "write-drop"
	// KindWriteUpdate is an UPDATE of every row's rowid.
	KindWriteUpdate = "write-update"
	// KindWriteInsert is an INSERT ... DEFAULT VALUES.
	KindWriteInsert = "write-insert"
	// KindWriteCTEDelete is a DELETE hidden behind a WITH clause, the form
	// that starts with WITH and so slips past "must start with SELECT/WITH"
	// filters.
	KindWriteCTEDelete = "write-cte-delete"
	// KindWriteAttach attaches a new database file (creates it on disk).
	KindWriteAttach = "write-attach"
	// KindWritePragma turns on PRAGMA writable_schema.
	KindWritePragma = "write-pragma"
	// KindWriteMultiStatement is the gold followed by "; DELETE FROM t".
	KindWriteMultiStatement = "write-multi-statement"

	// KindRunawayCrossJoin counts a cross join of three copies of every
	// table the gold reads: usually far more rows than any time limit
	// allows (with tiny tables it may still finish).
	KindRunawayCrossJoin = "runaway-cross-join"
	// KindRunawayRecursive counts an unbounded recursive CTE: never ends.
	KindRunawayRecursive = "runaway-recursive"
)

// Categories of kinds.
const (
	// CategoryResult kinds change the query so that the result may differ.
	CategoryResult = "result"
	// CategoryError kinds should fail to execute (or be refused).
	CategoryError = "error"
	// CategoryEquivalent kinds must give the gold's result.
	CategoryEquivalent = "equivalent"
	// CategoryWrite kinds try to modify the database.
	CategoryWrite = "write"
	// CategoryRunaway kinds run far longer than any sane time limit.
	CategoryRunaway = "runaway"
)

type kindDef struct {
	name     string
	category string
	fn       func(q *query, rng *rand.Rand) (string, bool)
}

// registry lists every kind in the order Mutations returns them.
var registry = []kindDef{
	{KindCompareOp, CategoryResult, mCompareOp},
	{KindLiteralValue, CategoryResult, mLiteralValue},
	{KindLiteralCase, CategoryResult, mLiteralCase},
	{KindDropConjunct, CategoryResult, mDropConjunct},
	{KindSwapAndOr, CategoryResult, mSwapAndOr},
	{KindAggregate, CategoryResult, mAggregate},
	{KindDistinct, CategoryResult, mDistinct},
	{KindCountDistinct, CategoryResult, mCountDistinct},
	{KindReorderSelect, CategoryResult, mReorderSelect},
	{KindDropSelectColumn, CategoryResult, mDropSelectColumn},
	{KindLimit, CategoryResult, mLimit},
	{KindOrderDirection, CategoryResult, mOrderDirection},
	{KindIntText, CategoryResult, mIntText},
	{KindCastReal, CategoryResult, mCastReal},
	{KindDuplicateJoin, CategoryResult, mDuplicateJoin},
	{KindUnknownColumn, CategoryError, mUnknownColumn},
	{KindUnknownTable, CategoryError, mUnknownTable},
	{KindSyntaxError, CategoryError, mSyntaxError},
	{KindMultiStatement, CategoryError, mMultiStatement},
	{KindTrailingSemicolon, CategoryEquivalent, mTrailingSemicolon},
	{KindKeywordCase, CategoryEquivalent, mKeywordCase},
	{KindWriteDelete, CategoryWrite, writeWith("DELETE FROM %t")},
	{KindWriteDrop, CategoryWrite, writeWith("DROP TABLE %t")},
	{KindWriteUpdate, CategoryWrite, writeWith("UPDATE %t SET rowid = rowid + 1000000")},
	{KindWriteInsert, CategoryWrite, writeWith("INSERT INTO %t DEFAULT VALUES")},
	{KindWriteCTEDelete, CategoryWrite, writeWith("WITH x AS (SELECT 1) DELETE FROM %t")},
	{KindWriteAttach, CategoryWrite, writeWith("ATTACH DATABASE 'sqlrl_attach_probe.sqlite' AS probe")},
	{KindWritePragma, CategoryWrite, writeWith("PRAGMA writable_schema = ON")},
	{KindWriteMultiStatement, CategoryWrite, mWriteMultiStatement},
	{KindRunawayCrossJoin, CategoryRunaway, mRunawayCrossJoin},
	{KindRunawayRecursive, CategoryRunaway, mRunawayRecursive},
}

// Kinds returns every mutation kind, in the order Mutations tries them.
func Kinds() []string {
	out := make([]string, len(registry))
	for i, k := range registry {
		out[i] = k.name
	}
	return out
}

// SafeKinds returns the kinds that neither write nor run away: the ones that
// may be run against a shared database copy by an evaluator that does not
// protect itself (BIRD's official script opens databases read-write).
func SafeKinds() []string {
	var out []string
	for _, k := range registry {
		if !IsUnsafe(k.name) {
			out = append(out, k.name)
		}
	}
	return out
}

// UnsafeKinds returns the write and runaway kinds.
func UnsafeKinds() []string {
	var out []string
	for _, k := range registry {
		if IsUnsafe(k.name) {
			out = append(out, k.name)
		}
	}
	return out
}

// Category returns the category of kind (one of the Category constants;
// CategoryEquivalent for KindGold), or "" for an unknown kind.
func Category(kind string) string {
	if kind == KindGold {
		return CategoryEquivalent
	}
	for _, k := range registry {
		if k.name == kind {
			return k.category
		}
	}
	return ""
}

// IsUnsafe reports whether kind writes to the database or runs away.
func IsUnsafe(kind string) bool {
	c := Category(kind)
	return c == CategoryWrite || c == CategoryRunaway
}

// Mutations returns at most one mutation per kind (see Kinds), in kind
// order, each with SQL different from sql and from every other returned
// mutation. rng chooses where to mutate when there are several places; a
// nil rng always takes the first place, so the result is deterministic.
// Kinds that do not apply to sql (no WHERE to drop a conjunct from, ...) are
// left out.
func Mutations(sql string, rng *rand.Rand) []Mutation {
	q := newQuery(sql)
	seen := map[string]bool{sql: true}
	var out []Mutation
	for _, k := range registry {
		m, ok := k.fn(q, rng)
		if !ok || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, Mutation{Kind: k.name, SQL: m})
	}
	return out
}

// matchCase returns repl upper-cased, or lower-cased when orig has no
// upper-case letter.
func matchCase(orig, repl string) string {
	if strings.ToLower(orig) == orig {
		return strings.ToLower(repl)
	}
	return strings.ToUpper(repl)
}

// stripTerminator returns sql without trailing whitespace and semicolons.
func stripTerminator(sql string) string {
	return strings.TrimRight(sql, " \t\r\n;")
}
