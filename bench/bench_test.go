package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// The tiny preset is generated once and shared by the tests that only read
// it; tests that write generate their own.
var (
	tinyOnce sync.Once
	tinyRoot string
	tinyDir  string
	tinySum  *Summary
	tinyErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyRoot != "" {
		os.RemoveAll(tinyRoot)
	}
	os.Exit(code)
}

func tiny(t *testing.T) (string, *Summary) {
	t.Helper()
	tinyOnce.Do(func() {
		tinyRoot, tinyErr = os.MkdirTemp("", "bench-test-")
		if tinyErr != nil {
			return
		}
		tinyDir = filepath.Join(tinyRoot, "bench")
		tinySum, tinyErr = Generate(context.Background(), Options{Preset: "tiny", Seed: 1, Out: tinyDir})
	})
	if tinyErr != nil {
		t.Fatalf("generate tiny: %v", tinyErr)
	}
	return tinyDir, tinySum
}

// treeSums maps every file under dir (relative path) to its SHA-256.
func treeSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	dir, _ := tiny(t)
	want := treeSums(t, dir)
	var sqlite, js int
	for p := range want {
		switch filepath.Ext(p) {
		case ".sqlite":
			sqlite++
		case ".json":
			js++
		}
	}
	if sqlite != 18 || js != 6 {
		t.Fatalf("tiny has %d sqlite and %d json files, want 18 and 6 (train, dev, test)", sqlite, js)
	}
	tests := []struct {
		seed uint64
		same bool
	}{
		{1, true},
		{2, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("seed%d", tt.seed), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bench")
			if _, err := Generate(context.Background(), Options{Preset: "tiny", Seed: tt.seed, Out: out, Workers: 3}); err != nil {
				t.Fatal(err)
			}
			got := treeSums(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d files, want %d", len(got), len(want))
			}
			paths := make([]string, 0, len(want))
			for p := range want {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			differ := 0
			for _, p := range paths {
				g, ok := got[p]
				if !ok {
					t.Fatalf("%s missing", p)
				}
				if g != want[p] {
					differ++
					if tt.same {
						t.Errorf("%s differs between two runs with the same seed", p)
					}
				}
			}
			if !tt.same {
				for _, p := range []string{"train.json", "dev.json", "train_databases/retail_1/retail_1.sqlite"} {
					if got[p] == want[p] {
						t.Errorf("%s is the same for seeds 1 and %d", p, tt.seed)
					}
				}
			}
		})
	}
}

func TestGoldsExecuteNonEmpty(t *testing.T) {
	dir, _ := tiny(t)
	for _, split := range []string{"train", "dev"} {
		t.Run(split, func(t *testing.T) {
			b, err := dataset.LoadBIRD(dir, split)
			if err != nil {
				t.Fatal(err)
			}
			eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
			defer eng.Close()
			for _, ex := range b.Examples {
				res, err := eng.Query(context.Background(), ex.DBID, ex.SQL)
				if err != nil {
					t.Errorf("question %d (%s): %v\n%s", ex.QuestionID, ex.DBID, err, ex.SQL)
					continue
				}
				if len(res.Rows) == 0 {
					t.Errorf("question %d (%s): empty result\n%s", ex.QuestionID, ex.DBID, ex.SQL)
				}
			}
		})
	}
}

func TestTierShares(t *testing.T) {
	dir, _ := tiny(t)
	p, _ := LookupPreset("tiny")
	tests := []struct {
		split string
		total int
	}{
		{"train", p.TrainQuestions},
		{"dev", p.DevQuestions},
	}
	for _, tt := range tests {
		t.Run(tt.split, func(t *testing.T) {
			b, err := dataset.LoadBIRD(dir, tt.split)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Examples) != tt.total {
				t.Errorf("%d questions, want %d", len(b.Examples), tt.total)
			}
			count := map[string]int{}
			for _, ex := range b.Examples {
				count[ex.Difficulty]++
			}
			for tier := Simple; tier < numTiers; tier++ {
				share := float64(count[tier.String()]) / float64(len(b.Examples))
				if math.Abs(share-tierShare[tier]) > 0.02 {
					t.Errorf("%s: share %.3f, want %.2f", tier, share, tierShare[tier])
				}
			}
		})
	}
}

func TestDevDiffersFromTrain(t *testing.T) {
	dir, sum := tiny(t)
	train, err := dataset.LoadBIRD(dir, "train")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := dataset.LoadBIRD(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	trainTables := map[string]bool{}
	trainCols := map[string]map[string]bool{} // domain -> column names
	domainOf := map[string]string{}
	for _, s := range sum.Splits {
		for _, db := range s.DBs {
			domainOf[db.ID] = db.Domain
		}
	}
	for id, s := range train.Schemas {
		for _, tn := range s.TableNames {
			trainTables[tn] = true
		}
		d := domainOf[id]
		if trainCols[d] == nil {
			trainCols[d] = map[string]bool{}
		}
		for _, c := range s.Columns {
			trainCols[d][c.Name] = true
		}
	}
	trainFiles := map[[32]byte]string{}
	for rel, sum := range treeSums(t, filepath.Join(dir, "train_databases")) {
		if strings.HasSuffix(rel, ".sqlite") {
			trainFiles[sum] = rel
		}
	}
	devFiles := treeSums(t, filepath.Join(dir, "dev_databases"))
	if len(dev.Schemas) == 0 {
		t.Fatal("no dev databases")
	}
	for id, s := range dev.Schemas {
		if _, ok := train.Schemas[id]; ok {
			t.Errorf("db_id %s is in train and dev", id)
		}
		for _, tn := range s.TableNames {
			if trainTables[tn] {
				t.Errorf("dev %s: table %s also exists in train", id, tn)
			}
		}
		renamed, total := 0, 0
		for _, c := range s.Columns {
			if c.Table < 0 {
				continue
			}
			total++
			if !trainCols[domainOf[id]][c.Name] {
				renamed++
			}
		}
		if renamed*2 < total {
			t.Errorf("dev %s: only %d of %d columns renamed", id, renamed, total)
		}
		if rel, ok := trainFiles[devFiles[filepath.Join(id, id+".sqlite")]]; ok {
			t.Errorf("dev %s has the same bytes as train %s", id, rel)
		}
	}
}

func TestLoadBIRDAndDescriptions(t *testing.T) {
	dir, sum := tiny(t)
	for _, s := range sum.Splits {
		t.Run(s.Name, func(t *testing.T) {
			b, err := dataset.Load(dir, s.Name)
			if s.Name == SplitTest {
				// Sealed: the ordinary loader refuses it, LoadTest reads it.
				if !errors.Is(err, dataset.ErrSealed) {
					t.Fatalf("dataset.Load read the sealed test split: %v", err)
				}
				b, err = dataset.LoadTest(dir)
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Layout != dataset.LayoutBIRD {
				t.Fatalf("layout %s", b.Layout)
			}
			if len(b.Schemas) != len(s.DBs) {
				t.Fatalf("%d schemas, want %d", len(b.Schemas), len(s.DBs))
			}
			for id, sc := range b.Schemas {
				desc, err := dataset.ReadDescriptions(filepath.Join(b.DBRoot, id))
				if err != nil {
					t.Fatal(err)
				}
				for ti, tn := range sc.TableNames {
					var cols []string
					for _, c := range sc.Columns {
						if c.Table == ti {
							cols = append(cols, c.Name)
						}
					}
					var got []string
					for _, d := range desc[strings.ToLower(tn)] {
						got = append(got, d.Column)
						if d.Description == "" {
							t.Errorf("%s.%s.%s: no description", id, tn, d.Column)
						}
					}
					if strings.Join(got, ",") != strings.Join(cols, ",") {
						t.Errorf("%s.%s: described columns %v, schema has %v", id, tn, got, cols)
					}
				}
				if len(sc.PrimaryKeys) != len(sc.TableNames) || len(sc.ForeignKeys) == 0 {
					t.Errorf("%s: %d primary keys for %d tables, %d foreign keys", id, len(sc.PrimaryKeys), len(sc.TableNames), len(sc.ForeignKeys))
				}
			}
			for _, ex := range b.Examples {
				if ex.Question == "" || !strings.ContainsAny(ex.Question[len(ex.Question)-1:], "?.") {
					t.Errorf("question %d: %q does not end a sentence", ex.QuestionID, ex.Question)
				}
				if strings.ContainsAny(ex.Question+ex.Evidence, "{}") {
					t.Errorf("question %d: unfilled slot in %q / %q", ex.QuestionID, ex.Question, ex.Evidence)
				}
			}
		})
	}
	for _, f := range []string{"README.md", "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Apache") {
			t.Errorf("%s does not state the licence", f)
		}
	}
}

func TestRefusesOverwrite(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "bench")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out, "keep-me")
	if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		force     bool
		wantErr   error
		markerWas bool
	}{
		{"without force", false, ErrExists, true},
		{"with force", true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(context.Background(), Options{Preset: "tiny", Seed: 1, Out: out, Force: tt.force})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if _, err := os.Stat(marker); (err == nil) != tt.markerWas {
				t.Errorf("marker present = %v, want %v", err == nil, tt.markerWas)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("parent holds %v, want only the output", names)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "train.json")); err != nil {
		t.Error("forced run left no train.json")
	}
}

func TestBadOptions(t *testing.T) {
	parent := t.TempDir()
	tests := []struct {
		name string
		opts Options
	}{
		{"unknown preset", Options{Preset: "huge", Out: filepath.Join(parent, "a", "b")}},
		{"no output", Options{Preset: "tiny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Generate(context.Background(), tt.opts); err == nil {
				t.Fatal("no error")
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Errorf("left %d entries behind", len(entries))
			}
		})
	}
}

func TestCanceledRunLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Generate(ctx, Options{Preset: "tiny", Seed: 1, Out: filepath.Join(parent, "new", "bench")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left %d entries behind", len(entries))
	}
}

// copyTree copies a benchmark so a test can break the copy.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerifyRejectsBrokenSets breaks a copy of the benchmark in the ways
// the generator must never ship and checks that Verify notices each one.
func TestVerifyRejectsBrokenSets(t *testing.T) {
	dir, _ := tiny(t)
	if err := Verify(context.Background(), dir, 2); err != nil {
		t.Fatalf("the generated set does not verify: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(recs []dataset.Record) []dataset.Record
		want   string
	}{
		{"empty gold", func(r []dataset.Record) []dataset.Record {
			r[0].SQL = "SELECT 1 WHERE 1 = 0"
			return r
		}, "empty or uninformative"},
		{"gold does not run", func(r []dataset.Record) []dataset.Record {
			r[3].SQL = "SELECT nope FROM nowhere"
			return r
		}, "no such table"},
		{"duplicate question", func(r []dataset.Record) []dataset.Record {
			for i := 1; i < len(r); i++ {
				if r[i].DBID == r[0].DBID {
					r[i].Question = r[0].Question
					break
				}
			}
			return r
		}, "asked twice"},
		{"tiers unbalanced", func(r []dataset.Record) []dataset.Record {
			for i := range r {
				if r[i].Difficulty == "moderate" {
					r[i].Difficulty = "simple"
				}
			}
			return r
		}, "questions are"},
		{"unknown database", func(r []dataset.Record) []dataset.Record {
			r[0].DBID = "retail_1"
			return r
		}, "retail_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := filepath.Join(t.TempDir(), "bench")
			copyTree(t, dir, cp)
			var recs []dataset.Record
			data, err := os.ReadFile(filepath.Join(cp, "dev.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &recs); err != nil {
				t.Fatal(err)
			}
			recs = tt.mutate(recs)
			data, err = dataset.MarshalBIRD(recs)
			if err != nil {
				t.Fatal(err)
			}
			var gold strings.Builder
			for _, r := range recs {
				fmt.Fprintf(&gold, "%s\t%s\n", r.SQL, r.DBID)
			}
			if err := os.WriteFile(filepath.Join(cp, "dev.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cp, "dev_gold.sql"), []byte(gold.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			err = Verify(context.Background(), cp, 2)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestEveryFamilyProducesQuestions builds one small database per domain
// under both namings and asks each family for questions directly, so a
// family whose SQL breaks under dev names, or that can never find a valid
// slot, fails here even if the presets happen not to draw it.
func TestEveryFamilyProducesQuestions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seen := map[string]bool{}
	for _, d := range domains() {
		var n [numTiers]int
		for _, f := range d.families {
			if seen[f.name] {
				t.Errorf("family name %s repeats", f.name)
			}
			seen[f.name] = true
			if !strings.HasPrefix(f.name, d.name+"/") {
				t.Errorf("family %s is listed under domain %s", f.name, d.name)
			}
			n[f.tier]++
		}
		if n[Simple] < 8 || n[Moderate] < 6 || n[Challenging] < 5 {
			t.Errorf("%s: families per tier %v, want at least 8/6/5", d.name, n)
		}
		for _, dev := range []bool{false, true} {
			split := "train"
			if dev {
				split = "dev"
			}
			t.Run(d.name+"/"+split, func(t *testing.T) {
				id := d.name + "_" + split
				inst := &instance{id: id, split: split, dom: d, dev: dev, names: newNames(d.tables, dev),
					path: filepath.Join(root, split, id, id+".sqlite"), seed: 7, label: "test/" + id}
				if _, err := buildDatabase(inst, 0.25); err != nil {
					t.Fatal(err)
				}
				eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Join(root, split)})
				defer eng.Close()
				a := &asker{ctx: ctx, eng: eng, inst: inst, cache: map[string][][]sqlexec.Value{}, stats: map[string]*FamilyStats{}}
				r := newRand(3, id)
				for _, f := range d.families {
					accepted := 0
					for try := 0; try < 60 && accepted < 2; try++ {
						q := &candidate{a: a, r: r, maxRows: defaultMaxRows}
						f.gen(q)
						if q.err != nil {
							t.Fatalf("%s: %v", f.name, q.err)
						}
						if q.skip {
							continue
						}
						ok, err := a.accept(q)
						if err != nil {
							t.Fatalf("%s: %v", f.name, err)
						}
						if ok {
							accepted++
							if strings.ContainsAny(q.question+strings.Join(q.evidence, ""), "{}\t\n") {
								t.Errorf("%s: bad text %q / %q", f.name, q.question, q.evidence)
							}
						}
					}
					if accepted == 0 {
						t.Errorf("%s: no acceptable question in 60 tries", f.name)
					}
				}
			})
		}
	}
}

func TestPlanQuotas(t *testing.T) {
	for _, name := range []string{"tiny", "small", "full"} {
		p, ok := LookupPreset(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		for _, split := range []string{"train", "dev"} {
			t.Run(name+"/"+split, func(t *testing.T) {
				insts := plan(p, 1, split, "/nonexistent", domains())
				want := p.TrainQuestions
				per := p.TrainPerDomain
				if split == "dev" {
					want, per = p.DevQuestions, p.DevPerDomain
				}
				if len(insts) != 6*per {
					t.Fatalf("%d databases, want %d", len(insts), 6*per)
				}
				var tiers [numTiers]int
				lo, hi := math.MaxInt, 0
				ids := map[string]bool{}
				for _, in := range insts {
					if ids[in.id] {
						t.Errorf("db_id %s repeats", in.id)
					}
					ids[in.id] = true
					total := 0
					for tier, n := range in.quota {
						tiers[tier] += n
						total += n
					}
					lo, hi = min(lo, total), max(hi, total)
				}
				if got := tiers[0] + tiers[1] + tiers[2]; got != want {
					t.Errorf("quotas sum to %d, want %d", got, want)
				}
				for tier := Simple; tier < numTiers; tier++ {
					if math.Abs(float64(tiers[tier])/float64(want)-tierShare[tier]) > 0.005 {
						t.Errorf("%s: %d of %d", tier, tiers[tier], want)
					}
				}
				if hi-lo > 2 {
					t.Errorf("database quotas range from %d to %d", lo, hi)
				}
			})
		}
	}
}

func TestRender(t *testing.T) {
	n := newNames(retailTables, true)
	tests := []struct {
		format  string
		args    []any
		want    string
		wantErr bool
	}{
		{"SELECT COUNT(*) FROM {customer} WHERE {customer.city} = ?", []any{"Boston"}, "SELECT COUNT(*) FROM client WHERE town = 'Boston'", false},
		{"WHERE {customer.last_name} = ?", []any{"O'Brien"}, "WHERE family_name = 'O''Brien'", false},
		{"WHERE x = '?' AND y = ?", []any{3}, "WHERE x = '?' AND y = 3", false},
		{"LIMIT ?", []any{int64(2)}, "LIMIT 2", false},
		{"> ?", []any{2.5}, "> 2.5", false},
		{"FROM {customers}", nil, "", true},
		{"WHERE a = ? AND b = ?", []any{1}, "", true},
		{"WHERE a = ?", []any{1, 2}, "", true},
		{"WHERE a = ?", []any{true}, "", true},
	}
	for _, tt := range tests {
		q := &candidate{a: &asker{inst: &instance{names: n}}}
		got := q.render(tt.format, tt.args)
		if (q.err != nil) != tt.wantErr {
			t.Errorf("%q: err = %v, want error %v", tt.format, q.err, tt.wantErr)
			continue
		}
		if !tt.wantErr && got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.format, got, tt.want)
		}
	}
}

func TestInformative(t *testing.T) {
	tests := []struct {
		name string
		rows [][]sqlexec.Value
		want bool
	}{
		{"no rows", nil, false},
		{"zero count", [][]sqlexec.Value{{sqlexec.Int(0)}}, false},
		{"zero float", [][]sqlexec.Value{{sqlexec.Float(0)}}, false},
		{"null aggregate", [][]sqlexec.Value{{sqlexec.Null()}}, false},
		{"null row among others", [][]sqlexec.Value{{sqlexec.Text("a")}, {sqlexec.Null()}}, false},
		{"count", [][]sqlexec.Value{{sqlexec.Int(3)}}, true},
		{"names", [][]sqlexec.Value{{sqlexec.Text("Ann"), sqlexec.Text("Lee")}}, true},
		{"zero in a wider row", [][]sqlexec.Value{{sqlexec.Text("x"), sqlexec.Int(0)}}, true},
	}
	for _, tt := range tests {
		if got := sqlgen.Informative(&sqlexec.Result{Rows: tt.rows}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTitleVocabulary keeps "the word 'X' in the title" equivalent to
// LIKE '%X%': no title word may occur inside another.
func TestTitleVocabulary(t *testing.T) {
	var words []string
	for _, l := range [][]string{titleAdjectives, titleNouns, titleThings, titleNames, {"The", "A", "An", "of", "for"}} {
		words = append(words, l...)
	}
	targets := append(append([]string{}, titleNouns...), titleAdjectives...)
	for _, w := range targets {
		for _, other := range words {
			if w != other && strings.Contains(strings.ToLower(other), strings.ToLower(w)) {
				t.Errorf("%q occurs inside %q", w, other)
			}
		}
	}
}

// TestDevNamesDisjoint checks the synonym maps: every dev table name differs
// from every train table name of any domain, and names are unique.
func TestDevNamesDisjoint(t *testing.T) {
	train := map[string]string{}
	for _, d := range domains() {
		for _, tb := range d.tables {
			train[tb.name] = d.name
		}
	}
	dev := map[string]string{}
	prefixes := map[string]bool{}
	for _, d := range domains() {
		for _, p := range []string{d.name, d.devName} {
			if prefixes[p] {
				t.Errorf("database prefix %s repeats", p)
			}
			prefixes[p] = true
		}
		for _, tb := range d.tables {
			if tb.dev == "" || tb.dev == tb.name {
				t.Errorf("%s.%s: no dev name", d.name, tb.name)
			}
			if dom, ok := train[tb.dev]; ok {
				t.Errorf("%s: dev name %s is a train table of %s", d.name, tb.dev, dom)
			}
			if dom, ok := dev[tb.dev]; ok && dom != d.name {
				t.Errorf("%s: dev name %s is also used by %s", d.name, tb.dev, dom)
			}
			dev[tb.dev] = d.name
			if len(tb.cols) < 3 {
				t.Errorf("%s.%s: %d columns", d.name, tb.name, len(tb.cols))
			}
		}
		if len(d.tables) < 3 || len(d.tables) > 6 {
			t.Errorf("%s: %d tables, want 3-6", d.name, len(d.tables))
		}
	}
}

// TestTierShapes keeps each tier's SQL what the tier promises: simple reads
// one table with no grouping; moderate joins at most two tables or groups,
// branches or deduplicates; challenging spans three or more tables, nests a
// query, or computes a ratio with CAST.
func TestTierShapes(t *testing.T) {
	dir, _ := tiny(t)
	for _, split := range []string{"train", "dev"} {
		b, err := dataset.LoadBIRD(dir, split)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range b.Examples {
			s := strings.ToUpper(ex.SQL)
			joins, selects := strings.Count(s, " JOIN "), strings.Count(s, "SELECT")
			var ok bool
			switch ex.Difficulty {
			case "simple":
				ok = joins == 0 && selects == 1 && !strings.Contains(s, "GROUP BY") && !strings.Contains(s, "CASE")
			case "moderate":
				ok = joins <= 1 && selects == 1 && (joins == 1 || strings.Contains(s, "GROUP BY") || strings.Contains(s, "CASE") || strings.Contains(s, "DISTINCT"))
			case "challenging":
				ok = joins >= 2 || selects >= 2 || strings.Contains(s, "CAST(")
			}
			if !ok {
				t.Errorf("%s question %d is %s but its SQL is %s", split, ex.QuestionID, ex.Difficulty, ex.SQL)
			}
		}
	}
}
