package reward

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/textclip"
)

// ExtractSQL returns the SQL statement a completion answers with
// (Extract without options), "" when it holds none.
func ExtractSQL(completion string) string {
	sql, _ := Extract(completion, ExtractOptions{})
	return sql
}

// ErrNoSQL is Extract's error for a completion that holds no SQL.
var ErrNoSQL = errors.New("no SQL in the answer")

// ExtractOptions choose how strictly Extract reads a completion. Both
// readings find the same SQL in the same text; the options only refuse
// more and trim more.
type ExtractOptions struct {
	// Final reads the agent recipe's format ("Final SQL query:" then the
	// query) strictly: markers that name different queries are refused
	// (the model contradicted itself), a marker followed by no query is
	// ErrNoSQL, and trailing semicolons are dropped, as the recipe's
	// prompts quote the query back.
	Final bool
}

// Extract returns the SQL statement a completion answers with. Policies
// wrap their SQL in reasoning, markdown fences, chat special tokens and
// explanations; the reward must score the query, not the packaging, and must
// leave a bare SQL answer exactly as written (a multi-statement answer stays
// multi-statement, so the reward agrees with `sqlrl eval`). In order:
//
//  1. everything up to the last </think> is reasoning and is dropped;
//  2. leading chat special tokens are dropped and the text is cut at the
//     first end-of-turn or padding token (<|im_end|>, <|eot_id|>, </s>,
//     <|endoftext|>, any other <|...|>);
//  3. with a "Final SQL query:" marker (the agent recipe's format), only
//     the text after the last one is read: its last fenced block, else the
//     statement up to the first blank line;
//  4. otherwise the last ```sql fenced block wins (a fence left open by a
//     truncated generation runs to the end); failing that the last
//     unlabeled block;
//  5. otherwise the first line starting with SELECT or WITH (optionally
//     after a short "SQL:"-style label), up to a trailing explanation:
//     prose after the statement's ';' or after a blank line.
//
// The result has surrounding whitespace trimmed; the error is ErrNoSQL
// (wrapped) when no SQL is found, and the result "".
func Extract(completion string, o ExtractOptions) (string, error) {
	s := completion
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	s = cutSpecialTokens(s)
	var sql string
	if marks := finalMarks(s); len(marks) > 0 {
		var err error
		if sql, err = afterMarks(s, marks, o.Final); err != nil {
			return "", err
		}
	} else if block, ok := lastFence(s); ok {
		sql = strings.TrimSpace(block)
	} else {
		sql = statement(s)
	}
	if o.Final {
		sql = trimSemicolons(sql)
	}
	if sql == "" {
		return "", ErrNoSQL
	}
	return sql, nil
}

// finalMark is the agent recipe's "Final SQL query:".
var finalMark = regexp.MustCompile(`(?i)final\s+sql\s+query\s*:`)

// finalMarks returns where each "Final SQL query:" is (nil, cheaply, for
// the common completion without one).
func finalMarks(s string) [][]int {
	if lastIndexFold(s, "final") < 0 {
		return nil
	}
	return finalMark.FindAllStringIndex(s, -1)
}

// afterMarks reads the query after the last marker; strict, every
// marker's query, which must all be the same.
func afterMarks(s string, marks [][]int, strict bool) (string, error) {
	if !strict {
		return afterMark(s[marks[len(marks)-1][1]:]), nil
	}
	var first string
	for k, m := range marks {
		end := len(s)
		if k+1 < len(marks) {
			end = marks[k+1][0]
		}
		sql := trimSemicolons(afterMark(s[m[1]:end]))
		if sql == "" {
			return "", fmt.Errorf("%w: \"Final SQL query:\" is not followed by a query", ErrNoSQL)
		}
		if k == 0 {
			first = sql
		} else if sql != first {
			return "", fmt.Errorf("two different final queries: %q and %q", textclip.Clip(first, 60), textclip.Clip(sql, 60))
		}
	}
	return first, nil
}

// afterMark reads the query that follows one marker: its last fenced
// block, else the statement up to the first blank line.
func afterMark(rest string) string {
	if block, ok := lastFence(rest); ok {
		return strings.TrimSpace(block)
	}
	if stmt, _, ok := strings.Cut(strings.TrimLeft(rest, " \t\r\n"), "\n\n"); ok {
		rest = stmt
	}
	return statement(rest)
}

// trimSemicolons drops trailing semicolons and space.
func trimSemicolons(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return s
}

// specialToken matches chat-template tokens such as <|im_end|>,
// <|start_header_id|>, <|endoftext|>.
var specialToken = regexp.MustCompile(`<\|[A-Za-z0-9_]+\|>`)

// plainStops are end-of-turn tokens without the <|...|> shape.
var plainStops = []string{"</s>", "<end_of_turn>", "<eos>", "<pad>", "[/INST]"}

// leadingTurn matches what a chat template may put before the answer when
// the response itself starts a turn: special tokens, "<s>", a role name.
var leadingTurn = regexp.MustCompile(`^(?:\s*(?:<\|[A-Za-z0-9_]+\|>|<s>|<start_of_turn>)\s*(?:assistant|model)?)+`)

// cutSpecialTokens drops leading turn markers and cuts at the first
// end-of-turn or padding token that follows content.
func cutSpecialTokens(s string) string {
	if !strings.ContainsAny(s, "<[") {
		return s // the common case: no token can be there
	}
	if m := leadingTurn.FindStringIndex(s); m != nil {
		s = s[m[1]:]
	}
	end := len(s)
	if loc := specialToken.FindStringIndex(s); loc != nil {
		end = loc[0]
	}
	for _, t := range plainStops {
		if i := strings.Index(s[:end], t); i >= 0 {
			end = i
		}
	}
	return s[:end]
}

// lastFence returns the body of the last ```sql (or ```sqlite) fenced block,
// else of the last fence with no language. An opening fence with no closing
// one runs to the end of the text.
func lastFence(s string) (string, bool) {
	type block struct {
		lang, body string
	}
	var blocks []block
	rest := s
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		var lang string
		if nl < 0 {
			// "```sql SELECT 1```" on one line, or an opening fence at
			// the very end.
			j := strings.Index(rest, "```")
			if j < 0 {
				lang, rest = fenceLang(rest)
				blocks = append(blocks, block{lang, rest})
				break
			}
			lang, body := fenceLang(rest[:j])
			blocks = append(blocks, block{lang, body})
			rest = rest[j+3:]
			continue
		}
		lang = strings.ToLower(strings.TrimSpace(rest[:nl]))
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			blocks = append(blocks, block{lang, body})
			break
		}
		blocks = append(blocks, block{lang, body[:j]})
		rest = body[j+3:]
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if isSQLLang(blocks[i].lang) {
			return blocks[i].body, true
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].lang == "" {
			return blocks[i].body, true
		}
	}
	return "", false
}

// fenceLang splits a one-line fence body "sql SELECT 1" into its language
// tag and body.
func fenceLang(s string) (lang, body string) {
	t := strings.TrimLeft(s, " \t")
	word, after, _ := strings.Cut(t, " ")
	if isSQLLang(strings.ToLower(word)) {
		return strings.ToLower(word), after
	}
	return "", s
}

func isSQLLang(lang string) bool {
	switch lang {
	case "sql", "sqlite", "sqlite3", "postgresql", "postgres", "mysql":
		return true
	}
	return false
}

// lastIndexFold is strings.LastIndex ignoring ASCII case; sub must be
// lower case. It allocates nothing: completions can be long.
func lastIndexFold(s, sub string) int {
	if len(sub) == 0 {
		return len(s)
	}
	first := sub[0]
	for i := len(s) - len(sub); i >= 0; i-- {
		if c := s[i]; (c == first || c+'a'-'A' == first) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// sqlLabel matches a short label before SQL on the same line ("SQL:",
// "Answer:", "Query: ").
var sqlLabel = regexp.MustCompile(`(?i)^[a-z][a-z ]{0,30}:\s*`)

// statementStarts are keywords a SQL statement may begin with. After a ';'
// one of them means a second statement (kept, so it scores as the error it
// is); anything else there is prose and is cut.
var statementStarts = map[string]bool{
	"SELECT": true, "WITH": true, "VALUES": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"REPLACE": true, "CREATE": true, "DROP": true, "ALTER": true, "ATTACH": true, "DETACH": true,
	"PRAGMA": true, "VACUUM": true, "BEGIN": true, "COMMIT": true, "END": true, "ROLLBACK": true,
	"SAVEPOINT": true, "RELEASE": true, "REINDEX": true, "ANALYZE": true, "EXPLAIN": true,
}

// statement finds the SQL statement in plain text (no fence).
func statement(s string) string {
	s = strings.TrimSpace(s)
	if !startsWithStatement(s) {
		// Find the first line that starts with SELECT/WITH, possibly after a
		// label ("SQL: SELECT ...").
		found := false
		for off := 0; off < len(s); {
			nl := strings.IndexByte(s[off:], '\n')
			line := s[off:]
			if nl >= 0 {
				line = s[off : off+nl]
			}
			t := strings.TrimLeft(line, " \t>*`")
			if m := sqlLabel.FindStringIndex(t); m != nil && !startsWithSQL(t) {
				t = t[m[1]:]
			}
			if startsWithSQL(t) {
				s = t + s[off+len(line):]
				found = true
				break
			}
			if nl < 0 {
				break
			}
			off += nl + 1
		}
		if !found {
			return ""
		}
	}
	return strings.TrimSpace(cutExplanation(s))
}

// writeStarts are statement keywords that are never the first word of
// prose in an answer; a bare "DELETE FROM t" answer is SQL and must score
// as the write attempt it is.
var writeStarts = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "CREATE": true, "DROP": true,
	"ALTER": true, "ATTACH": true, "DETACH": true, "PRAGMA": true, "VACUUM": true,
}

// startsWithStatement reports whether s begins with a query (see
// startsWithSQL) or a write statement.
func startsWithStatement(s string) bool {
	if startsWithSQL(s) {
		return true
	}
	w := leadWords(s, 2)
	return len(w) == 2 && writeStarts[strings.ToUpper(w[0])] && w[1] != ":"
}

// startsWithSQL reports whether s begins with SELECT (possibly after "("),
// VALUES, or WITH followed by a common table expression ("With this in
// mind" is prose, "WITH t AS (" is SQL).
func startsWithSQL(s string) bool {
	w := leadWords(s, 4)
	if len(w) == 0 {
		return false
	}
	switch strings.ToUpper(w[0]) {
	case "SELECT", "VALUES":
		return true
	case "WITH":
		w = w[1:]
		if len(w) > 0 && strings.EqualFold(w[0], "RECURSIVE") {
			w = w[1:]
		}
		return len(w) >= 2 && isNameWord(w[0]) && !isKeyword(w[0]) && (strings.EqualFold(w[1], "AS") || w[1] == "(")
	}
	return false
}

// leadWords returns up to n leading words of s: bare words, quoted names
// and single punctuation bytes, skipping whitespace, comments and opening
// parentheses before the first. A cheap look at how the text starts, for
// every completion, without tokenizing it.
func leadWords(s string, n int) []string {
	var out []string
	i := 0
	for i < len(s) && len(out) < n {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '(' && len(out) == 0:
			i++
		case isWordByte(c):
			j := i
			for j < len(s) && (isWordByte(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '$') {
				j++
			}
			out = append(out, s[i:j])
			i = j
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := strings.IndexByte(s[i+1:], closer)
			if j < 0 {
				return out
			}
			out = append(out, s[i:i+j+2])
			i += j + 2
		default:
			out = append(out, s[i:i+1])
			i++
		}
	}
	return out
}

// isKeyword reports whether a bare word is one of SQLite's keywords.
func isKeyword(w string) bool {
	toks := sqlparse.Tokenize(w)
	return len(toks) == 1 && toks[0].Kind == sqlparse.KindKeyword
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// isNameWord reports whether a lead word is a name (bare or quoted).
func isNameWord(w string) bool {
	return w != "" && (isWordByte(w[0]) || w[0] == '"' || w[0] == '`' || w[0] == '[')
}

// cutExplanation ends the statement before trailing prose: after the first
// top-level ';' unless another statement follows, at a blank line followed
// by a sentence, or at a line that starts like an explanation ("This query",
// "Explanation:", a markdown heading or bold text).
func cutExplanation(s string) string {
	if i := strings.IndexByte(s, ';'); (i < 0 || i == len(s)-1) && !strings.Contains(s, "\n") {
		return s // one line, at most a final ';': nothing to cut
	}
	toks := sqlparse.Tokenize(s)
	depth := 0
	for i, t := range toks {
		switch {
		case t.Text == "(":
			depth++
		case t.Text == ")":
			depth--
		case t.Text == ";" && depth <= 0:
			next := nextSignificant(toks, i+1)
			if next < 0 {
				return s
			}
			if nt := toks[next]; nt.Kind == sqlparse.KindKeyword && statementStarts[strings.ToUpper(nt.Text)] {
				return s // a second statement: eval refuses it, so must we
			}
			return s[:t.End()]
		case t.Kind == sqlparse.KindWhitespace && strings.Contains(t.Text, "\n"):
			next := nextSignificant(toks, i+1)
			if next < 0 {
				return s
			}
			if explanationLine(s[toks[next].Offset:]) ||
				strings.Count(t.Text, "\n") >= 2 && looksLikeProse(toks, next) {
				return s[:t.Offset]
			}
		}
	}
	return s
}

// explanationStarts are how models begin the sentence after their query.
var explanationStarts = regexp.MustCompile(`^(?:#|\*\*|(?:This|The|These|Here|In this|It|We)\s|(?:Explanation|Note)\b)`)

// explanationLine reports whether a line opens an explanation.
func explanationLine(line string) bool {
	return explanationStarts.MatchString(line)
}

func nextSignificant(toks []sqlparse.Token, i int) int {
	for ; i < len(toks); i++ {
		if !toks[i].IsTrivia() {
			return i
		}
	}
	return -1
}

// looksLikeProse reports whether the token at i starts an English sentence
// rather than more SQL: a bare non-keyword word followed by another word.
func looksLikeProse(toks []sqlparse.Token, i int) bool {
	if toks[i].Kind != sqlparse.KindIdentifier && toks[i].Kind != sqlparse.KindKeyword {
		return toks[i].Kind == sqlparse.KindIllegal
	}
	if toks[i].Kind == sqlparse.KindKeyword {
		return false
	}
	j := nextSignificant(toks, i+1)
	if j < 0 {
		return false
	}
	next := toks[j]
	return next.Kind == sqlparse.KindIdentifier || next.Kind == sqlparse.KindKeyword && !isClauseKeyword(next.Text) ||
		next.Text == ":"
}

// isClauseKeyword lists keywords that may follow a bare name in SQL
// ("t1 JOIN", "x FROM").
func isClauseKeyword(w string) bool {
	switch strings.ToUpper(w) {
	case "FROM", "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "ON", "AS", "AND", "OR",
		"GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "IN", "IS", "NOT", "LIKE",
		"BETWEEN", "DESC", "ASC", "THEN", "ELSE", "END", "WHEN", "USING", "OFFSET", "BY":
		return true
	}
	return false
}
