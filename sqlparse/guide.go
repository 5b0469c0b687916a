package sqlparse

import (
	"slices"
	"strings"
)

// A Guide constrains a model's SQL to one database, as PICARD does for
// sequence-to-sequence models: a decoder asks it, token by token, whether a
// piece of text may come next, and takes the most likely piece it accepts.
// A small model's commonest errors are names it half-copies from the prompt
// ("client_i", "purchase_dat") and clauses it never closes; neither can be
// written under a guide. It checks the SQL lexically, with the schema:
//
//   - an unquoted word must be an SQL keyword or function, a table or column
//     of the database, an alias ("T1", or any name after AS), or a number;
//     while it is being written it must be a prefix of one;
//   - after "X." the word must be a column of X's table (or of any table
//     when X is an alias not yet defined, as in SELECT T1.a FROM t AS T1);
//   - a name quoted with "", “ or [] must be a table or column name;
//   - ')' must close an open '('; nothing but spaces follows ';';
//   - the SQL may end only outside quotes, with every '(' closed and its last
//     word complete.
//
// String literals are free: values come from the question. A Guide is
// immutable and safe for concurrent use; each completion uses its own
// GuideState.
type Guide struct {
	words   []string // keywords and functions, sorted
	tables  []string // sorted, lower case
	columns []string // all columns, sorted, lower case
	cols    map[string][]string
}

// NewGuide returns the guide of a database whose tables map to their
// columns. Names are matched without regard to case.
func NewGuide(tables map[string][]string) *Guide {
	g := &Guide{words: guideWords, cols: map[string][]string{}}
	seen := map[string]bool{}
	for t, cs := range tables {
		lt := strings.ToLower(t)
		g.tables = append(g.tables, lt)
		var lc []string
		for _, c := range cs {
			c = strings.ToLower(c)
			lc = append(lc, c)
			if !seen[c] {
				seen[c] = true
				g.columns = append(g.columns, c)
			}
		}
		slices.Sort(lc)
		g.cols[lt] = lc
	}
	slices.Sort(g.tables)
	slices.Sort(g.columns)
	return g
}

// Start returns the state of an empty completion.
func (g *Guide) Start() *GuideState { return &GuideState{g: g, aliases: map[string]string{}} }

// GuideState is the guide's view of one completion so far.
type GuideState struct {
	g       *Guide
	mode    byte   // 0 outside quotes, else the open quote: ' " ` [
	word    string // unquoted word being written, lower case
	quoted  string // quoted name being written, lower case
	depth   int
	qual    string // "X" while a word after "X." is written; "." alone when X is unknown
	prev    string // last complete word, "" after punctuation
	prev2   string // the word before prev
	ended   bool   // after ';'
	any     bool   // something other than spaces was written
	aliases map[string]string
	// pending alias definitions made while checking (not committed)
	defs [][2]string
}

// Allow reports whether piece may follow the completion so far, or, with
// end, whether the completion may end after piece.
func (s *GuideState) Allow(piece string, end bool) bool {
	t := *s
	t.defs = nil
	for i := 0; i < len(piece); i++ {
		if !t.feed(piece[i]) {
			return false
		}
	}
	if end {
		return t.canEnd()
	}
	return true
}

// Advance commits piece, which Allow accepted.
func (s *GuideState) Advance(piece string) {
	for i := 0; i < len(piece); i++ {
		s.feed(piece[i])
	}
	for _, d := range s.defs {
		s.aliases[d[0]] = d[1]
	}
	s.defs = nil
}

func (s *GuideState) canEnd() bool {
	if s.mode != 0 || s.depth != 0 || !s.any || s.qual != "" && s.word == "" {
		return false
	}
	return s.word == "" || s.complete()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// feed takes one byte; false means the text can no longer be valid SQL on
// this database.
func (s *GuideState) feed(c byte) bool {
	switch s.mode {
	case '\'':
		if c == '\'' {
			s.mode = 0
			s.prev, s.prev2 = "", s.prev
		}
		return true
	case '"', '`', '[':
		closer := s.mode
		if closer == '[' {
			closer = ']'
		}
		if c == closer {
			ok := s.nameIn(s.quoted, false)
			s.mode, s.qual = 0, ""
			s.prev2, s.prev = s.prev, s.quoted
			s.quoted = ""
			return ok
		}
		s.quoted += string(lower(c))
		return s.nameIn(s.quoted, true)
	}
	if s.ended {
		return c == ' ' || c == '\n' || c == '\t' || c == '\r'
	}
	if isWordByte(c) || c == '.' && isNumber(s.word) {
		s.word += string(lower(c))
		s.any = true
		return s.prefixOK()
	}
	if s.word != "" {
		if !s.complete() {
			return false
		}
		s.endWord()
	}
	switch c {
	case ' ', '\n', '\t', '\r':
		return true
	}
	s.any = true
	s.prev, s.prev2 = "", s.prev
	switch c {
	case '.':
		if s.qual != "" {
			return false
		}
		// the qualifier is the word just completed
		q := s.prev2
		if q == "" {
			return false
		}
		s.qual = q
		s.prev2 = ""
		return true
	case '*':
		if s.qual != "" {
			s.qual = ""
		}
		return true
	case '(':
		s.depth++
	case ')':
		if s.depth == 0 {
			return false
		}
		s.depth--
	case ';':
		if s.depth != 0 {
			return false
		}
		s.ended = true
	case '\'', '"', '`', '[':
		s.mode = c
		if c != '\'' {
			s.quoted = ""
			return true
		}
	}
	if s.qual != "" && c != '"' && c != '`' && c != '[' {
		return false // "X." must be followed by a column
	}
	return true
}

func isNumber(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// endWord records a completed unquoted word.
func (s *GuideState) endWord() {
	w := s.word
	if s.prev == "as" && s.qual == "" {
		table := ""
		if s.prev2 != "" && s.isTable(s.prev2) {
			table = s.prev2
		}
		s.defs = append(s.defs, [2]string{w, table})
	}
	s.prev2, s.prev = s.prev, w
	s.word, s.qual = "", ""
}

// prefixOK reports whether the word being written can still become an
// acceptable word.
func (s *GuideState) prefixOK() bool {
	w := s.word
	if isNumber(w) {
		return true
	}
	if s.qual != "" {
		return hasPrefix(s.colsOf(s.qual), w)
	}
	if s.prev == "as" {
		return true
	}
	if isAliasLike(w, true) {
		return true
	}
	if hasPrefix(s.g.words, w) || hasPrefix(s.g.tables, w) || hasPrefix(s.g.columns, w) {
		return true
	}
	for a := range s.aliases {
		if strings.HasPrefix(a, w) {
			return true
		}
	}
	for _, d := range s.defs {
		if strings.HasPrefix(d[0], w) {
			return true
		}
	}
	return false
}

// complete reports whether the word being written is acceptable as it is.
func (s *GuideState) complete() bool {
	w := s.word
	if isNumber(w) {
		return true
	}
	if s.qual != "" {
		return has(s.colsOf(s.qual), w)
	}
	if s.prev == "as" || isAliasLike(w, false) {
		return true
	}
	if has(s.g.words, w) || has(s.g.tables, w) || has(s.g.columns, w) {
		return true
	}
	if _, ok := s.aliases[w]; ok {
		return true
	}
	for _, d := range s.defs {
		if d[0] == w {
			return true
		}
	}
	return false
}

// nameIn checks a quoted name (or its prefix) against the schema.
func (s *GuideState) nameIn(n string, prefix bool) bool {
	lists := [][]string{s.g.tables, s.g.columns}
	if s.qual != "" {
		lists = [][]string{s.colsOf(s.qual)}
	}
	for _, l := range lists {
		if prefix && hasPrefix(l, n) || !prefix && has(l, n) {
			return true
		}
	}
	return false
}

func (s *GuideState) isTable(w string) bool { return has(s.g.tables, w) }

// colsOf returns the columns a name qualified by q may be: q's table's, or
// every column when q is an alias not (yet) bound to a table.
func (s *GuideState) colsOf(q string) []string {
	if c, ok := s.g.cols[q]; ok {
		return c
	}
	if t := s.aliases[q]; t != "" {
		return s.g.cols[t]
	}
	return s.g.columns
}

// isAliasLike accepts the aliases models write before defining them: T1,
// T2, ... (and, as a prefix, "t").
func isAliasLike(w string, prefix bool) bool {
	if len(w) == 0 || w[0] != 't' {
		return false
	}
	if len(w) == 1 {
		return prefix
	}
	for i := 1; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

func has(sorted []string, w string) bool {
	_, ok := slices.BinarySearch(sorted, w)
	return ok
}

func hasPrefix(sorted []string, p string) bool {
	i, _ := slices.BinarySearch(sorted, p)
	return i < len(sorted) && strings.HasPrefix(sorted[i], p)
}

// guideWords are SQLite's keywords and the functions SQL for BIRD and
// Spider uses, lower case and sorted.
var guideWords = func() []string {
	w := strings.Fields(`abort action add after all alter always analyze and as asc attach
		autoincrement before begin between by cascade case cast check collate column commit
		conflict constraint create cross current current_date current_time current_timestamp
		database default deferrable deferred delete desc detach distinct do drop each else end
		escape except exclude exclusive exists explain fail filter first following for foreign
		from full generated glob group groups having if ignore immediate in index indexed
		initially inner insert instead intersect into is isnull join key last left like limit
		match materialized natural no not nothing notnull null nulls of offset on or order others
		outer over partition plan pragma preceding primary query raise range recursive references
		regexp reindex release rename replace restrict returning right rollback row rows savepoint
		select set table temp temporary then ties to transaction trigger true false unbounded union
		unique update using vacuum values view virtual when where window with without
		abs avg count sum total min max round coalesce ifnull iif nullif length lower upper substr
		substring instr trim ltrim rtrim strftime date time datetime julianday unixepoch printf
		format group_concat string_agg random typeof hex char unicode sign sqrt pow power log log10
		ln exp floor ceil ceiling mod pi quote zeroblob likely unlikely changes
		real integer int text float numeric decimal varchar double boolean blob
		row_number rank dense_rank ntile lag lead first_value last_value nth_value percent_rank
		cume_dist`)
	slices.Sort(w)
	return slices.Compact(w)
}()
