package eval

import (
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
)

// NormalizeSQL returns a canonical form of sql for caching: statements
// that differ only in whitespace, comments, the case of keywords and bare
// identifiers (SQLite folds ASCII case in both) or one trailing semicolon
// normalise to the same string, and they return the same rows. String
// literals, quoted identifiers and numbers are kept verbatim ("1.0" and "1"
// differ in type, a double-quoted word may be a string).
func NormalizeSQL(sql string) string {
	toks := sqlparse.Tokenize(sql)
	kept := make([]string, 0, len(toks))
	for _, t := range toks {
		switch t.Kind {
		case sqlparse.KindWhitespace, sqlparse.KindComment:
			continue
		case sqlparse.KindKeyword, sqlparse.KindIdentifier:
			kept = append(kept, asciiLower(t.Text))
		default:
			kept = append(kept, t.Text)
		}
	}
	// One trailing ";" ends the statement; two make a second (empty) one,
	// which Python's sqlite3 rejects, so only a lone one is dropped.
	if n := len(kept); n > 0 && kept[n-1] == ";" && (n == 1 || kept[n-2] != ";") {
		kept = kept[:n-1]
	}
	return strings.Join(kept, " ")
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
