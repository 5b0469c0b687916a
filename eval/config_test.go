package eval

import (
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
)

func TestParseModeAndKs(t *testing.T) {
	for _, c := range []struct {
		name   string
		layout dataset.Layout
		want   Mode
		err    bool
	}{
		{"", dataset.LayoutBIRD, ModeBIRD, false},
		{"", dataset.LayoutSpider, ModeSpider, false},
		{"bird", dataset.LayoutSpider, ModeBIRD, false},
		{"ex", dataset.LayoutBIRD, "", true},
	} {
		if m, err := ParseMode(c.name, c.layout); m != c.want || (err != nil) != c.err {
			t.Errorf("ParseMode(%q, %s) = %q, %v", c.name, c.layout, m, err)
		}
	}
	for _, c := range []struct {
		s    string
		want []int
		err  bool
	}{{"1,5,8", []int{1, 5, 8}, false}, {" 2 ,", []int{2}, false}, {"0", nil, true}, {"x", nil, true}} {
		if ks, err := ParseKs(c.s); !slices.Equal(ks, c.want) || (err != nil) != c.err {
			t.Errorf("ParseKs(%q) = %v, %v", c.s, ks, err)
		}
	}
}
