package bench

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints what Generate wrote, a line per split, for people.
func (sum *Summary) WriteText(w io.Writer) {
	for _, s := range sum.Splits {
		fmt.Fprintf(w, "%-17s %3d databases %8d rows %6d questions (simple %d, moderate %d, challenging %d)",
			s.Name, len(s.DBs), s.Rows, s.Questions, s.ByTier[0], s.ByTier[1], s.ByTier[2])
		if d := sum.Dropped[s.Name]; d != nil && s.Name != SplitTrain {
			fmt.Fprintf(w, "; dropped %d worded as train, %d with train's skeleton; %d short", d.Wording, d.Skeleton, d.Short)
		}
		fmt.Fprintln(w)
	}
	if len(sum.HeldOut) > 0 {
		fmt.Fprintf(w, "held-out domains (dev): %s\n", strings.Join(sum.HeldOut, ", "))
	}
	fmt.Fprintf(w, "wrote %s (preset %s, seed %d) in %.1fs\n", sum.Out, sum.Preset, sum.Seed, sum.Elapsed.Seconds())
}
