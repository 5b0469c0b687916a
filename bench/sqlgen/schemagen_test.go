package sqlgen

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// TestSchemagenDBs runs the grammar on schemagen's own designs: every gold
// the grammar writes runs (Generate fails otherwise) and most databases
// yield the questions asked for.
func TestSchemagenDBs(t *testing.T) {
	doms := schemagen.Domains()
	if len(doms) > 6 {
		doms = doms[:6]
	}
	root := t.TempDir()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
	defer eng.Close()
	var tiers [numTiers]int
	feats := [numTiers]map[string]int{{}, {}, {}}
	for _, d := range doms {
		db, err := schemagen.Design(d, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemagen.Write(context.Background(), db, filepath.Join(root, db.ID)); err != nil {
			t.Fatal(err)
		}
		qs, st, err := generate(context.Background(), db, eng, Options{Seed: 1, N: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			for i, n := range TierNames {
				if n == q.Difficulty {
					tiers[i]++
					for _, f := range q.Features {
						feats[i][f]++
					}
				}
			}
		}
		t.Logf("%s: %d tables, %d questions; kept %v", db.ID, len(db.Tables), len(qs), st.Kept)
		if len(qs) < 80 {
			t.Errorf("%s: %d questions of 100", db.ID, len(qs))
		}
	}
	for i := range numTiers {
		row := ""
		for _, k := range []string{"join", "subquery", "case", "cast", "arithmetic", "set_op", "window", "no_evidence"} {
			row += fmt.Sprintf(" %s=%.0f%%", k, 100*float64(feats[i][k])/float64(max(tiers[i], 1)))
		}
		t.Logf("%s (n=%d):%s", TierNames[i], tiers[i], row)
	}
}
