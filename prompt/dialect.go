package prompt

import (
	"fmt"
	"strings"
)

// Dialect is the SQL dialect a prompt asks for. It is named in the prompt
// (models write T-SQL's TOP or PostgreSQL's ILIKE when nobody tells them
// otherwise) and decides how identifiers are quoted in the schema text.
type Dialect string

// The dialects sqlrl writes prompts for.
const (
	SQLite     Dialect = "sqlite"
	PostgreSQL Dialect = "postgresql"
)

// ParseDialect reads a dialect name as users type it on a command line.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sqlite", "sqlite3":
		return SQLite, nil
	case "postgresql", "postgres", "pg":
		return PostgreSQL, nil
	}
	return "", fmt.Errorf("unknown SQL dialect %q (want sqlite or postgresql)", s)
}

// Name is the dialect's name as the prompt spells it.
func (d Dialect) Name() string {
	switch d {
	case PostgreSQL:
		return "PostgreSQL"
	case SQLite, "":
		return "SQLite"
	}
	return string(d)
}

func (d Dialect) valid() bool { return d == SQLite || d == PostgreSQL }

// QuoteIdent returns name as the dialect needs it written in SQL: bare when
// that is unambiguous, else in double quotes (which SQLite and PostgreSQL both
// accept). BIRD has columns such as "Percent (%) Eligible Free (K-12)" that a
// model must copy with their quotes to get a query that runs.
func (d Dialect) QuoteIdent(name string) string {
	if d.bare(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (d Dialect) bare(name string) bool {
	if name == "" || reserved[strings.ToLower(name)] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z':
		case c >= 'A' && c <= 'Z':
			if d == PostgreSQL { // PostgreSQL folds bare names to lower case
				return false
			}
		case c >= '0' && c <= '9':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// reserved holds the keywords that SQLite or PostgreSQL refuse as bare
// identifiers (the union, so that a schema text is valid in both). Keywords
// that both accept bare (key, action, date, ...) are left out: quoting them
// would teach models to quote where nobody else does.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`add all alter analyse analyze and any array as asc asymmetric authorization autoincrement between
		binary both case cast check collate collation column commit concurrently constraint create cross
		current_catalog current_date current_role current_schema current_time current_timestamp
		current_user default deferrable delete desc distinct do drop else end escape except exists false
		fetch filter for foreign freeze from full glob grant group having ilike in index indexed
		initially inner insert intersect into is isnull join lateral leading left like limit localtime
		localtimestamp natural not nothing notnull null offset on only or order outer over overlaps
		placing primary references regexp returning right select session_user set similar some symmetric
		table tablesample then to trailing transaction true union unique update user using values
		variadic verbose when where window with`) {
		reserved[w] = true
	}
}
