package schemagen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// dirtTarget is one column that may take a kind of dirt.
type dirtTarget struct {
	t *Table
	i int
}

// dirty makes the filled database look like a real one: each kind of dirt
// goes to a random share of the columns that can take it, and to at least
// one column per database where any can, so that every database tests the
// questions that must handle it.
func dirty(db *DB, r *rand.Rand) {
	var nullable, caseable, dates, money, dups []dirtTarget
	for _, t := range db.Tables {
		for i, c := range t.Columns {
			a := c.spec
			if a == nil {
				continue
			}
			if a.optional && c.refTable != t {
				nullable = append(nullable, dirtTarget{t, i})
			}
			switch {
			case c.Role == RoleCategory, c.Role == RoleText && len(a.pool) > 0,
				c.Role == RoleName && !(len(a.args) > 1 && (a.args[1] == "serial" || a.args[1] == "last")):
				caseable = append(caseable, dirtTarget{t, i})
			}
			if c.Role == RoleDate {
				dates = append(dates, dirtTarget{t, i})
			}
			if a.kind == "money" {
				money = append(money, dirtTarget{t, i})
			}
			if c.Role == RoleName && len(a.args) > 1 && a.args[1] != "serial" && a.args[1] != "last" && t.Kind != KindLookup && !a.bookkeeping {
				dups = append(dups, dirtTarget{t, i})
			}
		}
	}
	pick := func(ts []dirtTarget, p float64) []dirtTarget {
		var out []dirtTarget
		for _, x := range ts {
			if r.Float64() < p {
				out = append(out, x)
			}
		}
		if len(out) == 0 && len(ts) > 0 {
			out = append(out, ts[r.IntN(len(ts))])
		}
		return out
	}
	for _, x := range pick(dups, 0.35) {
		nearDuplicates(x.t, x.i, r)
	}
	// Case and space dirt stay off near-duplicate columns: a question about
	// one must be answerable by the name as it is spelled.
	var clean []dirtTarget
	for _, x := range caseable {
		if len(x.t.Columns[x.i].Dirty) == 0 {
			clean = append(clean, x)
		}
	}
	caseable = clean
	for _, x := range nullable {
		// NULLs would erase the near-duplicate pairs just made.
		if r.Float64() < 0.6 && len(x.t.Columns[x.i].Dirty) == 0 {
			share := 0.03 + 0.27*r.Float64()
			for _, row := range x.t.Rows {
				if r.Float64() < share {
					row[x.i] = nil
				}
			}
		}
	}
	for _, x := range pick(dates, 0.2) {
		c := x.t.Columns[x.i]
		c.Type = "TEXT"
		c.Formats = []string{FormatISODate, FormatUSDate}
		share := 0.2 + 0.3*r.Float64()
		changed := 0
		for _, row := range x.t.Rows {
			if s, ok := row[x.i].(string); ok && r.Float64() < share {
				d, _ := time.Parse(FormatISODate, s)
				row[x.i] = d.Format(FormatUSDate)
				changed++
			}
		}
		if changed > 0 {
			c.Dirty = append(c.Dirty, DirtMixedFormat)
		} else {
			c.Formats = c.Formats[:1]
		}
		c.ValueDescription = join(c.ValueDescription, "stored as text, as YYYY-MM-DD or MM/DD/YYYY")
	}
	for _, x := range pick(money, 0.2) {
		c := x.t.Columns[x.i]
		c.Type = "TEXT"
		c.Formats = []string{FormatMoneyText}
		c.Dirty = append(c.Dirty, DirtNumberText)
		plain := 0.0
		if r.Float64() < 0.5 {
			plain = 0.2 + 0.3*r.Float64()
		}
		mixed := false
		for _, row := range x.t.Rows {
			if v, ok := row[x.i].(float64); ok {
				if r.Float64() < plain {
					row[x.i] = fmt.Sprintf("%.2f", v)
					mixed = true
				} else {
					row[x.i] = moneyText(v)
				}
			}
		}
		if mixed {
			c.Formats = append(c.Formats, FormatPlainFloat)
			c.Dirty = append(c.Dirty, DirtMixedFormat)
			c.ValueDescription = join(c.ValueDescription, "stored as text, some as '$1,234.50', some as '1234.50'")
		} else {
			c.ValueDescription = join(c.ValueDescription, "stored as text such as '$1,234.50'")
		}
	}
	for _, x := range pick(caseable, 0.2) {
		c := x.t.Columns[x.i]
		share := 0.08 + 0.12*r.Float64()
		n := 0
		for _, row := range x.t.Rows {
			if s, ok := row[x.i].(string); ok && r.Float64() < share {
				v := strings.ToUpper(s)
				if r.IntN(2) == 0 {
					v = strings.ToLower(s)
				}
				if v != s {
					row[x.i] = v
					n++
				}
			}
		}
		for _, row := range x.t.Rows {
			if s, ok := row[x.i].(string); ok && n == 0 && strings.ToUpper(s) != s {
				row[x.i] = strings.ToUpper(s)
				n++
			}
		}
		if n > 0 {
			c.Dirty = append(c.Dirty, DirtCase)
		}
	}
	for _, x := range pick(caseable, 0.15) {
		c := x.t.Columns[x.i]
		share := 0.05 + 0.1*r.Float64()
		n := 0
		for _, row := range x.t.Rows {
			if s, ok := row[x.i].(string); ok && r.Float64() < share {
				switch r.IntN(3) {
				case 0:
					row[x.i] = s + " "
				case 1:
					row[x.i] = " " + s
				default:
					row[x.i] = s + "  "
				}
				n++
			}
		}
		for _, row := range x.t.Rows {
			if s, ok := row[x.i].(string); ok && n == 0 {
				row[x.i] = s + " "
				n++
			}
		}
		if n > 0 {
			c.Dirty = append(c.Dirty, DirtSpace)
		}
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// moneyText writes v as "$1,234.50".
func moneyText(v float64) string {
	s := fmt.Sprintf("%.2f", math.Abs(v))
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, ch := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	sign := ""
	if v < 0 {
		sign = "-"
	}
	return sign + "$" + b.String() + "." + frac
}

// nearDuplicates rewrites a few rows' names as variants of other rows'
// names ("Jon Smith" beside "John Smith", "Acme Corporation" beside "Acme
// Corp"), as when one person or firm is entered twice.
func nearDuplicates(t *Table, col int, r *rand.Rand) {
	c := t.Columns[col]
	n := len(t.Rows)
	if n < 4 {
		return
	}
	lastCol, sexCol := -1, -1
	for i, x := range t.Columns {
		if x.spec != nil && x.spec.kind == "name" && len(x.spec.args) > 1 && x.spec.args[1] == "last" {
			lastCol = i
		}
		if x.spec != nil && x.spec.kind == "sex" {
			sexCol = i
		}
	}
	existing := map[string]bool{}
	key := func(row []any) string {
		s := fmt.Sprint(row[col])
		if lastCol >= 0 {
			s += " " + fmt.Sprint(row[lastCol])
		}
		return s
	}
	for _, row := range t.Rows {
		existing[key(row)] = true
	}
	k := max(2, n/25)
	done := 0
	used := map[int]bool{}
	for try := 0; try < 20*k && done < k; try++ {
		i, j := r.IntN(n), r.IntN(n)
		if i == j || used[i] || used[j] {
			continue
		}
		src, ok := t.Rows[j][col].(string)
		if !ok {
			continue
		}
		v := variant(c.spec.args[1], src)
		if v == "" || v == src {
			continue
		}
		old := t.Rows[i][col]
		oldLast := any(nil)
		t.Rows[i][col] = v
		if lastCol >= 0 {
			oldLast = t.Rows[i][lastCol]
			t.Rows[i][lastCol] = t.Rows[j][lastCol]
		}
		if existing[key(t.Rows[i])] {
			t.Rows[i][col] = old
			if lastCol >= 0 {
				t.Rows[i][lastCol] = oldLast
			}
			continue
		}
		existing[key(t.Rows[i])] = true
		if sexCol >= 0 {
			t.Rows[i][sexCol] = t.Rows[j][sexCol]
		}
		used[i], used[j] = true, true
		done++
	}
	if done > 0 {
		c.Dirty = append(c.Dirty, DirtNearDuplicate)
	}
}

// variant returns another spelling of a name of generator gen, or "".
func variant(gen, s string) string {
	switch gen {
	case "first":
		return nameVariants[s]
	case "person":
		f, l, _ := strings.Cut(s, " ")
		if v := nameVariants[f]; v != "" {
			return v + " " + l
		}
		return ""
	case "company":
		for _, suf := range companySuffixes {
			if stem, ok := strings.CutSuffix(s, " "+suf); ok {
				return stem + " " + companyVariants[suf]
			}
		}
		return ""
	}
	// A title: a dropped "The", an ampersand, or a doubled letter.
	if rest, ok := strings.CutPrefix(s, "The "); ok {
		return rest
	}
	if strings.Contains(s, " and ") {
		return strings.Replace(s, " and ", " & ", 1)
	}
	for i := len(s) - 2; i > 0; i-- {
		if strings.ContainsRune("lnrst", rune(s[i])) && s[i-1] != s[i] && s[i+1] != s[i] {
			return s[:i+1] + s[i:]
		}
	}
	return ""
}
