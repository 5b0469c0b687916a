package sqlgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// writeDB writes a fixture to <root>/<id>/<id>.sqlite, the layout
// sqlexec.NewSQLite reads with Root.
func writeDB(t testing.TB, root string, db *schemagen.DB) {
	t.Helper()
	dir := filepath.Join(root, db.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := sqlexec.CreateSQLite(filepath.Join(dir, db.ID+".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	for _, tb := range db.Tables {
		var defs []string
		for _, c := range tb.Columns {
			defs = append(defs, ident(c.Name)+" "+c.Type)
		}
		if len(tb.PK) > 0 {
			defs = append(defs, "PRIMARY KEY ("+strings.Join(tb.PK, ", ")+")")
		}
		for _, fk := range tb.FKs {
			defs = append(defs, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", fk.Column, fk.RefTable, fk.RefColumn))
		}
		if err := w.Exec("CREATE TABLE " + ident(tb.Name) + " (" + strings.Join(defs, ", ") + ")"); err != nil {
			t.Fatal(err)
		}
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(tb.Columns)), ", ")
		st, err := w.Prepare("INSERT INTO " + ident(tb.Name) + " VALUES (" + marks + ")")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tb.Rows {
			if err := st.Exec(r...); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	if err := w.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
}

var (
	firstNames = []string{"Ana", "Ben", "Chloe", "Dev", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaito", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara"}
	lastNames  = []string{"Abbott", "Brandt", "Costa", "Dumont", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen", "Kowalski", "Lopez", "Moreau", "Novak", "Okafor"}
	cities     = []string{"Lyon", "Porto", "Graz", "Turin", "Leeds"}
	words      = []string{"organic", "steel", "compact", "deluxe", "travel", "classic", "wireless", "garden"}
)

// names returns n distinct person names.
func names(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		s := firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func date(r *rand.Rand, y0, years int) (y, m, d int) {
	return y0 + r.IntN(years), 1 + r.IntN(12), 1 + r.IntN(28)
}

// dirtyCase writes a value as dirty data holds it: sometimes upper-case,
// sometimes padded.
func dirtyCase(r *rand.Rand, s string) string {
	switch r.IntN(5) {
	case 0:
		return strings.ToUpper(s)
	case 1:
		return " " + s + "  "
	case 2:
		return strings.ToLower(s)
	}
	return s
}

// shopDB: customers (dirty city, sex code, mixed-format signup date,
// balance stored as "$1,234.50"), products in categories, orders placed by
// customers and handled by employees (who have managers: a self
// reference), order lines linking orders and products.
func shopDB() *schemagen.DB {
	r := rand.New(rand.NewPCG(1, 2))
	cust := &schemagen.Table{Name: "customer", Kind: schemagen.KindEntity, Noun: schemagen.Noun{One: "customer", Many: "customers"}, PK: []string{"id"},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID, Phrase: "customer id"},
			{Name: "full_name", Type: "TEXT", Role: schemagen.RoleName, Phrase: "name"},
			{Name: "city", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "city", Dirty: []string{"case", "space"}},
			{Name: "sex", Type: "TEXT", Role: schemagen.RoleCode, Phrase: "sex", Codes: map[string]string{"F": "female", "M": "male"}},
			{Name: "signup_dt", Type: "TEXT", Role: schemagen.RoleDate, Phrase: "signup date", Formats: []string{"2006-01-02", "01/02/2006"}, Dirty: []string{"mixed_format"}},
			{Name: "balance", Type: "TEXT", Role: schemagen.RoleMeasure, Phrase: "account balance", Unit: "USD", Formats: []string{"$1,234.50"}},
			{Name: "vip", Type: "TEXT", Role: schemagen.RoleFlag, Phrase: "VIP status", Codes: map[string]string{"Y": "VIP", "N": "regular"}},
		}}
	for i, n := range names(r, 60) {
		y, m, d := date(r, 2018, 5)
		dt := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		if r.IntN(2) == 0 {
			dt = fmt.Sprintf("%02d/%02d/%04d", m, d, y)
		}
		bal := float64(r.IntN(500000)) / 100
		var balance any = fmt.Sprintf("$%s", commas(bal))
		if r.IntN(10) == 0 {
			balance = nil
		}
		sex := []string{"F", "M"}[r.IntN(2)]
		vip := []string{"Y", "N", "N"}[r.IntN(3)]
		cust.Rows = append(cust.Rows, []any{int64(i + 1), n, dirtyCase(r, cities[r.IntN(len(cities))]), sex, dt, balance, vip})
	}
	cat := &schemagen.Table{Name: "category", Kind: schemagen.KindLookup, Noun: schemagen.Noun{One: "category", Many: "categories"}, PK: []string{"id"},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "cat_name", Type: "TEXT", Role: schemagen.RoleName, Phrase: "category name"},
			{Name: "dept", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "department"},
		}}
	for i, n := range []string{"Kitchen", "Outdoor", "Office", "Toys", "Audio", "Books", "Garden", "Sports"} {
		cat.Rows = append(cat.Rows, []any{int64(i + 1), n, []string{"home", "leisure", "work"}[i%3]})
	}
	prod := &schemagen.Table{Name: "product", Kind: schemagen.KindEntity, Noun: schemagen.Noun{One: "product", Many: "products"}, PK: []string{"id"},
		FKs: []schemagen.FK{{Column: "category_id", RefTable: "category", RefColumn: "id", Phrase: "in"}},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "title", Type: "TEXT", Role: schemagen.RoleName, Phrase: "title"},
			{Name: "category_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "category"},
			{Name: "price", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "price", Unit: "USD", NullShare: 0.1},
			{Name: "stock", Type: "INTEGER", Role: schemagen.RoleCount, Phrase: "units in stock"},
			{Name: "notes", Type: "TEXT", Role: schemagen.RoleText, Phrase: "notes", NullShare: 0.3},
		}}
	seenT := map[string]bool{}
	for i := 0; len(prod.Rows) < 45; i++ {
		title := capital(words[r.IntN(len(words))]) + " " + []string{"lamp", "chair", "kettle", "speaker", "tent", "pen", "ball", "novel", "hose"}[r.IntN(9)]
		if seenT[title] {
			continue
		}
		seenT[title] = true
		var price any = float64(500+r.IntN(50000)) / 100
		if r.IntN(10) == 0 {
			price = nil
		}
		var notes any = "A " + words[r.IntN(len(words))] + " item, " + words[r.IntN(len(words))] + " finish"
		if r.IntN(3) == 0 {
			notes = nil
		}
		prod.Rows = append(prod.Rows, []any{int64(len(prod.Rows) + 1), title, int64(1 + r.IntN(8)), price, int64(r.IntN(200)), notes})
	}
	emp := &schemagen.Table{Name: "employee", Kind: schemagen.KindEntity, Noun: schemagen.Noun{One: "employee", Many: "employees"}, PK: []string{"id"},
		FKs: []schemagen.FK{{Column: "manager_id", RefTable: "employee", RefColumn: "id", Phrase: "managed by"}},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "emp_name", Type: "TEXT", Role: schemagen.RoleName, Phrase: "name"},
			{Name: "manager_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "manager"},
			{Name: "salary", Type: "INTEGER", Role: schemagen.RoleMeasure, Phrase: "salary", Unit: "USD"},
			{Name: "hire_date", Type: "DATE", Role: schemagen.RoleDate, Phrase: "hire date"},
			{Name: "role", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "role"},
		}}
	for i, n := range names(r, 14) {
		var mgr any
		if i > 0 {
			mgr = int64(1 + r.IntN(min(i, 4)))
		}
		y, m, d := date(r, 2010, 12)
		emp.Rows = append(emp.Rows, []any{int64(i + 1), n, mgr, int64(30000 + 1000*r.IntN(60)), fmt.Sprintf("%04d-%02d-%02d", y, m, d), []string{"clerk", "cashier", "supervisor"}[r.IntN(3)]})
	}
	ord := &schemagen.Table{Name: "orders", Kind: schemagen.KindEvent, Noun: schemagen.Noun{One: "order", Many: "orders"}, PK: []string{"id"},
		FKs: []schemagen.FK{{Column: "customer_id", RefTable: "customer", RefColumn: "id", Phrase: "placed by"}, {Column: "employee_id", RefTable: "employee", RefColumn: "id", Phrase: "handled by"}},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "customer_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "customer"},
			{Name: "employee_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "employee"},
			{Name: "order_date", Type: "DATE", Role: schemagen.RoleDate, Phrase: "order date"},
			{Name: "status", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "status"},
			{Name: "total", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "order total", Unit: "USD"},
		}}
	for i := range 220 {
		y, m, d := date(r, 2019, 4)
		ord.Rows = append(ord.Rows, []any{int64(i + 1), int64(1 + r.IntN(60)), int64(1 + r.IntN(14)), fmt.Sprintf("%04d-%02d-%02d", y, m, d), []string{"shipped", "pending", "cancelled", "returned"}[r.IntN(4)], float64(1000+r.IntN(90000)) / 100})
	}
	item := &schemagen.Table{Name: "order_item", Kind: schemagen.KindLink, Noun: schemagen.Noun{One: "order line", Many: "order lines"}, PK: []string{"order_id", "product_id"},
		FKs: []schemagen.FK{{Column: "order_id", RefTable: "orders", RefColumn: "id", Phrase: "belonging to"}, {Column: "product_id", RefTable: "product", RefColumn: "id", Phrase: "for"}},
		Columns: []*schemagen.Column{
			{Name: "order_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "order"},
			{Name: "product_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "product"},
			{Name: "quantity", Type: "INTEGER", Role: schemagen.RoleCount, Phrase: "quantity"},
			{Name: "unit_price", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "unit price", Unit: "USD"},
		}}
	for o := 1; o <= 220; o++ {
		seen := map[int]bool{}
		for range 1 + r.IntN(4) {
			p := 1 + r.IntN(45)
			if seen[p] {
				continue
			}
			seen[p] = true
			item.Rows = append(item.Rows, []any{int64(o), int64(p), int64(1 + r.IntN(6)), float64(500+r.IntN(20000)) / 100})
		}
	}
	return &schemagen.DB{ID: "shop_1", Domain: "shop", Tables: []*schemagen.Table{cust, cat, prod, emp, ord, item}}
}

func commas(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}

// clinicDB: admissions reference doctors twice (admitting and attending:
// two join paths the wording must tell apart), patients with an integer
// flag and a sex code, wards with NULLs.
func clinicDB() *schemagen.DB {
	r := rand.New(rand.NewPCG(3, 4))
	doc := &schemagen.Table{Name: "doctor", Kind: schemagen.KindEntity, Noun: schemagen.Noun{One: "doctor", Many: "doctors"}, PK: []string{"doc_id"},
		Columns: []*schemagen.Column{
			{Name: "doc_id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "doc_nm", Type: "TEXT", Role: schemagen.RoleName, Phrase: "doctor name"},
			{Name: "spec", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "specialty"},
			{Name: "yrs_exp", Type: "INTEGER", Role: schemagen.RoleCount, Phrase: "years of experience"},
		}}
	for i, n := range names(r, 18) {
		doc.Rows = append(doc.Rows, []any{int64(i + 1), "Dr. " + n, []string{"cardiology", "oncology", "surgery", "pediatrics"}[r.IntN(4)], int64(1 + r.IntN(35))})
	}
	pt := &schemagen.Table{Name: "patient", Kind: schemagen.KindEntity, Noun: schemagen.Noun{One: "patient", Many: "patients"}, PK: []string{"pt_id"},
		Columns: []*schemagen.Column{
			{Name: "pt_id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "pt_nm", Type: "TEXT", Role: schemagen.RoleName, Phrase: "patient name"},
			{Name: "sex", Type: "TEXT", Role: schemagen.RoleCode, Phrase: "sex", Codes: map[string]string{"F": "female", "M": "male"}},
			{Name: "ins", Type: "INTEGER", Role: schemagen.RoleFlag, Phrase: "insurance status", Codes: map[string]string{"1": "insured", "0": "uninsured"}},
			{Name: "wt_kg", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "weight", Unit: "kg"},
			{Name: "home_city", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "home city"},
		}}
	for i, n := range names(r, 80) {
		pt.Rows = append(pt.Rows, []any{int64(i + 1), n, []string{"F", "M"}[r.IntN(2)], int64(r.IntN(2)), float64(450+r.IntN(700)) / 10, cities[r.IntN(len(cities))]})
	}
	adm := &schemagen.Table{Name: "admission", Kind: schemagen.KindEvent, Noun: schemagen.Noun{One: "admission", Many: "admissions"}, PK: []string{"adm_id"},
		FKs: []schemagen.FK{
			{Column: "pt_id", RefTable: "patient", RefColumn: "pt_id", Phrase: "of"},
			{Column: "adm_doc", RefTable: "doctor", RefColumn: "doc_id", Phrase: "admitted by"},
			{Column: "att_doc", RefTable: "doctor", RefColumn: "doc_id", Phrase: "attended by"},
		},
		Columns: []*schemagen.Column{
			{Name: "adm_id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "pt_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "patient"},
			{Name: "adm_doc", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "admitting doctor"},
			{Name: "att_doc", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "attending doctor"},
			{Name: "adm_dt", Type: "DATE", Role: schemagen.RoleDate, Phrase: "admission date"},
			{Name: "cost", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "cost", Unit: "USD"},
			{Name: "ward", Type: "TEXT", Role: schemagen.RoleCategory, Phrase: "ward", NullShare: 0.2},
			{Name: "los", Type: "INTEGER", Role: schemagen.RoleCount, Phrase: "length of stay in days"},
		}}
	for i := range 260 {
		y, m, d := date(r, 2020, 3)
		var ward any = []string{"A", "B", "C", "ICU"}[r.IntN(4)]
		if r.IntN(5) == 0 {
			ward = nil
		}
		adm.Rows = append(adm.Rows, []any{int64(i + 1), int64(1 + r.IntN(80)), int64(1 + r.IntN(18)), int64(1 + r.IntN(18)), fmt.Sprintf("%04d-%02d-%02d", y, m, d), float64(20000+r.IntN(900000)) / 100, ward, int64(1 + r.IntN(20))})
	}
	lab := &schemagen.Table{Name: "lab_test", Kind: schemagen.KindEvent, Noun: schemagen.Noun{One: "lab test", Many: "lab tests"}, PK: []string{"id"},
		FKs: []schemagen.FK{{Column: "adm_id", RefTable: "admission", RefColumn: "adm_id", Phrase: "done during"}},
		Columns: []*schemagen.Column{
			{Name: "id", Type: "INTEGER", Role: schemagen.RoleID},
			{Name: "adm_id", Type: "INTEGER", Role: schemagen.RoleFK, Phrase: "admission"},
			{Name: "test_cd", Type: "TEXT", Role: schemagen.RoleCode, Phrase: "test type", Codes: map[string]string{"HB": "haemoglobin", "GLU": "glucose", "CRP": "C-reactive protein"}},
			{Name: "result", Type: "REAL", Role: schemagen.RoleMeasure, Phrase: "result value"},
			{Name: "abnormal", Type: "TEXT", Role: schemagen.RoleFlag, Phrase: "abnormal flag", Codes: map[string]string{"Y": "abnormal", "N": "normal"}},
		}}
	for i := range 500 {
		lab.Rows = append(lab.Rows, []any{int64(i + 1), int64(1 + r.IntN(260)), []string{"HB", "GLU", "CRP"}[r.IntN(3)], float64(r.IntN(2000)) / 10, []string{"Y", "N", "N"}[r.IntN(3)]})
	}
	return &schemagen.DB{ID: "clinic_1", Domain: "clinic", Tables: []*schemagen.Table{doc, pt, adm, lab}}
}
