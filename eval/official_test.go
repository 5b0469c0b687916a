package eval

import (
	"context"
	"crypto/sha256"

	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// testkit.Official holds the verdicts of the official evaluators (BIRD's
// evaluation.py and mini-dev's evaluation_f1.py, the Spider test-suite's
// eval_exec_match) on thousands of mutated predictions over the bundled BIRD
// sample; internal/testkit/testdata/official/README.md says how they were
// produced. sqlrl must agree on every one.

var sampleRoot = testkit.BirdSampleDBs()

type officialPair = testkit.OfficialPair

// execVerdict reads the Spider "exec" field: 0/1, or a string naming an
// exception the official evaluator raises (it crashes on empty input); sqlrl
// scores those 0.
func execVerdict(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), true
	case string:
		return 0, true
	}
	return 0, false
}

// scoreAll scores pairs in parallel with s, keeping order.
func scoreAll(s *Scorer, pairs []officialPair) []Outcome {
	out := make([]Outcome, len(pairs))
	var wg sync.WaitGroup
	ch := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				out[i] = s.Score(context.Background(), pairs[i].DBID, pairs[i].Gold, pairs[i].Pred)
			}
		}()
	}
	for i := range pairs {
		ch <- i
	}
	close(ch)
	wg.Wait()
	return out
}

func TestAgreesWithOfficialBIRD(t *testing.T) {
	pairs := testkit.Official(t, "bird_ex.jsonl")
	f1s := testkit.Official(t, "bird_softf1.jsonl")
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	defer e.Close()
	s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true, SoftF1: true}
	outs := scoreAll(s, pairs)
	// The EX-only scorer stops wrong predictions at their first stray row.
	fast := scoreAll(&Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}, pairs)
	disagree := 0
	for i, p := range pairs {
		if got := b2i(fast[i].Correct); got != p.EX {
			disagree++
			t.Errorf("pair %d (%s, %s): streaming EX %d, official %d (%s: %s)", p.Index, p.DBID, p.Kind, got, p.EX, fast[i].Class, fast[i].Error)
		}
		if got := b2i(outs[i].Correct); got != p.EX {
			disagree++
			t.Errorf("pair %d (%s, %s): EX %d, official %d (%s: %s)\n  gold: %s\n  pred: %s", p.Index, p.DBID, p.Kind, got, p.EX, outs[i].Class, outs[i].Error, p.Gold, p.Pred)
		}
		if want := *f1s[i].F1; math.Abs(outs[i].SoftF1-want) > 1e-9 {
			disagree++
			t.Errorf("pair %d (%s): Soft-F1 %v, official %v\n  gold: %s\n  pred: %s", p.Index, p.Kind, outs[i].SoftF1, want, p.Gold, p.Pred)
		}
	}
	t.Logf("%d pairs, %d disagreements", len(pairs), disagree)
}

func TestAgreesWithOfficialSpider(t *testing.T) {
	pairs := testkit.Official(t, "spider_exec.jsonl")
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	defer e.Close()
	s := &Scorer{Engine: e, Mode: ModeSpider, CachePredictions: true}
	outs := scoreAll(s, pairs)
	for i, p := range pairs {
		want, _ := execVerdict(p.Exec)
		if got := b2i(outs[i].Correct); got != want {
			t.Errorf("pair %d (%s, %s): exec %d, official %d (%s: %s)\n  gold: %s\n  pred: %s", p.Index, p.DBID, p.Kind, got, want, outs[i].Class, outs[i].Error, p.Gold, p.Pred)
		}
	}
}

// TestAgreesWithOfficialTestSuite runs the suite variant: superhero plus a
// perturbed copy in which some values differ, so predictions that only
// happen to match on the original are caught.
func TestAgreesWithOfficialTestSuite(t *testing.T) {
	pairs := testkit.ReadPairs(t, "testdata/suite/suite_exec.jsonl")
	// The engine opens only files inside its root, so the suite (the
	// original and its perturbed copy) is laid out in one.
	root := t.TempDir()
	copyFile(t, filepath.Join(sampleRoot, "superhero", "superhero.sqlite"), filepath.Join(root, "superhero", "superhero.sqlite"))
	perturbed := filepath.Join(root, "superhero", "superhero_perturbed.sqlite")
	copyFile(t, "testdata/suite/superhero_perturbed.sqlite", perturbed)
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
	defer e.Close()
	s := &Scorer{Engine: e, Mode: ModeSpider, CachePredictions: true,
		Suite: func(db string) []string { return []string{e.Path(db), perturbed} }}
	single := &Scorer{Engine: e, Mode: ModeSpider, CachePredictions: true}
	outs, singles := scoreAll(s, pairs), scoreAll(single, pairs)
	for i, p := range pairs {
		want, _ := execVerdict(p.Exec)
		if got := b2i(outs[i].Correct); got != want {
			t.Errorf("pair %d (%s): suite exec %d, official %d (%s)\n  gold: %s\n  pred: %s", p.Index, p.Kind, got, want, outs[i].Class, p.Gold, p.Pred)
		}
		if got := b2i(singles[i].Correct); got != *p.ExecSingle {
			t.Errorf("pair %d (%s): single-db exec %d, official %d", p.Index, p.Kind, got, *p.ExecSingle)
		}
	}
}

func TestAgreesWithOfficialEdgeCases(t *testing.T) {
	pairs := testkit.Official(t, "edge_cases.jsonl")
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	defer e.Close()
	bird := &Scorer{Engine: e, Mode: ModeBIRD, SoftF1: true}
	fast := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}
	spider := &Scorer{Engine: e, Mode: ModeSpider}
	for _, p := range pairs {
		b := bird.Score(context.Background(), p.DBID, p.Gold, p.Pred)
		if got := b2i(b.Correct); got != p.EX {
			t.Errorf("%s: EX %d, official %d (%s %s)", p.Case, got, p.EX, b.Class, b.Error)
		}
		if f := fast.Score(context.Background(), p.DBID, p.Gold, p.Pred); b2i(f.Correct) != p.EX {
			t.Errorf("%s: streaming EX %v, official %d (%s %s)", p.Case, f.Correct, p.EX, f.Class, f.Error)
		}
		if p.F1 != nil && math.Abs(b.SoftF1-*p.F1) > 1e-9 {
			t.Errorf("%s: Soft-F1 %v, official %v", p.Case, b.SoftF1, *p.F1)
		}
		want, ok := execVerdict(p.Exec)
		if !ok {
			continue
		}
		sp := spider.Score(context.Background(), p.DBID, p.Gold, p.Pred)
		if got := b2i(sp.Correct); got != want {
			t.Errorf("%s: Spider exec %d, official %v (%s %s)", p.Case, got, p.Exec, sp.Class, sp.Error)
		}
	}
}

// TestUnsafePredictionsChangeNothing scores the write attempts and runaway
// queries that the official scripts could only be run on copies for (BIRD's
// script opens databases read-write, and its verdicts on them depend on what
// earlier predictions deleted). sqlrl scores each 0, classified, and the
// database files stay byte-identical.
func TestUnsafePredictionsChangeNothing(t *testing.T) {
	pairs := testkit.Official(t, "bird_unsafe.jsonl")
	before := map[string][32]byte{}
	for _, db := range []string{"superhero", "student_club"} {
		before[db] = sum(t, filepath.Join(sampleRoot, db, db+".sqlite"))
	}
	const limit = 300 * time.Millisecond
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	s := &Scorer{Engine: e, Mode: ModeBIRD, Timeout: limit}
	// Runaways go through the full scorer: the streaming one would reject
	// most of them unrun, by their column count.
	full := &Scorer{Engine: e, Mode: ModeBIRD, Timeout: limit, SoftF1: true}
	runaways := 0
	for _, p := range pairs {
		// The pair's limit covers the gold too; skip the few heavy golds
		// that leave a prediction no time at all.
		if g, err := s.GoldResult(context.Background(), p.DBID, p.Gold); err != nil || g.Elapsed > limit/4 {
			continue
		}
		isRunaway := p.Kind == "runaway-cross-join" || p.Kind == "runaway-recursive"
		if isRunaway {
			if runaways++; runaways > 6 {
				continue // a few suffice; each costs the whole limit
			}
		}
		scorer := s
		if isRunaway {
			scorer = full
		}
		out := scorer.Score(context.Background(), p.DBID, p.Gold, p.Pred)
		if out.Correct {
			t.Errorf("%s: scored correct: %s", p.Kind, p.Pred)
		}
		want := string(sqlexec.ClassNotReadOnly)
		switch {
		case isRunaway:
			want = string(sqlexec.ClassTimeout)
		case p.Kind == "write-multi-statement":
			want = string(sqlexec.ClassMultiple)
		}
		if out.Class != want {
			t.Errorf("%s: class %s (%s), want %s: %s", p.Kind, out.Class, out.Error, want, p.Pred)
		}
	}
	e.Close()
	for db, h := range before {
		if sum(t, filepath.Join(sampleRoot, db, db+".sqlite")) != h {
			t.Errorf("%s.sqlite changed", db)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
