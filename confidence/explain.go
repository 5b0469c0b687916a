package confidence

import (
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/textclip"
)

// Classes of answers that have no SQL, as the server records them.
const (
	ClassGeneration        = "generation_error"
	ClassGenerationTimeout = "generation_timeout"
	ClassSchema            = "schema_error"
)

// Explain says in plain words why an answer has no result: class is the
// failure's class (a sqlexec class or a generation class), msg the
// database's message (SQLite's or PostgreSQL's), sql the SQL that failed
// (to name the table behind an alias). The database's message is kept
// where it says more than the class.
func Explain(class, msg, sql string) string {
	msg = strings.TrimSpace(msg)
	switch class {
	case ClassGeneration:
		return "the model failed to write SQL for this question"
	case ClassGenerationTimeout:
		return "the model did not write SQL in time"
	case ClassSchema:
		return "the database's schema could not be read"
	case string(sqlexec.ClassUnknownColumn):
		if col, ok := unknownName(msg, "no such column:", "column ", " does not exist"); ok {
			return columnSentence(col, sql)
		}
		return "the SQL names a column that does not exist"
	case string(sqlexec.ClassUnknownTable):
		if t, ok := unknownName(msg, "no such table:", "relation ", " does not exist"); ok {
			t = strings.TrimPrefix(t, "main.")
			return fmt.Sprintf("the table %s does not exist in this database", t)
		}
		return "the SQL names a table that does not exist"
	case string(sqlexec.ClassAmbiguous):
		if c, ok := unknownName(msg, "ambiguous column name:", "column reference ", " is ambiguous"); ok {
			return fmt.Sprintf("the column %s is in more than one of the tables read, and the SQL does not say which", c)
		}
		return "a column is in more than one of the tables read, and the SQL does not say which"
	case string(sqlexec.ClassUnknownFunc):
		if f, ok := unknownName(msg, "no such function:", "function ", " does not exist"); ok {
			return fmt.Sprintf("the function %s does not exist in this database", f)
		}
		return "the SQL calls a function this database does not have"
	case string(sqlexec.ClassSyntax):
		if near := nearToken(msg); near != "" {
			return fmt.Sprintf("the SQL is not valid: it breaks off near %s", near)
		}
		if strings.Contains(msg, "incomplete input") {
			return "the SQL is not valid: it stops before the statement is complete"
		}
		return "the SQL is not valid"
	case string(sqlexec.ClassTimeout):
		return "the query ran too long and was stopped"
	case string(sqlexec.ClassCanceled):
		return "the query was stopped before it finished"
	case string(sqlexec.ClassNotReadOnly):
		return "the SQL would change the database; only reads are run"
	case string(sqlexec.ClassMultiple):
		return "the SQL holds more than one statement; only one is run"
	case string(sqlexec.ClassTooLarge):
		return "the result is larger than the server keeps"
	case string(sqlexec.ClassNoDatabase):
		return "the database is unavailable"
	}
	if msg != "" {
		return "the database could not run the SQL: " + textclip.Clip(msg, 200)
	}
	return "the SQL did not run"
}

// unknownName takes the name out of a message "PREFIX name" (SQLite) or
// "LEAD name TRAIL" (PostgreSQL), unquoting it.
func unknownName(msg, prefix, lead, trail string) (string, bool) {
	if rest, ok := strings.CutPrefix(msg, prefix); ok {
		return strings.TrimSpace(rest), strings.TrimSpace(rest) != ""
	}
	// PostgreSQL: `column "x" does not exist`, `relation "t" does not exist`.
	if i := strings.Index(msg, lead); i >= 0 {
		rest := msg[i+len(lead):]
		if j := strings.Index(rest, trail); j > 0 {
			name := strings.ReplaceAll(strings.TrimSpace(rest[:j]), `"`, "")
			if k := strings.IndexByte(name, '('); k > 0 {
				name = name[:k]
			}
			return name, name != ""
		}
	}
	return "", false
}

// nearToken is the token a syntax error names: near "FROM" (SQLite), at
// or near "FROM" (PostgreSQL).
func nearToken(msg string) string {
	i := strings.Index(msg, `near "`)
	if i < 0 {
		return ""
	}
	rest := msg[i+len(`near "`):]
	j := strings.LastIndex(rest, `"`)
	if j <= 0 {
		return ""
	}
	return textclip.Clip(rest[:j], 40)
}

// columnSentence says that col (T2.gender, gender) does not exist, naming
// the table a qualifier stands for.
func columnSentence(col, sql string) string {
	qual, name, ok := strings.Cut(col, ".")
	if !ok {
		return fmt.Sprintf("the column %s does not exist in the tables the SQL reads", col)
	}
	if t := aliases(sql)[strings.ToLower(qual)]; t != "" {
		return fmt.Sprintf("the column %s does not exist in table %s", name, t)
	}
	return fmt.Sprintf("the column %s does not exist in table %s", name, qual)
}

// aliases maps each alias of the SQL's FROM and JOIN clauses, lower-cased,
// to its table: "superhero AS T1" and "superhero T1" map t1 to superhero.
// A table without an alias maps its own name.
func aliases(sql string) map[string]string {
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(sql) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	name := func(t sqlparse.Token) (string, bool) {
		switch t.Kind {
		case sqlparse.KindIdentifier:
			return t.Text, true
		case sqlparse.KindQuotedIdentifier:
			return t.Text[1 : len(t.Text)-1], len(t.Text) >= 2
		}
		return "", false
	}
	out := map[string]string{}
	for i, t := range toks {
		if t.Kind != sqlparse.KindKeyword || !(strings.EqualFold(t.Text, "FROM") || strings.EqualFold(t.Text, "JOIN")) || i+1 >= len(toks) {
			continue
		}
		table, ok := name(toks[i+1])
		if !ok {
			continue
		}
		out[strings.ToLower(table)] = table
		j := i + 2
		if j < len(toks) && toks[j].Kind == sqlparse.KindKeyword && strings.EqualFold(toks[j].Text, "AS") {
			j++
		}
		if j < len(toks) {
			if alias, ok := name(toks[j]); ok {
				out[strings.ToLower(alias)] = table
			}
		}
	}
	return out
}
