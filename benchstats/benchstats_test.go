package benchstats

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// tinyBench copies testdata/tiny to a temporary directory and builds each
// database from its .sql script, so that testdata holds text only.
func tinyBench(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tiny")
	err := filepath.WalkDir("testdata/tiny", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/tiny", p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(p, ".sql") {
			return os.WriteFile(out, data, 0o644)
		}
		w, err := sqlexec.CreateSQLite(strings.TrimSuffix(out, ".sql") + ".sqlite")
		if err != nil {
			return err
		}
		if err := w.Exec(string(data)); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	})
	if err != nil {
		t.Fatalf("build tiny benchmark: %v", err)
	}
	return dst
}

func measureTiny(t *testing.T) *Report {
	t.Helper()
	rep, err := Measure(context.Background(), tinyBench(t), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func split(t *testing.T, r *Report, name string) *Split {
	t.Helper()
	for _, s := range r.Splits {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no split %s", name)
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestMeasureTiny checks every figure against what the tiny benchmark's
// files give by hand (see testdata/tiny: train on shop_1; dev on store_1,
// shop_1 renamed, and zoo_1, a new domain; dev_x on train's shop_1).
func TestMeasureTiny(t *testing.T) {
	r := measureTiny(t)
	var names []string
	for _, s := range r.Splits {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "train dev dev_x" {
		t.Fatalf("splits %q, want train dev dev_x", got)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %q", r.Warnings)
	}
	train, dev, devx := split(t, r, "train"), split(t, r, "dev"), split(t, r, "dev_x")
	if train.Overlap != nil {
		t.Errorf("train has an overlap with itself")
	}
	tier := func(s *Split, name string) *Group {
		if g := tierGroup(s, name); g != nil {
			return g
		}
		t.Fatalf("split %s: no tier %s", s.Name, name)
		return nil
	}
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"train questions", float64(train.Questions), 4},
		{"train join share", train.All.Features.Join, 0.5},
		{"train joins mean", train.All.Features.JoinsMean, 0.5},
		{"train joins max", float64(train.All.Features.JoinsMax), 1},
		{"train aggregate", train.All.Features.Aggregate, 0.75},
		{"train group by", train.All.Features.GroupBy, 0.25},
		{"train order+limit", train.All.Features.OrderLimit, 0.25},
		{"train skeletons per question", train.All.SkeletonsPerQuestion, 1},
		{"train literal coverage", train.All.Literals.Coverage, 1},
		{"train with evidence", train.All.Literals.WithEvidence, 0.5},
		{"train evidence SQL", train.All.Literals.EvidenceSQL, 0.5},
		{"train one row", train.All.Answers.OneRow, 1},

		{"dev databases", float64(dev.Schema.Databases), 2},
		{"dev domains", float64(dev.Schema.Domains), 2},
		{"dev tables mean", dev.Schema.Tables.Mean, 1.5},
		{"dev tables min", float64(dev.Schema.Tables.Min), 1},
		{"dev columns mean", dev.Schema.Columns.Mean, 4.5},
		{"dev columns max", float64(dev.Schema.Columns.Max), 6},
		{"dev foreign keys mean", dev.Schema.ForeignKeys.Mean, 0.5},
		{"dev join share", dev.All.Features.Join, 0},
		{"dev aggregate", dev.All.Features.Aggregate, 0.6},
		{"dev null test", dev.All.Features.NullTest, 0.2},
		{"dev order+limit (ORDER BY alone is not)", dev.All.Features.OrderLimit, 0},
		{"dev skeletons per question", dev.All.SkeletonsPerQuestion, 0.8},
		{"dev executed", float64(dev.All.Answers.Executed), 5},
		{"dev rows median", dev.All.Answers.RowsMedian, 1},
		{"dev rows max", float64(dev.All.Answers.RowsMax), 2},
		{"dev empty", dev.All.Answers.Empty, 0.2},
		{"dev one row", dev.All.Answers.OneRow, 0.6},
		{"dev columns mean", dev.All.Answers.ColumnsMean, 1.2},
		{"dev one column", dev.All.Answers.OneColumn, 0.8},
		{"dev string literals", float64(dev.All.Literals.Strings), 4},
		{"dev literal coverage", dev.All.Literals.Coverage, 1},
		{"dev literals in the question (lion, tiger are in the evidence)", float64(dev.All.Literals.InQuestion), 2},
		{"dev with evidence", dev.All.Literals.WithEvidence, 0.4},
		{"dev evidence SQL", dev.All.Literals.EvidenceSQL, 0.2},
		{"dev evidence knowledge", dev.All.Literals.EvidenceKnowledge, 0.2},
		{"dev simple questions", float64(tier(dev, "simple").Questions), 3},
		{"dev simple aggregate", tier(dev, "simple").Features.Aggregate, 2.0 / 3},
		{"dev simple skeletons per question", tier(dev, "simple").SkeletonsPerQuestion, 2.0 / 3},
		{"dev simple empty", tier(dev, "simple").Answers.Empty, 1.0 / 3},
		{"dev challenging null test", tier(dev, "challenging").Features.NullTest, 1},

		{"dev overlap db_ids", dev.Overlap.Databases, 0},
		{"dev overlap domains", dev.Overlap.Domains, 0},
		{"dev overlap schema shapes (store_1 is shop_1 renamed)", dev.Overlap.SchemaShapes, 0.5},
		{"dev overlap wordings (spacing ignored)", float64(dev.Overlap.Wordings), 1},
		{"dev overlap skeletons", float64(dev.Overlap.Skeletons), 2},
		{"dev overlap skeletons share", dev.Overlap.SkeletonsShare, 0.4},
		{"dev overlap templates (clients ~ customers: both table names)", float64(dev.Overlap.Templates), 2},
		{"dev distinct templates", float64(dev.Overlap.DistinctTemplates), 4},
		{"dev distinct templates in train", float64(dev.Overlap.DistinctTemplatesInTrain), 1},

		{"dev_x databases in train", devx.Overlap.Databases, 1},
		{"dev_x domains in train", devx.Overlap.Domains, 1},
		{"dev_x schema shapes in train", devx.Overlap.SchemaShapes, 1},
		{"dev_x wordings", float64(devx.Overlap.Wordings), 0},
		{"dev_x skeletons", float64(devx.Overlap.Skeletons), 1},
		{"dev_x templates", float64(devx.Overlap.Templates), 0},
		{"dev_x literal coverage ('NO-03' is not in the text)", devx.All.Literals.Coverage, 0},
		{"dev_x empty", devx.All.Answers.Empty, 1},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// words is a tokenizer for tests: one token per blank-separated word.
func words(sql string) int { return len(strings.Fields(sql)) }

// TestGoldTokens checks the gold lengths against the tiny dev split's
// golds counted by hand in words: 8, 8, 9 (moderate), 8 (challenging)
// and 12; a budget of B cuts the golds longer than B.
func TestGoldTokens(t *testing.T) {
	r, err := Measure(context.Background(), tinyBench(t), Options{Splits: []string{"dev"}, NoExec: true, Tokens: words, Budgets: []int{8, 9, 12}})
	if err != nil {
		t.Fatal(err)
	}
	dev := split(t, r, "dev")
	for _, c := range []struct {
		name string
		got  *TokenLengths
		want TokenLengths
	}{
		{"all", dev.All.GoldTokens, TokenLengths{Median: 8, P90: 12, Max: 12, Over: []BudgetCount{{8, 2}, {9, 1}, {12, 0}}}},
		{"simple", tierGroup(dev, "simple").GoldTokens, TokenLengths{Median: 8, P90: 12, Max: 12, Over: []BudgetCount{{8, 1}, {9, 1}, {12, 0}}}},
		{"moderate", tierGroup(dev, "moderate").GoldTokens, TokenLengths{Median: 9, P90: 9, Max: 9, Over: []BudgetCount{{8, 1}, {9, 0}, {12, 0}}}},
	} {
		if c.got == nil {
			t.Errorf("%s: no gold lengths", c.name)
			continue
		}
		if c.got.Median != c.want.Median || c.got.P90 != c.want.P90 || c.got.Max != c.want.Max || !slices.Equal(c.got.Over, c.want.Over) {
			t.Errorf("%s: %+v, want %+v", c.name, *c.got, c.want)
		}
	}
	if r := measureTiny(t); split(t, r, "dev").All.GoldTokens != nil {
		t.Error("gold lengths without a tokenizer")
	}
}

func TestTemplate(t *testing.T) {
	schemas := map[string]*dataset.Schema{"db": {
		DBID:       "db",
		TableNames: []string{"customer", "category"},
		Columns:    []dataset.ColumnRef{{Table: -1, Name: "*"}, {Table: 0, Name: "first_name"}, {Table: 0, Name: "gender"}, {Table: 1, Name: "name"}},
	}}
	tm := newTemplater(schemas)
	for _, c := range []struct {
		q    string
		lits []string
		want string
	}{
		{"How many customers are female?", []string{"F"}, "how many <id> are female?"},
		{"How many customers are F?", []string{"F"}, "how many <id> are <val>?"},
		{"List the first name of customers in 'Books' categories.", nil, "list the <id> of <id> in <str> <id>."},
		{"Which first_name is most common in 2023?", nil, "which <id> is most common in <num>?"},
		{"Orders in March 2021 over 12.5 dollars", nil, "orders in <num> <num> over <num> dollars"},
		{"Names of customers named Ann Lee", []string{"Ann Lee", "%Lee%"}, "<id> of <id> named <val>"},
		{"The customer's gender", nil, "the <id>'s <id>"},
	} {
		if got := tm.template(c.q, c.lits); got != c.want {
			t.Errorf("template(%q, %q) = %q, want %q", c.q, c.lits, got, c.want)
		}
	}
}

func TestEvidenceIsSQL(t *testing.T) {
	s := &dataset.Schema{
		DBID:       "db",
		TableNames: []string{"hero_power", "event"},
		Columns:    []dataset.ColumnRef{{Table: -1, Name: "*"}, {Table: 0, Name: "power_name"}, {Table: 1, Name: "county"}},
	}
	for _, c := range []struct {
		ev   string
		want bool
	}{
		{"silver tier refers to tier = 'silver'", true},
		{"longest refers to MAX(pages)", true},
		{"last name starting with 'Ro' refers to surname LIKE 'Ro%'", true},
		{"income refers to income.amount", true},
		{"superpower refers to hero_power", true},
		{"powers refers to power_name", true},
		{"hometown county refers to county", true},
		{"most often refers to the largest number of bookings", false},
		{"Women's Soccer is an event name", false},
		{"adults are people of 18 or older (e.g. most students)", false},
	} {
		if got := evidenceIsSQL(c.ev, s); got != c.want {
			t.Errorf("evidenceIsSQL(%q) = %v, want %v", c.ev, got, c.want)
		}
	}
}

func TestParseTarget(t *testing.T) {
	for _, c := range []struct{ in, dir, split string }{
		{"datasets/bird-dev-sample", "datasets/bird-dev-sample", ""},
		{"datasets/bird-dev-sample:dev", "datasets/bird-dev-sample", "dev"},
		{"C:/bench", "C:/bench", ""},
		{"x:", "x:", ""},
		{"a:b/c", "a:b/c", ""},
	} {
		if dir, sp := ParseTarget(c.in); dir != c.dir || sp != c.split {
			t.Errorf("ParseTarget(%q) = %q, %q; want %q, %q", c.in, dir, sp, c.dir, c.split)
		}
	}
}

// TestBadInputNamesTheFile: a broken benchmark stops the report with the
// file that is wrong.
func TestBadInputNamesTheFile(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		mutate func(dir string) error
		opts   Options
		want   string
	}{
		{"unknown split", func(string) error { return nil }, Options{Splits: []string{"test"}}, `no split "test"`},
		{"broken JSON", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "dev.json"), []byte("[{"), 0o644)
		}, Options{}, "dev.json"},
		{"missing database", func(dir string) error {
			return os.RemoveAll(filepath.Join(dir, "dev_databases", "zoo_1"))
		}, Options{}, "zoo_1"},
		{"orphan dev split", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "dev_y.json"), []byte(`[{"question_id": 0, "db_id": "nowhere", "question": "q", "SQL": "SELECT 1"}]`), 0o644)
		}, Options{}, "dev_y.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := tinyBench(t)
			if err := c.mutate(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Measure(ctx, dir, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Measure: %v, want an error naming %q", err, c.want)
			}
		})
	}
	if _, err := Measure(ctx, t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "no split found") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestMarkdownGolden renders the tiny benchmark beside its own dev split;
// go test ./benchstats -run Golden -update rewrites the golden file.
func TestMarkdownGolden(t *testing.T) {
	dir := tinyBench(t)
	r, err := Measure(context.Background(), dir, Options{Workers: 1, Tokens: words, Budgets: []int{8, 10}})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Measure(context.Background(), dir, Options{Splits: []string{"dev"}, NoExec: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Dir, cmp.Dir, cmp.Name = "testdata/tiny", "testdata/tiny", "tiny-noexec"
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, []*Report{r, cmp}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tiny.md")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("Markdown differs from %s (run with -update and review the diff):\n%s", golden, got)
	}
}
