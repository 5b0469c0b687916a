package policy

import (
	"maps"
	"slices"
	"strings"
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

// TestCompactValues: the values line follows the evidence, question's
// values first, and CompactSchema still reads the tables.
func TestCompactValues(t *testing.T) {
	s := &prompt.Schema{Tables: []*prompt.Table{
		{Name: "hero", Columns: []prompt.Column{{Name: "id"}, {Name: "name", Values: prompt.NewValueSet([]string{"3-D Man", "O'Brien, Jr"})}}},
		{Name: "colour", Columns: []prompt.Column{{Name: "colour", Values: prompt.NewValueSet([]string{"Blue"})}}},
	}}
	f := Format{Kind: FormatCompact, Values: true}
	got := f.Compact(s, "Is 3-D Man's eye colour blue?", "O'Brien, Jr refers to name")
	want := "hero: id, name\ncolour: colour\nquestion: Is 3-D Man's eye colour blue?\nevidence: O'Brien, Jr refers to name\n" +
		"values: hero.name = '3-D Man'; colour.colour = 'Blue'; hero.name = 'O''Brien, Jr'\nSQL: "
	if got != want {
		t.Errorf("compact with values:\n%q\nwant\n%q", got, want)
	}
	if tables, ok := CompactSchema(got); !ok || len(tables) != 2 || !slices.Equal(tables["hero"], []string{"id", "name"}) {
		t.Errorf("CompactSchema read %v, %v", tables, ok)
	}
	if got := f.Compact(s, "How many heroes?", ""); strings.Contains(got, "values:") {
		t.Errorf("a values line without quoted values:\n%s", got)
	}
	if err := (Format{Kind: FormatText, Values: true}).Validate(); err == nil {
		t.Error("a text format with values validated")
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

func TestDescPhrase(t *testing.T) {
	tests := []struct {
		desc, col, table string
		plain, phrase    string
	}{
		// an abbreviated name: its readable name alone
		{"industry; The industry of the client company (clnt_inds abbreviates industry).", "clnt_inds", "client_company",
			"industry client company (clnt_inds abbreviates industry).", "industry"},
		// a description that restates the names: dropped
		{"The request date of the change order.", "request_date", "change_order", "request date change order.", ""},
		{"The cost impact of the change orders, in USD.; values: unit: USD", "cost_impact", "change_order", "cost impact change orders USD.", "cost impact change orders USD."},
		// BIRD's: a description that says more is kept
		{"the customer's first name", "given_name", "client", "customer first name", "customer first name"},
		// a readable name before a description: the name
		{"publisher; the publisher of the hero's comics", "pub_id", "superhero", "publisher hero comics", "publisher"},
	}
	for _, tc := range tests {
		if got := (Format{}).shortDescription(tc.desc, tc.col, tc.table); got != tc.plain {
			t.Errorf("%q: %q, want %q", tc.desc, got, tc.plain)
		}
		if got := (Format{DescPhrase: true}).shortDescription(tc.desc, tc.col, tc.table); got != tc.phrase {
			t.Errorf("%q with DescPhrase: %q, want %q", tc.desc, got, tc.phrase)
		}
	}
}
