package benchstats

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// -budgets takes positive counts separated by commas and keeps its
// default otherwise.
func TestBudgetsFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []int
		fail bool
	}{
		{nil, []int{64, 128, 256}, false},
		{[]string{"-budgets", "32, 512"}, []int{32, 512}, false},
		{[]string{"-budgets", "64,x"}, nil, true},
		{[]string{"-budgets", "0"}, nil, true},
	} {
		o := DefaultOptions()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Flags(fs)
		err := fs.Parse(c.args)
		if (err != nil) != c.fail || !c.fail && !slices.Equal(o.Budgets, c.want) {
			t.Errorf("%v: budgets %v, err %v", c.args, o.Budgets, err)
		}
	}
}
