package benchstats

import (
	"errors"
	"flag"
	"strconv"
	"strings"
)

// DefaultOptions are `sqlrl bench stats`'s defaults.
func DefaultOptions() Options {
	return Options{Timeout: DefaultTimeout, Budgets: []int{64, 128, 256}}
}

// Flags declares the measurement's settings on fs, defaulting to o's;
// Tokens (a tokenizer) is the caller's.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "time limit per gold query")
	fs.IntVar(&o.Workers, "workers", o.Workers, "parallel gold queries (default: number of CPUs)")
	fs.BoolVar(&o.NoExec, "no-exec", o.NoExec, "do not run the golds (no answer shapes)")
	fs.Var((*budgets)(&o.Budgets), "budgets", "with -tokenizer: completion budgets (tokens) whose cut golds to count")
}

// budgets is -budgets: positive token counts separated by commas.
type budgets []int

func (b *budgets) String() string {
	if b == nil {
		return ""
	}
	s := make([]string, len(*b))
	for i, n := range *b {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (b *budgets) Set(v string) error {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return errors.New("want positive token counts separated by commas")
		}
		out = append(out, n)
	}
	*b = out
	return nil
}

// Targets is -compare: further benchmarks (DIR[:split], ParseTarget) to
// report beside the first, as MeasureAll takes them.
type Targets []string

func (t *Targets) String() string     { return strings.Join(*t, ",") }
func (t *Targets) Set(v string) error { *t = append(*t, v); return nil }
