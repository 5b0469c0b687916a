package mutate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds a small, loss-free SQL lexer (SQLite flavour). It is
// deliberately internal: the project's full tokenizer lives in package
// sqlparse and will replace it. Rendering the tokens back (concatenating
// their text) always reproduces the input byte for byte, so a mutation only
// touches the tokens it means to change.

// tokKind classifies a token.
type tokKind int

const (
	tSpace   tokKind = iota // spaces, tabs, newlines
	tComment                // -- line comment or /* block comment */
	tWord                   // bare identifier or keyword
	tQuoted                 // "identifier", `identifier` or [identifier]
	tString                 // 'string literal' ('' escapes a quote)
	tNumber                 // 12, 1.5, .5, 1e3, 0x1F
	tParam                  // ?, ?1, :name, @name, $name
	tOp                     // operators and punctuation: ( ) , ; . = <> ...
)

// token is one lexeme with its exact source text.
type token struct {
	kind tokKind
	text string
}

// upper returns the token text upper-cased (only meaningful for tWord).
func (t token) upper() string { return strings.ToUpper(t.text) }

// is reports whether t is the bare word w (case-insensitive).
func (t token) is(w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool { return t.kind == tOp && t.text == op }

// significant reports whether t is neither whitespace nor a comment.
func (t token) significant() bool { return t.kind != tSpace && t.kind != tComment }

// lex splits s into tokens. It never fails: an unterminated string, quoted
// identifier or comment runs to the end of the input, and any byte it does
// not recognise becomes a one-character tOp token.
func lex(s string) []token {
	var toks []token
	i := 0
	for i < len(s) {
		start := i
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			for i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0 {
				i++
			}
			toks = append(toks, token{tSpace, s[start:i]})
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			toks = append(toks, token{tComment, s[start:i]})
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += 2 + end + 2
			}
			toks = append(toks, token{tComment, s[start:i]})
		case c == '\'':
			i = scanQuoted(s, i, '\'')
			toks = append(toks, token{tString, s[start:i]})
		case c == '"' || c == '`':
			i = scanQuoted(s, i, c)
			toks = append(toks, token{tQuoted, s[start:i]})
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				i = len(s)
			} else {
				i += end + 1
			}
			toks = append(toks, token{tQuoted, s[start:i]})
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			i = scanNumber(s, i)
			toks = append(toks, token{tNumber, s[start:i]})
		case c == '?':
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			toks = append(toks, token{tParam, s[start:i]})
		case (c == ':' || c == '@' || c == '$') && i+1 < len(s) && isWordByte(s, i+1):
			i++
			for i < len(s) && isWordByte(s, i) {
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
			}
			toks = append(toks, token{tParam, s[start:i]})
		case isWordStart(s, i):
			for i < len(s) && isWordByte(s, i) {
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
			}
			toks = append(toks, token{tWord, s[start:i]})
		default:
			i += opLen(s, i)
			toks = append(toks, token{tOp, s[start:i]})
		}
	}
	return toks
}

// scanQuoted returns the index just past a quoted run starting at i whose
// delimiter is q; a doubled delimiter stands for one literal delimiter.
func scanQuoted(s string, i int, q byte) int {
	i++
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(s)
}

// scanNumber returns the index just past a numeric literal starting at i.
func scanNumber(s string, i int) int {
	if s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		for i < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i]) >= 0 {
			i++
		}
		return i
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = j
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
	return i
}

// opLen is the length of the operator starting at s[i].
func opLen(s string, i int) int {
	if i+1 < len(s) {
		switch s[i : i+2] {
		case "<=", ">=", "<>", "!=", "==", "||", "<<", ">>", "->":
			if s[i:i+2] == "->" && i+2 < len(s) && s[i+2] == '>' {
				return 3
			}
			return 2
		}
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordStart(s string, i int) bool {
	c := s[i]
	if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
		return true
	}
	if c < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError && (unicode.IsLetter(r) || r > 0x7f)
}

func isWordByte(s string, i int) bool {
	return isWordStart(s, i) || isDigit(s[i]) || s[i] == '$'
}

// render concatenates token texts.
func render(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

// keywords recognised as SQL keywords (as opposed to identifiers) by the
// mutations. It is not SQLite's full list, only what the mutations need to
// tell apart from names.
var keywords = map[string]bool{
	"ALL": true, "AND": true, "AS": true, "ASC": true, "BETWEEN": true, "BY": true,
	"CASE": true, "CAST": true, "COLLATE": true, "CROSS": true, "DESC": true,
	"DISTINCT": true, "ELSE": true, "END": true, "ESCAPE": true, "EXCEPT": true,
	"EXISTS": true, "FROM": true, "FULL": true, "GLOB": true, "GROUP": true,
	"HAVING": true, "IN": true, "INNER": true, "INTERSECT": true, "IS": true,
	"JOIN": true, "LEFT": true, "LIKE": true, "LIMIT": true, "NATURAL": true,
	"NOT": true, "NULL": true, "NULLS": true, "OFFSET": true, "ON": true,
	"OR": true, "ORDER": true, "OUTER": true, "OVER": true, "PARTITION": true,
	"REGEXP": true, "RIGHT": true, "SELECT": true, "THEN": true, "UNION": true,
	"USING": true, "VALUES": true, "WHEN": true, "WHERE": true, "WINDOW": true,
	"WITH": true, "RECURSIVE": true, "FIRST": true, "LAST": true, "FILTER": true,
	"REAL": true, "INTEGER": true, "TEXT": true, "NUMERIC": true, "BLOB": true,
	"TRUE": true, "FALSE": true, "CURRENT_DATE": true, "CURRENT_TIME": true,
	"CURRENT_TIMESTAMP": true, "ROWS": true, "RANGE": true, "PRECEDING": true,
	"FOLLOWING": true, "UNBOUNDED": true, "CURRENT": true, "ROW": true,
}

// isKeyword reports whether t is a bare word that is an SQL keyword.
func isKeyword(t token) bool { return t.kind == tWord && keywords[t.upper()] }
