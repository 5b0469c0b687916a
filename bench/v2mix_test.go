package bench

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/benchstats"
)

// mixTolerance is how far a dev split's tier may sit from sqlgen.BIRDMix
// on a feature, beyond half a question of rounding: issue 11's "within a
// few points".
const mixTolerance = 0.05

// mixGaps lists the features of tier groups that are further than
// mixTolerance plus half a question from sqlgen.BIRDMix, as `sqlrl bench
// stats` measures them. exempt names tier/feature pairs no candidate can
// bring to the target.
func mixGaps(split string, tiers []*benchstats.Group, exempt map[string]bool) []string {
	var gaps []string
	for _, g := range tiers {
		tier := tierOf(g.Tier)
		if tier < 0 || g.Questions == 0 {
			continue
		}
		want := mixShares(sqlgen.BIRDMix[tier])
		f := g.Features
		got := [numFeats]float64{f.Join, f.Subquery, f.Case, f.Cast, f.Arithmetic}
		for k := range got {
			name := [numFeats]string{"JOIN", "subquery", "CASE", "CAST", "arithmetic"}[k]
			if exempt[g.Tier+" "+name] {
				continue
			}
			if d := math.Abs(got[k] - want[k]); d > mixTolerance+0.5/float64(g.Questions) {
				gaps = append(gaps, fmt.Sprintf("%s %s %s: %.1f%%, BIRD %.1f%% (%d questions)", split, g.Tier, name, 100*got[k], 100*want[k], g.Questions))
			}
		}
	}
	return gaps
}

// testV2FeatureMix: every dev split's tiers are within mixTolerance of
// BIRD's features, measured as `sqlrl bench stats` measures them. sqlgen
// writes no moderate question without a join (BIRD: 3.7% of them), hence
// the one exemption.
func testV2FeatureMix(t *testing.T, dir string) {
	rep, err := benchstats.Measure(context.Background(), dir, benchstats.Options{Splits: V2Splits[1:], NoExec: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Splits) != len(V2Splits)-1 {
		t.Fatalf("measured %d splits", len(rep.Splits))
	}
	for _, s := range rep.Splits {
		for _, gap := range mixGaps(s.Name, s.Tiers, nil) {
			t.Error(gap)
		}
	}
}

// Golds with the features their names say, as sqlparse.Analyze reads
// them.
const (
	sqlPlain = "SELECT a FROM t"
	sqlJoin  = "SELECT t.a FROM t JOIN u ON t.x = u.x"
	sqlSub   = "SELECT a FROM t WHERE a = (SELECT MIN(a) FROM t)"
	sqlCase  = "SELECT CASE WHEN a > 1 THEN 1 ELSE 0 END FROM t"
	sqlCast  = "SELECT CAST(a AS REAL) FROM t"
	sqlArith = "SELECT a * 2 FROM t"

	sqlJoinSub   = sqlJoin + " WHERE t.a = (SELECT MIN(a) FROM t)"
	sqlJoinCase  = "SELECT CASE WHEN t.a > 1 THEN 1 ELSE 0 END FROM t JOIN u ON t.x = u.x"
	sqlJoinCast  = "SELECT CAST(t.a AS REAL) FROM t JOIN u ON t.x = u.x"
	sqlJoinArith = "SELECT t.a * 2 FROM t JOIN u ON t.x = u.x"
	sqlJoinPct   = "SELECT SUM(CASE WHEN t.a > 1 THEN 1 ELSE 0 END) * 100 / COUNT(*) FROM t JOIN u ON t.x = u.x"
)

// TestAllocateMix: on candidates that lean away from BIRD's mix (as the
// skeleton filter leaves dev_compositional's, rich in computed values),
// allocate with a mix gives each tier BIRD's shares to within
// mixTolerance, without a mix it does not (the candidates do lean), and
// a tier whose candidates cannot match still fills its quota.
func TestAllocateMix(t *testing.T) {
	// cands makes one database's candidates of one tier: n of each gold,
	// in the order given, numbered so that wordings differ.
	type spec struct {
		sql string
		n   int
	}
	mk := func(id string, tier Tier, quota int, specs ...spec) *v2Inst {
		inst := &v2Inst{id: id}
		inst.quota[tier] = quota
		for _, s := range specs {
			for k := range s.n {
				inst.cands = append(inst.cands, sqlgen.Question{Question: fmt.Sprintf("%s %s %d", id, s.sql, k), SQL: s.sql, Difficulty: tier.String()})
			}
		}
		return inst
	}
	// measure is the tier's feature shares among the picked questions.
	measure := func(insts []*v2Inst, tier Tier) (*benchstats.Group, int) {
		g := &benchstats.Group{Tier: tier.String()}
		var have [numFeats]int
		for _, inst := range insts {
			for _, q := range inst.qs {
				g.Questions++
				for f, yes := range goldFeats(q.SQL) {
					if yes {
						have[f]++
					}
				}
			}
		}
		n := float64(max(g.Questions, 1))
		g.Features = benchstats.Features{Join: float64(have[featJoin]) / n, Subquery: float64(have[featSubquery]) / n,
			Case: float64(have[featCase]) / n, Cast: float64(have[featCast]) / n, Arithmetic: float64(have[featArithmetic]) / n}
		return g, g.Questions
	}
	tests := []struct {
		name  string
		tier  Tier
		insts func() []*v2Inst
		want  int  // questions picked
		leans bool // without a mix, the pick is off BIRD's
		// exempt: features the candidates cannot bring to BIRD's.
		exempt map[string]bool
	}{
		{"computed first (dev_compositional simple)", Simple, func() []*v2Inst {
			return []*v2Inst{
				mk("a", Simple, 50, spec{sqlCase, 10}, spec{sqlCast, 10}, spec{sqlArith, 10}, spec{sqlJoin, 60}, spec{sqlPlain, 30}, spec{sqlSub, 2}),
				mk("b", Simple, 50, spec{sqlArith, 8}, spec{sqlCase, 8}, spec{sqlPlain, 20}, spec{sqlJoin, 60}, spec{sqlCast, 4}, spec{sqlSub, 2}),
			}
		}, 100, true, nil},
		{"one database's candidates all computed", Simple, func() []*v2Inst {
			return []*v2Inst{
				mk("a", Simple, 50, spec{sqlCase, 30}, spec{sqlArith, 30}),
				mk("b", Simple, 50, spec{sqlJoin, 100}, spec{sqlPlain, 40}, spec{sqlSub, 3}, spec{sqlCast, 3}),
			}
		}, 100, true, nil},
		{"computed last (challenging)", Challenging, func() []*v2Inst {
			cands := []spec{{sqlJoin, 25}, {sqlJoinSub, 3}, {sqlJoinCase, 6}, {sqlJoinCast, 8}, {sqlJoinArith, 6}, {sqlJoinPct, 4}}
			return []*v2Inst{mk("a", Challenging, 20, cands...), mk("b", Challenging, 20, cands...)}
		}, 40, true, nil},
		{"nothing fits: quota still filled", Moderate, func() []*v2Inst {
			return []*v2Inst{mk("a", Moderate, 10, spec{sqlCase, 20})}
		}, 10, true, map[string]bool{"moderate JOIN": true, "moderate CASE": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plain := tc.insts()
			allocate(plain, nil)
			g, _ := measure(plain, tc.tier)
			if leans := len(mixGaps("nil", []*benchstats.Group{g}, tc.exempt)) > 0; leans != tc.leans {
				t.Errorf("without a mix: off BIRD's %v, want %v", leans, tc.leans)
			}
			insts := tc.insts()
			allocate(insts, &sqlgen.BIRDMix)
			g, n := measure(insts, tc.tier)
			if n != tc.want {
				t.Errorf("picked %d, want %d", n, tc.want)
			}
			if tc.name == "nothing fits: quota still filled" {
				return // the candidates are all CASE: only the count can hold
			}
			for _, gap := range mixGaps("mix", []*benchstats.Group{g}, tc.exempt) {
				t.Error(gap)
			}
		})
	}
}
