package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// TestV2Tiny generates v2-tiny once and checks it in subtests.
func TestV2Tiny(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := Generate(context.Background(), Options{Preset: "v2-tiny", Seed: 1, Out: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	t.Run("deterministic", func(t *testing.T) { testV2Deterministic(t, dir) })
	t.Run("splits", func(t *testing.T) { testV2Splits(t, dir) })
	t.Run("checks reject", func(t *testing.T) { testV2CheckRejects(t, dir) })
	t.Run("ties", func(t *testing.T) { testV2Ties(t, dir) })
	t.Run("feature mix", func(t *testing.T) { testV2FeatureMix(t, dir) })
}

// testV2Ties: the benchmark-level tie check passes on the generated golds
// and catches a gold whose top row is decided by a tie.
func testV2Ties(t *testing.T, dir string) {
	b, err := dataset.LoadBIRD(dir, SplitDev)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTies(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	s := b.Schemas[b.Examples[0].DBID]
	var col string
	for _, c := range s.Columns {
		if c.Table == 0 {
			col = c.Name // the first table's key: distinct values
			break
		}
	}
	b.Examples = []dataset.Example{{QuestionID: 1, DBID: s.DBID, SQL: "SELECT " + col + " FROM " + s.TableNames[0] + " ORDER BY 1 - 1 LIMIT 1"}}
	if err := checkTies(context.Background(), b); err == nil || !strings.Contains(err.Error(), "depends on ties") {
		t.Fatalf("a tie-decided gold passed: %v", err)
	}
}

func TestTieVariants(t *testing.T) {
	tests := []struct {
		sql   string
		ncols int
		want  []string
	}{
		{"SELECT a FROM t", 1, nil},
		{"SELECT a, b FROM t ORDER BY b DESC LIMIT 3", 2, []string{
			"SELECT a, b FROM t ORDER BY b DESC, 1 ASC, 2 ASC LIMIT 3",
			"SELECT a, b FROM t ORDER BY b DESC, 1 DESC, 2 DESC LIMIT 3"}},
		{"SELECT a FROM t WHERE x IN (SELECT y FROM u ORDER BY z LIMIT 1)", 1, nil},
		{"SELECT a FROM t WHERE s = ') ORDER BY' ORDER BY a", 1, []string{
			"SELECT a FROM t WHERE s = ') ORDER BY' ORDER BY a, 1 ASC",
			"SELECT a FROM t WHERE s = ') ORDER BY' ORDER BY a, 1 DESC"}},
	}
	for _, tc := range tests {
		if got := tieVariants(tc.sql, tc.ncols); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
	}
}

// testV2Deterministic: the same preset and seed give byte-identical files,
// databases included, whatever the number of workers.
func testV2Deterministic(t *testing.T, a string) {
	b := filepath.Join(t.TempDir(), "b")
	if _, err := Generate(context.Background(), Options{Preset: "v2-tiny", Seed: 1, Out: b, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	files := 0
	err := filepath.Walk(a, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s: only in the first run", rel)
			return nil
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between runs", rel)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("compared %d files", files)
	}
	// Another seed is another benchmark.
	c := filepath.Join(t.TempDir(), "c")
	if _, err := Generate(context.Background(), Options{Preset: "v2-tiny", Seed: 2, Out: c}); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(a, "train.json"))
	y, _ := os.ReadFile(filepath.Join(c, "train.json"))
	if bytes.Equal(x, y) {
		t.Fatal("seeds 1 and 2 wrote the same train.json")
	}
}

// testV2Splits checks the promises of each split on the files: sizes and
// tiers as planned, dev on held-out domains only, the in-domain splits on
// train's, no dev wording in train, no dev_compositional skeleton in
// train, and a BIRD-layout directory per split with descriptions.
func testV2Splits(t *testing.T, dir string) {
	p, _ := LookupV2Preset("v2-tiny")
	want := map[string]int{SplitTrain: p.Train.Questions, SplitDev: p.Dev.Questions, SplitDevCompositional: p.DevComp.Questions, SplitDevID: p.DevID.Questions}
	loaded := map[string]*dataset.Benchmark{}
	for _, s := range V2Splits {
		b, err := dataset.LoadBIRD(dir, s)
		if err != nil {
			t.Fatal(err)
		}
		loaded[s] = b
		if len(b.Examples) != want[s] {
			t.Errorf("%s: %d questions, want %d", s, len(b.Examples), want[s])
		}
		var tiers [numTiers]int
		for _, ex := range b.Examples {
			tiers[tierOf(ex.Difficulty)]++
		}
		if tiers[Simple] != want[s]*6/10 || tiers[Moderate] != want[s]*3/10 {
			t.Errorf("%s: tiers %v", s, tiers)
		}
		for id := range b.Schemas {
			descs, err := dataset.ReadDescriptions(filepath.Join(b.DBRoot, id))
			if err != nil || len(descs) != len(b.Schemas[id].TableNames) {
				t.Errorf("%s/%s: %d description files for %d tables (%v)", s, id, len(descs), len(b.Schemas[id].TableNames), err)
			}
		}
	}
	trainDoms := map[string]bool{}
	words := map[string]bool{}
	skels := map[string]bool{}
	for id := range loaded[SplitTrain].Schemas {
		trainDoms[DomainOf(id)] = true
	}
	for _, ex := range loaded[SplitTrain].Examples {
		words[normWording(ex.Question)] = true
		sh, err := sqlparse.Analyze(ex.SQL)
		if err != nil {
			t.Fatal(err)
		}
		skels[sh.Skeleton] = true
	}
	for _, s := range V2Splits[1:] {
		for id := range loaded[s].Schemas {
			if trainDoms[DomainOf(id)] != (s != SplitDev) {
				t.Errorf("%s: database %s: domain in train is %v", s, id, trainDoms[DomainOf(id)])
			}
		}
		seenSkel := 0
		for _, ex := range loaded[s].Examples {
			if words[normWording(ex.Question)] {
				t.Errorf("%s: %q is a train wording", s, ex.Question)
			}
			sh, _ := sqlparse.Analyze(ex.SQL)
			if skels[sh.Skeleton] {
				seenSkel++
			}
		}
		if s == SplitDevCompositional && seenSkel > 0 {
			t.Errorf("dev_compositional: %d questions with train skeletons", seenSkel)
		}
		if s == SplitDevID && seenSkel == 0 {
			t.Errorf("dev_id: no question shares a skeleton with train; the split is not in-distribution")
		}
	}
	if err := checkV2Splits(loaded); err != nil {
		t.Fatal(err)
	}
}

// testV2CheckRejects: each cross-split promise, broken on purpose, fails
// the check that guards it.
func testV2CheckRejects(t *testing.T, dir string) {
	load := func() map[string]*dataset.Benchmark {
		m := map[string]*dataset.Benchmark{}
		for _, s := range V2Splits {
			b, err := dataset.LoadBIRD(dir, s)
			if err != nil {
				t.Fatal(err)
			}
			m[s] = b
		}
		return m
	}
	tests := []struct {
		name   string
		break_ func(m map[string]*dataset.Benchmark)
		want   string
	}{
		{"dev wording in train", func(m map[string]*dataset.Benchmark) {
			m[SplitDev].Examples[3].Question = "  " + strings.ToUpper(m[SplitTrain].Examples[7].Question)
		}, "worded as train question"},
		{"compositional skeleton in train", func(m map[string]*dataset.Benchmark) {
			m[SplitDevCompositional].Examples[0].SQL = m[SplitTrain].Examples[0].SQL
		}, "has the skeleton of train question"},
		{"dev database in train", func(m map[string]*dataset.Benchmark) {
			for id, s := range m[SplitDevID].Schemas {
				m[SplitTrain].Schemas[id] = s
				break
			}
		}, "is in both train and dev_id"},
		{"dev domain in train", func(m map[string]*dataset.Benchmark) {
			for id, s := range m[SplitDev].Schemas {
				m[SplitTrain].Schemas[DomainOf(id)+"_99"] = s
				break
			}
		}, "which train has"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := load()
			tc.break_(m)
			err := checkV2Splits(m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestTierQuotas: quotas add up to the total and keep 60/30/10.
func TestTierQuotas(t *testing.T) {
	for _, tc := range []struct{ total, n int }{{500, 20}, {3000, 60}, {60, 6}, {1500, 60}, {1500, 120}, {7, 3}, {10, 7}} {
		q := tierQuotas(tc.total, tc.n)
		var sum [numTiers]int
		for _, x := range q {
			for t := range x {
				sum[t] += x[t]
			}
		}
		if sum[0]+sum[1]+sum[2] != tc.total {
			t.Errorf("%v: quotas sum to %v", tc, sum)
		}
		for tier, share := range tierShare {
			if d := float64(sum[tier]) - share*float64(tc.total); d > 1 || d < -1 {
				t.Errorf("%v: %s %d", tc, Tier(tier), sum[tier])
			}
		}
		for i, x := range q {
			if n := x[0] + x[1] + x[2]; n < tc.total/tc.n-1 || n > tc.total/tc.n+2 {
				t.Errorf("%v: database %d gets %d questions", tc, i, n)
			}
		}
	}
}

// TestHeldOutRule: the held-out domains are HeldOutDomains of schemagen's
// domains, fixed by the seed.
func TestHeldOutRule(t *testing.T) {
	a, err := chooseHeldOut(context.Background(), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := chooseHeldOut(context.Background(), 1, 1)
	c, _ := chooseHeldOut(context.Background(), 2, 2)
	if len(a) != HeldOutDomains || strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("held out %v and %v", a, b)
	}
	if strings.Join(a, ",") == strings.Join(c, ",") {
		t.Fatalf("seeds 1 and 2 hold out the same domains %v", a)
	}
}

// TestAllocate: per-database quotas first, spare candidates next, and a
// tier that cannot be filled shrinks every tier alike.
func TestAllocate(t *testing.T) {
	mk := func(id string, s, m, c int, quota [numTiers]int) *v2Inst {
		inst := &v2Inst{id: id, quota: quota}
		for tier, n := range []int{s, m, c} {
			for k := range n {
				inst.cands = append(inst.cands, sqlgen.Question{Question: fmt.Sprintf("%s %d %d", id, tier, k), Difficulty: Tier(tier).String()})
			}
		}
		return inst
	}
	count := func(insts []*v2Inst) (out [numTiers]int) {
		for _, inst := range insts {
			for _, q := range inst.qs {
				out[tierOf(q.Difficulty)]++
			}
		}
		return out
	}
	// Enough of everything: each database fills its own quota.
	full := []*v2Inst{mk("a", 9, 9, 9, [3]int{6, 3, 1}), mk("b", 9, 9, 9, [3]int{6, 3, 1})}
	allocate(full, nil)
	if got := count(full); got != [3]int{12, 6, 2} || len(full[0].qs) != 10 || full[0].drop.Short != 0 {
		t.Fatalf("full: %v, a has %d", got, len(full[0].qs))
	}
	// b lacks simple questions: a's spares fill the tier.
	spare := []*v2Inst{mk("a", 9, 3, 1, [3]int{6, 3, 1}), mk("b", 2, 3, 1, [3]int{6, 3, 1})}
	allocate(spare, nil)
	if got := count(spare); got != [3]int{11, 5, 1} {
		t.Fatalf("spare: %v", got)
	}
	// Only 6 simple of 12 wanted: every tier halves.
	short := []*v2Inst{mk("a", 3, 9, 9, [3]int{6, 3, 1}), mk("b", 3, 9, 9, [3]int{6, 3, 1})}
	allocate(short, nil)
	if got := count(short); got != [3]int{6, 3, 1} || short[0].drop.Short != 10 {
		t.Fatalf("short: %v, short %d", got, short[0].drop.Short)
	}
}
