package train

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/prompt"
)

func TestRenameSQL(t *testing.T) {
	m := map[string]string{"customer": "patron", "customer_id": "patron_no", "city": "town", "date": "day"}
	for in, want := range map[string]string{
		"SELECT T1.city FROM customer AS T1 WHERE T1.city = 'city' AND customer_id > 3": "SELECT T1.town FROM patron AS T1 WHERE T1.town = 'city' AND patron_no > 3",
		`SELECT "customer_id", date(x), date FROM [customer]`:                           `SELECT "patron_no", date(x), day FROM [patron]`,
		"SELECT 'it''s city' , City FROM customer":                                      "SELECT 'it''s city' , town FROM patron",
	} {
		if got := renameSQL(in, m); got != want {
			t.Errorf("renameSQL(%q) = %q, want %q", in, got, want)
		}
	}
	ev := "silver-city refers to city = 'silver'; percentage = DIVIDE(SUM(city), 2); customers in the city"
	want := "silver-city refers to town = 'silver'; percentage = DIVIDE(SUM(town), 2); customers in the city"
	if got := renameEvidence(ev, m); got != want {
		t.Errorf("renameEvidence = %q, want %q", got, want)
	}
}

func TestRenameSchema(t *testing.T) {
	s := &prompt.Schema{DBID: "x", Tables: []*prompt.Table{
		{Name: "customer", Columns: []prompt.Column{{Name: "customer_id"}, {Name: "first_name"}}, PrimaryKey: []string{"customer_id"}},
		{Name: "orders", Columns: []prompt.Column{{Name: "order_id"}, {Name: "customer_id"}},
			ForeignKeys: []prompt.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customer", RefColumns: []string{"customer_id"}}}},
	}}
	r := newRenamer([]string{"alpha beta gamma delta epsilon"})
	rng := rand.New(rand.NewPCG(1, 2))
	ns, m := r.renameSchema(s, 1, rng)
	if len(m) != 5 {
		t.Fatalf("renamed %d of 5 names: %v", len(m), m)
	}
	if ns.Tables[0].Columns[0].Name != ns.Tables[1].Columns[1].Name || ns.Tables[1].ForeignKeys[0].RefTable != ns.Tables[0].Name {
		t.Errorf("shared names renamed inconsistently: %+v %+v", ns.Tables[0], ns.Tables[1])
	}
	if s.Tables[0].Columns[0].Name != "customer_id" {
		t.Error("original schema modified")
	}
	seen := map[string]bool{}
	for _, v := range m {
		if seen[v] || sqlWords[strings.ToLower(v)] {
			t.Errorf("bad new name %q", v)
		}
		seen[v] = true
	}
}
