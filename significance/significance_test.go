package significance

import (
	"math"
	"math/rand/v2"
	"testing"
)

// close reports whether got is within rel of want, relative to want's
// size (absolutely for want 0).
func close(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*max(math.Abs(want), 1e-300) || got == want
}

// TestMcNemar checks the exact test against binomial tails computed
// exactly (Python's fractions: 2 * sum C(n, i) / 2^n for i <= min,
// capped at 1), the values scipy.stats.binomtest(k, n, 0.5) and
// statsmodels' mcnemar(exact=True) give.
func TestMcNemar(t *testing.T) {
	for _, c := range []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},
		{1, 0, 1},
		{5, 5, 1},
		{40, 41, 1},
		{0, 5, 0.0625},
		{3, 10, 0.09228515625},
		{10, 3, 0.09228515625},
		{0, 10, 0.001953125},
		{12, 3, 0.03515625},
		{10, 30, 0.0022214337732293643},
		{100, 140, 0.011664092317677663},
		{250, 310, 0.01259047514938026},
	} {
		if got := McNemar(c.wins, c.losses); !close(got, c.want, 1e-9) {
			t.Errorf("McNemar(%d, %d) = %.17g, want %.17g", c.wins, c.losses, got, c.want)
		}
	}
	// Far out in the tail the p-value stays finite and positive.
	if p := McNemar(0, 2000); !(p > 0 && p < 1e-300) && p != 0 {
		t.Errorf("McNemar(0, 2000) = %g", p)
	}
}

// TestHolm checks Holm's adjustment against R's p.adjust(p, "holm")
// (R's example in its documentation's spirit, worked by hand).
func TestHolm(t *testing.T) {
	for _, c := range []struct {
		name    string
		p, want []float64
	}{
		{"none", nil, []float64{}},
		{"one", []float64{0.03}, []float64{0.03}},
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// p.adjust(c(0.50, 0.01, 0.001, 0.69, 0.02, 0.05, 0.0025), "holm")
		{"seven", []float64{0.50, 0.01, 0.001, 0.69, 0.02, 0.05, 0.0025}, []float64{1, 0.05, 0.007, 1, 0.08, 0.15, 0.015}},
		{"ties", []float64{0.02, 0.02, 0.5}, []float64{0.06, 0.06, 0.5}},
		{"capped", []float64{0.4, 0.6}, []float64{0.8, 0.8}},
	} {
		got := Holm(c.p)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d values, want %d", c.name, len(got), len(c.want))
		}
		for i := range got {
			if !close(got[i], c.want[i], 1e-12) {
				t.Errorf("%s: Holm(%v)[%d] = %g, want %g", c.name, c.p, i, got[i], c.want[i])
			}
		}
	}
}

// outcomes makes seeds of n questions where the treatment is right with
// probability pt and the control pc, each question drawn anew per seed.
func outcomes(seeds, n int, pt, pc float64, r *rand.Rand) []Seed {
	var out []Seed
	for s := range seeds {
		x := Seed{Seed: uint64(s + 1), Treatment: make([]bool, n), Control: make([]bool, n)}
		for q := range n {
			x.Treatment[q] = r.Float64() < pt
			x.Control[q] = r.Float64() < pc
		}
		out = append(out, x)
	}
	return out
}

func TestCompare(t *testing.T) {
	t.Run("counts", func(t *testing.T) {
		// Seed 1: q0 win, q1 loss, q2 both right, q3 both wrong; seed 2:
		// q0 and q1 wins.
		s := []Seed{
			{Seed: 1, Treatment: []bool{true, false, true, false}, Control: []bool{false, true, true, false}},
			{Seed: 2, Treatment: []bool{true, true, false, false}, Control: []bool{false, false, false, false}},
		}
		c, err := Compare(s, Options{Resamples: 200, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.Wins != 3 || c.Losses != 1 || c.Questions != 4 || c.Seeds != 2 {
			t.Errorf("wins %d losses %d questions %d seeds %d, want 3 1 4 2", c.Wins, c.Losses, c.Questions, c.Seeds)
		}
		if !close(c.Treatment, 50, 1e-12) || !close(c.Control, 25, 1e-12) || !close(c.Diff, 25, 1e-12) {
			t.Errorf("EX %g vs %g, diff %g; want 50 vs 25, 25", c.Treatment, c.Control, c.Diff)
		}
		if c.P != McNemar(3, 1) || c.PerSeed[0].P != McNemar(1, 1) || c.PerSeed[1].Wins != 2 {
			t.Errorf("p %g, per seed %+v", c.P, c.PerSeed)
		}
		if !(c.Low <= c.Diff && c.Diff <= c.High) {
			t.Errorf("interval [%g, %g] does not hold the difference %g", c.Low, c.High, c.Diff)
		}
	})
	t.Run("no spread", func(t *testing.T) {
		s := []Seed{{Seed: 1, Treatment: []bool{true, true, true}, Control: []bool{false, false, false}}}
		c, err := Compare(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Diff != 100 || c.Low != 100 || c.High != 100 || c.Resamples != DefaultResamples || c.Level != 0.95 {
			t.Errorf("%+v: want 100 [100, 100] at the defaults", c)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		s := outcomes(5, 200, 0.6, 0.55, rand.New(rand.NewPCG(1, 2)))
		a, _ := Compare(s, Options{Seed: 7})
		b, _ := Compare(s, Options{Seed: 7})
		c, _ := Compare(s, Options{Seed: 8})
		if a.Low != b.Low || a.High != b.High {
			t.Errorf("same seed, intervals [%g, %g] and [%g, %g]", a.Low, a.High, b.Low, b.High)
		}
		if a.Low == c.Low && a.High == c.High {
			t.Errorf("seeds 7 and 8 drew the same interval [%g, %g]", a.Low, a.High)
		}
	})
	t.Run("normal width", func(t *testing.T) {
		// With many questions the bootstrap distribution of a mean is
		// close to normal: the interval's half-width is about z(0.975)
		// times the standard error of the mean of the per-question
		// differences.
		s := outcomes(5, 500, 0.62, 0.57, rand.New(rand.NewPCG(3, 4)))
		c, err := Compare(s, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := float64(c.Questions)
		d := make([]float64, c.Questions)
		var mean float64
		for _, x := range s {
			for q := range d {
				if x.Treatment[q] != x.Control[q] {
					if x.Treatment[q] {
						d[q] += 100 / float64(len(s))
					} else {
						d[q] -= 100 / float64(len(s))
					}
				}
			}
		}
		for _, v := range d {
			mean += v / n
		}
		var ss float64
		for _, v := range d {
			ss += (v - mean) * (v - mean)
		}
		se := math.Sqrt(ss/n) / math.Sqrt(n) // the bootstrap's plug-in standard error
		if !close(mean, c.Diff, 1e-9) {
			t.Errorf("mean per-question difference %g, Compare's %g", mean, c.Diff)
		}
		half := (c.High - c.Low) / 2
		if want := 1.959964 * se; !close(half, want, 0.05) {
			t.Errorf("half-width %g, want about %g (1.96 standard errors)", half, want)
		}
		if mid := (c.High + c.Low) / 2; math.Abs(mid-c.Diff) > 0.1*half {
			t.Errorf("interval [%g, %g] is not centred on %g", c.Low, c.High, c.Diff)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			seeds []Seed
			o     Options
		}{
			{"no seed", nil, Options{}},
			{"no question", []Seed{{Seed: 1}}, Options{}},
			{"uneven", []Seed{{Seed: 1, Treatment: []bool{true}, Control: []bool{true}}, {Seed: 2, Treatment: []bool{true, false}, Control: []bool{true, true}}}, Options{}},
			{"level", []Seed{{Seed: 1, Treatment: []bool{true}, Control: []bool{true}}}, Options{Level: 1.5}},
		} {
			if _, err := Compare(c.seeds, c.o); err == nil {
				t.Errorf("%s: no error", c.name)
			}
		}
	})
}

func TestAdjust(t *testing.T) {
	cs := []*Comparison{{P: 0.01}, {P: 0.04}, {P: 0.03}, {P: 0.005}}
	Adjust(cs)
	for i, want := range []float64{0.03, 0.06, 0.06, 0.02} {
		if !close(cs[i].PHolm, want, 1e-12) {
			t.Errorf("comparison %d: Holm p %g, want %g", i, cs[i].PHolm, want)
		}
	}
}

// BenchmarkCompare is a study's statistics for one comparison at the size
// the protocol asks for: 500 questions x 5 seeds, 10,000 resamples.
func BenchmarkCompare(b *testing.B) {
	s := outcomes(5, 500, 0.62, 0.57, rand.New(rand.NewPCG(5, 6)))
	for b.Loop() {
		if _, err := Compare(s, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
