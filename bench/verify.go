package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// TierTolerance is how far a tier's share of a split may drift from BIRD
// dev's 60/30/10 before Verify rejects the benchmark.
const TierTolerance = 0.05

// Verify checks a benchmark directory the way a consumer would read it:
// both splits load with dataset.LoadBIRD; the gold file matches the
// question file; every table in <split>_tables.json exists in its database
// with the listed columns; question ids are unique per split and question
// text per database; tiers are near 60/30/10; dev shares no database or
// table name with train, and the sealed test split, where there is one,
// passes the same checks and shares no database with train or dev and no
// table name with train; and every gold query executes on the read-only
// engine with a non-empty, informative result. Generate runs it before it
// moves a benchmark into place.
func Verify(ctx context.Context, dir string, workers int) error {
	if workers <= 0 {
		workers = 1
	}
	loaded := map[string]*dataset.Benchmark{}
	for _, split := range []string{"train", "dev"} {
		b, err := dataset.LoadBIRD(dir, split)
		if err != nil {
			return fmt.Errorf("verify %s: %w", split, err)
		}
		if err := verifySplit(ctx, b, split, workers); err != nil {
			return fmt.Errorf("verify %s: %w", split, err)
		}
		loaded[split] = b
	}
	trainTables := map[string]string{}
	for id, s := range loaded["train"].Schemas {
		for _, t := range s.TableNames {
			trainTables[strings.ToLower(t)] = id
		}
	}
	test, err := loadTest(ctx, dir, workers)
	if err != nil {
		return err
	}
	if test != nil {
		loaded[SplitTest] = test
	}
	for _, split := range []string{"dev", SplitTest} {
		if loaded[split] == nil {
			continue
		}
		for id, s := range loaded[split].Schemas {
			for _, other := range []string{"train", "dev"} {
				if _, ok := loaded[other].Schemas[id]; ok && other != split {
					return fmt.Errorf("verify: database %s is in both %s and %s", id, other, split)
				}
			}
			for _, t := range s.TableNames {
				if tid, ok := trainTables[strings.ToLower(t)]; ok {
					return fmt.Errorf("verify: %s database %s has table %s, which train database %s also has", split, id, t, tid)
				}
			}
		}
	}
	return nil
}

// loadTest reads and checks the sealed test split (dataset.LoadTest: the
// generator's own check is one of its readers) as verifySplit checks the
// others; nil, nil for a benchmark made before it had one.
func loadTest(ctx context.Context, dir string, workers int) (*dataset.Benchmark, error) {
	if _, err := os.Stat(filepath.Join(dir, SplitTest+".json")); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	b, err := dataset.LoadTest(dir)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", SplitTest, err)
	}
	if err := verifySplit(ctx, b, SplitTest, workers); err != nil {
		return nil, fmt.Errorf("verify %s: %w", SplitTest, err)
	}
	return b, nil
}

func verifySplit(ctx context.Context, b *dataset.Benchmark, split string, workers int) error {
	if len(b.Examples) == 0 {
		return errors.New("no questions")
	}
	gold, err := dataset.ReadGoldSQL(filepath.Join(b.Dir, split+"_gold.sql"))
	if err != nil {
		return err
	}
	if len(gold) != len(b.Examples) {
		return fmt.Errorf("%s_gold.sql has %d lines for %d questions", split, len(gold), len(b.Examples))
	}
	ids := map[int]bool{}
	texts := map[string]bool{}
	perDB := map[string]int{}
	var tiers [numTiers]int
	for i, ex := range b.Examples {
		if gold[i].SQL != ex.SQL || gold[i].DBID != ex.DBID {
			return fmt.Errorf("question %d: %s_gold.sql line differs from %s.json", ex.QuestionID, split, split)
		}
		if ids[ex.QuestionID] {
			return fmt.Errorf("question_id %d repeats", ex.QuestionID)
		}
		ids[ex.QuestionID] = true
		key := ex.DBID + "\x00" + ex.Question
		if texts[key] {
			return fmt.Errorf("question %d: %q asked twice on %s", ex.QuestionID, ex.Question, ex.DBID)
		}
		texts[key] = true
		if _, ok := b.Schemas[ex.DBID]; !ok {
			return fmt.Errorf("question %d: database %s not in %s_tables.json", ex.QuestionID, ex.DBID, split)
		}
		if strings.TrimSpace(ex.Question) == "" || strings.TrimSpace(ex.SQL) == "" {
			return fmt.Errorf("question %d: empty question or SQL", ex.QuestionID)
		}
		perDB[ex.DBID]++
		found := false
		for t := Simple; t < numTiers; t++ {
			if ex.Difficulty == t.String() {
				tiers[t]++
				found = true
			}
		}
		if !found {
			return fmt.Errorf("question %d: difficulty %q", ex.QuestionID, ex.Difficulty)
		}
	}
	for t := Simple; t < numTiers; t++ {
		share := float64(tiers[t]) / float64(len(b.Examples))
		if math.Abs(share-tierShare[t]) > TierTolerance {
			return fmt.Errorf("%s questions are %.1f%% of the split, want %.0f%% +- %.0f", t, 100*share, 100*tierShare[t], 100*TierTolerance)
		}
	}
	dbs := make([]string, 0, len(b.Schemas))
	for id := range b.Schemas {
		dbs = append(dbs, id)
	}
	sort.Strings(dbs)
	byDB := map[string][]dataset.Example{}
	for _, ex := range b.Examples {
		byDB[ex.DBID] = append(byDB[ex.DBID], ex)
	}
	// One engine per database, closed before the next: connections stay
	// bounded by workers however many databases the split has.
	for _, id := range dbs {
		if perDB[id] == 0 {
			return fmt.Errorf("database %s has no questions", id)
		}
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}})
		err := verifySchema(ctx, eng, b.Schemas[id])
		if err == nil {
			err = runGolds(ctx, eng, byDB[id], workers)
		}
		eng.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// verifySchema checks that the tables file describes the database as it is,
// column for column, since prompts are built from the tables file.
func verifySchema(ctx context.Context, eng *sqlexec.SQLite, s *dataset.Schema) error {
	for ti, t := range s.TableNames {
		res, err := eng.Query(ctx, s.DBID, fmt.Sprintf("PRAGMA table_info(%s)", t))
		if err != nil {
			return fmt.Errorf("database %s: table %s: %w", s.DBID, t, err)
		}
		var want []string
		for _, c := range s.Columns {
			if c.Table == ti {
				want = append(want, c.Name)
			}
		}
		var got []string
		for _, r := range res.Rows {
			if len(r) > 1 {
				got = append(got, r[1].S)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fmt.Errorf("database %s: table %s has columns %v, tables file says %v", s.DBID, t, got, want)
		}
	}
	return nil
}

// runGolds executes every gold query on workers goroutines; the first
// failing one (in exs's order) stops the rest.
func runGolds(ctx context.Context, eng *sqlexec.SQLite, exs []dataset.Example, workers int) error {
	return parallel.For(ctx, len(exs), workers, func(ctx context.Context, i int) error {
		ex := &exs[i]
		res, err := eng.Query(ctx, ex.DBID, ex.SQL)
		if err == nil && !sqlgen.Informative(res) {
			err = errors.New("empty or uninformative result")
		}
		if err != nil {
			return fmt.Errorf("question %d on %s: gold %s: %w", ex.QuestionID, ex.DBID, ex.SQL, err)
		}
		return nil
	})
}
