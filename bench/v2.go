package bench

// Benchmark v2 (issue 11): procedural databases (bench/schemagen) and
// questions from a grammar (bench/sqlgen), in four splits that test
// generalisation the way BIRD and Spider do:
//
//   - train: several database instances of each train domain;
//   - dev: databases of held-out domains that never occur in train
//     (cross-domain, the default dev split);
//   - dev_compositional: new instances of train's domains, only questions
//     whose SQL skeleton occurs nowhere in train;
//   - dev_id: new instances of train's domains, any skeleton (the
//     in-distribution regression check v1's dev was);
//   - test, sealed (dataset.SplitTest): dev's kind and size on new
//     databases of the held-out domains, for a claim's final evaluation.
//
// No dev question's wording (lower-cased, spaces collapsed) occurs in
// train: such questions are dropped and counted. The same preset and seed
// give byte-identical files.

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/bench/sqlgen"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// V2 split names, in output order.
const (
	SplitTrain            = "train"
	SplitDev              = "dev"
	SplitDevCompositional = "dev_compositional"
	SplitDevID            = "dev_id"
)

// SplitTest is the sealed test split (dataset.SplitTest): in v1, dev's
// kind; in v2, new databases of dev's held-out domains.
const SplitTest = dataset.SplitTest

// V2Splits lists v2's open splits in output order; the sealed SplitTest
// is written after them.
var V2Splits = []string{SplitTrain, SplitDev, SplitDevCompositional, SplitDevID}

// HeldOutDomains is how many of schemagen's domains v2 holds out for dev:
// a quarter of the 40, about as many domains as BIRD dev (11) spans.
const HeldOutDomains = 10

// V2Split sizes one split of a v2 preset.
type V2Split struct {
	// PerDomain is database instances per domain; Questions the target
	// question count of the split, spread evenly over its databases.
	PerDomain, Questions int
	// Domains, when above 0, caps how many domains the split uses (tiny).
	Domains int
}

// V2Preset sizes a v2 benchmark. Train domains are schemagen's domains
// minus the held-out ones.
type V2Preset struct {
	Name                       string
	Train, Dev, DevComp, DevID V2Split
}

var v2Presets = []V2Preset{
	// tiny is for tests: a few domains, every split, a few seconds.
	{Name: "v2-tiny",
		Train:   V2Split{PerDomain: 1, Questions: 240, Domains: 6},
		Dev:     V2Split{PerDomain: 1, Questions: 60, Domains: 3},
		DevComp: V2Split{PerDomain: 1, Questions: 60, Domains: 6},
		DevID:   V2Split{PerDomain: 1, Questions: 60, Domains: 6}},
	// small matches v1 small: ~3000 train, ~500 per dev split.
	{Name: "v2-small",
		Train:   V2Split{PerDomain: 2, Questions: 3000},
		Dev:     V2Split{PerDomain: 2, Questions: 500},
		DevComp: V2Split{PerDomain: 1, Questions: 500},
		DevID:   V2Split{PerDomain: 1, Questions: 500}},
	{Name: "v2-full",
		Train:   V2Split{PerDomain: 7, Questions: 20000},
		Dev:     V2Split{PerDomain: 3, Questions: 1500},
		DevComp: V2Split{PerDomain: 4, Questions: 1500}, // 2 per domain leave the simple tier short
		DevID:   V2Split{PerDomain: 2, Questions: 1500}},
}

// V2PresetNames lists the v2 presets meant for users; "v2-tiny" exists for
// tests.
func V2PresetNames() []string { return []string{"v2-small", "v2-full"} }

// LookupV2Preset returns the named v2 preset.
func LookupV2Preset(name string) (V2Preset, bool) {
	for _, p := range v2Presets {
		if p.Name == name {
			return p, true
		}
	}
	return V2Preset{}, false
}

// DropStats counts dev candidates left out of a split, so a report can say
// how much of the grammar's output a filter cost.
type DropStats struct {
	// Wording: composed questions whose wording occurs in train.
	// Skeleton: composed questions whose SQL skeleton occurs in train
	// (dev_compositional only). Both are dropped before their gold runs
	// (sqlgen.Options.Skip). Short: questions the split's quota wanted
	// that no candidate filled.
	Wording, Skeleton, Short int
}

// v2Inst is one database of one v2 split.
type v2Inst struct {
	split, domain, id string
	designSeed        uint64
	// quota per tier; ask is how many questions sqlgen is asked for.
	quota [numTiers]int
	ask   int

	// results: cands are sqlgen's questions that pass the split's
	// filters, qs those allocate keeps.
	db    *schemagen.DB
	cands []sqlgen.Question
	qs    []sqlgen.Question
	rows  int64
	drop  DropStats
}

// designSeed derives an instance's schemagen seed from the benchmark seed
// and the instance's number within its domain: another benchmark seed
// draws other designs.
func designSeed(seed uint64, k int) uint64 { return seed*100_000 + uint64(k) }

// chooseHeldOut picks the held-out domains: among the domains that share
// no table name (SQL name or noun) with any other domain in schemagen's
// designs 1-4, HeldOutDomains chosen by a shuffle seeded by seed, so that
// dev's vocabulary of tables is its own. If too few domains share nothing,
// the rest come from the others in the same shuffled order.
func chooseHeldOut(ctx context.Context, seed uint64, workers int) ([]string, error) {
	doms := schemagen.Domains()
	if len(doms) <= HeldOutDomains {
		return nil, fmt.Errorf("hold out: %d domains, want more than %d", len(doms), HeldOutDomains)
	}
	names := make([]map[string]bool, len(doms))
	err := parallel.For(ctx, len(doms), workers, func(_ context.Context, i int) error {
		names[i] = map[string]bool{}
		for s := uint64(1); s <= 4; s++ {
			db, err := schemagen.Design(doms[i], s)
			if err != nil {
				return fmt.Errorf("hold out: %w", err)
			}
			for _, t := range db.Tables {
				names[i][strings.ToLower(t.Name)] = true
				names[i]["noun:"+t.Noun.One] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var free, linked []string
	for i, d := range doms {
		shares := false
		for j := range doms {
			if j == i {
				continue
			}
			for n := range names[i] {
				if names[j][n] {
					shares = true
				}
			}
		}
		if shares {
			linked = append(linked, d)
		} else {
			free = append(free, d)
		}
	}
	r := newRand(seed, "v2/held-out")
	order := append(shuffled(r, free), shuffled(r, linked)...)
	out := append([]string(nil), order[:HeldOutDomains]...)
	sort.Strings(out)
	return out, nil
}

// tierQuotas spreads total questions over n databases, tier by tier at
// BIRD's 60/30/10, rotating remainders so database totals differ by at
// most one or two (as v1's plan does).
func tierQuotas(total, n int) [][numTiers]int {
	out := make([][numTiers]int, n)
	if n == 0 {
		return out
	}
	var tierTotal [numTiers]int
	left := total
	for t := Simple; t < Challenging; t++ {
		tierTotal[t] = int(math.Round(float64(total) * tierShare[t]))
		left -= tierTotal[t]
	}
	tierTotal[Challenging] = left
	offset := 0
	for t := Simple; t < numTiers; t++ {
		for i := range out {
			out[i][t] = tierTotal[t] / n
			if ((i-offset)%n+n)%n < tierTotal[t]%n {
				out[i][t]++
			}
		}
		offset += tierTotal[t] % n
	}
	return out
}

// planV2 lays out every split's instances. Train and the in-domain dev
// splits number their instances on from each other (train 1..k, dev_id
// k+1.., dev_compositional after), so every db_id is unique across splits.
func planV2(p V2Preset, seed uint64, heldOut []string) map[string][]*v2Inst {
	held := map[string]bool{}
	for _, d := range heldOut {
		held[d] = true
	}
	var trainDoms []string
	for _, d := range schemagen.Domains() {
		if !held[d] {
			trainDoms = append(trainDoms, d)
		}
	}
	capDoms := func(ds []string, n int) []string {
		if n > 0 && n < len(ds) {
			return ds[:n]
		}
		return ds
	}
	out := map[string][]*v2Inst{}
	add := func(split string, doms []string, s V2Split, first int, ask func(n int) int) {
		var insts []*v2Inst
		for _, d := range doms {
			for k := first; k < first+s.PerDomain; k++ {
				insts = append(insts, &v2Inst{split: split, domain: d, id: fmt.Sprintf("%s_%d", d, k), designSeed: designSeed(seed, k)})
			}
		}
		for i, q := range tierQuotas(s.Questions, len(insts)) {
			insts[i].quota = q
			insts[i].ask = ask(q[0] + q[1] + q[2])
		}
		out[split] = insts
	}
	// Oversampling: train keeps a few spare candidates per database to
	// fill each tier's quota exactly. The dev filters run inside sqlgen
	// (runV2Inst), so a dev split's candidates have passed them; dev and
	// dev_id ask for two per question and dev_compositional, whose
	// candidates lean to computed shapes, four, so that allocate finds
	// each tier's features in BIRD's proportions (on v2-tiny's few
	// databases 1.5 per question left moderate CASE and challenging CAST
	// short).
	add(SplitTrain, capDoms(trainDoms, p.Train.Domains), p.Train, 1, func(n int) int { return n + n/5 + 4 })
	add(SplitDev, capDoms(heldOut, p.Dev.Domains), p.Dev, 1, func(n int) int { return 2*n + 4 })
	k := p.Train.PerDomain + 1
	add(SplitDevID, capDoms(trainDoms, p.DevID.Domains), p.DevID, k, func(n int) int { return 2*n + 4 })
	k += p.DevID.PerDomain
	add(SplitDevCompositional, capDoms(trainDoms, p.DevComp.Domains), p.DevComp, k, func(n int) int { return 4 * n })
	// The sealed test split: dev's size on new databases of the held-out
	// domains, numbered on from dev's (their own designs and, through
	// their db_ids, their own question streams).
	add(SplitTest, capDoms(heldOut, p.Dev.Domains), p.Dev, p.Dev.PerDomain+1, func(n int) int { return 2*n + 4 })
	return out
}

// normWording is the key of the wording filter: lower case, spaces
// collapsed (the rule benchstats' overlap uses).
func normWording(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }

// generateV2 is Generate for the v2 presets.
func generateV2(ctx context.Context, opts Options, p V2Preset) (*Summary, error) {
	start := time.Now()
	tmp, workers, done, err := stage(opts)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() { done(keep) }()

	heldOut, err := chooseHeldOut(ctx, opts.Seed, workers)
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	plan := planV2(p, opts.Seed, heldOut)
	splits := append(slices.Clone(V2Splits), SplitTest)
	total := 0
	for _, s := range splits {
		total += len(plan[s])
	}
	pr := &v2Progress{w: opts.Progress, total: total, start: start}
	// Train first: the dev splits are filtered against its wordings and
	// skeletons.
	if err := runV2(ctx, tmp, opts.Seed, plan[SplitTrain], nil, workers, pr); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	allocate(plan[SplitTrain], nil)
	seen := &trainSeen{wordings: map[string]bool{}, skeletons: map[string]bool{}}
	for _, inst := range plan[SplitTrain] {
		for _, q := range inst.qs {
			seen.wordings[normWording(q.Question)] = true
			seen.skeletons[q.Skeleton] = true
		}
	}
	var devs []*v2Inst
	for _, s := range splits[1:] {
		devs = append(devs, plan[s]...)
	}
	if err := runV2(ctx, tmp, opts.Seed, devs, seen, workers, pr); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	for _, s := range splits[1:] {
		allocate(plan[s], &sqlgen.BIRDMix)
	}

	sum := &Summary{Out: opts.Out, Preset: p.Name, Seed: opts.Seed, HeldOut: heldOut, Dropped: map[string]*DropStats{}}
	for _, s := range splits {
		ss, err := writeV2Split(tmp, s, plan[s])
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
		}
		sum.Splits = append(sum.Splits, ss)
		d := &DropStats{}
		for _, inst := range plan[s] {
			d.Wording += inst.drop.Wording
			d.Skeleton += inst.drop.Skeleton
			d.Short += inst.drop.Short
		}
		sum.Dropped[s] = d
	}
	if err := writeV2Notes(tmp, sum, plan); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	n := 0
	for _, s := range sum.Splits {
		n += s.Questions
	}
	progress(opts.Progress, "bench: checking %d gold queries", n)
	if err := VerifyV2(ctx, tmp, workers); err != nil {
		return nil, fmt.Errorf("generate %s: refusing to write a broken benchmark: %w", opts.Out, err)
	}
	if err := replaceDir(tmp, opts.Out, opts.Force); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	keep = true
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// trainSeen holds what dev questions are filtered against.
type trainSeen struct{ wordings, skeletons map[string]bool }

type v2Progress struct {
	mu          sync.Mutex
	w           io.Writer
	done, total int
	questions   int
	start       time.Time
}

func (p *v2Progress) finished(inst *v2Inst) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.questions += len(inst.cands)
	progress(p.w, "bench: [%d/%d] %-28s %6d rows %4d candidates  (%d candidates, %.1fs)",
		p.done, p.total, inst.split+"/"+inst.id, inst.rows, len(inst.cands), p.questions, time.Since(p.start).Seconds())
}

// runV2 builds and asks every instance on workers goroutines; results land
// in the instances, so worker order changes nothing in the output.
func runV2(ctx context.Context, root string, seed uint64, insts []*v2Inst, seen *trainSeen, workers int, pr *v2Progress) error {
	return parallel.For(ctx, len(insts), workers, func(ctx context.Context, i int) error {
		inst := insts[i]
		if err := runV2Inst(ctx, root, seed, inst, seen); err != nil {
			return err
		}
		pr.finished(inst)
		return nil
	})
}

// runV2Inst designs and writes one database and asks sqlgen for inst.ask
// questions that pass the split's filters (seen: a dev split), the
// candidates allocate picks from.
func runV2Inst(ctx context.Context, root string, seed uint64, inst *v2Inst, seen *trainSeen) error {
	db, err := schemagen.Design(inst.domain, inst.designSeed)
	if err != nil {
		return fmt.Errorf("design %s/%s: %w", inst.split, inst.id, err)
	}
	db.ID = inst.id
	dbRoot := filepath.Join(root, inst.split+"_databases")
	if err := schemagen.Write(ctx, db, filepath.Join(dbRoot, db.ID)); err != nil {
		return fmt.Errorf("%s: %w", inst.split, err)
	}
	for _, t := range db.Tables {
		inst.rows += int64(len(t.Rows))
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: dbRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}, MaxConnsPerDB: 1})
	defer eng.Close()
	o := sqlgen.Options{Seed: seed, N: inst.ask}
	if seen != nil {
		// The dev filters run before sqlgen runs a gold: a dropped
		// question costs its composition only, and sqlgen composes on
		// until inst.ask have passed.
		o.Skip = func(question, skeleton string) bool {
			if seen.wordings[normWording(question)] {
				inst.drop.Wording++
				return true
			}
			if inst.split == SplitDevCompositional && seen.skeletons[skeleton] {
				inst.drop.Skeleton++
				return true
			}
			return false
		}
	}
	if inst.split == SplitDevCompositional {
		// Nine in ten composed questions have a train skeleton (on
		// v2-full 49 in 50 simple ones): compose longer per question
		// kept, so that every tier keeps its quota.
		o.MaxTries = 120
	}
	qs, err := sqlgen.Generate(ctx, db, eng, o)
	if err != nil {
		return fmt.Errorf("%s: %w", inst.split, err)
	}
	for _, t := range db.Tables {
		t.Rows = nil // in the file now; hundreds of designs' rows add up
	}
	for _, q := range qs {
		if tierOf(q.Difficulty) >= 0 {
			inst.cands = append(inst.cands, q)
		}
	}
	inst.db = db
	return nil
}

// Features allocate balances: the ones issue 11 compares with BIRD per
// tier (sqlgen.FeatureMix).
const (
	featJoin = iota
	featSubquery
	featCase
	featCast
	featArithmetic
	numFeats
)

// feats says which of the balanced features a gold has.
type feats [numFeats]bool

// goldFeats reads a gold's features with sqlparse.Analyze, as `bench
// stats` does (it also counts IIF as CASE; sqlgen writes none). sqlgen
// keeps only golds that parse, so an error leaves a plain gold.
func goldFeats(sql string) feats {
	sh, err := sqlparse.Analyze(sql)
	if err != nil {
		return feats{}
	}
	return feats{sh.Joins > 0, sh.Subqueries > 0, sh.Case > 0, sh.Cast > 0, sh.Arithmetic > 0}
}

// mixShares is m as an array indexed like feats.
func mixShares(m sqlgen.FeatureMix) [numFeats]float64 {
	return [numFeats]float64{m.Join, m.Subquery, m.Case, m.Cast, m.Arithmetic}
}

// mixPicker chooses a tier's questions so that its feature shares follow
// a target: the skeleton filter leaves dev_compositional candidates rich in
// the rarer computed shapes (CASE, CAST, arithmetic), and small dev splits
// drift from the mix by chance; picking by feature keeps each tier's
// shares at BIRD's however the candidates lean.
type mixPicker struct {
	share  [numFeats]float64
	budget [numFeats]int // features wanted among the tier's target questions
	target int
	n      int           // questions picked so far
	have   [numFeats]int // of them, with each feature
}

func newMixPicker(m sqlgen.FeatureMix, target int) *mixPicker {
	p := &mixPicker{share: mixShares(m), target: target}
	for f, s := range p.share {
		p.budget[f] = int(math.Round(s * float64(target)))
	}
	return p
}

// fits reports whether picking x keeps every feature's count, and every
// count of questions without it, within the tier's target.
func (p *mixPicker) fits(x feats) bool {
	for f, yes := range x {
		if yes && p.have[f]+1 > p.budget[f] || !yes && p.n-p.have[f]+1 > p.target-p.budget[f] {
			return false
		}
	}
	return true
}

// cost is how far the counts would be from the target shares after
// picking x: the sum over features of the squared distance between the
// count and share * questions.
func (p *mixPicker) cost(x feats) float64 {
	c := 0.0
	for f, yes := range x {
		d := float64(p.have[f]) - p.share[f]*float64(p.n+1)
		if yes {
			d++
		}
		c += d * d
	}
	return c
}

func (p *mixPicker) add(x feats) {
	p.n++
	for f, yes := range x {
		if yes {
			p.have[f]++
		}
	}
}

// allocate picks each split's questions from its instances' candidates,
// keeping BIRD's tier mix at the split level: a tier's quota is filled
// round-robin over the databases, one question per database in turn, first
// up to each database's own quota, then from other databases' spare
// candidates of that tier. When a tier cannot be filled at all
// (dev_compositional's simple tier runs short on a large train: most
// simple skeletons are in train), every tier shrinks by the same factor,
// so the split is smaller but keeps the mix. Questions keep sqlgen's order
// within a database.
//
// With a mix (the dev splits, sqlgen.BIRDMix), each tier's features are
// held to it too: the next question is the candidate, over all databases,
// that brings the tier's feature counts closest to the mix (on a tie, from
// the database with fewest questions taken, then sqlgen's order), first
// only among candidates that keep every feature, and its absence, within
// the tier's budget (rounded share x target), up to each database's own
// quota and then from spares. Only then, rather than leave a quota
// unfilled, does the closest candidate go in whatever its features.
// Without a mix (train), databases give their candidates round-robin in
// sqlgen's order.
func allocate(insts []*v2Inst, mix *[numTiers]sqlgen.FeatureMix) {
	if len(insts) == 0 {
		return
	}
	byTier := make([][numTiers][]int, len(insts))
	var fs [][]feats
	var need, avail [numTiers]int
	for i, inst := range insts {
		for k, q := range inst.cands {
			t := tierOf(q.Difficulty)
			byTier[i][t] = append(byTier[i][t], k)
			avail[t]++
		}
		for t := range need {
			need[t] += inst.quota[t]
		}
		if mix != nil {
			f := make([]feats, len(inst.cands))
			for k, q := range inst.cands {
				f[k] = goldFeats(q.SQL)
			}
			fs = append(fs, f)
		}
	}
	scale := 1.0
	for t := range need {
		if need[t] > 0 && avail[t] < need[t] {
			scale = min(scale, float64(avail[t])/float64(need[t]))
		}
	}
	take := make([]map[int]bool, len(insts))
	for i := range take {
		take[i] = map[int]bool{}
	}
	for t := Simple; t < numTiers; t++ {
		target := int(float64(need[t]) * scale)
		var p *mixPicker
		if mix != nil {
			p = newMixPicker(mix[t], target)
		}
		got := 0
		used := make([]int, len(insts)) // questions taken from each database
		takeOne := func(i, k int) {
			take[i][k] = true
			if p != nil {
				p.add(fs[i][k])
			}
			used[i]++
			got++
		}
		if p == nil {
			// Round-robin: own quota first, then spares.
			next := make([]int, len(insts))
			for _, spares := range []bool{false, true} {
				for progress := true; progress && got < target; {
					progress = false
					for i, inst := range insts {
						if got == target {
							break
						}
						if next[i] >= len(byTier[i][t]) || (!spares && used[i] >= inst.quota[t]) {
							continue
						}
						takeOne(i, byTier[i][t][next[i]])
						next[i]++
						progress = true
					}
				}
			}
		} else {
			// Closest to the mix over all databases, the database with
			// fewest questions taken on a tie; own quotas first, then
			// spares; candidates that fit the budgets first.
			type phase struct{ strict, spares bool }
			for _, ph := range []phase{{true, false}, {true, true}, {false, false}, {false, true}} {
				for got < target {
					bi, bk, bc := -1, -1, 0.0
					for i, inst := range insts {
						if !ph.spares && used[i] >= inst.quota[t] {
							continue
						}
						for _, k := range byTier[i][t] {
							if take[i][k] || ph.strict && !p.fits(fs[i][k]) {
								continue
							}
							if c := p.cost(fs[i][k]); bi < 0 || c < bc || c == bc && used[i] < used[bi] {
								bi, bk, bc = i, k, c
							}
						}
					}
					if bi < 0 {
						break
					}
					takeOne(bi, bk)
				}
			}
		}
		insts[0].drop.Short += need[t] - got
	}
	for i, inst := range insts {
		inst.qs = nil
		for k, q := range inst.cands {
			if take[i][k] {
				inst.qs = append(inst.qs, q)
			}
		}
		inst.cands = nil
	}
}

func tierOf(name string) Tier {
	for t := Simple; t < numTiers; t++ {
		if t.String() == name {
			return t
		}
	}
	return -1
}

// v2Entry describes a schemagen database for <split>_tables.json, with
// BIRD's readable names taken from the design's phrases.
func v2Entry(db *schemagen.DB) (*dataset.TablesEntry, error) {
	e := &dataset.TablesEntry{
		DBID:            db.ID,
		ColumnNamesOrig: [][2]any{{-1, "*"}},
		ColumnNames:     [][2]any{{-1, "*"}},
		ColumnTypes:     []string{"text"},
		PrimaryKeys:     []any{},
		ForeignKeys:     [][2]int{},
	}
	index := map[string]int{}
	for ti, t := range db.Tables {
		e.TableNamesOrig = append(e.TableNamesOrig, t.Name)
		e.TableNames = append(e.TableNames, t.Noun.One)
		for _, c := range t.Columns {
			index[t.Name+"."+c.Name] = len(e.ColumnNamesOrig)
			e.ColumnNamesOrig = append(e.ColumnNamesOrig, [2]any{ti, c.Name})
			e.ColumnNames = append(e.ColumnNames, [2]any{ti, c.Phrase})
			typ := strings.ToLower(c.Type)
			if typ == "" {
				typ = "text"
			}
			e.ColumnTypes = append(e.ColumnTypes, typ)
		}
	}
	for _, t := range db.Tables {
		var pk []int
		for _, p := range t.PK {
			i, ok := index[t.Name+"."+p]
			if !ok {
				return nil, fmt.Errorf("%s: table %s: unknown primary key column %s", db.ID, t.Name, p)
			}
			pk = append(pk, i)
		}
		if len(pk) == 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk[0])
		} else if len(pk) > 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk)
		}
		for _, fk := range t.FKs {
			from, ok1 := index[t.Name+"."+fk.Column]
			to, ok2 := index[fk.RefTable+"."+fk.RefColumn]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s: table %s: foreign key %s -> %s.%s: unknown column", db.ID, t.Name, fk.Column, fk.RefTable, fk.RefColumn)
			}
			e.ForeignKeys = append(e.ForeignKeys, [2]int{from, to})
		}
	}
	return e, nil
}

// writeV2Split writes <split>.json, <split>_tables.json and
// <split>_gold.sql; question ids run from 0 in database order.
func writeV2Split(dir, split string, insts []*v2Inst) (SplitSummary, error) {
	ss := SplitSummary{Name: split}
	recs := []dataset.Record{}
	entries := []*dataset.TablesEntry{}
	for _, inst := range insts {
		e, err := v2Entry(inst.db)
		if err != nil {
			return ss, err
		}
		entries = append(entries, e)
		ds := DBSummary{ID: inst.id, Domain: inst.domain, Tables: len(inst.db.Tables), Rows: inst.rows}
		for _, q := range inst.qs {
			if strings.ContainsAny(q.SQL, "\t\n\r") || strings.ContainsAny(q.Question, "\t\n\r") {
				return ss, fmt.Errorf("%s: tab or newline in question or SQL: %q", inst.id, q.Question)
			}
			t := tierOf(q.Difficulty)
			recs = append(recs, dataset.Record{QuestionID: len(recs), DBID: inst.id, Question: q.Question, Evidence: q.Evidence, SQL: q.SQL, Difficulty: q.Difficulty})
			ds.ByTier[t]++
			ss.ByTier[t]++
		}
		ss.Rows += inst.rows
		ss.DBs = append(ss.DBs, ds)
	}
	ss.Questions = len(recs)
	return ss, dataset.WriteSplit(dir, split, recs, entries)
}
