package sqlgen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// domainQs is every schemagen domain's first design (seed 1) with 100
// questions on each: about 4000 questions, the measure TestTierMix holds
// to the target and TestDomainMix reports on.
type domainQs struct {
	qs []Question
	st *Stats
}

var (
	domainOnce sync.Once
	domainRes  domainQs
	domainErr  error
)

func domainMix(t *testing.T) *domainQs {
	t.Helper()
	domainOnce.Do(func() {
		root, err := os.MkdirTemp("", "sqlgen-domains")
		if err != nil {
			domainErr = err
			return
		}
		defer os.RemoveAll(root)
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root})
		defer eng.Close()
		tot := &Stats{Tried: map[string]int{}, Kept: map[string]int{}, NoFit: map[string]int{}, WrongTier: map[string]int{}, Duplicate: map[string]int{}, Rejected: map[string]int{}}
		for _, d := range schemagen.Domains() {
			db, err := schemagen.Design(d, 1)
			if err != nil {
				domainErr = fmt.Errorf("design %s: %w", d, err)
				return
			}
			if err := schemagen.Write(context.Background(), db, filepath.Join(root, db.ID)); err != nil {
				domainErr = fmt.Errorf("write %s: %w", db.ID, err)
				return
			}
			qs, st, err := generate(context.Background(), db, eng, Options{Seed: 1, N: 100})
			if err != nil {
				domainErr = err
				return
			}
			domainRes.qs = append(domainRes.qs, qs...)
			for _, p := range []struct{ to, from map[string]int }{{tot.Tried, st.Tried}, {tot.Kept, st.Kept}, {tot.NoFit, st.NoFit}, {tot.WrongTier, st.WrongTier}, {tot.Duplicate, st.Duplicate}, {tot.Rejected, st.Rejected}} {
				for k, v := range p.from {
					p.to[k] += v
				}
			}
		}
		domainRes.st = tot
	})
	if domainErr != nil {
		t.Fatal(domainErr)
	}
	return &domainRes
}

// TestDomainMix reports, over the schemagen domains, more features per
// tier than TestTierMix checks and what happened to each construct's
// candidates: what the construct weights are tuned on.
func TestDomainMix(t *testing.T) {
	if os.Getenv("SQLGEN_MIX") == "" {
		t.Skip("set SQLGEN_MIX=1 to report the mix and the constructs' fate over every schemagen domain")
	}
	d := domainMix(t)
	mix, n := measuredMix(t, d.qs)
	for tier := range numTiers {
		row := fmt.Sprintf("%-11s n=%4d", TierNames[tier], n[tier])
		for _, k := range []string{"join", "subquery", "case", "cast", "arithmetic", "set_op", "window", "percentage", "ratio", "difference", "dirty_number", "dirty_date"} {
			row += " " + k + "=" + strconv.FormatFloat(100*mix[tier][k], 'f', 1, 64)
		}
		t.Log(row)
	}
	tot := d.st
	var ks []string
	for k := range tot.Tried {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "\n%-16s tried %5d kept %4d nofit %5d wrongtier %4d dup %4d rejected %4d", k, tot.Tried[k], tot.Kept[k], tot.NoFit[k], tot.WrongTier[k], tot.Duplicate[k], tot.Rejected[k])
	}
	t.Log(b.String())
}

// tierOf is the tier of a BIRD difficulty name, -1 for another name.
func tierOf(name string) int {
	for i, n := range TierNames {
		if n == name {
			return i
		}
	}
	return -1
}
