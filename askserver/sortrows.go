package askserver

import (
	"cmp"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// rowOrder is a sort a reader chose by clicking a column header: the kept
// rows of a result ordered by column Col (from 0), descending when Desc.
// The server sorts the whole result before cutting a page, so that page 2
// continues page 1; the page itself sorts nothing.
type rowOrder struct {
	Col  int
	Desc bool
}

// sortQuery reads ?sort=C&desc=1 of GET .../rows and .../csv: nil when
// there is no sort.
func sortQuery(q url.Values) (*rowOrder, error) {
	s, d := q.Get("sort"), q.Get("desc")
	desc := false
	switch d {
	case "", "0":
	case "1":
		desc = true
	default:
		return nil, httpserve.Errorf(http.StatusBadRequest, "desc %q: want 1 (descending) or 0", clip(d, 32))
	}
	if s == "" {
		if desc {
			return nil, httpserve.Errorf(http.StatusBadRequest, "desc=1 without sort: add sort=C, the column index from 0")
		}
		return nil, nil
	}
	c, err := strconv.Atoi(s)
	if err != nil || c < 0 {
		return nil, httpserve.Errorf(http.StatusBadRequest, "sort %q: want a column index from 0", clip(s, 32))
	}
	return &rowOrder{Col: c, Desc: desc}, nil
}

// runOrder is /api/run's {"sort": C, "desc": true} as a rowOrder.
func runOrder(sort *int, desc bool) (*rowOrder, error) {
	switch {
	case sort == nil && desc:
		return nil, httpserve.Errorf(http.StatusBadRequest, "\"desc\" without \"sort\": add \"sort\": C, the column index from 0")
	case sort == nil:
		return nil, nil
	case *sort < 0:
		return nil, httpserve.Errorf(http.StatusBadRequest, "sort %d: want a column index from 0", *sort)
	}
	return &rowOrder{Col: *sort, Desc: desc}, nil
}

// sorted returns res with its rows in order o (res itself is unchanged, so
// that its chart keeps the result's own order); nil o or res is res. A
// column past the result's is a 400.
func (o *rowOrder) sorted(res *sqlexec.Result) (*sqlexec.Result, error) {
	if o == nil || res == nil {
		return res, nil
	}
	if o.Col >= len(res.Columns) {
		return nil, httpserve.Errorf(http.StatusBadRequest, "sort %d: the result has %d columns (sort=0 to %d)", o.Col, len(res.Columns), len(res.Columns)-1)
	}
	type keyed struct {
		key any
		row []sqlexec.Value
	}
	ks := make([]keyed, len(res.Rows))
	for i, row := range res.Rows {
		ks[i].row = row
		if o.Col < len(row) {
			ks[i].key = jsonValue(row[o.Col])
		}
	}
	dir := 1
	if o.Desc {
		dir = -1
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return dir * compareCells(a.key, b.key) })
	out := *res
	out.Rows = make([][]sqlexec.Value, len(ks))
	for i, k := range ks {
		out.Rows[i] = k.row
	}
	return &out, nil
}

// compareCells orders two cells as jsonValue gives them (nil, int64,
// float64, string): NULLs last, numbers numerically (an integer and a
// float exactly) before text, text by compareText. Descending reverses it
// whole (NULLs first); ties keep the result's order (a stable sort). This
// is the one definition: the page asks the server for every sorted page
// and has no ordering of its own.
func compareCells(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == b:
			return 0
		case a == nil:
			return 1
		}
		return -1
	}
	sa, aText := a.(string)
	sb, bText := b.(string)
	switch {
	case aText && bText:
		return compareText(sa, sb)
	case aText:
		return 1
	case bText:
		return -1
	}
	return compareNumbers(a, b)
}

// compareNumbers compares int64s and float64s exactly (a float64 cannot
// hold every int64, so neither is converted to the other).
func compareNumbers(a, b any) int {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y)
		case float64:
			return compareIntFloat(x, y)
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return -compareIntFloat(y, x)
		case float64:
			return cmp.Compare(x, y)
		}
	}
	return 0
}

// compareIntFloat compares i with a finite f.
func compareIntFloat(i int64, f float64) int {
	switch {
	case f >= 9.223372036854775808e18:
		return -1
	case f < -9.223372036854775808e18:
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	// Equal integer parts: f's fraction decides.
	return cmp.Compare(0, f-t)
}

// compareText orders text without a locale: runs of ASCII digits by their
// value ("item 9" before "item 10"; "007" ties with "7"), everything else
// rune by rune, case-insensitively (unicode.ToLower), by code point.
func compareText(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			da, db := digitRun(a), digitRun(b)
			if c := compareDigits(a[:da], b[:db]); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if c := cmp.Compare(unicode.ToLower(ra), unicode.ToLower(rb)); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	// One is a prefix of the other: the shorter first.
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitRun is the length of s's leading run of ASCII digits.
func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// compareDigits compares two runs of digits by value, however long.
func compareDigits(a, b string) int {
	for len(a) > 1 && a[0] == '0' {
		a = a[1:]
	}
	for len(b) > 1 && b[0] == '0' {
		b = b[1:]
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}
