package eval

import (
	"slices"
	"strings"
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

func TestConfigCheck(t *testing.T) {
	ok := Config{GoldAsPred: true, Engine: "sqlite", Ks: "1"}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(*Config) {}, ""},
		{func(c *Config) { c.Pred = "p.jsonl" }, "exactly one of"},
		{func(c *Config) { c.Mode = "x" }, `--mode "x"`},
		{func(c *Config) { c.Ks = "0" }, "--k"},
		{func(c *Config) { c.Gold.GoldFile = "g.sql" }, "--gold needs --db-root"},
		{func(c *Config) { c.Engine = "mysql" }, `--engine "mysql"`},
		{func(c *Config) { c.Engine, c.PGDSN, c.Suite = "pg", "postgres://h/db", true }, "--suite needs --engine sqlite"},
		{func(c *Config) { c.Engine = "postgres" }, "needs --pg-dsn"},
	} {
		cfg := ok
		c.edit(&cfg)
		err := cfg.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: Check() = %v, want %q", cfg, err, c.want)
		}
	}
}
