package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteTable prints the report as BIRD's script does (counts and accuracy
// per difficulty), followed by the failure classes.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	cols := append([]LevelStats(nil), r.Levels...)
	cols = append(cols, r.Total)
	metric := "EX"
	if r.Mode == ModeSpider {
		metric = "EM(exec)"
	}
	row := func(name string, cell func(LevelStats) string) {
		fmt.Fprintf(&b, "%-12s", name)
		for _, c := range cols {
			fmt.Fprintf(&b, " %12s", cell(c))
		}
		b.WriteByte('\n')
	}
	row("", func(c LevelStats) string { return c.Level })
	row("count", func(c LevelStats) string { return fmt.Sprint(c.Count) })
	row(metric, func(c LevelStats) string { return fmt.Sprintf("%.2f", c.Accuracy) })
	if r.SoftF1 {
		row("Soft-F1", func(c LevelStats) string { return fmt.Sprintf("%.2f", c.SoftF1) })
	}
	if r.Total.VES != 0 || r.Total.RVES != 0 {
		row("VES", func(c LevelStats) string { return fmt.Sprintf("%.2f", c.VES) })
		row("R-VES", func(c LevelStats) string { return fmt.Sprintf("%.2f", c.RVES) })
	}
	if len(r.Total.PassAtK) > 0 {
		keys := make([]string, 0, len(r.Total.PassAtK))
		for k := range r.Total.PassAtK {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i] == "oracle" || keys[j] == "oracle" {
				return keys[j] == "oracle"
			}
			return len(keys[i]) < len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			row(k, func(c LevelStats) string { return fmt.Sprintf("%.2f", c.PassAtK[k]) })
		}
	}
	b.WriteString("\nverdicts:")
	classes := make([]string, 0, len(r.Classes))
	for c := range r.Classes {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool {
		if r.Classes[classes[i]] != r.Classes[classes[j]] {
			return r.Classes[classes[i]] > r.Classes[classes[j]]
		}
		return classes[i] < classes[j]
	})
	for _, c := range classes {
		fmt.Fprintf(&b, " %s=%d", c, r.Classes[c])
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
