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
//   - an unquoted word must be an SQL keyword or function (written in one
//     case), a table or column of the database, an alias ("T1", or any name
//     after AS), or a number (digits and a point); while it is being written
//     it must be a prefix of one; right after FROM or JOIN, a table;
//   - after "X." the word must be a column of X's table (or of any table
//     when X is an alias not yet defined, as in SELECT T1.a FROM t AS T1);
//   - a name quoted with double quotes, backquotes or brackets must be a
//     table or column name (right after FROM or JOIN, a table);
//   - ')' must close an open '('; nothing but spaces follows ';';
//   - clauses come in order within a query (SELECT, FROM and its joins,
//     WHERE, GROUP BY, HAVING, ORDER BY, LIMIT; a compound operator starts
//     over), and not inside an expression's parentheses or a CASE: the
//     "SUM(x FROM" and "CASE WHEN a THEN 1 INNER JOIN" of a model that has
//     lost its place cannot be written;
//   - operands and operators alternate: after an operand (a name, a value,
//     ')') come only operators and keywords such as AND, IN, AS or a clause,
//     not another operand or a function ("WHERE pages 200", "town count");
//     after an operator, AND, OR, IS, IN, LIKE, BETWEEN, WHEN, THEN, ELSE, a
//     clause or '(' comes an operand, not another operator, ',' or ')'
//     ("town AND =", "town IS AND", "IN AND", "(x AND)"); the keyword pairs
//     NOT IN/LIKE/BETWEEN, GROUP/ORDER/PARTITION BY, LEFT [OUTER] JOIN,
//     UNION ALL and CASE WHEN are the exceptions, and NOT may start an
//     operand anywhere; a keyword that is also a name ("date" as a column,
//     an alias "total") counts as an operand;
//   - GROUP, ORDER and PARTITION are followed by BY, and BY comes nowhere
//     else; ASC and DESC only in ORDER BY, after a term, and followed by a
//     keyword or ',', not an operand; DISTINCT only after SELECT, '(' or IS;
//   - a CASE goes WHEN ... THEN ... (WHEN ... THEN ...)* [ELSE ...] END:
//     no ELSE or END before a THEN, no THEN without its WHEN, one ELSE;
//     WHEN, THEN, ELSE and END only inside a CASE;
//   - AS only in the select list, FROM or an expression at a query's level,
//     not inside a CASE and, within parentheses, only once in CAST(x AS
//     type), where a type name (REAL, INTEGER, TEXT, ...) must follow and
//     CAST's ')' needs it; an alias after AS has no '.';
//   - a table's name (or a table's alias: T1, T2, ...) is no column: outside
//     FROM it must be followed by '.'; and '.' follows only a table or an
//     alias, not a column or a keyword ("surname.", "COUNT."); "X." is
//     followed by its column at once, and "X.*" only in a select list;
//   - IN is followed by '(' ("hometown IN 2001" is refused);
//   - a comma does not come in a WHERE or HAVING condition outside its
//     parentheses (a condition is no list: "WHERE T1.surname, [x] = 1"),
//     and no comment starts ("--", "/*");
//   - characters that are not SQL outside quotes (']', '{', '?', ...) and
//     letters glued to digits ("20THEN") are refused;
//   - the SQL may end, or ';' come, only outside quotes and parentheses,
//     after an operand (or ASC/DESC), with every CASE closed, a SELECT
//     written, and every alias T0..T63 it uses defined; a compound
//     operator (UNION, ...) likewise needs the aliases of the query before
//     it defined, and the query after it names its own tables T1, T2, ...
//     afresh; a quoted table after FROM or JOIN counts as the unquoted.
//
// An outer select list that names the aliases of its FROM subquery before
// the subquery defines them ("SELECT grp FROM (SELECT x AS grp ...") is
// refused: admitting unknown names there would admit half-copied ones.
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
// columns. Names are matched without regard to case. words are the SQL
// keywords and functions the model may write; nil means SQLite's keywords
// and the common functions (DefaultWords). A model trained on a benchmark
// is best held to the words of its training SQL (Words): a word it never
// learned to use is only ever a symptom of its confusion.
func NewGuide(tables map[string][]string, words []string) *Guide {
	if words == nil {
		words = guideWords
	} else {
		words = slices.Clone(words)
		for i, w := range words {
			words[i] = strings.ToLower(w)
		}
		slices.Sort(words)
		words = slices.Compact(words)
	}
	g := &Guide{words: words, cols: map[string][]string{}}
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
func (g *Guide) Start() *GuideState {
	st := &GuideState{g: g, aliases: map[string]string{}}
	st.fr[0] = frame{kind: frameQuery, clause: -1}
	return st
}

// maxFrames bounds nested parentheses; frames are an array so that Allow's
// copy of a state is a plain value copy.
const maxFrames = 24

// A frame is one level of parentheses (the SQL itself is level 0).
type frame struct {
	kind   byte // frameQuery, frameExpr or frameFree
	clause int8 // in a query: the rank of the last clause (-1: before SELECT)
	cases  int8 // CASEs not yet ENDed
	fresh  bool // nothing written since '('
	sub    bool // opened right after FROM or JOIN: a subquery, SELECT first
	tables int8 // tables named after FROM or JOIN so far
	// opened right after CAST: AS (once, outside a CASE) and a type name
	// may come; castAs: the AS was written
	cast, castAs bool
	// caseSt holds, two bits per open CASE (the innermost highest), where
	// each CASE is: caseOpen, caseWhen, caseThen or caseElse
	caseSt uint64
}

// Stages of a CASE: WHEN ... THEN ... (WHEN ... THEN ...)* [ELSE ...] END.
const (
	caseOpen = iota // after CASE (or CASE x): WHEN
	caseWhen        // after WHEN: THEN
	caseThen        // after THEN: WHEN, ELSE or END
	caseElse        // after ELSE: END
)

// caseStage returns the stage of the innermost open CASE.
func (f *frame) caseStage() uint64 { return f.caseSt >> (2 * uint(f.cases-1)) & 3 }

// setCase sets the stage of the innermost open CASE.
func (f *frame) setCase(st uint64) {
	sh := 2 * uint(f.cases-1)
	f.caseSt = f.caseSt&^(3<<sh) | st<<sh
}

// caseWord moves the CASEs of f on by keyword w (CASE, WHEN, THEN, ELSE or
// END; placeOK checked it may come).
func (f *frame) caseWord(w string) {
	switch w {
	case "case":
		if f.cases < 31 {
			f.cases++
			f.setCase(caseOpen)
		}
	case "when":
		f.setCase(caseWhen)
	case "then":
		f.setCase(caseThen)
	case "else":
		f.setCase(caseElse)
	case "end":
		if f.cases > 0 {
			f.setCase(0)
			f.cases--
		}
	}
}

// castTypes are the type names CAST(x AS ...) may name.
var castTypes = []string{"bigint", "blob", "boolean", "char", "character", "clob", "date", "datetime",
	"decimal", "double", "float", "int", "integer", "mediumint", "nchar", "numeric", "nvarchar", "real",
	"smallint", "text", "timestamp", "tinyint", "varchar"}

// aliasRef is a column used through an alias Tn before the alias is bound.
type aliasRef struct {
	n   uint8
	col string
}

const (
	frameQuery = 'q' // a query: clauses in order
	frameExpr  = 'e' // an expression: no clauses (a SELECT first makes it a query)
	frameFree  = 'f' // OVER (...) and FILTER (...): not checked
)

// clauseRank orders a query's clauses.
var clauseRank = map[string]int8{"select": 0, "from": 1, "where": 2, "group": 3, "having": 4, "order": 5, "limit": 6}

// afterOperand are the keywords that may follow an operand: operators,
// clauses and the like, not functions or values.
var afterOperand = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`and or not in is isnull notnull like glob regexp match between escape
		collate as asc desc nulls first last from where group having order by limit offset union intersect
		except all join inner left right full cross natural outer on using when then else end over filter window`) {
		m[w] = true
	}
	return m
}()

// operandWords are keywords that are values.
var operandWords = map[string]bool{"null": true, "true": true, "false": true, "end": true,
	"current_date": true, "current_time": true, "current_timestamp": true}

// structural words other than clauses: joins (inside FROM only), compound
// operators, OFFSET (after LIMIT).
var joinWords = map[string]bool{"join": true, "inner": true, "left": true, "right": true, "full": true,
	"cross": true, "natural": true, "outer": true, "on": true, "using": true}
var compoundWords = map[string]bool{"union": true, "intersect": true, "except": true}

// placeOK reports whether the keyword w may come here, given the open
// frames.
func (s *GuideState) placeOK(w string) bool {
	f := s.fr[s.depth]
	if f.kind == frameFree {
		return true
	}
	if s.operand && !afterOperand[w] {
		return false // "town count", "x strftime": an operand cannot follow one
	}
	if !s.termEnd() && afterOperand[w] && !s.keywordFollows(w) {
		return false // "town AND =", "town IS AND", "IN AND": an operator, clause or the like wants an operand before it
	}
	switch w {
	case "when":
		return f.cases > 0 && (f.caseStage() == caseOpen || f.caseStage() == caseThen)
	case "then":
		return f.cases > 0 && f.caseStage() == caseWhen
	case "else":
		return f.cases > 0 && f.caseStage() == caseThen
	case "end":
		return f.cases > 0 && (f.caseStage() == caseThen || f.caseStage() == caseElse)
	case "asc", "desc":
		return f.kind == frameQuery && f.clause == clauseRank["order"]
	case "by":
		return s.wantBy // "x BY": only GROUP, ORDER and PARTITION BY
	case "distinct":
		// SELECT DISTINCT, COUNT(DISTINCT x), IS [NOT] DISTINCT FROM
		return s.kw && (s.prev == "select" || s.prev == "is" || s.prev == "not" && s.prev2 == "is") ||
			f.kind == frameExpr && f.fresh
	case "as":
		if f.cases > 0 {
			return false // "CASE WHEN a THEN b AS"
		}
		if f.kind == frameExpr {
			return f.cast && !f.castAs // in parentheses only CAST(x AS type)
		}
		return f.clause <= clauseRank["from"]
	}
	if compoundWords[w] && s.depth == 0 && s.tref&^s.tdef != 0 {
		return false // the query before UNION uses an alias it never defines
	}
	r, isClause := clauseRank[w]
	structural := isClause || joinWords[w] || compoundWords[w] || w == "offset"
	if !structural {
		return true
	}
	if f.kind == frameExpr {
		return w == "select" && f.fresh
	}
	if f.cases > 0 {
		return false
	}
	switch {
	case isClause && r == 0:
		return f.clause == -1
	case isClause:
		return f.clause >= 0 && r > f.clause
	case joinWords[w]:
		return f.clause == 1
	case compoundWords[w]:
		return f.clause >= 0
	}
	return f.clause == 6 // offset
}

// place records keyword w (which placeOK accepted) in the open frame.
func (s *GuideState) place(w string) {
	f := &s.fr[s.depth]
	if f.kind == frameExpr && w == "select" {
		f.kind = frameQuery
	}
	f.fresh = false
	switch w {
	case "case", "when", "then", "else", "end":
		f.caseWord(w)
		return
	case "as":
		if f.kind == frameExpr && f.cast {
			f.castAs = true
		}
	}
	if f.kind != frameQuery {
		return
	}
	switch {
	case compoundWords[w]:
		f.clause = -1
		if s.depth == 0 {
			// a new query: its tables and aliases T1, T2, ... are its own
			f.tables = 0
			s.tref, s.tdef, s.refs, s.defs = 0, 0, nil, nil
			s.aliases = map[string]string{}
		}
	default:
		if r, ok := clauseRank[w]; ok {
			f.clause = r
		}
	}
}

// termEnd reports whether what was written last ends a term: an operand,
// or an ORDER BY term's ASC, DESC or NULLS FIRST/LAST, or a keyword that
// is also a name of the database ("date", "rank" as columns).
func (s *GuideState) termEnd() bool { return s.operand || s.kwName || s.afterOrder() }

// afterOrder reports whether an ORDER BY term's ASC, DESC or NULLS
// FIRST/LAST was written last: a keyword or ',' follows, not an operand.
func (s *GuideState) afterOrder() bool {
	return s.kw && (s.prev == "asc" || s.prev == "desc" || (s.prev == "first" || s.prev == "last") && s.prev2 == "nulls")
}

// keywordFollows reports whether w, one of the keywords that follow an
// operand, may follow the keyword just written without an operand between:
// NOT before an operand, NOT IN, GROUP BY, LEFT JOIN, UNION ALL, IS NOT
// DISTINCT FROM, CASE WHEN.
func (s *GuideState) keywordFollows(w string) bool {
	if !s.kw {
		return w == "not" // after '(', ',' or an operator: NOT x
	}
	p := s.prev
	switch w {
	case "not":
		return true
	case "in", "like", "glob", "regexp", "match", "between":
		return p == "not"
	case "by":
		return p == "group" || p == "order" || p == "partition"
	case "join":
		return joinWords[p] && p != "on" && p != "using"
	case "outer":
		return p == "left" || p == "right" || p == "full" || p == "natural"
	case "inner", "left", "right", "full", "cross":
		return p == "natural"
	case "all":
		return compoundWords[p] || p == "select"
	case "from":
		return p == "distinct" && (s.prev2 == "is" || s.prev2 == "not")
	case "when":
		return p == "case"
	case "first", "last":
		return p == "nulls"
	}
	return false
}

// GuideState is the guide's view of one completion so far.
type GuideState struct {
	g      *Guide
	mode   byte   // 0 outside quotes, else the open quote: ' " ` [
	word   string // unquoted word being written, lower case
	quoted string // quoted name being written, lower case
	// quotedTable: the quoted name is written right after FROM or JOIN
	quotedTable bool
	depth       int
	fr          [maxFrames]frame
	qual        string // "X" while a word after "X." is written; "." alone when X is unknown
	prev        string // last complete word, "" after punctuation
	prev2       string // the word before prev
	ended       bool   // after ';'
	spaces      int    // the run of whitespace bytes just written, outside quotes
	any         bool   // something other than spaces was written
	operand     bool   // the last thing written completes an operand (a name, a value, ')')
	quoteEnd    bool   // the last byte closed a string
	// opChar is the last byte when it was an operator character (0 when
	// not): a second may follow ("<=", "!=", "||"), not one that starts a
	// comment ("--")
	opChar byte
	// the last word was a table named after FROM or JOIN: an alias, a
	// join or a clause may follow, not an operator ("FROM flt%")
	afterTable bool
	// aliases T0..T63 used (tref) and defined after AS (tdef): a query
	// may not end using one it never defines
	tref, tdef uint64
	// refs are the columns used through T1, T2, ... (appended copy-on-write:
	// Allow's copy of the state shares the array)
	refs []aliasRef
	// kw: the last word was a keyword; kwName: a keyword that is also a
	// table or column name
	kw, kwName bool
	// wantBy: the last word was GROUP, ORDER or PARTITION: BY must follow
	wantBy bool
	// bareTable: the last word was a table's name where a column goes; only
	// '.' may follow (or, in FROM, what follows a table)
	bareTable bool
	// aliasDef: the last word was an alias after AS: no '.' follows
	aliasDef bool
	// the word being written has upper-case and lower-case letters: a
	// keyword is written in one case ("GROUP_ConCaT" is a name or nothing)
	upper, lowerCase bool
	aliases          map[string]string
	// pending alias definitions made while checking (not committed)
	defs [][2]string
}

// The most whitespace a completion may start with, and the longest run of
// it anywhere outside quotes (an indented line of formatted SQL fits).
const (
	maxLeadingSpace = 2
	maxSpaceRun     = 16
)

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

// Clone returns an independent copy of s.
func (s *GuideState) Clone() *GuideState {
	t := *s
	t.defs = nil
	t.aliases = make(map[string]string, len(s.aliases))
	for k, v := range s.aliases {
		t.aliases[k] = v
	}
	return &t
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
	if s.word != "" {
		if !s.complete() {
			return false
		}
		t := *s
		t.defs = nil
		if !t.endWord() {
			return false
		}
		return t.endable()
	}
	return s.endable()
}

// endable reports whether a query may end in state s (its last word
// complete): at level 0 after a SELECT, no CASE open, and after an operand
// or ASC/DESC, not after an operator or a keyword that wants more.
func (s *GuideState) endable() bool {
	return s.depth == 0 && s.fr[0].cases == 0 && s.fr[0].clause >= 0 && s.termEnd() && !s.wantBy && !s.tableAsColumn() && s.tref&^s.tdef == 0
}

// tableAsColumn reports whether the last word is a table's name used
// where a column goes (outside FROM, not before '.'): "WHERE item = 1" on
// a database whose table item has no column item.
func (s *GuideState) tableAsColumn() bool {
	f := s.fr[s.depth]
	return s.bareTable && f.kind != frameFree && !(f.kind == frameQuery && f.clause == clauseRank["from"])
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
			s.operand, s.quoteEnd = true, true
		}
		return true
	case '"', '`', '[':
		closer := s.mode
		if closer == '[' {
			closer = ']'
		}
		if c == closer {
			ok := s.nameIn(s.quoted, false)
			if s.quotedTable {
				ok = ok && s.tableOK(s.quoted)
				s.fr[s.depth].tables++
				s.afterTable = true
			}
			s.kw, s.kwName, s.bareTable, s.aliasDef = false, false, false, false
			s.mode, s.qual, s.operand = 0, "", true
			s.prev2, s.prev = s.prev, s.quoted
			s.quoted = ""
			return ok
		}
		s.quoted += string(lower(c))
		return s.nameIn(s.quoted, true)
	}
	if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
		// an undertrained model can fill its whole budget with blanks
		s.spaces++
		if !s.any && s.spaces > maxLeadingSpace || s.spaces > maxSpaceRun {
			return false
		}
	} else {
		s.spaces = 0
	}
	if s.ended {
		return c == ' ' || c == '\n' || c == '\t' || c == '\r'
	}
	lastOp := s.opChar
	afterOp := lastOp != 0
	s.opChar = 0
	if s.quoteEnd {
		s.quoteEnd = false
		if c == '\'' { // '' inside a string: the string goes on
			s.mode = '\''
			return true
		}
	}
	if isWordByte(c) || c == '.' && isNumber(s.word) {
		if isNumber(s.word) && c != '.' && (c < '0' || c > '9') {
			return false // "20THEN"
		}
		if s.word == "" {
			if s.afterIn() {
				return false // "hometown IN 2001": IN takes a list in parentheses
			}
			s.upper, s.lowerCase = false, false
		}
		if c >= 'A' && c <= 'Z' {
			s.upper = true
		} else if c >= 'a' && c <= 'z' {
			s.lowerCase = true
		}
		s.word += string(lower(c))
		s.any = true
		s.afterTable = false
		return s.prefixOK()
	}
	if s.word != "" {
		if !s.complete() || !s.endWord() {
			return false
		}
	}
	if s.tableAsColumn() && c != '.' {
		return false // "WHERE item = 1": a table is no column
	}
	switch c {
	case ' ', '\n', '\t', '\r':
		return s.qual == "" // "T1. x"
	}
	if s.wantBy {
		return false // "ORDER ASC", "GROUP ''": BY must follow
	}
	lastKW, aliasDef := s.kw, s.aliasDef
	if s.afterIn() && c != '(' {
		return false // "IN 'x'", "IN -1": a list in parentheses
	}
	termEnd := s.termEnd()
	s.kw, s.kwName, s.bareTable, s.aliasDef = false, false, false, false
	wantT := s.wantTable()
	if wantT && c != '(' && c != '"' && c != '`' && c != '[' {
		return false // right after FROM or JOIN: a table or a subquery, not "FROM %')" or "FROM 'x'"
	}
	if f := s.fr[s.depth]; f.sub && f.fresh && c != '(' {
		return false // "FROM (" opens a subquery: SELECT first, not "FROM ('%"
	}
	afterTable := s.afterTable
	s.afterTable = false
	fresh := s.fr[s.depth].fresh
	s.any = true
	s.prev, s.prev2 = "", s.prev
	if c != '(' {
		s.fr[s.depth].fresh = false
	}
	switch c {
	case '.':
		if s.qual != "" {
			return false
		}
		// the qualifier is the word just completed
		q := s.prev2
		if q == "" || aliasDef {
			return false // "AS T3.x": an alias being defined has no columns
		}
		if (lastKW || has(s.g.columns, q)) && !s.isTable(q) && !s.isAlias(q) {
			return false // "surname.", "COUNT.": only a table or an alias has columns
		}
		s.qual = q
		s.prev2 = ""
		return true
	case '*':
		if lastOp == '/' {
			return false // "/*" starts a comment
		}
		if s.qual != "" {
			s.qual = ""
			f := s.fr[s.depth]
			return f.kind == frameQuery && f.clause == 0 // "T1.*", in a select list only
		}
		s.operand = !s.operand // "SELECT *", "COUNT(*)"; else a product
		return true
	case '(':
		nested := s.fr[s.depth].sub && s.fr[s.depth].fresh // "FROM ((SELECT"
		s.fr[s.depth].fresh = false
		if s.depth+1 == maxFrames {
			return false
		}
		if s.operand {
			return false // "name (": a function's name is a keyword
		}
		s.depth++
		s.fr[s.depth] = frame{kind: frameExpr, clause: -1, fresh: true, sub: wantT || nested, cast: lastKW && s.prev2 == "cast"}
		if s.prev2 == "over" || s.prev2 == "filter" {
			s.fr[s.depth].kind = frameFree
		}
	case ')':
		if s.depth == 0 || s.fr[s.depth].cases > 0 {
			return false
		}
		if f := s.fr[s.depth]; !termEnd && !fresh && f.kind != frameFree {
			return false // "(x AND)", "(... WHERE)": an operand first
		}
		if f := s.fr[s.depth]; f.cast && !f.castAs {
			return false // "CAST(x)": AS and a type first
		}
		s.depth--
		s.operand = true
	case ';':
		if !termEnd || s.depth != 0 || s.fr[0].cases > 0 || s.fr[0].clause < 0 || s.tref&^s.tdef != 0 {
			return false // ';' ends the SQL: as where it may end
		}
		s.ended = true
	case '\'', '"', '`', '[':
		if s.operand && s.qual == "" {
			return false // a value or name right after an operand
		}
		s.mode = c
		if c != '\'' {
			s.quoted, s.quotedTable = "", wantT
			return true
		}
	case ',':
		if !termEnd {
			return false // a list item must come before its comma: ", a", "a,,"
		}
		if f := s.fr[s.depth]; f.kind == frameQuery && f.cases == 0 && (f.clause == clauseRank["where"] || f.clause == clauseRank["having"]) {
			return false // a condition is no list: "WHERE T1.surname, [credit_points] = 'x'"
		}
		s.operand = false
	case '+', '-', '/', '%', '=', '<', '>', '!', '|', '&', '~':
		if !s.operand && !afterOp && c != '-' && c != '+' && c != '~' || afterTable {
			return false // a binary operator wants an operand before it ("WHERE = 1", "(%"), and a table is none
		}
		if lastOp == '-' && c == '-' {
			return false // "--" starts a comment: the rest of the SQL would not count
		}
		s.operand, s.opChar = false, c
	default:
		return false // not SQL outside quotes: ']', '{', '?', '#', ...
	}
	if s.qual != "" && c != '"' && c != '`' && c != '[' {
		return false // "X." must be followed by a column
	}
	return true
}

func isNumber(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// endWord records a completed unquoted word; false means the word may not
// come here.
func (s *GuideState) endWord() bool {
	w := s.word
	if s.wantBy && w != "by" {
		return false
	}
	keyword := s.qual == "" && s.prev != "as" && !(s.upper && s.lowerCase) && has(s.g.words, w)
	if keyword && !s.placeOK(w) {
		return false
	}
	castType := s.qual == "" && s.prev == "as" && s.fr[s.depth].kind == frameExpr
	name := !keyword && s.qual == "" && s.prev != "as"
	s.bareTable = name && !s.wantTable() && s.tableLike(w)
	s.aliasDef = s.qual == "" && s.prev == "as" && !castType
	s.kw, s.kwName = keyword, keyword && (s.isTable(w) || has(s.g.columns, w) || s.isAlias(w))
	s.wantBy = keyword && (w == "group" || w == "order" || w == "partition")
	if keyword {
		s.place(w)
		s.operand = operandWords[w]
	} else {
		s.fr[s.depth].fresh = false
		s.operand = true
		if n, ok := aliasNumber(w); ok && s.qual == "" {
			if s.prev == "as" {
				if s.depth == 0 && s.prev2 != "" && s.isTable(s.prev2) && !s.fits(n, s.prev2) {
					return false // "T2" for a table without the columns used as T2.x
				}
				s.tdef |= 1 << n
			} else {
				s.tref |= 1 << n
			}
		}
		if n, ok := aliasNumber(s.qual); ok {
			s.refs = append(s.refs[:len(s.refs):len(s.refs)], aliasRef{uint8(n), w})
		}
		if s.wantTable() {
			s.fr[s.depth].tables++
		}
	}
	s.afterTable = !keyword && s.wantTable()
	if s.prev == "as" && s.qual == "" && !castType {
		table := ""
		if s.prev2 != "" && s.isTable(s.prev2) {
			table = s.prev2
		}
		s.defs = append(s.defs, [2]string{w, table})
	}
	s.prev2, s.prev = s.prev, w
	s.word, s.qual = "", ""
	return true
}

// prefixOK reports whether the word being written can still become an
// acceptable word.
func (s *GuideState) prefixOK() bool {
	w := s.word
	if s.qual != "" {
		return hasPrefix(s.colsOf(s.qual), w)
	}
	if f := s.fr[s.depth]; f.sub && f.fresh {
		return strings.HasPrefix("select", w)
	}
	if s.wantBy {
		return !(s.upper && s.lowerCase) && strings.HasPrefix("by", w)
	}
	if s.castType() {
		return hasPrefix(castTypes, w)
	}
	if s.wantTable() {
		i, _ := slices.BinarySearch(s.g.tables, w)
		for ; i < len(s.g.tables) && strings.HasPrefix(s.g.tables[i], w); i++ {
			if s.tableOK(s.g.tables[i]) {
				return true
			}
		}
		return false
	}
	if !s.operand && !s.afterOrder() {
		// a name or value may come, or a keyword
		if isNumber(w) || s.prev == "as" || isAliasLike(w, true) || hasPrefix(s.g.tables, w) || hasPrefix(s.g.columns, w) {
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
	}
	// a keyword, if one that may come here starts so
	if s.upper && s.lowerCase {
		return false
	}
	i, _ := slices.BinarySearch(s.g.words, w)
	for ; i < len(s.g.words) && strings.HasPrefix(s.g.words[i], w); i++ {
		if s.placeOK(s.g.words[i]) {
			return true
		}
	}
	return false
}

// complete reports whether the word being written is acceptable as it is.
func (s *GuideState) complete() bool {
	w := s.word
	if s.qual != "" {
		return has(s.colsOf(s.qual), w)
	}
	if f := s.fr[s.depth]; f.sub && f.fresh {
		return w == "select"
	}
	if s.wantBy {
		return !(s.upper && s.lowerCase) && w == "by"
	}
	if s.castType() {
		return has(castTypes, w)
	}
	if s.operand || s.afterOrder() { // only a keyword follows an operand
		return !(s.upper && s.lowerCase) && has(s.g.words, w)
	}
	if s.wantTable() {
		return has(s.g.tables, w) && s.tableOK(w)
	}
	if isNumber(w) {
		return true
	}
	if s.prev == "as" || isAliasLike(w, false) {
		return true
	}
	if !(s.upper && s.lowerCase) && has(s.g.words, w) || has(s.g.tables, w) || has(s.g.columns, w) {
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
	if s.quotedTable {
		lists = [][]string{s.g.tables}
	}
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

// afterIn reports whether the last word was the operator IN, which takes
// a parenthesised list or subquery here (SQLite's "IN table" is refused
// anyway: a bare table is no operand).
func (s *GuideState) afterIn() bool { return s.kw && !s.kwName && s.prev == "in" }

// isAlias reports whether w is an alias: defined after AS (so far, or in
// the piece being checked), or T1, T2, ...
func (s *GuideState) isAlias(w string) bool {
	if _, ok := s.aliases[w]; ok || isAliasLike(w, false) {
		return true
	}
	for _, d := range s.defs {
		if d[0] == w {
			return true
		}
	}
	return false
}

// tableLike reports whether w names a table or a table's alias (T1, T2,
// ... defined or not), not a column or a select-list alias: bare, it is
// no operand.
func (s *GuideState) tableLike(w string) bool {
	if has(s.g.columns, w) {
		return false
	}
	if t, ok := s.aliases[w]; ok {
		return t != ""
	}
	for _, d := range s.defs {
		if d[0] == w {
			return d[1] != ""
		}
	}
	return isAliasLike(w, false) || s.isTable(w)
}

// castType reports whether a CAST's type name comes next: "CAST(x AS".
func (s *GuideState) castType() bool {
	f := s.fr[s.depth]
	return s.qual == "" && s.prev == "as" && f.kind == frameExpr && f.cast && f.castAs
}

// nextAlias is the alias the next table after FROM or JOIN conventionally
// gets: T1 for the first, T2 for the second (as BIRD's and Spider's SQL
// number them). Only the outer query is held to it: a subquery's tables
// are numbered apart, or not aliased.
func (s *GuideState) nextAlias() uint {
	return uint(s.fr[s.depth].tables) + 1
}

// fits reports whether table has every column used as Tn.col so far.
func (s *GuideState) fits(n uint, table string) bool {
	for _, r := range s.refs {
		if uint(r.n) == n && !has(s.g.cols[table], r.col) {
			return false
		}
	}
	return true
}

// tableOK reports whether table may come after FROM or JOIN: in the outer
// query, a table with every column used through the alias it will get
// (T1 for the first), unless no table of the database has them, where
// any table may (the SQL will fail on the column, but a guide that
// refuses every table leaves the model only text that is not SQL).
func (s *GuideState) tableOK(table string) bool {
	if s.depth > 0 {
		return true
	}
	n := s.nextAlias()
	if s.fits(n, table) {
		return true
	}
	for _, t := range s.g.tables {
		if s.fits(n, t) {
			return false
		}
	}
	return true
}

// wantTable reports whether the next name must be a table: right after
// FROM or JOIN.
func (s *GuideState) wantTable() bool { return s.qual == "" && (s.prev == "from" || s.prev == "join") }

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

// aliasNumber returns n for an alias "tn" with n < 64.
func aliasNumber(w string) (uint, bool) {
	if !isAliasLike(w, false) || len(w) > 3 {
		return 0, false
	}
	n := 0
	for _, c := range w[1:] {
		n = 10*n + int(c-'0')
	}
	return uint(n), n < 64
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

// DefaultWords returns the words a Guide admits when given none.
func DefaultWords() []string { return slices.Clone(guideWords) }

// Words returns the SQL keywords and functions sql uses: its unquoted
// words, lower case, other than names (isName reports a table or column),
// aliases (after AS, or T1, T2, ...) and qualifiers (before a dot).
func Words(sql string, isName func(string) bool) []string {
	var out []string
	var prev string
	toks := Tokenize(sql)
	for i, t := range toks {
		if t.IsTrivia() {
			continue
		}
		w := strings.ToLower(t.Text)
		if t.Kind == KindKeyword || t.Kind == KindIdentifier {
			next := ""
			for _, u := range toks[i+1:] {
				if !u.IsTrivia() {
					next = u.Text
					break
				}
			}
			if prev != "as" && next != "." && !isAliasLike(w, false) && !isName(w) {
				out = append(out, w)
			}
		}
		prev = w
	}
	return out
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
