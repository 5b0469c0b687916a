package sqlparse

import (
	"fmt"
	"strings"
)

// Kind classifies a lexical token. The classes follow SQLite's own tokenizer
// (tokenize.c) so that downstream code sees SQL the way the database that runs
// BIRD and Spider sees it.
type Kind int

// Token kinds. KindIllegal is the zero value so that an uninitialised Token is
// never mistaken for real SQL.
const (
	// KindIllegal is a byte SQLite would reject (for example a lone '!' or '#').
	// It is still emitted so that the input round-trips.
	KindIllegal Kind = iota
	// KindWhitespace is a run of spaces, tabs, newlines, form feeds and carriage returns.
	KindWhitespace
	// KindComment is a "-- ..." comment (without its newline) or a "/* ... */" comment.
	KindComment
	// KindKeyword is a bare word that is one of SQLite's 147 keywords (SELECT,
	// DISTINCT, JOIN, ...). SQLite lets many keywords double as names, so the
	// parser, not the lexer, decides what a keyword means in context.
	KindKeyword
	// KindIdentifier is any other bare word (table, column, function, alias).
	KindIdentifier
	// KindQuotedIdentifier is a "double-quoted", `backquoted` or [bracketed] name.
	KindQuotedIdentifier
	// KindString is a 'single-quoted' literal; ” inside it is an escaped quote.
	KindString
	// KindBlob is a blob literal such as X'CAFE'.
	KindBlob
	// KindNumber is an integer, decimal, exponent or hexadecimal literal.
	KindNumber
	// KindParameter is a bound parameter: ?, ?NNN, :name, @name, $name, #name.
	KindParameter
	// KindOperator is an operator: - + * / % = == < <= <> << > >= >> != | || & ~ -> ->>.
	KindOperator
	// KindPunctuation is one of ( ) , ; and the dot of a qualified name.
	KindPunctuation
)

var kindNames = [...]string{
	KindIllegal:          "Illegal",
	KindWhitespace:       "Whitespace",
	KindComment:          "Comment",
	KindKeyword:          "Keyword",
	KindIdentifier:       "Identifier",
	KindQuotedIdentifier: "QuotedIdentifier",
	KindString:           "String",
	KindBlob:             "Blob",
	KindNumber:           "Number",
	KindParameter:        "Parameter",
	KindOperator:         "Operator",
	KindPunctuation:      "Punctuation",
}

// String names the kind, for test failures and debugging output.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Token is one lexical token. Text is the exact source slice and Offset its byte
// offset, so callers can edit SQL token by token (for example RemoveDistinct)
// without disturbing anything else in the text.
type Token struct {
	Kind   Kind
	Text   string
	Offset int
}

// End returns the byte offset just past the token, which is where the next
// token starts.
func (t Token) End() int { return t.Offset + len(t.Text) }

// IsTrivia reports whether the token is whitespace or a comment, the tokens a
// parser skips but a rewriter must keep.
func (t Token) IsTrivia() bool { return t.Kind == KindWhitespace || t.Kind == KindComment }

// Terminated reports whether a quoted token (string, blob, quoted identifier or
// block comment) has its closing delimiter. The lexer never fails: an
// unterminated quote runs to the end of the input, and parsers use this to
// reject it with a clear error instead.
func (t Token) Terminated() bool {
	s := t.Text
	switch t.Kind {
	case KindString:
		return len(s) >= 2 && s[len(s)-1] == '\'' && quoteClosed(s[1:], '\'')
	case KindBlob:
		return len(s) >= 3 && s[len(s)-1] == '\''
	case KindQuotedIdentifier:
		switch s[0] {
		case '[':
			return len(s) >= 2 && s[len(s)-1] == ']'
		default:
			return len(s) >= 2 && s[len(s)-1] == s[0] && quoteClosed(s[1:], s[0])
		}
	case KindComment:
		return !strings.HasPrefix(s, "/*") || (len(s) >= 4 && strings.HasSuffix(s, "*/"))
	}
	return true
}

// quoteClosed reports whether body (the text after an opening quote q) ends in
// a closing quote rather than in the first half of a doubled, escaped quote.
func quoteClosed(body string, q byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != q {
			continue
		}
		if i+1 < len(body) && body[i+1] == q {
			i++
			continue
		}
		return i == len(body)-1
	}
	return false
}

// sqliteKeywords is SQLite's keyword list (https://sqlite.org/lang_keywords.html).
var sqliteKeywords = func() map[string]bool {
	words := strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH
	AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT
	CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP
	DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END
	ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN
	FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED
	INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT
	MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER
	OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE
	REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW
	ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER
	UNBOUNDED UNION UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`)
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()

// isSQLiteKeyword reports whether a bare word is an SQLite keyword, in any case.
func isSQLiteKeyword(word string) bool {
	if len(word) > len("CURRENT_TIMESTAMP") {
		return false
	}
	return sqliteKeywords[strings.ToUpper(word)]
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isIDStart mirrors SQLite: letters, underscore and every byte of a multi-byte
// UTF-8 sequence may start a name.
func isIDStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80
}

// isIDChar mirrors SQLite's IdChar: name characters plus digits and '$'.
func isIDChar(c byte) bool { return isIDStart(c) || isDigit(c) || c == '$' }

// Tokenize splits SQLite-dialect SQL into tokens, including whitespace and
// comments, so that concatenating the Text of all tokens gives back the input
// byte for byte. It never fails: bytes SQLite would reject become KindIllegal
// tokens and an unterminated quote or comment runs to the end of the input
// (see Token.Terminated). Model output is arbitrary text, and the evaluators
// must be able to look at it without crashing.
func Tokenize(sql string) []Token {
	toks := make([]Token, 0, len(sql)/3+1)
	for i := 0; i < len(sql); {
		kind, n := scanToken(sql[i:])
		toks = append(toks, Token{Kind: kind, Text: sql[i : i+n], Offset: i})
		i += n
	}
	return toks
}

// scanToken returns the kind and byte length of the token at the start of s,
// which must be non-empty. The length is always at least 1.
func scanToken(s string) (Kind, int) {
	c := s[0]
	switch {
	case isSpace(c):
		n := 1
		for n < len(s) && isSpace(s[n]) {
			n++
		}
		return KindWhitespace, n
	case c == '-' && len(s) > 1 && s[1] == '-':
		n := strings.IndexByte(s, '\n')
		if n < 0 {
			n = len(s)
		}
		return KindComment, n
	case c == '/' && len(s) > 1 && s[1] == '*':
		n := strings.Index(s[2:], "*/")
		if n < 0 {
			return KindComment, len(s)
		}
		return KindComment, n + 4
	case c == '\'':
		return KindString, scanQuoted(s, '\'')
	case c == '"' || c == '`':
		return KindQuotedIdentifier, scanQuoted(s, c)
	case c == '[':
		n := strings.IndexByte(s, ']')
		if n < 0 {
			return KindQuotedIdentifier, len(s)
		}
		return KindQuotedIdentifier, n + 1
	case (c == 'x' || c == 'X') && len(s) > 1 && s[1] == '\'':
		n := strings.IndexByte(s[2:], '\'')
		if n < 0 {
			return KindBlob, len(s)
		}
		return KindBlob, n + 3
	case isDigit(c) || (c == '.' && len(s) > 1 && isDigit(s[1])):
		return scanNumber(s)
	case isIDStart(c):
		n := 1
		for n < len(s) && isIDChar(s[n]) {
			n++
		}
		if isSQLiteKeyword(s[:n]) {
			return KindKeyword, n
		}
		return KindIdentifier, n
	case c == '?':
		n := 1
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		return KindParameter, n
	case c == ':' || c == '@' || c == '$' || c == '#':
		n := 1
		for n < len(s) && isIDChar(s[n]) {
			n++
		}
		if n == 1 {
			return KindIllegal, 1
		}
		return KindParameter, n
	}
	return scanOperator(s)
}

// scanQuoted returns the length of a token opened by quote q, where a doubled
// quote is an escaped quote; unterminated tokens run to the end of s.
func scanQuoted(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i++
			continue
		}
		return i + 1
	}
	return len(s)
}

// scanNumber follows SQLite's number rules, including '_' digit separators.
// Name characters glued to a number ("12abc") make the whole run illegal, as
// in SQLite.
func scanNumber(s string) (Kind, int) {
	n := 0
	digits := func() {
		for n < len(s) && (isDigit(s[n]) || (s[n] == '_' && n > 0 && n+1 < len(s) && isDigit(s[n+1]))) {
			n++
		}
	}
	if s[0] == '0' && len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && isHexDigit(s[2]) {
		n = 3
		for n < len(s) && (isHexDigit(s[n]) || (s[n] == '_' && n+1 < len(s) && isHexDigit(s[n+1]))) {
			n++
		}
	} else {
		digits()
		if n < len(s) && s[n] == '.' {
			n++
			digits()
		}
		if n+1 < len(s) && (s[n] == 'e' || s[n] == 'E') &&
			(isDigit(s[n+1]) || ((s[n+1] == '+' || s[n+1] == '-') && n+2 < len(s) && isDigit(s[n+2]))) {
			n += 2
			digits()
		}
	}
	kind := KindNumber
	for n < len(s) && isIDChar(s[n]) {
		kind = KindIllegal
		n++
	}
	return kind, n
}

// operators lists multi-byte operators before their prefixes.
var operators = []string{"->>", "->", "==", "<=", "<>", "<<", ">=", ">>", "!=", "||",
	"-", "+", "*", "/", "%", "=", "<", ">", "|", "&", "~"}

func scanOperator(s string) (Kind, int) {
	switch s[0] {
	case '(', ')', ',', ';', '.':
		return KindPunctuation, 1
	}
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return KindOperator, len(op)
		}
	}
	return KindIllegal, 1
}
