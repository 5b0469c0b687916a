package benchstats

import "context"

// MeasureAll measures dir (all its splits) and each compared target, a
// DIR[:split] (ParseTarget), in order, for a report side by side.
func MeasureAll(ctx context.Context, dir string, compare []string, opts Options) ([]*Report, error) {
	type target struct {
		dir    string
		splits []string
	}
	targets := []target{{dir: dir}}
	for _, c := range compare {
		d, split := ParseTarget(c)
		t := target{dir: d}
		if split != "" {
			t.splits = []string{split}
		}
		targets = append(targets, t)
	}
	var reps []*Report
	for _, t := range targets {
		o := opts
		o.Splits = t.splits
		r, err := Measure(ctx, t.dir, o)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r)
	}
	return reps, nil
}
