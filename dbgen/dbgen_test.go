package dbgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// shop is a small store database with declared keys, built in each test.
const shop = `
CREATE TABLE customer (id INTEGER PRIMARY KEY, customer_name TEXT, city TEXT, vip TEXT, created_at TEXT);
CREATE TABLE product (id INTEGER PRIMARY KEY, product_name TEXT, category TEXT, price REAL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), product_id INTEGER REFERENCES product(id),
	quantity INTEGER, order_date TEXT, note TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO customer SELECT i, 'Customer ' || char(65 + i % 26) || char(65 + i / 26), CASE i % 4 WHEN 0 THEN 'Lyon' WHEN 1 THEN 'Paris' WHEN 2 THEN 'Nice' ELSE 'Lille' END,
	CASE WHEN i % 5 = 0 THEN 'Y' ELSE 'N' END, '2024-01-01' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO product SELECT i, 'Product ' || char(65 + i % 26) || char(65 + i / 26), CASE i % 3 WHEN 0 THEN 'Books' WHEN 1 THEN 'Games' ELSE 'Music' END, 5 + (i * 37) % 91 + i / 100.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 900)
INSERT INTO orders SELECT i, 1 + (i * 7) % 60, 1 + (i * 11) % 40, 1 + (i * 13) % 9, printf('%04d-%02d-%02d', 2020 + i % 4, 1 + i % 12, 1 + i % 28),
	CASE WHEN i % 50 = 0 THEN 'gift wrap please, and deliver to the back door of the building' END FROM n;
`

func engine(t testing.TB) sqlexec.Engine {
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10e9}})
	t.Cleanup(func() { eng.Close() })
	return eng
}

func TestRoles(t *testing.T) {
	shopDB := introspect(t, fixture(t, "shop", shop), IntrospectOptions{})
	hero := introspect(t, sampleDB("superhero"), IntrospectOptions{})
	club := introspect(t, sampleDB("student_club"), IntrospectOptions{})
	for _, tc := range []struct {
		d      *Database
		column string
		want   Role
	}{
		{shopDB, "customer.id", RoleKey},
		{shopDB, "customer.customer_name", RoleName},
		{shopDB, "customer.city", RoleCategory},
		{shopDB, "customer.vip", RoleFlag},
		{shopDB, "customer.created_at", RoleBookkeeping},
		{shopDB, "product.price", RoleMeasure},
		{shopDB, "product.category", RoleCategory},
		{shopDB, "orders.customer_id", RoleKey},
		{shopDB, "orders.order_date", RoleDate},
		{shopDB, "orders.note", RoleBookkeeping}, // NULL in 98% of rows
		{hero, "superhero.superhero_name", RoleName},
		{hero, "superhero.height_cm", RoleMeasure},
		{hero, "superhero.publisher_id", RoleKey},
		{hero, "colour.colour", RoleName},
		{hero, "hero_attribute.attribute_value", RoleMeasure},
		{club, "event.event_date", RoleDate},
		{club, "event.type", RoleCategory},
		{club, "member.first_name", RoleName},
		{club, "member.position", RoleCategory},
		{club, "expense.cost", RoleMeasure},
		{club, "expense.approved", RoleBookkeeping}, // one value
		{club, "zip_code.city", RoleCategory},
	} {
		tn, cn, _ := strings.Cut(tc.column, ".")
		tb := tc.d.Table(tn)
		if tb == nil || tb.Column(cn) == nil {
			t.Fatalf("%s: no column %s", tc.d.ID, tc.column)
		}
		if got := tb.Column(cn).Role; got != tc.want {
			t.Errorf("%s %s: role %s, want %s", tc.d.ID, tc.column, got, tc.want)
		}
	}
	if got := hero.Table("superhero").Column("height_cm").Label; got != "height cm" {
		t.Errorf("label from BIRD's description: %q", got)
	}
	if hero.Descriptions == "" || shopDB.Descriptions != "" {
		t.Errorf("descriptions: hero %q, shop %q", hero.Descriptions, shopDB.Descriptions)
	}
}

// TestDeclaredForeignKeys: references come in declaration order; one that
// names no target column joins on the target's key (never on ""); a
// composite one is skipped.
func TestDeclaredForeignKeys(t *testing.T) {
	path := fixture(t, "fk", `
CREATE TABLE team (id INTEGER PRIMARY KEY, team_name TEXT);
CREATE TABLE league (code TEXT, season INTEGER, league_name TEXT, PRIMARY KEY (code, season));
CREATE TABLE player (id INTEGER PRIMARY KEY, player_name TEXT, code TEXT, season INTEGER, team INTEGER, rival INTEGER,
  FOREIGN KEY (team) REFERENCES team,
  FOREIGN KEY (code, season) REFERENCES league,
  FOREIGN KEY (rival) REFERENCES team (id));
INSERT INTO team VALUES (1, 'Reds'), (2, 'Blues');
INSERT INTO league VALUES ('N', 2020, 'North');
INSERT INTO player VALUES (1, 'Ann', 'N', 2020, 1, 2), (2, 'Bob', 'N', 2020, 2, 1);`)
	d := introspect(t, path, IntrospectOptions{})
	var got []string
	for _, fk := range d.Table("player").ForeignKeys {
		got = append(got, fmt.Sprintf("%s->%s.%s", fk.Column, fk.RefTable, fk.RefColumn))
	}
	if want := []string{"team->team.id", "rival->team.id"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("foreign keys %v, want %v", got, want)
	}
}

func TestInferForeignKeys(t *testing.T) {
	path := fixture(t, "nofk", `
CREATE TABLE team (id INTEGER PRIMARY KEY, team_name TEXT);
CREATE TABLE player (id INTEGER PRIMARY KEY, player_name TEXT, team_id INTEGER, league_id INTEGER);
CREATE TABLE league (id INTEGER PRIMARY KEY, league_name TEXT);
INSERT INTO team VALUES (1, 'Reds'), (2, 'Blues');
INSERT INTO league VALUES (1, 'North');
INSERT INTO player VALUES (1, 'Ann', 1, 1), (2, 'Bob', 2, 7), (3, 'Cy', NULL, 1);`)
	d := introspect(t, path, IntrospectOptions{})
	p := d.Table("player")
	var got []string
	for _, fk := range p.ForeignKeys {
		got = append(got, fmt.Sprintf("%s->%s.%s inferred=%v", fk.Column, fk.RefTable, fk.RefColumn, fk.Inferred))
	}
	// league_id holds 7, which no league has: not a reference.
	if want := []string{"team_id->team.id inferred=true"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("inferred %v, want %v", got, want)
	}
}

func TestDescriptionsFile(t *testing.T) {
	path := fixture(t, "shop", shop)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, json, err string
	}{
		{"ok", `{"tables": {"orders": {"noun": "purchase", "columns": {"quantity": {"name": "units bought"}, "note": {"skip": true}}}}}`, ""},
		{"unknown table", `{"tables": {"order": {}}}`, `table "order": no such table`},
		{"unknown column", `{"tables": {"orders": {"columns": {"qty": {}}}}}`, `column "qty": no such column`},
		{"unknown field", `{"tables": {"orders": {"nouns": "x"}}}`, `unknown field "nouns"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(f, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			eng := engine(t)
			d, err := Introspect(context.Background(), eng, path, IntrospectOptions{DescriptionsFile: f})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := d.Table("orders")
			if o.Noun != "purchase" || o.Plural != "purchases" || o.Column("quantity").Label != "units bought" || o.Column("note").Role != RoleBookkeeping {
				t.Errorf("not applied: noun %q plural %q label %q", o.Noun, o.Plural, o.Column("quantity").Label)
			}
		})
	}
}

// TestGenerate checks every kept question over the shop fixture and both
// sample databases: its gold runs and passes the checks again, train uses
// no held-out frame, nothing repeats, and tiers follow the structure.
func TestGenerate(t *testing.T) {
	for _, path := range []string{fixture(t, "shop", shop), sampleDB("superhero"), sampleDB("student_club")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			eng := engine(t)
			d := introspect(t, path, IntrospectOptions{})
			s, err := Generate(context.Background(), eng, d, Options{N: 400, Seed: 7, DevShare: 0.1, TestShare: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Train)+len(s.Dev)+len(s.Test) != 400 || len(s.Dev) != 40 || len(s.Test) != 40 {
				t.Fatalf("splits %d/%d/%d", len(s.Train), len(s.Dev), len(s.Test))
			}
			seen := map[string]bool{}
			heldOut := 0
			for _, split := range [][]Question{s.Train, s.Dev, s.Test} {
				for _, q := range split {
					if seen[q.SQL] || seen[q.Question] {
						t.Errorf("repeated: %s / %s", q.Question, q.SQL)
					}
					seen[q.SQL], seen[q.Question] = true, true
					res, err := eng.Query(context.Background(), path, q.SQL)
					if err != nil {
						t.Fatalf("%s: %v", q.SQL, err)
					}
					if !sqlgen.Informative(res) {
						t.Errorf("uninformative answer kept: %s", q.SQL)
					}
					if q.Question == "" || strings.Contains(q.Question, "{") {
						t.Errorf("unfilled question %q", q.Question)
					}
					if q.HeldOut {
						heldOut++
					}
				}
			}
			for _, q := range s.Train {
				if q.HeldOut {
					t.Errorf("train question uses a held-out frame: %s", q.Question)
				}
			}
			if heldOut == 0 {
				t.Errorf("no dev or test question uses a held-out frame")
			}
			if len(s.Families) < 8 {
				t.Errorf("only %d families: %v", len(s.Families), s.Families)
			}
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	path := fixture(t, "shop", shop)
	var outs [2]string
	for i, workers := range []int{1, 3} {
		eng := engine(t)
		d := introspect(t, path, IntrospectOptions{})
		s, err := Generate(context.Background(), eng, d, Options{N: 150, Seed: 3, DevShare: 0.1, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = fmt.Sprint(s.Train, s.Dev, s.Test)
	}
	if outs[0] != outs[1] {
		t.Error("workers changed the questions")
	}
}

// TestBadInput runs introspection and generation over awkward databases:
// each gives a clear error or questions, never a crash, and no file changes.
func TestBadInput(t *testing.T) {
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, "CREATE TABLE t%03d (id INTEGER PRIMARY KEY, label TEXT, kind TEXT, size INTEGER);\n", i)
		fmt.Fprintf(&many, "INSERT INTO t%03d VALUES (1, 'Alpha %d', 'Red', 3), (2, 'Beta %d', 'Blue', 8), (3, 'Gamma %d', 'Red', 5), (4, 'Delta %d', 'Red', 9);\n", i, i, i, i, i)
	}
	for _, tc := range []struct {
		name, script, err string
	}{
		{"zero bytes", "", "shorter than a SQLite header"},
		{"empty", "PRAGMA user_version = 1;", "has no tables"},
		{"empty tables", "CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE b (x TEXT);", "no table has both rows"},
		{"keys only", "CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a VALUES (1), (2);", "no table has both rows"},
		{"no foreign keys", shop[:0] + strings.ReplaceAll(strings.ReplaceAll(shop, "REFERENCES customer(id)", ""), "REFERENCES product(id)", ""), ""},
		{"views", shop + "CREATE VIEW big_orders AS SELECT * FROM orders WHERE quantity > 5;", ""},
		{"300 tables", many.String(), ""},
		{"reserved and non-ASCII names", `CREATE TABLE "order" ("select" INTEGER PRIMARY KEY, "名前" TEXT, "group" TEXT, "where" REAL, "Ünit price" REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80)
INSERT INTO "order" SELECT i, 'Élan ' || i, CASE i % 3 WHEN 0 THEN 'Nord' WHEN 1 THEN 'Süd' ELSE 'O''Brien' END, i * 1.5, i % 17 FROM n;`, ""},
		{"NULL-heavy", `CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT, grade TEXT, score REAL, gone TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO p SELECT i, 'Person ' || i, CASE WHEN i % 9 = 0 THEN 'A' WHEN i % 7 = 0 THEN 'B' END, CASE WHEN i % 3 = 0 THEN i END, NULL FROM n;`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixture(t, "db", tc.script)
			before := fileSum(t, path)
			eng := engine(t)
			d, err := Introspect(context.Background(), eng, path, IntrospectOptions{})
			var s *Splits
			if err == nil {
				s, err = Generate(context.Background(), eng, d, Options{N: 60, Seed: 1, DevShare: 0.1, TestShare: 0.1})
			}
			if err == nil {
				_, err = Write(filepath.Join(t.TempDir(), "out"), []Generated{{d, s}}, 1, false)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if tc.name == "views" && !strings.Contains(strings.Join(d.Skipped, ";"), "view big_orders") {
				t.Errorf("view not reported as skipped: %v", d.Skipped)
			}
			if after := fileSum(t, path); after != before {
				t.Errorf("the database file changed: sha256 %s -> %s", before, after)
			}
		})
	}
}

// TestBigTableSampled: a table over SampleRows rows has its statistics
// read from its first SampleRows rows, its row count exact.
func TestBigTableSampled(t *testing.T) {
	path := fixture(t, "big", fmt.Sprintf(`CREATE TABLE reading (id INTEGER PRIMARY KEY, station TEXT, value REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
INSERT INTO reading SELECT i, 'Station ' || (i %% 7), (i * 13) %% 1000 FROM n;`, SampleRows+5000))
	d := introspect(t, path, IntrospectOptions{})
	r := d.Table("reading")
	if r.Rows != SampleRows+5000 || r.Column("value").Stats.Rows != SampleRows || r.Column("station").Role != RoleCategory {
		t.Errorf("rows %d, sampled %d, station role %s", r.Rows, r.Column("value").Stats.Rows, r.Column("station").Role)
	}
}

// TestWrite checks the layout: train and dev load as BIRD benchmarks, test
// only through dataset.LoadTest, and an existing folder is refused without
// force.
func TestWrite(t *testing.T) {
	path := fixture(t, "shop", shop)
	eng := engine(t)
	d := introspect(t, path, IntrospectOptions{})
	s, err := Generate(context.Background(), eng, d, Options{N: 100, Seed: 1, DevShare: 0.1, TestShare: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bench")
	if _, err := Write(out, []Generated{{d, s}}, 1, false); err != nil {
		t.Fatal(err)
	}
	// Each split holds its own questions (dev and test are the same size,
	// so a count alone would not tell them apart) and its database copy.
	for split, want := range map[string][]Question{"train": s.Train, "dev": s.Dev, dataset.SplitTest: s.Test} {
		var b *dataset.Benchmark
		if split == dataset.SplitTest {
			if _, err := dataset.LoadBIRD(out, split); !errors.Is(err, dataset.ErrSealed) {
				t.Errorf("the test split is not sealed: %v", err)
			}
			b, err = dataset.LoadTest(out)
		} else {
			b, err = dataset.LoadBIRD(out, split)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Examples) != len(want) || len(want) == 0 || b.Schemas["shop"] == nil {
			t.Fatalf("%s: %d questions, want %d; schema %v", split, len(b.Examples), len(want), b.Schemas["shop"] != nil)
		}
		for i, e := range b.Examples {
			if e.Question != want[i].Question || e.SQL != want[i].SQL {
				t.Errorf("%s question %d: %q, want %q", split, i, e.Question, want[i].Question)
				break
			}
		}
		if _, err := os.Stat(filepath.Join(out, split+"_databases", "shop", "shop.sqlite")); err != nil {
			t.Error(err)
		}
	}
	if _, err := Write(out, []Generated{{d, s}}, 1, false); !errors.Is(err, ErrExists) {
		t.Errorf("second write: %v, want ErrExists", err)
	}
}

// BenchmarkSuperhero generates 10,000 questions over the bundled sample's
// superhero database (docs/dbgen.md records the timings).
func BenchmarkSuperhero(b *testing.B) {
	for b.Loop() {
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10e9}})
		d, err := Introspect(context.Background(), eng, sampleDB("superhero"), IntrospectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Generate(context.Background(), eng, d, Options{N: 10000, Seed: 1, DevShare: 0.05, TestShare: 0.05}); err != nil {
			b.Fatal(err)
		}
		eng.Close()
	}
}

// TestFilterKinds: over the shop fixture, flags are filtered on by their
// label alone and dates by year, by month (the question saying the month's
// name) and by a range of days, each with evidence giving the SQL.
func TestFilterKinds(t *testing.T) {
	path := fixture(t, "shop", shop)
	d := introspect(t, path, IntrospectOptions{})
	s, err := Generate(context.Background(), engine(t), d, Options{N: 1500, Seed: 3, DevShare: 0.05, TestShare: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		sql      *regexp.Regexp
		evidence string
		question *regexp.Regexp
	}{
		{"flag yes", regexp.MustCompile(`(WHERE|AND) (T\d\.)?vip = 'Y'`), "vip refers to vip = 'Y'", regexp.MustCompile(`(?i)vip`)},
		{"flag no", regexp.MustCompile(`(WHERE|AND) (T\d\.)?vip = 'N'`), "not vip refers to vip = 'N'", regexp.MustCompile(`(?i)not (marked )?vip|non-vip`)},
		{"year", regexp.MustCompile(`strftime\('%Y', `), "refers to strftime('%Y', order_date) = '20", regexp.MustCompile(`(?i)in 20\d\d`)},
		{"month", regexp.MustCompile(`strftime\('%Y-%m', `), "refers to strftime('%Y-%m', order_date) = '20",
			regexp.MustCompile(`(?i)in (January|February|March|April|May|June|July|August|September|October|November|December) 20\d\d`)},
		{"range", regexp.MustCompile(`date\((T\d\.)?order_date\) BETWEEN '`), "refers to date(order_date) BETWEEN '", regexp.MustCompile(`(?i)between 20\d\d-\d\d-\d\d and 20\d\d-\d\d-\d\d`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, q := range append(append(s.Train, s.Dev...), s.Test...) {
				if !tc.sql.MatchString(q.SQL) {
					continue
				}
				n++
				if !strings.Contains(q.Evidence, tc.evidence) || !tc.question.MatchString(q.Question) {
					t.Errorf("question %q evidence %q for %s", q.Question, q.Evidence, q.SQL)
				}
			}
			if n == 0 {
				t.Errorf("no gold matches %s", tc.sql)
			}
		})
	} // Families that name a value never use a flag's raw values.
	for _, q := range s.Train {
		if strings.Contains(q.SQL, "vip IN") || strings.Contains(q.SQL, "WHEN vip") || strings.Contains(q.SQL, ".vip IN") || strings.Contains(q.SQL, "WHEN T2.vip") {
			t.Errorf("flag used as a named value: %s / %s", q.Question, q.SQL)
		}
	}
}

// TestVerifyRowCap: a gold over the engine's row cap (the commands run
// with MaxRows) is rejected as too many rows, not a failed run; the
// generator's other queries are bounded below the commands' cap.
func TestVerifyRowCap(t *testing.T) {
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: sqlexec.Limits{Timeout: 10e9, MaxRows: 100}})
	t.Cleanup(func() { eng.Close() })
	d := introspect(t, fixture(t, "shop", shop), IntrospectOptions{})
	c := &cand{g: &gen{d: d}, family: "distinct", sql: "SELECT DISTINCT id FROM orders", maxRows: 40}
	if reason, err := c.verify(context.Background(), eng); err != nil || reason != "too many rows" {
		t.Errorf("verify: %q, %v; want rejected as too many rows", reason, err)
	}
}
