package schemagen

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/sqlexec"
)

var seeds = []uint64{1, 2, 3}

// TestDesignSizes: every domain designs 6-15 tables and 40-150 columns
// over several seeds, and every abbreviated name is explained.
func TestDesignSizes(t *testing.T) {
	doms := Domains()
	if len(doms) < 40 {
		t.Fatalf("%d domains, want 40", len(doms))
	}
	for _, d := range doms {
		for _, s := range seeds {
			db, err := Design(d, s)
			if err != nil {
				t.Fatal(err)
			}
			cols := 0
			for _, tb := range db.Tables {
				cols += len(tb.Columns)
				if len(tb.Rows) == 0 {
					t.Errorf("%s: %s empty", db.ID, tb.Name)
				}
				for _, c := range tb.Columns {
					if c.Description == "" || c.Phrase == "" {
						t.Errorf("%s.%s.%s: no description or phrase", db.ID, tb.Name, c.Name)
					}
					if c.Abbreviated && !strings.Contains(c.Description, c.Phrase) {
						t.Errorf("%s.%s.%s: abbreviated name's description %q does not spell out %q", db.ID, tb.Name, c.Name, c.Description, c.Phrase)
					}
					if (c.Role == RoleCode || c.Role == RoleFlag) && len(c.Codes) == 0 {
						t.Errorf("%s.%s.%s: code column without meanings", db.ID, tb.Name, c.Name)
					}
				}
			}
			if n := len(db.Tables); n < MinTables || n > MaxTables {
				t.Errorf("%s: %d tables", db.ID, n)
			}
			if cols < MinColumns || cols > MaxColumns {
				t.Errorf("%s: %d columns", db.ID, cols)
			}
		}
	}
}

// TestDomainsDiffer: no two domains share more than maxShared of their
// table names, so a split holding domains out holds out vocabulary too.
func TestDomainsDiffer(t *testing.T) {
	const maxShared = 0.2
	v, err := loadVocab()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range v {
		for _, b := range v[i+1:] {
			shared := 0
			for _, ta := range a.tables {
				for _, tb := range b.tables {
					if ta.name == tb.name {
						shared++
					}
				}
			}
			if f := float64(shared) / float64(min(len(a.tables), len(b.tables))); f > maxShared {
				t.Errorf("%s and %s share %.0f%% of table names", a.name, b.name, 100*f)
			}
		}
	}
}

// TestDeterministic: the same seed gives byte-identical files.
func TestDeterministic(t *testing.T) {
	for _, d := range []string{"hospital", "esports", "issue_tracker"} {
		var sums [2]map[string][]byte
		for k := range sums {
			db, err := Design(d, 7)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := Write(context.Background(), db, dir); err != nil {
				t.Fatal(err)
			}
			sums[k] = readTree(t, dir)
		}
		if len(sums[0]) != len(sums[1]) {
			t.Fatalf("%s: %d files vs %d", d, len(sums[0]), len(sums[1]))
		}
		for name, b := range sums[0] {
			if !bytes.Equal(b, sums[1][name]) {
				t.Errorf("%s: %s differs between runs", d, name)
			}
		}
	}
	a, _ := Design("hospital", 1)
	b, _ := Design("hospital", 2)
	if fmt.Sprint(a.Tables[len(a.Tables)-1].Rows) == fmt.Sprint(b.Tables[len(b.Tables)-1].Rows) {
		t.Error("seeds 1 and 2 give the same data")
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var usDate = regexp.MustCompile(`^\d\d/\d\d/\d{4}$`)
var isoDate = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)

// TestWrittenDatabases checks the written files of every domain: keys
// unique and foreign keys valid by SQL on the file, declared dirt really
// present, description CSVs parse and match the columns.
func TestWrittenDatabases(t *testing.T) {
	root := t.TempDir()
	for _, d := range Domains() {
		for _, s := range seeds[:2] {
			db, err := Design(d, s)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, db.ID)
			if err := Write(context.Background(), db, dir); err != nil {
				t.Fatal(err)
			}
			checkFile(t, db, dir)
			checkDirt(t, db)
			checkCSVs(t, db, dir)
		}
	}
}

func checkFile(t *testing.T, db *DB, dir string) {
	w, err := sqlexec.OpenSQLite(filepath.Join(dir, db.ID+".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	one := func(q string) int64 {
		_, rows, err := w.Query(q)
		if err != nil {
			t.Fatalf("%s: %s: %v", db.ID, q, err)
		}
		v, _ := rows[0][0].Any().(int64)
		return v
	}
	for _, tb := range db.Tables {
		if n := one("SELECT COUNT(*) FROM " + tb.Name); n != int64(len(tb.Rows)) {
			t.Errorf("%s.%s: %d rows in the file, %d designed", db.ID, tb.Name, n, len(tb.Rows))
		}
		pk := strings.Join(tb.PK, ", ")
		if n := one(fmt.Sprintf("SELECT COUNT(*) FROM (SELECT %s FROM %s GROUP BY %s HAVING COUNT(*) > 1)", pk, tb.Name, pk)); n != 0 {
			t.Errorf("%s.%s: %d duplicate keys", db.ID, tb.Name, n)
		}
		for _, fk := range tb.FKs {
			q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s)", tb.Name, fk.Column, fk.Column, fk.RefColumn, fk.RefTable)
			if n := one(q); n != 0 {
				t.Errorf("%s.%s.%s: %d dangling references", db.ID, tb.Name, fk.Column, n)
			}
			if n := one(fmt.Sprintf("SELECT COUNT(%s) FROM %s", fk.Column, tb.Name)); n == 0 {
				t.Errorf("%s.%s.%s: never set", db.ID, tb.Name, fk.Column)
			}
		}
	}
}

func checkDirt(t *testing.T, db *DB) {
	kinds := map[string]int{}
	eligible := map[string]bool{DirtCase: true, DirtSpace: true, DirtMixedFormat: true}
	for _, tb := range db.Tables {
		for i, c := range tb.Columns {
			if c.spec != nil && c.spec.kind == "money" {
				eligible[DirtNumberText] = true
			}
			if c.Role == RoleName && len(c.spec.args) > 1 && c.spec.args[1] != "serial" && c.spec.args[1] != "last" && tb.Kind != KindLookup {
				eligible[DirtNearDuplicate] = true
			}
			var us, iso, upperOrLower, spaced, dollar int
			nulls := 0
			for _, row := range tb.Rows {
				s, ok := row[i].(string)
				if row[i] == nil {
					nulls++
				}
				if !ok {
					continue
				}
				if usDate.MatchString(s) {
					us++
				}
				if isoDate.MatchString(s) {
					iso++
				}
				if s != strings.TrimSpace(s) {
					spaced++
				}
				if (s == strings.ToUpper(s) || s == strings.ToLower(s)) && strings.ToUpper(s) != strings.ToLower(s) {
					upperOrLower++
				}
				if strings.HasPrefix(s, "$") {
					dollar++
				}
			}
			if got := float64(nulls) / float64(len(tb.Rows)); got != c.NullShare {
				t.Errorf("%s.%s.%s: NullShare %v, data %v", db.ID, tb.Name, c.Name, c.NullShare, got)
			}
			for _, k := range c.Dirty {
				kinds[k]++
				switch k {
				case DirtMixedFormat:
					if c.Role == RoleDate && (us == 0 || iso == 0 || !slices.Contains(c.Formats, FormatUSDate)) {
						t.Errorf("%s.%s.%s: mixed dates declared, %d US and %d ISO found", db.ID, tb.Name, c.Name, us, iso)
					}
				case DirtSpace:
					if spaced == 0 {
						t.Errorf("%s.%s.%s: space dirt declared, none found", db.ID, tb.Name, c.Name)
					}
				case DirtCase:
					if upperOrLower == 0 {
						t.Errorf("%s.%s.%s: case dirt declared, none found", db.ID, tb.Name, c.Name)
					}
				case DirtNumberText:
					if dollar == 0 || c.Type != "TEXT" {
						t.Errorf("%s.%s.%s: money as text declared, no '$' found", db.ID, tb.Name, c.Name)
					}
				case DirtNearDuplicate:
					if !hasNearDuplicate(tb, i) {
						t.Errorf("%s.%s.%s: near-duplicates declared, none found", db.ID, tb.Name, c.Name)
					}
				}
			}
			if c.Role == RoleDate && !slices.Contains(c.Dirty, DirtMixedFormat) && us > 0 {
				t.Errorf("%s.%s.%s: US dates in a column not declared mixed", db.ID, tb.Name, c.Name)
			}
		}
	}
	for _, k := range []string{DirtCase, DirtSpace, DirtMixedFormat, DirtNumberText, DirtNearDuplicate} {
		if kinds[k] == 0 && eligible[k] {
			t.Errorf("%s: no column with %s dirt", db.ID, k)
		}
	}
}

// hasNearDuplicate finds two rows whose names differ but share a last name
// and a variant first name, or a company stem, or an edit.
func hasNearDuplicate(tb *Table, i int) bool {
	seen := map[string]bool{}
	for _, row := range tb.Rows {
		if s, ok := row[i].(string); ok {
			seen[s] = true
		}
	}
	gen := tb.Columns[i].spec.args[1]
	for s := range seen {
		if v := variant(gen, s); v != "" && seen[v] {
			return true
		}
		for v2, v1 := range nameVariants {
			if v1 == s && seen[v2] || strings.HasPrefix(s, v1+" ") && seen[v2+strings.TrimPrefix(s, v1)] {
				return true
			}
		}
		for suf, long := range companyVariants {
			if stem, ok := strings.CutSuffix(s, " "+long); ok && seen[stem+" "+suf] {
				return true
			}
		}
		for t := range seen {
			if t != s && (strings.TrimPrefix(t, "The ") == s || strings.Replace(t, " and ", " & ", 1) == s || len(t) == len(s)+1 && dropOne(t, s)) {
				return true
			}
		}
	}
	return false
}

func dropOne(long, short string) bool {
	for k := range long {
		if long[:k]+long[k+1:] == short {
			return true
		}
	}
	return false
}

func checkCSVs(t *testing.T, db *DB, dir string) {
	for _, tb := range db.Tables {
		f, err := os.Open(filepath.Join(dir, "database_description", tb.Name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %s.csv: %v", db.ID, tb.Name, err)
		}
		if want := []string{"original_column_name", "column_name", "column_description", "data_format", "value_description"}; !slices.Equal(recs[0], want) {
			t.Errorf("%s: %s.csv header %v", db.ID, tb.Name, recs[0])
		}
		if len(recs)-1 != len(tb.Columns) {
			t.Fatalf("%s: %s.csv has %d columns, table %d", db.ID, tb.Name, len(recs)-1, len(tb.Columns))
		}
		for k, c := range tb.Columns {
			r := recs[k+1]
			if r[0] != c.Name || r[2] == "" || r[3] != strings.ToLower(c.Type) {
				t.Errorf("%s: %s.csv row %d %v for column %s", db.ID, tb.Name, k+1, r, c.Name)
			}
		}
	}
}
