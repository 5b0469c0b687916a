package policy

import (
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
