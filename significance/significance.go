// Package significance says whether one model's execution accuracy beats
// another's by more than chance, for claims that must survive a sceptical
// reader: the paired difference of two systems scored on the same
// questions, pooled over training seeds; a paired bootstrap interval of it
// that resamples questions (every seed of a question together, so that a
// question that flips in every seed counts once per draw, not once per
// seed); McNemar's exact test per seed and on the pooled discordant pairs;
// and Holm's step-down correction across a study's comparisons.
//
// Everything is deterministic: the bootstrap draws from a generator seeded
// by the caller, so a report rebuilt from the same evaluations prints the
// same interval.
package significance

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// McNemar is McNemar's test of two systems scored on the same questions,
// in its exact form: wins are the questions only the first gets right,
// losses those only the second does, and under the null hypothesis (both
// equally good) each of the wins+losses discordant questions goes either
// way with probability 1/2. It returns the two-sided p-value, twice the
// smaller binomial tail, capped at 1: statsmodels' mcnemar(exact=True) and
// scipy's binomtest(min(wins, losses), wins+losses, 0.5). The exact form is
// used at every count (it is valid at any size and cheap in logs), so a
// p-value never changes with the switch to an approximation.
func McNemar(wins, losses int) float64 {
	n := wins + losses
	if n <= 0 || wins < 0 || losses < 0 {
		return 1
	}
	k := min(wins, losses)
	// P(X <= k) for X ~ Binomial(n, 1/2), term by term in logs so that
	// large n stays finite.
	lc, tail := 0.0, 0.0 // log C(n, i)
	for i := 0; i <= k; i++ {
		if i > 0 {
			lc += math.Log(float64(n-i+1)) - math.Log(float64(i))
		}
		tail += math.Exp(lc - float64(n)*math.Ln2)
	}
	return min(1, 2*tail)
}

// Holm adjusts p-values for the number of tests made together (Holm's
// step-down procedure, R's p.adjust(p, "holm"), statsmodels'
// multipletests(method="holm")): sorted ascending, the i-th smallest
// (from 1) of m becomes max over j <= i of min(1, (m-j+1) p_(j)). An
// adjusted p below alpha rejects at family-wise error rate alpha,
// whatever the tests' dependence. The result is in p's order.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	out := make([]float64, m)
	run := 0.0
	for j, i := range order {
		run = max(run, min(1, float64(m-j)*p[i]))
		out[i] = run
	}
	return out
}

// Seed is one training seed's paired outcomes: Treatment[q] and
// Control[q] say whether each system answered question q correctly, the
// same questions in the same order on both sides (and in every seed).
type Seed struct {
	Seed               uint64
	Treatment, Control []bool
}

// SeedTest is McNemar's test on one seed.
type SeedTest struct {
	Seed uint64 `json:"seed"`
	// Wins: questions only the treatment answered; Losses: only the
	// control.
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	P      float64 `json:"p"`
}

// Comparison is a treatment against a control, pooled over seeds.
type Comparison struct {
	Questions int `json:"questions"`
	Seeds     int `json:"seeds"`
	// Treatment and Control are the mean EX over seeds in points (0-100);
	// Diff is Treatment - Control, the mean per-question difference.
	Treatment float64 `json:"treatment_ex"`
	Control   float64 `json:"control_ex"`
	Diff      float64 `json:"diff"`
	// Low and High bound the paired bootstrap interval of Diff at Level
	// (percentile method), from Resamples draws of the questions.
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Level     float64 `json:"level"`
	Resamples int     `json:"resamples"`
	// Wins and Losses are the discordant (question, seed) pairs summed
	// over seeds, and P McNemar's test on them; PerSeed tests each seed
	// alone.
	Wins    int        `json:"wins"`
	Losses  int        `json:"losses"`
	P       float64    `json:"p"`
	PerSeed []SeedTest `json:"per_seed"`
	// PHolm is P adjusted across the comparisons of a study (Adjust);
	// equal to P until then.
	PHolm float64 `json:"p_holm"`
}

// Options configure Compare's bootstrap.
type Options struct {
	// Resamples is the number of bootstrap draws (default 10,000).
	Resamples int
	// Level is the interval's coverage (default 0.95).
	Level float64
	// Seed seeds the draws: the same seed and outcomes give the same
	// interval.
	Seed uint64
}

// DefaultResamples is Options.Resamples' default.
const DefaultResamples = 10_000

// Compare pools the paired outcomes of seeds into a Comparison. Every
// seed must score the same number of questions on both sides.
func Compare(seeds []Seed, o Options) (Comparison, error) {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Level == 0 {
		o.Level = 0.95
	}
	if o.Resamples < 1 || !(o.Level > 0 && o.Level < 1) {
		return Comparison{}, fmt.Errorf("significance: %d resamples at level %v: want 1 or more, and a level in (0, 1)", o.Resamples, o.Level)
	}
	if len(seeds) == 0 {
		return Comparison{}, errors.New("significance: no seed to compare")
	}
	n := len(seeds[0].Treatment)
	if n == 0 {
		return Comparison{}, errors.New("significance: no question to compare")
	}
	c := Comparison{Questions: n, Seeds: len(seeds), Level: o.Level, Resamples: o.Resamples}
	// d[q] is the question's difference summed over seeds, in -S..S.
	d := make([]int32, n)
	var right [2]int
	for _, s := range seeds {
		if len(s.Treatment) != n || len(s.Control) != n {
			return Comparison{}, fmt.Errorf("significance: seed %d has %d treatment and %d control outcomes, want %d each (the same questions in every seed)", s.Seed, len(s.Treatment), len(s.Control), n)
		}
		st := SeedTest{Seed: s.Seed}
		for q := range n {
			t, k := s.Treatment[q], s.Control[q]
			switch {
			case t && !k:
				st.Wins++
				d[q]++
			case k && !t:
				st.Losses++
				d[q]--
			}
			if t {
				right[0]++
			}
			if k {
				right[1]++
			}
		}
		st.P = McNemar(st.Wins, st.Losses)
		c.Wins += st.Wins
		c.Losses += st.Losses
		c.PerSeed = append(c.PerSeed, st)
	}
	pairs := float64(n * len(seeds))
	c.Treatment, c.Control = 100*float64(right[0])/pairs, 100*float64(right[1])/pairs
	c.Diff = 100 * float64(c.Wins-c.Losses) / pairs
	c.P = McNemar(c.Wins, c.Losses)
	c.PHolm = c.P
	c.Low, c.High = bootstrap(d, len(seeds), o)
	return c, nil
}

// bootstrap is the percentile interval of the mean of d (per-question
// sums over seeds of the difference), in points: each draw takes len(d)
// questions with replacement.
func bootstrap(d []int32, seeds int, o Options) (lo, hi float64) {
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed5))
	n := len(d)
	sums := make([]float64, o.Resamples)
	scale := 100 / float64(n*seeds)
	for b := range sums {
		var s int64
		for range n {
			s += int64(d[r.IntN(n)])
		}
		sums[b] = float64(s) * scale
	}
	slices.Sort(sums)
	a := (1 - o.Level) / 2
	return quantile(sums, a), quantile(sums, 1-a)
}

// quantile is the q-quantile of sorted xs with linear interpolation
// between order statistics (numpy's default, which scipy's percentile
// bootstrap uses).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	h := q * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}

// Adjust sets each comparison's PHolm: Holm's correction of their P
// across cs, the comparisons a study makes together.
func Adjust(cs []*Comparison) {
	p := make([]float64, len(cs))
	for i, c := range cs {
		p[i] = c.P
	}
	for i, a := range Holm(p) {
		cs[i].PHolm = a
	}
}

// WriteText prints c in a few lines: the EX of both sides, the
// difference with its interval, the discordant pairs with McNemar's test
// pooled and per seed.
func (c Comparison) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "paired over %d seed(s) x %d questions: EX %.1f -> %.1f, difference %+.1f points, %.0f%% paired bootstrap interval [%+.1f, %+.1f] (%d resamples)\n"+
		"discordant (question, seed) pairs: %d right only after, %d right only before; McNemar p %.3g\n",
		c.Seeds, c.Questions, c.Control, c.Treatment, c.Diff, 100*c.Level, c.Low, c.High, c.Resamples, c.Wins, c.Losses, c.P)
	if err != nil || len(c.PerSeed) < 2 {
		return err
	}
	for _, s := range c.PerSeed {
		if _, err := fmt.Fprintf(w, "  seed %d: %d right only after, %d only before; McNemar p %.3g\n", s.Seed, s.Wins, s.Losses, s.P); err != nil {
			return err
		}
	}
	return nil
}
