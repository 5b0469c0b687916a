package policy

import (
	"maps"
	"slices"
	"testing"

	"github.com/sqlrl/sqlrl/prompt"
)

func TestCompact(t *testing.T) {
	s := &prompt.Schema{Tables: []*prompt.Table{
		{Name: "client", PrimaryKey: []string{"client_id"}, Columns: []prompt.Column{
			{Name: "client_id", Type: "INTEGER", Description: "unique id of the customer"},
			{Name: "given_name", Type: "TEXT", Description: "given name; the customer's first name; values: 'A', 'B'"},
		}},
		{Name: "purchase", Columns: []prompt.Column{{Name: "purchase_id", Type: "INTEGER"}, {Name: "client_id", Type: "INTEGER"}},
			ForeignKeys: []prompt.ForeignKey{{Columns: []string{"client_id"}, RefTable: "client"}}},
	}}
	got := Format{Kind: FormatCompact, Types: true}.Compact(s, "How  many\nclients?", "")
	want := "client: client_id integer key, given_name text\npurchase: purchase_id integer, client_id integer -> client\nquestion: How many clients?\nSQL: "
	if got != want {
		t.Errorf("compact:\n%q\nwant\n%q", got, want)
	}
	got = Format{Kind: FormatCompact, Descriptions: true}.Compact(s, "q", "e = 1")
	want = "[unique id customer] client_id key, [customer first name] given_name => client\npurchase_id, client_id -> client => purchase\nquestion: q\nevidence: e = 1\nSQL: "
	if got != want {
		t.Errorf("compact with descriptions:\n%q\nwant\n%q", got, want)
	}
}

// CompactSchema reads back what Compact writes, in both layouts.
func TestCompactSchema(t *testing.T) {
	s := &prompt.Schema{Tables: []*prompt.Table{
		{Name: "client", PrimaryKey: []string{"client_id"}, Columns: []prompt.Column{
			{Name: "client_id", Type: "INTEGER", Description: "unique id of the customer"},
			{Name: "given_name", Type: "TEXT", Description: "given name; the customer's first name, [sic]; values: 'A', 'B'"},
		}},
		{Name: "purchase", Columns: []prompt.Column{{Name: "purchase_id", Type: "INTEGER"}, {Name: "client_id", Type: "INTEGER"}},
			ForeignKeys: []prompt.ForeignKey{{Columns: []string{"client_id"}, RefTable: "client"}}},
	}}
	want := map[string][]string{"client": {"client_id", "given_name"}, "purchase": {"purchase_id", "client_id"}}
	for _, f := range []Format{{Kind: FormatCompact, Types: true}, {Kind: FormatCompact, Descriptions: true}, {Kind: FormatCompact}} {
		got, ok := CompactSchema(f.Compact(s, "How many?", "x = 'a, b'"))
		if !ok || !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%+v: got %v (%v), want %v", f, got, ok, want)
		}
	}
	for _, p := range []string{"How many clients?", "Write SQL.\nquestion: x", ""} {
		if _, ok := CompactSchema(p); ok {
			t.Errorf("%q read as a compact prompt", p)
		}
	}
}
