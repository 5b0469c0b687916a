package sqlexec

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// birdSample is the BIRD dev slice shipped with the repository.
const birdSample = "../datasets/bird-dev-sample"

type goldQuery struct{ sql, db string }

// loadGold reads dev_gold.sql (one "SQL<TAB>db_id" per line). It skips the
// benchmark when the sample is not there rather than fail.
func loadGold(b *testing.B) []goldQuery {
	b.Helper()
	f, err := os.Open(filepath.Join(birdSample, "dev_gold.sql"))
	if err != nil {
		b.Skipf("BIRD sample: %v", err)
	}
	defer f.Close()
	var qs []goldQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		sql, db, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.TrimSpace(sql) == "" {
			continue
		}
		qs = append(qs, goldQuery{sql: sql, db: strings.TrimSpace(db)})
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if len(qs) == 0 {
		b.Skip("BIRD sample: no gold queries")
	}
	return qs
}

// runGold runs every query of qs once, spread over workers goroutines that
// take the next query from a shared index, and returns the first error.
func runGold(e Engine, qs []goldQuery, workers int) error {
	var next atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(qs) {
					return
				}
				if _, err := e.Query(context.Background(), qs[i].db, qs[i].sql); err != nil {
					err = fmt.Errorf("%s: %q: %w", qs[i].db, qs[i].sql, err)
					first.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// BenchmarkBIRDGold measures the engine end to end (pool, prepare, step,
// value copying) on real benchmark SQL: one op runs all 287 gold queries of
// the BIRD dev sample, by one goroutine and by two sharing one engine. It
// is the number behind the README's choice of SQLite binding: run it with
// and without cgo (CGO_ENABLED=0 selects the pure-Go binding) and compare
// queries/s, e.g. with benchstat over -count=5 runs.
func BenchmarkBIRDGold(b *testing.B) {
	qs := loadGold(b)
	b.Logf("driver %s, SQLite %s, %d queries", Driver, Version, len(qs))
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			e := NewSQLite(SQLiteOptions{Root: filepath.Join(birdSample, "dev_databases"), MaxConnsPerDB: workers})
			defer e.Close()
			// One untimed pass opens the connections and warms their page
			// caches, as in a long-running evaluator, and checks that every
			// gold query runs.
			if err := runGold(e, qs, workers); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := runGold(e, qs, workers); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(qs))/b.Elapsed().Seconds(), "queries/s")
		})
	}
}
