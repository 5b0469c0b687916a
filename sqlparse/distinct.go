package sqlparse

import "strings"

// RemoveDistinct reproduces test-suite-sql-eval's remove_distinct, which the
// Spider execution evaluator applies to both gold and predicted SQL unless
// asked to keep DISTINCT (results are compared as bags, so DISTINCT would
// otherwise decide matches on duplicate rows alone). The reference is
//
//	toks = [t.value for t in sqlparse.parse(s)[0].flatten()]
//	return ''.join([t for t in toks if t.lower() != 'distinct'])
//
// Every bare word DISTINCT (any case, wherever it appears) is dropped; all other
// text, whitespace included, is kept unchanged, so "SELECT DISTINCT a" becomes
// "SELECT  a". Quoted text ('distinct', "distinct", [distinct], `distinct`) and
// comments stay.
//
// Like the reference, only the first statement survives: python-sqlparse splits
// at a ';' outside parentheses and keeps, after that ';', spaces, tabs and "--"
// comments up to the first newline or other token. This matters: a prediction
// "SELECT ...; DROP ..." is executed as its first statement only, exactly as in
// the official evaluator. Input with no statement at all (empty or only
// whitespace), on which the reference raises IndexError, is returned unchanged.
//
// Known differences, all on text SQLite itself rejects: python-sqlparse treats
// a backslash in a string as an escape and "# " as a comment opener; SQLite
// does neither, and this function follows SQLite.
func RemoveDistinct(sql string) string {
	toks := Tokenize(sql)
	cut := firstStatementEnd(sql, toks)
	var b strings.Builder
	b.Grow(cut)
	for _, t := range toks {
		if t.Offset >= cut {
			break
		}
		if t.Kind == KindKeyword && strings.EqualFold(t.Text, "distinct") {
			continue
		}
		text := t.Text
		if t.End() > cut {
			text = text[:cut-t.Offset]
		}
		b.WriteString(text)
	}
	if strings.TrimLeft(sql, " \t\n\f\r\v") == "" {
		return sql
	}
	return b.String()
}

// firstStatementEnd returns the byte offset where python-sqlparse's statement
// splitter ends the first statement. The splitter tracks a nesting level ('('
// +1, ')' -1, keyword END -1) and ends a statement at a ';' seen at level <= 0;
// after that ';' it keeps spaces, tabs and "--" comments (each with its line
// ending) and stops at a bare line break or at any other token.
func firstStatementEnd(sql string, toks []Token) int {
	level := 0
	for i, t := range toks {
		switch {
		case t.Kind == KindPunctuation && t.Text == "(":
			level++
		case t.Kind == KindPunctuation && t.Text == ")":
			level--
		case t.Kind == KindKeyword && strings.EqualFold(t.Text, "end") && isSqlparseEnd(toks, i):
			level--
		case t.Kind == KindPunctuation && t.Text == ";" && level <= 0:
			return afterSemicolon(sql, t.End())
		}
	}
	return len(sql)
}

// isSqlparseEnd reports whether python-sqlparse lexes the END at toks[i] as the
// keyword: it lexes a word directly followed by '(', or next to a '.', as a name.
func isSqlparseEnd(toks []Token, i int) bool {
	if i > 0 && toks[i-1].Kind == KindPunctuation && toks[i-1].Text == "." {
		return false
	}
	if i+1 < len(toks) && toks[i+1].Kind == KindPunctuation && toks[i+1].Text == "(" {
		return false
	}
	for j := i + 1; j < len(toks); j++ {
		if toks[j].Kind != KindWhitespace {
			return !(toks[j].Kind == KindPunctuation && toks[j].Text == ".")
		}
	}
	return true
}

// afterSemicolon scans what python-sqlparse still attaches to a statement after
// its closing ';' at byte offset pos: single whitespace characters other than
// line breaks (each is its own Whitespace token there) and "--" comments
// together with the line ending that closes them. A line break on its own is a
// Newline token, which ends the statement, and so does a "--+" optimizer hint,
// which sqlparse lexes as a different comment type.
func afterSemicolon(sql string, pos int) int {
	for pos < len(sql) {
		switch c := sql[pos]; {
		case c == ' ' || c == '\t' || c == '\f':
			pos++
		case strings.HasPrefix(sql[pos:], "--") && !strings.HasPrefix(sql[pos:], "--+"):
			nl := strings.IndexAny(sql[pos:], "\r\n")
			if nl < 0 {
				return len(sql)
			}
			pos += nl + 1
			if sql[pos-1] == '\r' && pos < len(sql) && sql[pos] == '\n' {
				pos++
			}
		default:
			return pos
		}
	}
	return pos
}

// SpiderPostprocess reproduces test-suite-sql-eval's postprocess, applied to
// gold and predicted SQL before execution so that model output with split
// comparison operators ("> =") still runs:
//
//	query.replace('> =', '>=').replace('< =', '<=').replace('! =', '!=')
func SpiderPostprocess(sql string) string {
	sql = strings.ReplaceAll(sql, "> =", ">=")
	sql = strings.ReplaceAll(sql, "< =", "<=")
	return strings.ReplaceAll(sql, "! =", "!=")
}
