package train

import (
	"context"
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

func TestRenameText(t *testing.T) {
	s := &prompt.Schema{DBID: "x", Tables: []*prompt.Table{
		{Name: "pole_invn", Columns: []prompt.Column{
			{Name: "pole_id"}, {Name: "ht_ft", Description: "height ft; height of the pole in feet"},
			{Name: "status", Examples: []string{"'active'", "'pole down'"}},
		}, PrimaryKey: []string{"pole_id"}},
		{Name: "feeder", Columns: []prompt.Column{{Name: "feeder_id"}, {Name: "pole_id"}, {Name: "total_load"}},
			ForeignKeys: []prompt.ForeignKey{{Columns: []string{"pole_id"}, RefTable: "pole_invn", RefColumns: []string{"pole_id"}}}},
	}}
	r := newRenamer([]string{"alpha beta gamma delta epsilon zeta theta"})
	rng := rand.New(rand.NewPCG(1, 2))
	q := "How many Poles have a feeder whose total load is high? Feeders of the pole's height."
	ns, m, nq, _ := r.renameText(s, q, "feeder refers to feeder_id", 1, rng)
	// "pole" is a word of the example values ('pole down'): kept; "total"
	// says what to compute: kept; "invn", "feeder", "load", "status" renamed.
	if _, ok := m["pole_id"]; ok {
		t.Errorf("pole_id renamed although 'pole' is a value word: %v", m)
	}
	if got := ns.Tables[1].Columns[2].Name; !strings.HasPrefix(got, "total_") || got == "total_load" {
		t.Errorf("total_load -> %q, want total_ and a new word", got)
	}
	feeder := ns.Tables[1].Name
	if feeder == "feeder" || m["feeder"] != feeder {
		t.Fatalf("feeder -> %q (map %v)", feeder, m)
	}
	load := strings.TrimPrefix(ns.Tables[1].Columns[2].Name, "total_")
	want := "How many Poles have a " + feeder + " whose total " + load + " is high? " + strings.ToUpper(feeder[:1]) + feeder[1:] + "s of the pole's height."
	if nq != want {
		t.Errorf("question\n got %q\nwant %q", nq, want)
	}
	if ns.Tables[1].ForeignKeys[0].RefTable != ns.Tables[0].Name || ns.Tables[0].Name == "pole_invn" {
		t.Errorf("foreign key %+v does not follow the renamed table %q", ns.Tables[1].ForeignKeys[0], ns.Tables[0].Name)
	}
	if ns.Tables[0].Columns[2].Examples[1] != "'pole down'" {
		t.Errorf("example values changed: %v", ns.Tables[0].Columns[2].Examples)
	}
	sql := renameSQL("SELECT COUNT(*) FROM feeder AS T1 WHERE T1.total_load > 'load'", m)
	if want := "SELECT COUNT(*) FROM " + feeder + " AS T1 WHERE T1.total_" + load + " > 'load'"; sql != want {
		t.Errorf("sql %q, want %q", sql, want)
	}
	// The same draw on the same schema renames alike: questions on one
	// database share their schema's text.
	ns2, _, _, _ := r.renameText(s, "another question", "", 1, rand.New(rand.NewPCG(1, 2)))
	if ns2.Tables[1].Name != feeder || ns2.Tables[0].Name != ns.Tables[0].Name {
		t.Errorf("second draw renamed %q/%q, first %q/%q", ns2.Tables[0].Name, ns2.Tables[1].Name, ns.Tables[0].Name, feeder)
	}
}

// TestRenameFamilies: names sharing a word keep sharing one drawn word
// (an entity's table and columns stay a family), the question and the
// descriptions are left as they are, and the gold SQL follows the map.
func TestRenameFamilies(t *testing.T) {
	s := &prompt.Schema{DBID: "x", Tables: []*prompt.Table{
		{Name: "purchase", Columns: []prompt.Column{{Name: "purchase_id"}, {Name: "purchase_date", Description: "purchase date"}}, PrimaryKey: []string{"purchase_id"}},
		{Name: "purchase_line", Columns: []prompt.Column{{Name: "purchase_id"}, {Name: "qty"}},
			ForeignKeys: []prompt.ForeignKey{{Columns: []string{"purchase_id"}, RefTable: "purchase", RefColumns: []string{"purchase_id"}}}},
	}}
	r := newRenamer([]string{"alpha beta gamma delta epsilon zeta theta"})
	r.mode = renameByFamily
	q := "How many purchases were made in 2020?"
	ev := "in 2020 refers to purchase_date LIKE '2020%'"
	ns, m, nq, nev := r.rename(s, q, ev, 1, rand.New(rand.NewPCG(3, 4)))
	word := ns.Tables[0].Name
	if word == "purchase" || strings.Contains(word, "_") {
		t.Fatalf("purchase -> %q, want one new word (map %v)", word, m)
	}
	idWord := strings.SplitN(ns.Tables[0].Columns[0].Name, "_", 2)[0]
	for _, got := range []string{ns.Tables[0].Columns[0].Name, ns.Tables[0].Columns[1].Name, ns.Tables[1].Name, ns.Tables[1].Columns[0].Name} {
		if !strings.HasPrefix(got, word+"_") {
			t.Errorf("%q does not keep the family word %q (map %v)", got, word, m)
		}
	}
	if idWord != word {
		t.Errorf("purchase_id's first word %q, the table's %q", idWord, word)
	}
	if ns.Tables[1].ForeignKeys[0].RefTable != word {
		t.Errorf("foreign key %+v does not follow the renamed table %q", ns.Tables[1].ForeignKeys[0], word)
	}
	if nq != q {
		t.Errorf("question changed: %q", nq)
	}
	if d := ns.Tables[0].Columns[1].Description; d != "purchase date" {
		t.Errorf("description changed: %q", d)
	}
	date := ns.Tables[0].Columns[1].Name
	if want := "in 2020 refers to " + date + " LIKE '2020%'"; nev != want {
		t.Errorf("evidence %q, want %q", nev, want)
	}
	sql := renameSQL("SELECT COUNT(*) FROM purchase WHERE purchase_date LIKE '2020%'", m)
	if want := "SELECT COUNT(*) FROM " + word + " WHERE " + date + " LIKE '2020%'"; sql != want {
		t.Errorf("sql %q, want %q", sql, want)
	}
	// Name by name (the default), the family breaks: at p = 1 every
	// name's words are drawn apart.
	r.mode = renameByName
	ns2, _, _, _ := r.rename(s, q, ev, 1, rand.New(rand.NewPCG(3, 4)))
	shared := 0
	for _, n := range []string{ns2.Tables[0].Columns[0].Name, ns2.Tables[0].Columns[1].Name, ns2.Tables[1].Name} {
		if strings.HasPrefix(n, ns2.Tables[0].Name+"_") {
			shared++
		}
	}
	if shared == 3 {
		t.Errorf("name-by-name renaming kept the family: %+v %+v", ns2.Tables[0], ns2.Tables[1])
	}
}

func TestMapWords(t *testing.T) {
	w := map[string]string{"city": "zorb", "box": "kel", "pole": "tam"}
	for in, want := range map[string]string{
		"Cities and city_id in CITY": "Zorbs and zorb_id in ZORB",
		"boxes, Poles; the poleax":   "keles, Tams; the poleax",
		"no change here, 3 cities2":  "no change here, 3 zorbs2",
	} {
		if got := mapWords(in, w); got != want {
			t.Errorf("mapWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// sftWith is the tiny SFT with set applied, after checking that its
// fingerprint names key only when set is: runs from before the option,
// whose checkpoints lack the key, must still resume.
func sftWith(t *testing.T, d *Data, key string, set func(*SFTOptions)) *sft {
	t.Helper()
	o := tinyOptions(t.TempDir())
	o.defaults()
	if _, ok := newSFT(d, o).Fingerprint()[key]; ok {
		t.Errorf("fingerprint names %s when it is off: older checkpoints would not resume", key)
	}
	set(&o)
	st := newSFT(d, o)
	if st.Fingerprint()[key] != "true" {
		t.Errorf("fingerprint does not name %s when it is on", key)
	}
	return st
}

// TestRenameTextWiring: SFT with RenameText renders renamed questions
// (the words the schema's names share with them), and its fingerprint
// names the option only when set, so that runs from before it resume.
func TestRenameTextWiring(t *testing.T) {
	d := loadTiny(t)
	st := sftWith(t, d, "rename_text", func(o *SFTOptions) { o.RenameText = true })
	changed := 0
	for i := range d.Train {
		ex := &d.Train[i]
		pr, _, err := d.render(context.Background(), ex, st.rn, 1, rand.New(rand.NewPCG(1, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pr, "question: "+strings.Join(strings.Fields(ex.Question), " ")) {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("no question of %d renamed with RenameText at p = 1", len(d.Train))
	}
}

// TestRenameFamiliesWiring: SFTOptions.RenameFamilies reaches SFT's
// renamer (one database word becomes one new word in every name of the
// schema) and its fingerprint, only when on; with RenameText it is
// refused.
func TestRenameFamiliesWiring(t *testing.T) {
	ctx := context.Background()
	d := loadTiny(t)
	st := sftWith(t, d, "rename_families", func(o *SFTOptions) { o.RenameFamilies = true })
	o := st.o
	shared := 0
	for i := range d.Train {
		ex := &d.Train[i]
		s, err := d.TrainPrompter.Schema(ctx, ex.DBID)
		if err != nil {
			t.Fatal(err)
		}
		_, m, q, _ := st.rn.rename(s, ex.Question, ex.Evidence, 1, rand.New(rand.NewPCG(1, uint64(i))))
		if q != ex.Question {
			t.Errorf("question %d renamed: %q", ex.QuestionID, q)
		}
		checkFamilies(t, ex.QuestionID, m)
		words := map[string]int{}
		for old := range m {
			for _, w := range strings.Split(old, "_") {
				words[w]++
			}
		}
		for _, n := range words {
			if n > 1 {
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("no schema word shared by two renamed names: the test data cannot tell families from names")
	}
	o.RenameText = true
	if _, err := SFT(ctx, d, o); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("SFT with rename text and families: %v, want refused", err)
	}
}
