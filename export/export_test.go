package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// fixture writes a small benchmark in BIRD's layout: two databases, eight
// train questions, one description file.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dbs := map[string]string{
		"shop": `
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "order" TEXT, city TEXT);
CREATE TABLE product (id INTEGER PRIMARY KEY, title TEXT, price REAL);
CREATE TABLE purchase (customer_id INTEGER, product_id INTEGER, qty INTEGER,
  PRIMARY KEY (customer_id, product_id),
  FOREIGN KEY (customer_id) REFERENCES customer(id),
  FOREIGN KEY (product_id) REFERENCES product);
INSERT INTO customer VALUES (1, 'Ann', 'first', 'Oslo'), (2, 'Bob', NULL, 'Rome'), (3, 'Cy', 'x', 'Oslo'), (4, 'Di', 'y', 'Lima');
INSERT INTO product VALUES (1, 'Tea', 2.5), (2, 'Cake', 4.0), (3, 'Jam', 3.25), (4, 'Milk', 1.0);
INSERT INTO purchase VALUES (1, 1, 2), (1, 2, 1), (2, 3, 5), (3, 1, 1);`,
		"zoo": `
CREATE TABLE animal (id INTEGER PRIMARY KEY, species TEXT, keeper_id INTEGER REFERENCES keeper(id));
CREATE TABLE keeper (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO keeper VALUES (1, 'Eve'), (2, 'Fay');
INSERT INTO animal VALUES (1, 'lion', 1), (2, 'seal', 2), (3, 'owl', 1);`,
	}
	for db, script := range dbs {
		p := filepath.Join(dir, "train_databases", db)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := sqlexec.CreateSQLite(filepath.Join(p, db+".sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Exec(script); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	desc := filepath.Join(dir, "train_databases", "shop", "database_description")
	if err := os.MkdirAll(desc, 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "original_column_name,column_name,column_description,data_format,value_description\n" +
		"id,,customer id,integer,\nname,,the customer's name,text,\n\"order\",order note,free text,text,\"x: express\ny: slow\"\ncity,,,text,\n"
	if err := os.WriteFile(filepath.Join(desc, "customer.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	type q struct {
		ID         int    `json:"question_id"`
		DB         string `json:"db_id"`
		Question   string `json:"question"`
		Evidence   string `json:"evidence"`
		SQL        string `json:"SQL"`
		Difficulty string `json:"difficulty"`
	}
	qs := []q{
		{0, "shop", "How many customers live in Oslo?", "live in Oslo refers to city = 'Oslo'", "SELECT COUNT(*) FROM customer WHERE city = 'Oslo'", "simple"},
		{1, "shop", "What is the price of Tea?", "", "SELECT price FROM product WHERE title = 'Tea'", "simple"},
		{2, "shop", "List the names of customers who bought Cake.", "Cake refers to title = 'Cake'", "SELECT T1.name FROM customer AS T1 JOIN purchase AS T2 ON T1.id = T2.customer_id JOIN product AS T3 ON T3.id = T2.product_id WHERE T3.title = 'Cake'", "moderate"},
		{3, "shop", "Which product sold the most units?", "units refers to qty", "SELECT T2.title FROM purchase AS T1 JOIN product AS T2 ON T2.id = T1.product_id GROUP BY T1.product_id ORDER BY SUM(T1.qty) DESC LIMIT 1", "moderate"},
		{4, "shop", "How many products cost more than 2?", "", "SELECT COUNT(*) FROM product WHERE price > 2", "simple"},
		{5, "zoo", "Which species does Eve keep?", "", "SELECT species FROM animal JOIN keeper ON keeper.id = animal.keeper_id WHERE keeper.name = 'Eve'", "simple"},
		{6, "zoo", "How many animals are there?", "", "SELECT COUNT(*) FROM animal", "simple"},
		{7, "zoo", "Name the keeper with the most animals.", "", "SELECT name FROM keeper WHERE id = (SELECT keeper_id FROM animal GROUP BY keeper_id ORDER BY COUNT(*) DESC LIMIT 1)", "challenging"},
	}
	data, err := json.MarshalIndent(qs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "train.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// rollouts writes a rollouts file over the fixture's holdout (as split with
// seed 5): rewards and labels, a duplicate, a line on an SFT question, a line
// on variant 1.
func rollouts(t *testing.T, dir string) string {
	t.Helper()
	b, err := dataset.Load(dir, "train")
	if err != nil {
		t.Fatal(err)
	}
	s, err := dataset.Split(b.Examples, dataset.SplitOptions{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, ex := range s.Holdout {
		lines = append(lines,
			fmt.Sprintf(`{"question_id": %d, "completion": %q, "reward": 1}`, ex.QuestionID, ex.SQL),
			fmt.Sprintf(`{"question_id": %d, "completion": "SELECT 1", "reward": 0.1}`, ex.QuestionID),
			fmt.Sprintf(`{"question_id": %d, "completion": "SELECT nope", "reward": -1}`, ex.QuestionID),
			fmt.Sprintf(`{"question_id": %d, "completion": "SELECT 1", "reward": 0.1}`, ex.QuestionID), // duplicate
		)
		if i == 0 {
			lines = append(lines,
				fmt.Sprintf(`{"question_id": %d, "variant": 1, "completion": "SELECT 2", "label": false, "model": "x"}`, ex.QuestionID),
				fmt.Sprintf(`{"question_id": %d, "variant": 1, "completion": %q, "label": true}`, ex.QuestionID, ex.SQL))
		}
	}
	lines = append(lines, fmt.Sprintf(`{"question_id": %d, "completion": "SELECT 3", "reward": 1}`, s.SFT[0].QuestionID))
	path := filepath.Join(t.TempDir(), "rollouts.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFormatsGolden runs Prepare on the fixture with rollouts and compares
// every file it writes, one golden per format.
func TestFormatsGolden(t *testing.T) {
	dir := fixture(t)
	roll := rollouts(t, dir)
	out := t.TempDir()
	m, err := Prepare(context.Background(), Options{
		Dir: dir, Out: out, Seed: 5, Rollouts: roll, KeepGoldTables: true,
		Preferences: PreferenceOptions{LabelThreshold: 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{FileSFT, FileHoldout, FileHoldoutAug, FileTRLSFT, FileTRLSFTChat, FileTRLSFTMessages, FileTRLGRPO,
		FileOpenRLHFPrompts, FileVerl, FileTRLKTO, FileTRLKTOChat, FileOpenRLHFKTO, FileTRLDPO, FileTRLDPOChat}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if m.Files[name].Records != bytes.Count(data, []byte("\n")) {
				t.Errorf("manifest says %d records, file has %d lines", m.Files[name].Records, bytes.Count(data, []byte("\n")))
			}
			testkit.Golden(t, filepath.Join("testdata", "prepare", strings.TrimSuffix(name, ".jsonl")+".golden"), data)
		})
	}
	data, err := os.ReadFile(filepath.Join(out, FileManifest))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(dir), []byte("<bench>"))
	data = bytes.ReplaceAll(data, []byte(filepath.Dir(roll)), []byte("<tmp>"))
	testkit.Golden(t, filepath.Join("testdata", "prepare", "manifest.golden"), data)
	if len(m.Files) != len(names) {
		t.Errorf("manifest lists %d files, want %d", len(m.Files), len(names))
	}
	r := m.Rollouts
	if r.SkippedSFT != 1 || r.Duplicates != m.Counts.Holdout || r.Desirable != m.Counts.Holdout+1 {
		t.Errorf("rollout stats %+v", r)
	}

	// A second run without rollouts removes the rollout-derived files.
	if _, err := Prepare(context.Background(), Options{Dir: dir, Out: out, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileTRLKTO, FileTRLKTOChat, FileOpenRLHFKTO, FileTRLDPO, FileTRLDPOChat} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s left over from the run with rollouts", name)
		}
	}
}

func TestRolloutErrors(t *testing.T) {
	dir := fixture(t)
	cases := []struct {
		name, body, want string
	}{
		{"unknown question", `{"question_id": 99, "completion": "x", "reward": 1}`, "line 1: question_id 99 is not in the split"},
		{"no score", `{"question_id": 0, "completion": "x"}`, "line 1: question_id 0: neither reward nor label"},
		{"no completion", "\n" + `{"question_id": 0, "reward": 1}`, "line 2: question_id 0: missing completion"},
		{"no id", `{"completion": "x", "reward": 1}`, "line 1: missing question_id"},
		{"bad json", `{"question_id": `, "line 1:"},
		{"bad label", `{"question_id": 0, "completion": "x", "label": "yes"}`, "line 1:"},
		{"empty", "\n  ", "no rollouts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(path, []byte(c.body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Prepare(context.Background(), Options{Dir: dir, Out: t.TempDir(), Seed: 5, Rollouts: path})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// A variant that was not written (zoo questions have 2 tables: 2 variants).
	b, _ := dataset.Load(dir, "train")
	s, _ := dataset.Split(b.Examples, dataset.SplitOptions{Seed: 5})
	for _, ex := range s.Holdout {
		if ex.DBID == "zoo" {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			body := fmt.Sprintf(`{"question_id": %d, "variant": 3, "completion": "x", "reward": 1}`, ex.QuestionID)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Prepare(context.Background(), Options{Dir: dir, Out: t.TempDir(), Seed: 5, Rollouts: path})
			if err == nil || !strings.Contains(err.Error(), "has no variant 3") {
				t.Fatalf("variant 3: error %v", err)
			}
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	dir := fixture(t)
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no out", Options{Dir: dir}, "no output directory"},
		{"no benchmark", Options{Dir: t.TempDir(), Out: t.TempDir()}, "neither BIRD layout"},
		{"bad augment", Options{Dir: dir, Out: t.TempDir(), Augment: -2}, "augment -2"},
		{"bad fraction", Options{Dir: dir, Out: t.TempDir(), SFTFraction: 2}, "between 0 and 1"},
		{"bad dialect", Options{Dir: dir, Out: t.TempDir(), Prompt: prompt.Options{Dialect: "oracle"}}, "unknown dialect"},
		{"missing rollouts", Options{Dir: dir, Out: t.TempDir(), Rollouts: "/nonexistent.jsonl"}, "read rollouts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Prepare(context.Background(), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func readRecords(t *testing.T, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaBlocks cuts the table blocks out of a plain prompt.
func schemaBlocks(t *testing.T, plain string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(plain, "Database schema (SQLite):\n\n")
	schema, _, ok2 := strings.Cut(rest, "\n\nQuestion: ")
	if !ok || !ok2 {
		t.Fatalf("prompt without a schema section:\n%s", plain)
	}
	return strings.Split(schema, "\n\n")
}

// TestPrepareBIRDSample runs the pipeline on the BIRD dev sample: exact
// sizes, byte-identical reruns, no holdout question in SFT, and augmented
// prompts whose blocks are a permutation of the original's.
func TestPrepareBIRDSample(t *testing.T) {
	opts := Options{Dir: "../datasets/bird-dev-sample", Split: "dev", Seed: 11, KeepGoldTables: true,
		Prompt: prompt.Options{Budget: 2400}}
	opts.Out = t.TempDir()
	m1, err := Prepare(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// 287 questions: SFT round(0.75*287) = 215; every prompt has at least 3
	// tables, so each holdout question gets 4 variants.
	if m1.Counts.SFT != 215 || m1.Counts.Holdout != 72 || m1.Counts.HoldoutAug != 288 {
		t.Fatalf("counts %+v, want sft 215, holdout 72, holdout_aug 288", m1.Counts)
	}
	if m1.Prompt.Pruned == 0 {
		t.Error("budget 2400 pruned no prompt; the test means to cover pruned prompts too")
	}
	first := opts.Out
	opts.Out = t.TempDir()
	m2, err := Prepare(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range m1.Files {
		if m2.Files[name] != f {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}

	sft := readRecords(t, filepath.Join(first, FileSFT))
	hold := readRecords(t, filepath.Join(first, FileHoldout))
	aug := readRecords(t, filepath.Join(first, FileHoldoutAug))
	inSFT := map[int]bool{}
	for _, r := range sft {
		inSFT[r.QuestionID] = true
	}
	orig := map[int]Record{}
	for _, r := range hold {
		if inSFT[r.QuestionID] {
			t.Fatalf("holdout question %d is also in SFT", r.QuestionID)
		}
		orig[r.QuestionID] = r
	}
	if len(inSFT)+len(orig) != 287 {
		t.Fatalf("%d SFT + %d holdout distinct questions, want 287", len(inSFT), len(orig))
	}
	perQ := map[int]int{}
	for _, a := range aug {
		o, ok := orig[a.QuestionID]
		if !ok {
			t.Fatalf("augmented question %d is not in the holdout", a.QuestionID)
		}
		if a.SQL != o.SQL || a.Question != o.Question || a.Messages[2].Content != o.SQL {
			t.Fatalf("question %d variant %d lost its gold pairing", a.QuestionID, *a.Variant)
		}
		perQ[a.QuestionID]++
		ob, ab := schemaBlocks(t, o.Prompt), schemaBlocks(t, a.Prompt)
		for k, i := range a.Permutation.Tables {
			if ab[k] != ob[i] || a.Tables[k] != o.Tables[i] {
				t.Fatalf("question %d variant %d: block %d is not original block %d", a.QuestionID, *a.Variant, k, i)
			}
		}
		slices.Sort(ob)
		slices.Sort(ab)
		if !slices.Equal(ob, ab) {
			t.Fatalf("question %d variant %d: blocks are not a permutation of the original's", a.QuestionID, *a.Variant)
		}
		if *a.Variant == 0 && a.Prompt != o.Prompt {
			t.Fatalf("question %d: variant 0 differs from the original prompt", a.QuestionID)
		}
	}
	for q, n := range perQ {
		if n != 4 {
			t.Errorf("question %d has %d variants, want 4", q, n)
		}
	}
}

func TestGoldTables(t *testing.T) {
	s := &prompt.Schema{Tables: []*prompt.Table{{Name: "member"}, {Name: "Event Log"}, {Name: "budget"}, {Name: "expense"}}}
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT T1.a FROM member AS T1 JOIN expense AS T2 ON T1.id = T2.m", []string{"member", "expense"}},
		{"SELECT * FROM `Event Log` WHERE x = 'budget'", []string{"Event Log"}},
		{`SELECT * FROM "MEMBER", [budget]`, []string{"member", "budget"}},
		{"SELECT 'it''s member' FROM expense", []string{"expense"}},
		{"SELECT 1", nil},
		{"SELECT * FROM `unterminated", nil},
	}
	for _, c := range cases {
		if got := GoldTables(c.sql, s); !slices.Equal(got, c.want) {
			t.Errorf("GoldTables(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestPreferencePairs(t *testing.T) {
	rec := &Record{Record: dataset.Record{QuestionID: 1, SQL: "SELECT gold"}}
	prompts := map[promptKey]*Record{{1, 0}: rec}
	f := func(v float64) *float64 { return &v }
	b := func(v bool) *bool { return &v }
	rolls := []Rollout{
		{QuestionID: 1, Completion: "a", Reward: f(0.1)},
		{QuestionID: 1, Completion: "b", Reward: f(1)},
		{QuestionID: 1, Completion: "c", Reward: f(-1)},
		{QuestionID: 1, Completion: "d", Label: b(true)},
		{QuestionID: 1, Completion: "e", Reward: f(0.7)},
	}
	cases := []struct {
		name string
		opts PreferenceOptions
		want []string // chosen>rejected
	}{
		{"all", PreferenceOptions{LabelThreshold: 0.5}, []string{"b>c", "d>a", "e>c"}},
		{"capped", PreferenceOptions{LabelThreshold: 0.5, MaxPairs: 1}, []string{"b>c"}},
		{"threshold", PreferenceOptions{LabelThreshold: 0.05}, []string{"b>c", "d>c", "e>c", "a>c"}},
	}
	for _, c := range cases {
		kto, dpo, _, err := preferences("r", rolls, prompts, nil, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range dpo {
			got = append(got, p.chosen+">"+p.rejected)
		}
		if !slices.Equal(got, c.want) || len(kto) != len(rolls) {
			t.Errorf("%s: pairs %v (kto %d), want %v", c.name, got, len(kto), c.want)
		}
	}
	// No desirable completion: only GoldAsChosen makes pairs.
	bad := []Rollout{{QuestionID: 1, Completion: "x", Reward: f(0)}}
	_, dpo, st, _ := preferences("r", bad, prompts, nil, PreferenceOptions{LabelThreshold: 0.5})
	if len(dpo) != 0 || st.PromptsOneSided != 1 {
		t.Errorf("one-sided prompt: %d pairs, stats %+v", len(dpo), st)
	}
	_, dpo, st, _ = preferences("r", bad, prompts, nil, PreferenceOptions{LabelThreshold: 0.5, GoldAsChosen: true})
	if len(dpo) != 1 || dpo[0].chosen != "SELECT gold" || st.GoldChosen != 1 {
		t.Errorf("gold as chosen: %+v, stats %+v", dpo, st)
	}
}

func TestPrepareCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Prepare(ctx, Options{Dir: fixture(t), Out: t.TempDir(), Seed: 5})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("canceled run: error %v", err)
	}
}
