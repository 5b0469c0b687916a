package eval

import (
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// BenchmarkScoreOfficialSet scores the 2,296 mutated pairs of
// testkit.Official with a fresh Scorer per iteration (cold caches), as one
// `sqlrl eval` run does. Reports pairs/s.
func BenchmarkScoreOfficialSet(b *testing.B) {
	pairs := testkit.Official(b, "bird_ex.jsonl")
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	defer e.Close()
	b.ResetTimer()
	for range b.N {
		s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}
		scoreAll(s, pairs)
	}
	b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
}
