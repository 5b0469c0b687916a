package askserver

import (
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// Chart kinds.
const (
	ChartBar  = "bar"
	ChartLine = "line"
)

// dateLayouts are the ways a date or a time is written in a result: ISO
// dates and times as SQLite stores them and as sqlexec writes PostgreSQL's
// date and timestamp values.
var dateLayouts = []string{
	"2006-01-02", "2006-01", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05Z07:00",
}

// timeOf reads a label as a point in time: a date or time in dateLayouts,
// four digits of text (a year), or an integer from 1000 to 9999 in a
// column whose name says it is a year (elsewhere such numbers are ids and
// counts as often as years).
func timeOf(v sqlexec.Value, column string) (time.Time, bool) {
	yearColumn := strings.Contains(strings.ToLower(column), "year")
	switch v.Kind {
	case sqlexec.KindInt:
		if yearColumn && v.I >= 1000 && v.I <= 9999 {
			return time.Date(int(v.I), 1, 1, 0, 0, 0, 0, time.UTC), true
		}
	case sqlexec.KindFloat:
		if yearColumn && v.F >= 1000 && v.F <= 9999 && v.F == float64(int(v.F)) {
			return time.Date(int(v.F), 1, 1, 0, 0, 0, 0, time.UTC), true
		}
	case sqlexec.KindText:
		s := strings.TrimSpace(v.S)
		if t, err := time.Parse("2006", s); err == nil && len(s) == 4 {
			return t, true
		}
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// setKind makes c a line chart when its labels, read from res's column
// label, are at least two points in time in strictly rising or falling
// order (a falling series is turned round, so that time runs left to
// right); otherwise a bar chart.
func (c *Chart) setKind(res *sqlexec.Result, label int) {
	c.Kind = ChartBar
	n := len(c.Labels)
	if n < 2 {
		return
	}
	ts := make([]time.Time, n)
	for i, row := range res.Rows[:n] {
		t, ok := timeOf(row[label], res.Columns[label])
		if !ok {
			return
		}
		ts[i] = t
	}
	rising, falling := true, true
	for i := 1; i < n; i++ {
		rising = rising && ts[i].After(ts[i-1])
		falling = falling && ts[i].Before(ts[i-1])
	}
	switch {
	case rising:
	case falling:
		slices.Reverse(c.Labels)
		slices.Reverse(c.Values)
	default:
		return
	}
	c.Kind = ChartLine
}
