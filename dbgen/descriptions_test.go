package dbgen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// customerCSV is BIRD's description of the shop fixture's customer table,
// with a multi-line value note and a data_format the file never sets.
const customerCSV = "original_column_name,column_name,column_description,data_format,value_description\r\n" +
	"id,,the customer's number,integer,\r\n" +
	"customer_name,customer name,the name the customer signs with,text,\r\n" +
	"city,,where the customer lives,text,\"commonsense evidence:\r\nfour cities\"\r\n" +
	"vip,,a flag,text,Y: vip; N: not\r\n" +
	"created_at,,when the row was made,date,bookkeeping\r\n"

// shopDescriptions touches the described customer table and the orders
// table, which has no CSV.
const shopDescriptions = `{"tables": {
  "Customer": {"noun": "client", "columns": {
    "city": {"description": "home town of the client"},
    "VIP": {"name": "premium member", "values": "Y means premium"},
    "created_at": {"skip": true}}},
  "orders": {"columns": {
    "quantity": {"name": "units", "description": "units bought per order"},
    "note": {"skip": true}}},
  "product": {"noun": "article"}}}`

// TestDescriptionsReachPrompts: the CSVs Write copies hold BIRD's rows with
// the descriptions file's entries over them (none without a file, byte for
// byte), and the prompts training builds over the written benchmark show
// them.
func TestDescriptionsReachPrompts(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		// want: table.column -> its row read back; absent rows are "".
		want map[string]dataset.ColumnDescription
		// same: the CSVs are the sources' bytes, and no other is written.
		same bool
		// inPrompt and notInPrompt: text a question's prompt does and does
		// not hold, in both of training's prompt formats.
		inPrompt, notInPrompt []string
	}{
		{
			name: "no file",
			want: map[string]dataset.ColumnDescription{
				"customer.city":   {Column: "city", Description: "where the customer lives", Format: "text", Values: "commonsense evidence:\nfour cities"},
				"orders.quantity": {},
			},
			same:        true,
			inPrompt:    []string{"customer lives"},
			notInPrompt: []string{"home town", "units bought"},
		},
		{
			name: "file",
			file: shopDescriptions,
			want: map[string]dataset.ColumnDescription{
				"customer.id":            {Column: "id", Description: "the customer's number", Format: "integer"},
				"customer.customer_name": {Column: "customer_name", Name: "customer name", Description: "the name the customer signs with", Format: "text"},
				"customer.city":          {Column: "city", Description: "home town of the client", Format: "text", Values: "commonsense evidence:\nfour cities"},
				"customer.vip":           {Column: "vip", Name: "premium member", Description: "a flag", Format: "text", Values: "Y means premium"},
				"customer.created_at":    {Column: "created_at", Description: "when the row was made", Format: "date", Values: "bookkeeping"},
				"orders.quantity":        {Column: "quantity", Name: "units", Description: "units bought per order"},
				"orders.note":            {},
				"product.category":       {},
			},
			inPrompt:    []string{"home town", "units bought per order", "premium member", "signs with"},
			notInPrompt: []string{"customer lives"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixture(t, "shop", shop)
			descDir := filepath.Join(filepath.Dir(path), "database_description")
			if err := os.MkdirAll(descDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(descDir, "customer.csv"), []byte(customerCSV), 0o644); err != nil {
				t.Fatal(err)
			}
			o := IntrospectOptions{}
			if tc.file != "" {
				o.DescriptionsFile = filepath.Join(t.TempDir(), "descriptions.json")
				if err := os.WriteFile(o.DescriptionsFile, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			eng := engine(t)
			d, err := Introspect(context.Background(), eng, path, o)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Generate(context.Background(), eng, d, Options{N: 60, Seed: 1, DevShare: 0.1, TestShare: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "bench")
			if _, err := Write(out, []Generated{{d, s}}, 1, false); err != nil {
				t.Fatal(err)
			}
			for _, split := range []string{"train", "dev", dataset.SplitTest} {
				db := filepath.Join(out, split+"_databases", "shop")
				if tc.same {
					sameFiles(t, descDir, filepath.Join(db, "database_description"))
				}
				got, err := dataset.ReadDescriptions(db)
				if err != nil {
					t.Fatal(err)
				}
				for key, want := range tc.want {
					tn, cn, _ := strings.Cut(key, ".")
					var row dataset.ColumnDescription
					for _, r := range got[tn] {
						if r.Column == cn {
							row = r
						}
					}
					if row != want {
						t.Errorf("%s %s: read back %+v, want %+v", split, key, row, want)
					}
				}
			}
			b, err := dataset.LoadBIRD(out, "train")
			if err != nil {
				t.Fatal(err)
			}
			peng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
			t.Cleanup(func() { peng.Close() })
			ex := dataset.Example{DBID: "shop", Question: "How many units did customers in Paris buy?"}
			for _, f := range []policy.Format{{Kind: policy.FormatText}, {Kind: policy.FormatCompact, Descriptions: true, DescWords: 12}} {
				pr, err := policy.NewPrompter(peng, b.DBRoot, f)
				if err != nil {
					t.Fatal(err)
				}
				p, err := pr.Prompt(context.Background(), ex)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.inPrompt {
					if !strings.Contains(p, w) {
						t.Errorf("%s prompt lacks %q:\n%s", f.Kind, w, p)
					}
				}
				for _, w := range tc.notInPrompt {
					if strings.Contains(p, w) {
						t.Errorf("%s prompt holds %q:\n%s", f.Kind, w, p)
					}
				}
			}
		})
	}
}

// TestSampleDescriptionsCopied: without a descriptions file the bundled
// sample's CSVs are copied byte for byte (runs are cached by them); with
// one, only the CSV of the table it describes changes.
func TestSampleDescriptionsCopied(t *testing.T) {
	for _, tc := range []struct {
		db, file string
		changed  string // the one CSV the file rewrites; "" for none
	}{
		{db: "superhero"},
		{db: "student_club"},
		{db: "superhero", file: `{"tables": {"superhero": {"columns": {"height_cm": {"description": "height in centimetres"}}}, "colour": {"noun": "hue"}}}`, changed: "superhero.csv"},
	} {
		t.Run(tc.db+map[bool]string{true: " with a file"}[tc.file != ""], func(t *testing.T) {
			o := IntrospectOptions{}
			if tc.file != "" {
				o.DescriptionsFile = filepath.Join(t.TempDir(), "descriptions.json")
				if err := os.WriteFile(o.DescriptionsFile, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			d := introspect(t, sampleDB(tc.db), o)
			dir := t.TempDir()
			if err := copyDatabase(d, dir); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(filepath.Dir(sampleDB(tc.db)), "database_description")
			dst := filepath.Join(dir, "database_description")
			if tc.changed == "" {
				sameFiles(t, src, dst)
				return
			}
			entries, err := os.ReadDir(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				a, _ := os.ReadFile(filepath.Join(src, e.Name()))
				b, err := os.ReadFile(filepath.Join(dst, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if differ := !bytes.Equal(a, b); differ != (e.Name() == tc.changed) {
					t.Errorf("%s: changed %v, want %v", e.Name(), differ, e.Name() == tc.changed)
				}
			}
			got, err := dataset.ReadDescriptions(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dataset.ReadDescriptions(filepath.Dir(src))
			if err != nil {
				t.Fatal(err)
			}
			if len(got["superhero"]) != len(want["superhero"]) {
				t.Fatalf("superhero.csv: %d rows, want %d", len(got["superhero"]), len(want["superhero"]))
			}
			for i, r := range got["superhero"] {
				w := want["superhero"][i]
				if r.Column == "height_cm" {
					w.Description = "height in centimetres"
				}
				if r != w {
					t.Errorf("superhero.csv row %d: %+v, want %+v", i, r, w)
				}
			}
		})
	}
}

// sameFiles fails unless dst holds exactly src's files, byte for byte.
func sameFiles(t *testing.T, src, dst string) {
	t.Helper()
	read := func(dir string) map[string][]byte {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]byte{}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = b
		}
		return m
	}
	a, b := read(src), read(dst)
	if len(a) == 0 || len(a) != len(b) {
		t.Errorf("%s holds %d files, %s %d", src, len(a), dst, len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs from its source", filepath.Join(dst, name))
		}
	}
}

// TestWriteComments pins the CSVs a PostgreSQL snapshot's comments become
// (one writer with the descriptions file's): commented columns only, and no
// file for an unreadable table or a name that cannot be a file name.
func TestWriteComments(t *testing.T) {
	for _, tc := range []struct {
		table *pgTable
		want  string // "" for no file
	}{
		{&pgTable{name: "emp", readable: true, cols: []pgColumn{{name: "id"}, {name: "sal"}, {name: "dno"}},
			comments: map[string]string{"sal": "yearly pay, in euros", "id": "the key"}},
			"original_column_name,column_name,column_description,data_format,value_description\nid,,the key,,\nsal,,\"yearly pay, in euros\",,\n"},
		{&pgTable{name: "hidden", cols: []pgColumn{{name: "x"}}, comments: map[string]string{"x": "secret"}}, ""},
		{&pgTable{name: "a/b", readable: true, cols: []pgColumn{{name: "x"}}, comments: map[string]string{"x": "y"}}, ""},
		{&pgTable{name: "..", readable: true, cols: []pgColumn{{name: "x"}}, comments: map[string]string{"x": "y"}}, ""},
		{&pgTable{name: "plain", readable: true, cols: []pgColumn{{name: "x"}}}, ""},
	} {
		t.Run(tc.table.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			if err := writeComments(dir, []*pgTable{tc.table}); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "database_description"))
			if tc.want == "" {
				if len(entries) != 0 {
					t.Errorf("wrote %d files, want none", len(entries))
				}
				return
			}
			got, err := os.ReadFile(filepath.Join(dir, "database_description", tc.table.name+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || len(entries) != 1 {
				t.Errorf("%d files; %s.csv:\n%s\nwant:\n%s", len(entries), tc.table.name, got, tc.want)
			}
		})
	}
}
