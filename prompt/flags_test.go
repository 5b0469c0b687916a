package prompt

import (
	"flag"
	"io"
	"testing"
)

// The prompt flags parse as data prepare and from-feedback took them:
// dialect names as ParseDialect reads them, -examples 0 for none.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args     []string
		dialect  Dialect
		examples int
		fail     bool
	}{
		{nil, SQLite, 0, false},
		{[]string{"-dialect", "pg", "-examples", "0"}, PostgreSQL, -1, false},
		{[]string{"-examples", "5"}, SQLite, 5, false},
		{[]string{"-dialect", "oracle"}, "", 0, true},
		{[]string{"-examples", "-1"}, "", 0, true},
	} {
		o, co := Options{Budget: 8192}, CatalogOptions{}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Flags(fs)
		co.Flags(fs)
		err := fs.Parse(c.args)
		if (err != nil) != c.fail {
			t.Errorf("%v: err %v, want failure %v", c.args, err, c.fail)
			continue
		}
		if !c.fail && (o.Dialect != c.dialect || co.Examples != c.examples || o.Budget != 8192) {
			t.Errorf("%v: dialect %q, examples %d, budget %d", c.args, o.Dialect, co.Examples, o.Budget)
		}
	}
}
