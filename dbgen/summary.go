package dbgen

import (
	"fmt"
	"io"
)

// WriteText prints the summary a person reads after a run.
func (s *Summary) WriteText(w io.Writer, dir string) {
	fmt.Fprintf(w, "%s: %d train, %d dev, %d test (sealed) questions in %s (%d candidates)\n",
		s.DBID, s.Train, s.Dev, s.Test, dir, s.Attempts)
	if sn := s.Snapshot; sn != nil {
		var rows int64
		for _, n := range sn.Tables {
			rows += n
		}
		fmt.Fprintf(w, "PostgreSQL: %s schema %s, %d tables (%d rows) copied into the SQLite snapshot generated over\n", sn.Source, sn.Schema, len(sn.Tables), rows)
	}
	if s.Descriptions != "" {
		fmt.Fprintf(w, "descriptions: %s\n", s.Descriptions)
	} else {
		fmt.Fprintf(w, "descriptions: none (names and values only)\n")
	}
	r := s.Realism
	fmt.Fprintf(w, "tiers: simple %d, moderate %d, challenging %d\n", r.Tiers["simple"], r.Tiers["moderate"], r.Tiers["challenging"])
	fmt.Fprintf(w, "gold columns named by their label word for word: %s; entity lookups among filters: %s\n",
		share(r.Verbatim, r.GoldColumns), share(r.Lookups, r.Filters))
	fmt.Fprintf(w, "families:")
	for _, f := range sortedFamilies(s.Families) {
		fmt.Fprintf(w, " %s %d", f, s.Families[f])
	}
	fmt.Fprintln(w)
	for _, x := range s.Inferred {
		fmt.Fprintf(w, "inferred foreign key: %s\n", x)
	}
	for _, x := range s.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", x)
	}
}

func share(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}
