package dbgen

import (
	"strings"
)

// Role is what a column is for, as far as questions go.
type Role int

// The roles, decided by roleOf from the declared type, the name and the
// statistics.
const (
	// RoleKey: a primary or foreign key, or an identifier-like code; joined
	// on, never asked about.
	RoleKey Role = iota
	// RoleName: a near-unique short text that names a row ("3-D Man"):
	// what lists show and what entity lookups filter on.
	RoleName
	// RoleCategory: a repeated value from a small set ("Marvel Comics",
	// "Female"): filters, groups, percentages.
	RoleCategory
	// RoleMeasure: a number with many values (height, amount): aggregates,
	// thresholds, rankings.
	RoleMeasure
	// RoleDate: dates or timestamps as text: years, months, ranges.
	RoleDate
	// RoleFlag: two values (0/1, Y/N, true/false).
	RoleFlag
	// RoleText: long free text; shown, never filtered on.
	RoleText
	// RoleBookkeeping: constant, almost always NULL, or housekeeping
	// (created_at, version): left out.
	RoleBookkeeping
)

var roleNames = [...]string{"key", "name", "category", "measure", "date", "flag", "text", "bookkeeping"}

func (r Role) String() string { return roleNames[r] }

// bookkeepingWords are name parts of housekeeping columns.
var bookkeepingWords = map[string]bool{"created": true, "updated": true, "modified": true, "deleted": true, "version": true,
	"etag": true, "checksum": true, "hash": true, "uuid": true, "guid": true, "rowversion": true, "timestamp": true, "inserted": true}

// textWords are name parts of free-text columns.
var textWords = map[string]bool{"notes": true, "note": true, "comment": true, "comments": true, "remarks": true, "description": true, "summary": true, "body": true, "text": true}

// nameWords are name parts of label columns.
var nameWords = map[string]bool{"name": true, "title": true, "label": true, "nickname": true, "username": true}

// roleOf decides a column's role. The order matters: keys first, then what
// the statistics rule out, then types and names.
func roleOf(c *Column) Role {
	s := c.Stats
	words := nameParts(c.Name)
	last := ""
	if len(words) > 0 {
		last = words[len(words)-1]
	}
	typ := c.Type
	switch {
	case c.PK || c.Ref != nil:
		return RoleKey
	case s.NonNull == 0 || s.NullShare() > 0.95 || s.Distinct <= 1:
		return RoleBookkeeping
	}
	for _, w := range words {
		if bookkeepingWords[w] {
			return RoleBookkeeping
		}
	}
	switch {
	case s.Distinct == 2 && isFlag(s.Top):
		return RoleFlag
	case last == "id" || strings.HasSuffix(strings.ToLower(c.Name), "id") && s.Distinct == s.NonNull && !nameWords[last]:
		return RoleKey
	case s.Date || strings.Contains(typ, "DATE") || strings.Contains(typ, "TIME"):
		if s.Numeric {
			return RoleMeasure
		}
		return RoleDate
	case typ == "BOOLEAN" || typ == "BOOL":
		return RoleFlag
	case s.Numeric && last == "code" || s.Numeric && s.Integer && s.Distinct <= 12 && s.Distinct*20 <= s.NonNull && last != "count" && last != "number":
		return RoleCategory
	case s.Numeric:
		return RoleMeasure
	case s.MeanLen > 60 || textWords[last] && s.MeanLen > 25:
		return RoleText
	case nameWords[last] || s.Distinct*10 >= s.NonNull*9:
		if s.MeanLen > 40 {
			return RoleText
		}
		return RoleName
	}
	return RoleCategory
}

// isFlag reports whether two values are a yes/no pair.
func isFlag(top []ValueCount) bool {
	if len(top) != 2 {
		return false
	}
	for _, v := range top {
		switch strings.ToLower(v.Value.Display()) {
		case "0", "1", "y", "n", "yes", "no", "true", "false", "t", "f":
		default:
			return false
		}
	}
	return true
}

// nameParts splits a name into lower-case words at underscores, spaces,
// hyphens and camel-case humps.
func nameParts(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == ' ' || r == '-' || r == '.':
			flush()
		case i > 0 && isUpper(r) && !isUpper(rs[i-1]) && rs[i-1] != '_':
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
