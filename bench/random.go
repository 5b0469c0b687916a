package bench

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// newRand returns a PCG generator for one purpose of one run. Every random
// choice the generator makes comes from a stream named by seed and a label
// ("train/retail/1/data"), so databases can be built in any order, on any
// number of cores, and still come out byte-identical.
func newRand(seed uint64, label string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(label))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// pick returns a uniformly chosen element of xs; xs must not be empty.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// shuffled returns a shuffled copy of xs.
func shuffled[T any](r *rand.Rand, xs []T) []T {
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// subset returns k distinct elements of xs in random order.
func subset[T any](r *rand.Rand, xs []T, k int) []T {
	out := shuffled(r, xs)
	if k < len(out) {
		out = out[:k]
	}
	return out
}

// weighted draws indexes with skewed (Zipf-like) weights. Real data is
// skewed, and skew is what makes "which city has the most customers" have a
// single answer.
type weighted struct {
	cum []float64
}

// newWeighted gives item i weight 1/(i+1)^s.
func newWeighted(n int, s float64) *weighted {
	w := &weighted{cum: make([]float64, n)}
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		w.cum[i] = total
	}
	return w
}

func (w *weighted) draw(r *rand.Rand) int {
	x := r.Float64() * w.cum[len(w.cum)-1]
	lo, hi := 0, len(w.cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if w.cum[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// skewed draws from xs, in an order shuffled once per database instance so
// that instances differ in which values are common.
type skewed[T any] struct {
	xs []T
	w  *weighted
}

func newSkewed[T any](r *rand.Rand, xs []T, s float64) *skewed[T] {
	return &skewed[T]{xs: shuffled(r, xs), w: newWeighted(len(xs), s)}
}

func (s *skewed[T]) draw(r *rand.Rand) T { return s.xs[s.w.draw(r)] }

// day is a calendar date at midnight UTC.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// dateBetween returns a date in [from, to].
func dateBetween(r *rand.Rand, from, to time.Time) time.Time {
	days := int(to.Sub(from).Hours() / 24)
	return from.AddDate(0, 0, r.IntN(days+1))
}

// fmtDate formats a date the way BIRD's databases store them.
func fmtDate(t time.Time) string { return t.Format("2006-01-02") }

// fmtDateTime formats a timestamp to the minute.
func fmtDateTime(t time.Time) string { return t.Format("2006-01-02 15:04") }

// cents rounds to two decimals, as money is stored.
func cents(x float64) float64 { return math.Round(x*100) / 100 }

// uniform returns a float in [lo, hi).
func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }

// normal returns a normally distributed float clamped to [lo, hi].
func normal(r *rand.Rand, mean, sd, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, mean+sd*r.NormFloat64()))
}

// nice rounds x to a number a person would write in a question: two
// significant digits, the second one 0 or 5 for larger numbers.
func nice(x float64) float64 {
	if x <= 0 {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(x)))
	if x < 10 {
		return math.Round(x)
	}
	step := mag / 2
	return math.Round(x/step) * step
}

// num formats a number for question text without a trailing ".0".
func num(x float64) string {
	if x == math.Trunc(x) {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// dollars formats an amount for question text: "$1,250", "$49.99".
func dollars(x float64) string {
	whole := int64(x)
	s := strconv.FormatInt(whole, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac := x - float64(whole); frac > 0.0001 {
		return "$" + b.String() + strconv.FormatFloat(frac, 'f', 2, 64)[1:]
	}
	return "$" + b.String()
}

// monthName returns "March 2023" for "2023-03".
func monthName(ym string) string {
	t, err := time.Parse("2006-01", ym)
	if err != nil {
		return ym
	}
	return t.Format("January 2006")
}

// longDate returns "March 5, 2023" for "2023-03-05".
func longDate(ymd string) string {
	t, err := time.Parse("2006-01-02", ymd)
	if err != nil {
		return ymd
	}
	return t.Format("January 2, 2006")
}

// person is a generated person's name and gender.
type person struct {
	first, last, gender string
}

// newPerson draws a person from the shared name pools.
func newPerson(r *rand.Rand, lastNames *skewed[string]) person {
	p := person{last: lastNames.draw(r)}
	if r.IntN(2) == 0 {
		p.first, p.gender = pick(r, femaleNames), "F"
	} else {
		p.first, p.gender = pick(r, maleNames), "M"
	}
	return p
}

// emailFor builds an address from a name, unique by id.
func emailFor(p person, id int, domain string) string {
	clean := func(s string) string {
		return strings.ToLower(strings.NewReplacer("'", "", " ", "", "-", "").Replace(s))
	}
	return clean(p.first) + "." + clean(p.last) + strconv.Itoa(id) + "@" + domain
}

// pow is math.Pow, short for price formulas.
func pow(x, y float64) float64 { return math.Pow(x, y) }

// seq returns 0..n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// parseDay parses a date written by fmtDate; generated dates always parse.
func parseDay(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return day(2020, 1, 1)
	}
	return t
}

// pickWeighted returns an index drawn with the given relative weights.
func pickWeighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	x := r.Float64() * total
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// itoa formats an int for question text.
func itoa(n int) string { return strconv.Itoa(n) }
