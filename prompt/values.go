package prompt

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// Value linking. Human questions name entities by their stored values
// ("3-D Man", "Marvel Comics") and leave the column implicit, which a small
// model cannot resolve from names alone. With CatalogOptions.Values the
// catalog indexes each column's distinct short text values, and
// Schema.MatchValues finds those a question quotes, so that a prompt can
// say which column holds them (the anchor texts of BRIDGE, the value
// retrievers of CodeS and CHESS).

// Limits of the value index.
const (
	// DefaultValues is the distinct values indexed per column when value
	// linking is asked for with a non-positive count.
	DefaultValues = 5000
	// ValueScanRows bounds the rows read per column, so that a table of
	// millions of rows costs what a big one does.
	ValueScanRows = 200000
	// MaxValueWords and MaxValueRunes bound an indexed value: longer text
	// is prose, never quoted whole by a question.
	MaxValueWords = 8
	MaxValueRunes = 60
)

// ValueSet is the distinct text values of one column, keyed by their words
// in lower case (valueKey), so that "3-d man" in a question finds '3-D Man'.
// It is shared by every copy of the column and must not be modified.
type ValueSet struct {
	byKey    map[string]string
	maxWords int
}

// NewValueSet indexes values, skipping those no question would quote as a
// name (see linkable); the first of values sharing a key is kept.
func NewValueSet(values []string) *ValueSet {
	v := &ValueSet{byKey: map[string]string{}}
	for _, s := range values {
		words := valueWords(s)
		if !linkable(s, words) {
			continue
		}
		k := strings.Join(words, " ")
		if _, ok := v.byKey[k]; ok {
			continue
		}
		v.byKey[k] = s
		v.maxWords = max(v.maxWords, len(words))
	}
	return v
}

// Len is the number of values indexed.
func (v *ValueSet) Len() int {
	if v == nil {
		return 0
	}
	return len(v.byKey)
}

// valueWords splits s into lower-case runs of letters and digits.
func valueWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// linkable reports whether a value is worth linking: a few words, not a
// number (numbers in questions are counts and years far more often than
// names), and, when one word, neither a stop word nor under three letters
// ("No", "M", "the" would match most questions).
func linkable(s string, words []string) bool {
	if len(words) == 0 || len(words) > MaxValueWords || utf8.RuneCountInString(s) > MaxValueRunes {
		return false
	}
	digits := true
	for _, w := range words {
		for _, r := range w {
			if !unicode.IsDigit(r) {
				digits = false
			}
		}
	}
	if digits {
		return false
	}
	if len(words) == 1 {
		w := words[0]
		if utf8.RuneCountInString(w) < 3 || stopwords[w] {
			return false
		}
	}
	return true
}

// ValueMatch is a stored value that a text quotes.
type ValueMatch struct {
	Table, Column string
	// Value is the value as stored.
	Value string
	// at and words are the match's first word and length in the text.
	at, words int
}

// Limits of MatchValues.
const (
	// maxColumnsPerPhrase: a phrase stored in more columns than this
	// ("Red" as a colour of eyes, hair and skin) is linked to the first
	// ones in schema order only.
	maxColumnsPerPhrase = 3
)

// MatchValues returns, in text order, up to limit stored values that text
// quotes word for word (case and punctuation aside). Longer quotes win: a
// phrase inside a longer matched one ("Man" in "3-D Man") is not matched
// again; a value quoted twice is linked once. Only columns read with CatalogOptions.Values have values.
func (s *Schema) MatchValues(text string, limit int) []ValueMatch {
	type col struct {
		table, column string
		set           *ValueSet
	}
	var cols []col
	maxWords := 0
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if c.Values.Len() > 0 {
				cols = append(cols, col{t.Name, c.Name, c.Values})
				maxWords = max(maxWords, c.Values.maxWords)
			}
		}
	}
	words := valueWords(text)
	if len(cols) == 0 || len(words) == 0 || limit <= 0 {
		return nil
	}
	covered := make([]bool, len(words))
	seen := map[string]bool{} // a value quoted twice is linked once
	var out []ValueMatch
	for n := min(maxWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if slices.Contains(covered[i:i+n], true) {
				continue
			}
			k := strings.Join(words[i:i+n], " ")
			found := 0
			for _, c := range cols {
				if n > c.set.maxWords {
					continue
				}
				v, ok := c.set.byKey[k]
				if !ok || found == maxColumnsPerPhrase {
					continue
				}
				found++
				if key := c.table + "\x00" + c.column + "\x00" + v; !seen[key] {
					seen[key] = true
					out = append(out, ValueMatch{Table: c.table, Column: c.column, Value: v, at: i, words: n})
				}
			}
			if found > 0 {
				for j := i; j < i+n; j++ {
					covered[j] = true
				}
			}
		}
	}
	// Longest first was the matching order; the prompt reads them in the
	// text's order, and keeps the longest when over the limit.
	if len(out) > limit {
		slices.SortStableFunc(out, func(a, b ValueMatch) int { return b.words - a.words })
		out = out[:limit]
	}
	slices.SortStableFunc(out, func(a, b ValueMatch) int { return a.at - b.at })
	return out
}

// values reads up to c.opts.Values distinct text values of a column among
// its first ValueScanRows rows (firstDistinctSQL says which rows). An
// engine whose row cap is below the count (a server's max_rows) is asked
// again for a tenth as many, so that serving reads the schema rather than
// failing on it.
func (c *Catalog) values(ctx context.Context, db string, d Dialect, t *Table, column string) (*ValueSet, error) {
	query := func(limit int) (*sqlexec.Result, error) {
		return c.eng.Query(ctx, db, d.firstDistinctSQL(t, column, ValueScanRows, limit, true, MaxValueRunes))
	}
	res, err := query(c.opts.Values)
	if sqlexec.ClassOf(err) == sqlexec.ClassTooLarge && c.opts.Values > 100 {
		res, err = query(c.opts.Values / 10)
	}
	if err != nil {
		return nil, err
	}
	vals := make([]string, 0, len(res.Rows))
	for _, r := range res.Rows {
		vals = append(vals, r[0].S)
	}
	return NewValueSet(vals), nil
}
