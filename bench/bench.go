// Package bench generates sqlrl's bundled Text2SQL benchmark: SQLite
// databases in six domains (retail, school, hospital, flights, HR, library)
// and questions with gold SQL in BIRD's three difficulty tiers, written in
// BIRD's layout so that every tool reading BIRD reads it too.
//
// The benchmark exists so that training and evaluation can run anywhere,
// offline, on data with a known licence, at any size. It is deterministic:
// the same preset and seed give byte-identical files, so a result can name
// its benchmark by (preset, seed). Dev questions run on database instances
// train never sees, with renamed tables and columns and different rows, so a
// model must read the schema in its prompt rather than recall train's.
//
// The generator checks its own output before writing it: every gold query
// executes read-only and returns an informative result, top-1 questions have
// no ties, tiers are balanced like BIRD dev, question text is unique per
// database, and dev shares no database or table name with train.
//
// Every benchmark has a sealed split, test (dataset.SplitTest): dev's size
// and kind, on databases of its own, for a claim's final evaluation only
// (docs/results.md "Protocol"). Its instances draw from streams of their
// own, so train and dev are byte for byte what they were before it.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Preset sizes a benchmark. Presets are named so that a result can cite
// "bench small, seed 1" and anyone can rebuild the same files.
type Preset struct {
	Name string
	// TrainPerDomain and DevPerDomain are database instances per domain.
	TrainPerDomain, DevPerDomain int
	// TrainQuestions and DevQuestions are the target question counts.
	TrainQuestions, DevQuestions int
	// Scale multiplies every table's row count.
	Scale float64
}

var presets = []Preset{
	{Name: "small", TrainPerDomain: 3, DevPerDomain: 1, TrainQuestions: 3000, DevQuestions: 500, Scale: 1},
	{Name: "full", TrainPerDomain: 6, DevPerDomain: 2, TrainQuestions: 20000, DevQuestions: 1500, Scale: 1},
	// tiny is for tests: every domain and family, a few seconds to build.
	{Name: "tiny", TrainPerDomain: 1, DevPerDomain: 1, TrainQuestions: 300, DevQuestions: 150, Scale: 0.25},
}

// PresetNames lists the presets meant for users; "tiny" exists for tests.
func PresetNames() []string { return []string{"small", "full"} }

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// ErrExists is returned when the output directory exists and Force is not
// set: a benchmark that results cite must not be replaced by accident.
var ErrExists = errors.New("output directory exists (use --force to replace it)")

// Options configure Generate.
type Options struct {
	Preset string
	Seed   uint64
	// Out is the output directory; it is written whole or not at all.
	Out string
	// Force replaces an existing Out.
	Force bool
	// Progress, when set, receives one line per finished database.
	Progress io.Writer
	// Workers bounds parallelism; 0 means GOMAXPROCS.
	Workers int
}

// Summary describes a generated benchmark, so callers can report what was
// written without reading it back.
type Summary struct {
	Out     string
	Preset  string
	Seed    uint64
	Splits  []SplitSummary
	Elapsed time.Duration
	// Families counts candidates per question family, over all databases.
	Families map[string]*FamilyStats
	// HeldOut names v2's held-out (dev) domains; Dropped counts, per v2
	// split, the candidates its filters left out. Both are empty for v1.
	HeldOut []string
	Dropped map[string]*DropStats
}

// SplitSummary counts one split, for the CLI report and the README.
type SplitSummary struct {
	Name      string
	Questions int
	ByTier    [3]int
	Rows      int64
	DBs       []DBSummary
}

// DBSummary counts one database, so per-domain balance can be reported.
type DBSummary struct {
	ID, Domain string
	Tables     int
	Rows       int64
	ByTier     [3]int
}

// domain is one subject area: a logical schema, a data generator and the
// question families asked about it.
type domain struct {
	name    string // train database prefix, e.g. "retail"
	devName string // dev database prefix, e.g. "storefront"
	title   string // for the README
	tables  []table
	// populate inserts the rows of one instance; counts go through b.count
	// so presets can scale them.
	populate func(b *builder, r *rand.Rand)
	families []family
}

// domains returns every domain, in output order.
func domains() []*domain {
	return []*domain{retailDomain(), schoolDomain(), hospitalDomain(), flightsDomain(), hrDomain(), libraryDomain()}
}

// instance is one database of one split.
type instance struct {
	id    string
	split string
	dom   *domain
	dev   bool
	names names
	path  string
	seed  uint64
	label string
	quota [numTiers]int

	// results
	drafts []draft
	rows   int64
	stats  map[string]*FamilyStats
}

// plan lays out the instances of one split and their question quotas.
// Dev and the sealed test split are alike (renamed databases train never
// sees, dev's size); test's databases are numbered on from dev's, so that
// no db_id is in two splits, and, like every instance, draw from streams
// named by their split, so that test leaves train's and dev's bytes as
// they were before it existed.
func plan(p Preset, seed uint64, split, root string, doms []*domain) []*instance {
	per, total, first := p.TrainPerDomain, p.TrainQuestions, 1
	dev := split != "train"
	switch split {
	case "dev":
		per, total = p.DevPerDomain, p.DevQuestions
	case SplitTest:
		per, total, first = p.DevPerDomain, p.DevQuestions, p.DevPerDomain+1
	}
	var out []*instance
	for _, d := range doms {
		for i := first; i < first+per; i++ {
			prefix := d.name
			if dev {
				prefix = d.devName
			}
			id := fmt.Sprintf("%s_%d", prefix, i)
			out = append(out, &instance{
				id: id, split: split, dom: d, dev: dev,
				names: newNames(d.tables, dev),
				path:  filepath.Join(root, split+"_databases", id, id+".sqlite"),
				seed:  seed, label: fmt.Sprintf("%s/%s/%d", split, d.name, i),
			})
		}
	}
	// Split the total into tiers, then spread each tier over databases;
	// the remainders rotate so database totals differ by at most one or two.
	var tierTotal [numTiers]int
	left := total
	for t := Simple; t < Challenging; t++ {
		tierTotal[t] = int(math.Round(float64(total) * tierShare[t]))
		left -= tierTotal[t]
	}
	tierTotal[Challenging] = left
	n := len(out)
	offset := 0
	for t := Simple; t < numTiers; t++ {
		for i, inst := range out {
			inst.quota[t] = tierTotal[t] / n
			if (i-offset+n)%n < tierTotal[t]%n {
				inst.quota[t]++
			}
		}
		offset += tierTotal[t] % n
	}
	return out
}

// stage checks opts and makes the staging directory a benchmark is written
// into (a hidden sibling of opts.Out) before it is verified and moved into
// place; done(keep) removes it unless keep (and the parent it created, if
// empty). It is the one start of both generators, so that neither leaves a
// half-written benchmark behind.
func stage(opts Options) (tmp string, workers int, done func(keep bool), err error) {
	if opts.Out == "" {
		return "", 0, nil, errors.New("generate: no output directory")
	}
	if _, err := os.Stat(opts.Out); err == nil && !opts.Force {
		return "", 0, nil, fmt.Errorf("generate %s: %w", opts.Out, ErrExists)
	}
	workers = opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parent := filepath.Dir(filepath.Clean(opts.Out))
	_, statErr := os.Stat(parent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", 0, nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	tmp, err = os.MkdirTemp(parent, "."+filepath.Base(opts.Out)+".tmp-")
	if err != nil {
		return "", 0, nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	return tmp, workers, func(keep bool) {
		if !keep {
			os.RemoveAll(tmp)
			if statErr != nil {
				os.Remove(parent) // only if we created it and it is empty
			}
		}
	}, nil
}

// Generate builds the benchmark described by opts into opts.Out. Everything
// is written to a temporary sibling directory, verified with Verify, and only
// then renamed into place, so an interrupted or refused run leaves the old
// output (or nothing) behind, never a half-written benchmark that a later
// evaluation would silently score against.
func Generate(ctx context.Context, opts Options) (*Summary, error) {
	if p2, ok := LookupV2Preset(opts.Preset); ok {
		return generateV2(ctx, opts, p2)
	}
	start := time.Now()
	p, ok := LookupPreset(opts.Preset)
	if !ok {
		return nil, fmt.Errorf("generate: unknown preset %q (want small, full, v2-small or v2-full)", opts.Preset)
	}
	tmp, workers, done, err := stage(opts)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() { done(keep) }()

	doms := domains()
	splits := []string{"train", "dev", SplitTest}
	bySplit := map[string][]*instance{}
	var all []*instance
	for _, s := range splits {
		bySplit[s] = plan(p, opts.Seed, s, tmp, doms)
		all = append(all, bySplit[s]...)
	}
	if err := runInstances(ctx, all, p.Scale, workers, opts.Progress, start); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}

	sum := &Summary{Out: opts.Out, Preset: p.Name, Seed: opts.Seed, Families: map[string]*FamilyStats{}}
	for _, s := range splits {
		ss, err := writeSplit(tmp, s, bySplit[s])
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
		}
		sum.Splits = append(sum.Splits, ss)
	}
	for _, inst := range all {
		for name, st := range inst.stats {
			t := sum.Families[name]
			if t == nil {
				t = &FamilyStats{}
				sum.Families[name] = t
			}
			t.Tries += st.Tries
			t.Accepted += st.Accepted
			t.Skipped += st.Skipped
			t.Duplicate += st.Duplicate
		}
	}
	if err := writeNotes(tmp, sum, doms); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	n := 0
	for _, s := range sum.Splits {
		n += s.Questions
	}
	progress(opts.Progress, "bench: checking %d gold queries", n)
	if err := Verify(ctx, tmp, workers); err != nil {
		return nil, fmt.Errorf("generate %s: refusing to write a broken benchmark: %w", opts.Out, err)
	}
	if err := replaceDir(tmp, opts.Out, opts.Force); err != nil {
		return nil, fmt.Errorf("generate %s: %w", opts.Out, err)
	}
	keep = true
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// runInstances builds every database and generates its questions, on
// workers goroutines. Each instance draws from its own random streams, so
// the order in which workers finish changes nothing in the output.
func runInstances(ctx context.Context, all []*instance, scale float64, workers int, w io.Writer, start time.Time) error {
	var mu sync.Mutex
	done, questions := 0, 0
	return parallel.For(ctx, len(all), workers, func(ctx context.Context, i int) error {
		inst := all[i]
		if err := runInstance(ctx, inst, scale); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		questions += len(inst.drafts)
		progress(w, "bench: [%d/%d] %-16s %6d rows %4d questions  (%d questions, %.1fs)",
			done, len(all), inst.split+"/"+inst.id, inst.rows, len(inst.drafts), questions, time.Since(start).Seconds())
		return nil
	})
}

// runInstance builds one database and asks its questions. Each instance
// gets its own engine, closed when it is done, so open connections stay
// bounded by the number of workers rather than growing with the preset.
func runInstance(ctx context.Context, inst *instance, scale float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rows, err := buildDatabase(inst, scale)
	if err != nil {
		return err
	}
	inst.rows = rows
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Dir(filepath.Dir(inst.path)), Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}, MaxConnsPerDB: 1})
	defer eng.Close()
	a := &asker{ctx: ctx, eng: eng, inst: inst, cache: map[string][][]sqlexec.Value{}, stats: map[string]*FamilyStats{}}
	drafts, err := a.run(newRand(inst.seed, inst.label+"/questions"))
	if err != nil {
		return fmt.Errorf("generate %s: %w", inst.id, err)
	}
	inst.drafts, inst.stats = drafts, a.stats
	return nil
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// replaceDir moves the finished tmp into place. With force, an existing out
// is first moved aside and removed only once the new one is in place, so a
// failure at any point leaves either the old benchmark or the new one.
func replaceDir(tmp, out string, force bool) error {
	if _, err := os.Stat(out); err == nil {
		if !force {
			return ErrExists
		}
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Rename(old, out)
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, out)
}
