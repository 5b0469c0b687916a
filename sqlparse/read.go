package sqlparse

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/textclip"
)

// CheckRead reports why sql is not one query that reads a database's own
// tables: the only SQL a person's correction may be, since it becomes a
// training target. It wants one statement (a trailing ";" allowed) that
// starts with SELECT, WITH or VALUES (after opening parentheses), and
// refuses SQLite's catalog (sqlite_master, sqlite_schema, any sqlite_*
// name) and PRAGMA table functions (pragma_table_info(...)): they read
// the engine, not the data. Writes are the engine's to refuse; this
// reads the text only.
func CheckRead(sql string) error {
	var toks []Token
	for _, t := range Tokenize(sql) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	for len(toks) > 0 && toks[len(toks)-1].Text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return errors.New("no statement")
	}
	first := 0
	for first < len(toks)-1 && toks[first].Text == "(" {
		first++
	}
	if w := strings.ToUpper(toks[first].Text); toks[first].Kind != KindKeyword || (w != "SELECT" && w != "WITH" && w != "VALUES") {
		return fmt.Errorf("starts with %s: want a read-only SELECT (or WITH ... SELECT)", clipWord(toks[first].Text))
	}
	for _, t := range toks {
		switch t.Kind {
		case KindPunctuation:
			if t.Text == ";" {
				return errors.New("more than one statement: want one SELECT")
			}
		case KindIdentifier, KindQuotedIdentifier:
			name := strings.ToLower(unquoteName(t.Text))
			switch {
			case strings.HasPrefix(name, "sqlite_"):
				return fmt.Errorf("reads %s, SQLite's catalog, not the database's tables", clipWord(t.Text))
			case strings.HasPrefix(name, "pragma_"):
				return fmt.Errorf("calls %s, a PRAGMA function, not a read of the database's tables", clipWord(t.Text))
			}
		}
	}
	return nil
}

// unquoteName strips an identifier's quotes ("x", `x`, [x]).
func unquoteName(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`':
			return strings.ReplaceAll(s[1:len(s)-1], s[:1]+s[:1], s[:1])
		case '[':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// clipWord keeps an error's quote of a token short, in whole runes.
func clipWord(s string) string {
	return fmt.Sprintf("%q", textclip.Clip(s, 40))
}
