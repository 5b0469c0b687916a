package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The OKTO recipe trains SFT on 75% of BIRD train and keeps the other 25% as
// a holdout for RLHF only: RLHF on questions the SFT model has already seen
// gives almost no signal, since the policy already answers them and the
// rewards saturate. The holdout is then augmented 4x by shuffling the order
// of the tables in the prompt's schema.

// DefaultSFTFraction is the OKTO recipe's share of questions for SFT.
const DefaultSFTFraction = 0.75

// DefaultAugment is the OKTO recipe's augmentation factor: prompts per
// holdout question, the original order included.
const DefaultAugment = 4

// SplitOptions configure Split.
type SplitOptions struct {
	// SFTFraction is the share of questions that go to SFT, in (0, 1);
	// 0 means DefaultSFTFraction.
	SFTFraction float64
	// Seed picks which questions go where; the same seed and questions
	// always give the same split.
	Seed uint64
}

// Stratum is one (database, difficulty) group of a split, with its counts.
type Stratum struct {
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty"`
	Total      int    `json:"total"`
	SFT        int    `json:"sft"`
	Holdout    int    `json:"holdout"`
}

// SplitResult is a split of questions into an SFT part and an RLHF holdout.
// Both keep the questions' order by question_id.
type SplitResult struct {
	SFT     []Example
	Holdout []Example
	// Strata are the groups the split was stratified on, sorted by db_id
	// then difficulty.
	Strata []Stratum
}

// Split divides examples into SFT and holdout parts, stratified by database
// and difficulty, so that both parts see every database and every difficulty
// in the same proportions (a random split of BIRD train leaves small
// databases' challenging questions all on one side).
//
// Counts are exact: the SFT part has round(f*N) questions (f the SFT
// fraction), and each stratum of n questions gives floor(f*n) or ceil(f*n)
// of them to SFT, the extra ones going to the strata with the largest
// remainders (ties broken by a seeded hash of the stratum, so no database is
// favoured). Within a stratum the questions, taken in question_id order, are
// shuffled by a generator seeded with the seed and the stratum, and the first
// ones go to SFT. The result depends on the seed and the set of questions,
// not on their order in the input. Question ids must be unique.
func Split(examples []Example, opts SplitOptions) (*SplitResult, error) {
	f := opts.SFTFraction
	if f == 0 {
		f = DefaultSFTFraction
	}
	if !(f > 0 && f < 1) {
		return nil, fmt.Errorf("split: SFT fraction %v is not between 0 and 1", opts.SFTFraction)
	}
	seen := make(map[int]int, len(examples))
	for i, ex := range examples {
		if j, dup := seen[ex.QuestionID]; dup {
			return nil, fmt.Errorf("split: question_id %d appears twice (records %d and %d): a split by question needs unique ids", ex.QuestionID, examples[j].Index, ex.Index)
		}
		seen[ex.QuestionID] = i
	}

	type group struct {
		key     string
		stratum Stratum
		members []Example
		rem     int64
		tie     uint64
	}
	byKey := map[string]*group{}
	var groups []*group
	for _, ex := range examples {
		key := ex.DBID + "\x00" + ex.Difficulty
		g := byKey[key]
		if g == nil {
			g = &group{key: key, stratum: Stratum{DBID: ex.DBID, Difficulty: ex.Difficulty}}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, ex)
	}
	slices.SortFunc(groups, func(a, b *group) int { return strings.Compare(a.key, b.key) })

	// Quotas in integer arithmetic, the fraction taken to 1e-9, so that
	// rounding never depends on floating point.
	const den = 1_000_000_000
	num := int64(math.Round(f * den))
	total := (num*int64(len(examples)) + den/2) / den
	var assigned int64
	for _, g := range groups {
		n := int64(len(g.members))
		g.stratum.Total = int(n)
		g.stratum.SFT = int(num * n / den)
		g.rem = num * n % den
		g.tie = hash64(opts.Seed, g.key)
		assigned += int64(g.stratum.SFT)
	}
	order := slices.Clone(groups)
	slices.SortStableFunc(order, func(a, b *group) int {
		switch {
		case a.rem != b.rem:
			if a.rem > b.rem {
				return -1
			}
			return 1
		case a.tie != b.tie:
			if a.tie < b.tie {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, g := range order {
		if assigned >= total {
			break
		}
		if g.rem > 0 {
			g.stratum.SFT++
			assigned++
		}
	}

	res := &SplitResult{}
	for _, g := range groups {
		slices.SortFunc(g.members, byQuestionID)
		r := newRNG(hash64(opts.Seed, "split\x00"+g.key))
		r.shuffle(len(g.members), func(i, j int) { g.members[i], g.members[j] = g.members[j], g.members[i] })
		res.SFT = append(res.SFT, g.members[:g.stratum.SFT]...)
		res.Holdout = append(res.Holdout, g.members[g.stratum.SFT:]...)
		g.stratum.Holdout = g.stratum.Total - g.stratum.SFT
		res.Strata = append(res.Strata, g.stratum)
	}
	slices.SortFunc(res.SFT, byQuestionID)
	slices.SortFunc(res.Holdout, byQuestionID)
	return res, nil
}

func byQuestionID(a, b Example) int { return cmp.Compare(a.QuestionID, b.QuestionID) }

// Permutation is one order of a prompt's schema. Tables[k] is the index, in
// the original prompt, of the table block shown k-th. Columns, when set,
// holds for each original table block the order of its columns.
type Permutation struct {
	Tables  []int   `json:"tables"`
	Columns [][]int `json:"columns,omitempty"`
}

// IsIdentity reports whether p leaves the schema as it was.
func (p Permutation) IsIdentity() bool {
	for i, t := range p.Tables {
		if t != i {
			return false
		}
	}
	for _, cols := range p.Columns {
		for i, c := range cols {
			if c != i {
				return false
			}
		}
	}
	return true
}

func (p Permutation) key() string {
	var b strings.Builder
	for _, t := range p.Tables {
		fmt.Fprintf(&b, "%d,", t)
	}
	for _, cols := range p.Columns {
		b.WriteByte('|')
		for _, c := range cols {
			fmt.Fprintf(&b, "%d,", c)
		}
	}
	return b.String()
}

// AugmentOptions configure Augment and Permutations.
type AugmentOptions struct {
	// K is the number of prompts per question, the original order counted
	// as one of them (OKTO's "4x" is K=4: the original and 3 shuffles).
	// 0 means DefaultAugment.
	K int
	// Seed picks the shuffles; each question draws from its own generator
	// seeded with Seed and its question_id.
	Seed uint64
	// ShuffleColumns also shuffles the columns within each table.
	ShuffleColumns bool
}

func (o AugmentOptions) withDefaults() (AugmentOptions, error) {
	if o.K == 0 {
		o.K = DefaultAugment
	}
	if o.K < 1 {
		return o, fmt.Errorf("augment: %d prompts per question; want at least 1", o.K)
	}
	return o, nil
}

// Permutations returns up to K distinct orders for a schema whose table
// blocks have the given numbers of columns: the original order first, then
// K-1 distinct shuffles drawn with a generator seeded by (Seed, key). A
// schema with fewer distinct orders than K (two tables have two) yields all
// of them, original first, and no duplicates.
func Permutations(columns []int, key uint64, opts AugmentOptions) ([]Permutation, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(columns)
	for i, c := range columns {
		if c < 0 {
			return nil, fmt.Errorf("augment: table %d has %d columns", i, c)
		}
	}
	identity := Permutation{Tables: iota(n)}
	sizes := []int{n}
	if opts.ShuffleColumns {
		for _, c := range columns {
			identity.Columns = append(identity.Columns, iota(c))
			sizes = append(sizes, c)
		}
	}
	// Count the distinct orders, capped: past the cap, sampling finds K.
	const enough = 1 << 16
	total := 1
	for _, s := range sizes {
		for f := 2; f <= s && total <= enough; f++ {
			total *= f
		}
	}
	if total <= opts.K {
		return enumerate(sizes, opts.ShuffleColumns), nil
	}
	out := []Permutation{identity}
	seen := map[string]bool{identity.key(): true}
	r := newRNG(hash64(opts.Seed, fmt.Sprintf("augment\x00%d", key)))
	for tries := 0; len(out) < opts.K && tries < 1000*opts.K; tries++ {
		p := Permutation{Tables: iota(n)}
		r.shuffle(n, func(i, j int) { p.Tables[i], p.Tables[j] = p.Tables[j], p.Tables[i] })
		if opts.ShuffleColumns {
			for _, c := range columns {
				cols := iota(c)
				r.shuffle(c, func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
				p.Columns = append(p.Columns, cols)
			}
		}
		if k := p.key(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// enumerate lists every order of a small schema, in lexicographic order
// (the original first). sizes[0] is the number of tables; with columns,
// sizes[1:] are the tables' column counts.
func enumerate(sizes []int, columns bool) []Permutation {
	parts := make([][][]int, len(sizes))
	for i, s := range sizes {
		parts[i] = allPerms(s)
	}
	var out []Permutation
	pick := make([]int, len(sizes))
	for {
		p := Permutation{Tables: slices.Clone(parts[0][pick[0]])}
		if columns {
			p.Columns = [][]int{}
			for i := 1; i < len(sizes); i++ {
				p.Columns = append(p.Columns, slices.Clone(parts[i][pick[i]]))
			}
		}
		out = append(out, p)
		i := len(pick) - 1
		for i >= 0 {
			pick[i]++
			if pick[i] < len(parts[i]) {
				break
			}
			pick[i] = 0
			i--
		}
		if i < 0 {
			return out
		}
	}
}

// allPerms lists the permutations of 0..n-1 in lexicographic order.
func allPerms(n int) [][]int {
	p := iota(n)
	out := [][]int{slices.Clone(p)}
	for {
		i := n - 2
		for i >= 0 && p[i] >= p[i+1] {
			i--
		}
		if i < 0 {
			return out
		}
		j := n - 1
		for p[j] <= p[i] {
			j--
		}
		p[i], p[j] = p[j], p[i]
		slices.Reverse(p[i+1:])
		out = append(out, slices.Clone(p))
	}
}

func iota(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Augmented is one prompt variant of a holdout question: the question and
// its gold SQL unchanged, the schema in the order Permutation gives.
type Augmented struct {
	Example
	// Variant numbers the question's variants from 0, the original order.
	Variant     int
	Permutation Permutation
}

// Augment expands examples into K prompt variants each (see Permutations).
// shape returns the column counts of the table blocks of an example's prompt
// (after any pruning), which only the prompt builder knows.
func Augment(examples []Example, shape func(Example) ([]int, error), opts AugmentOptions) ([]Augmented, error) {
	if shape == nil {
		return nil, errors.New("augment: no shape function")
	}
	var out []Augmented
	for _, ex := range examples {
		cols, err := shape(ex)
		if err != nil {
			return nil, fmt.Errorf("augment question %d (db %s): %w", ex.QuestionID, ex.DBID, err)
		}
		perms, err := Permutations(cols, uint64(int64(ex.QuestionID)), opts)
		if err != nil {
			return nil, fmt.Errorf("augment question %d (db %s): %w", ex.QuestionID, ex.DBID, err)
		}
		for v, p := range perms {
			out = append(out, Augmented{Example: ex, Variant: v, Permutation: p})
		}
	}
	return out, nil
}

// rng is SplitMix64: tiny, fully specified, and the same on every Go
// release, which math/rand's streams do not promise. Splits and
// augmentations must stay reproducible from a seed written in a manifest.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform int in [0, n) (rejection sampling, no modulo bias).
func (r *rng) intn(n int) int {
	bound := uint64(n)
	limit := math.MaxUint64 - math.MaxUint64%bound
	for {
		if v := r.next(); v < limit {
			return int(v % bound)
		}
	}
}

// shuffle is Fisher-Yates.
func (r *rng) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.intn(i+1))
	}
}

// hash64 mixes a seed and a string (FNV-1a, then SplitMix64's finalizer).
func hash64(seed uint64, s string) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	r := rng{s: h}
	return r.next()
}
