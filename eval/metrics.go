// Package eval scores Text2SQL predictions exactly as the published
// evaluators do, and fast.
//
// Each metric is a pure function of two results, named as its source names
// it, so the reward server, the training loop and `sqlrl eval` all call the
// same code: a reward of 1 means EX = 1.
//
//   - BIRD EX (BIRD's evaluation.py): set(pred_rows) == set(gold_rows).
//   - Spider execution match (test-suite-sql-eval's result_eq): bags of rows,
//     lists when the gold has ORDER BY, any column permutation.
//   - Soft-F1 (BIRD mini-dev's evaluation_f1.py).
//   - VES and R-VES (BIRD's evaluation_ves.py, mini-dev).
//   - pass@K (unbiased estimator) and oracle over candidate lists.
//
// Values compare as the Python objects Python's sqlite3 module returns (see
// sqlexec.Value.Equal), because agreement with the official scripts on every
// question is the point.
//
// Scorer executes a prediction and its gold and applies the metric (the
// rewards score through it too); Run scores a set of predictions with a
// Scorer into a Report, whose settings are Options; Config is an
// evaluation as `sqlrl eval` runs it (files, engine, Scorer and Run
// settings), which Evaluate loads and runs; Compare diffs two Reports.
package eval

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/significance"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// rowKey encodes a row so that two rows have the same key exactly when the
// Python tuples are equal.
func rowKey(buf []byte, row []sqlexec.Value) []byte {
	buf = buf[:0]
	for _, v := range row {
		buf = v.AppendKey(buf)
	}
	return buf
}

// rowSet is the set of a result's rows.
func rowSet(rows [][]sqlexec.Value) map[string]struct{} {
	set := make(map[string]struct{}, len(rows))
	var buf []byte
	for _, r := range rows {
		buf = rowKey(buf, r)
		set[string(buf)] = struct{}{}
	}
	return set
}

// BIRDPairTimeout is the time BIRD's evaluation.py gives one prediction and
// its gold together (func_timeout(meta_time_out=30.0) around both queries).
// Every scorer and reward that must agree with BIRD's verdicts uses it, so a
// slow gold is scored the same way by sqlrl eval, the reward server and
// training.
const BIRDPairTimeout = 30 * time.Second

// BirdEX is BIRD's execution accuracy for one pair of results:
// set(pred) == set(gold). Row order and duplicates do not matter; column
// order and count do.
func BirdEX(pred, gold [][]sqlexec.Value) bool {
	ps, gs := rowSet(pred), rowSet(gold)
	if len(ps) != len(gs) {
		return false
	}
	for k := range ps {
		if _, ok := gs[k]; !ok {
			return false
		}
	}
	return true
}

// SpiderMatch is the Spider test-suite evaluator's result_eq(gold, pred,
// order_matters): the results are equal if some permutation of pred's
// columns makes them equal as bags of rows (as lists when orderMatters).
func SpiderMatch(gold, pred [][]sqlexec.Value, orderMatters bool) bool {
	if len(gold) == 0 && len(pred) == 0 {
		return true
	}
	if len(gold) != len(pred) {
		return false
	}
	ncol := len(gold[0])
	if len(pred[0]) != ncol {
		return false
	}
	if !spiderQuickAccept(gold, pred, orderMatters) {
		return false
	}
	// Column j of gold may come from column c of pred only if every value of
	// pred's column c occurs in gold's column j. The official code samples 20
	// rows to prune; pruning on all rows keeps exactly the permutations that
	// can succeed, so the verdict is the same and deterministic.
	goldCols := make([]map[string]struct{}, ncol)
	var buf []byte
	for j := range ncol {
		goldCols[j] = map[string]struct{}{}
		for _, r := range gold {
			buf = r[j].AppendKey(buf[:0])
			goldCols[j][string(buf)] = struct{}{}
		}
	}
	allowed := make([][]int, ncol)
	for j := range ncol {
		for c := range ncol {
			ok := true
			for _, r := range pred {
				buf = r[c].AppendKey(buf[:0])
				if _, in := goldCols[j][string(buf)]; !in {
					ok = false
					break
				}
			}
			if ok {
				allowed[j] = append(allowed[j], c)
			}
		}
		if len(allowed[j]) == 0 {
			return false
		}
	}
	var goldKeys []string
	var goldBag map[string]int
	if orderMatters {
		goldKeys = make([]string, len(gold))
		for i, r := range gold {
			goldKeys[i] = string(rowKey(buf, r))
		}
	} else {
		goldBag = make(map[string]int, len(gold))
		for _, r := range gold {
			goldBag[string(rowKey(buf, r))]++
		}
	}
	perm := make([]int, ncol)
	used := make([]bool, ncol)
	permuted := make([]sqlexec.Value, ncol)
	check := func() bool {
		if orderMatters {
			for i, r := range pred {
				for j, c := range perm {
					permuted[j] = r[c]
				}
				if string(rowKey(buf, permuted)) != goldKeys[i] {
					return false
				}
			}
			return true
		}
		bag := make(map[string]int, len(goldBag))
		for _, r := range pred {
			for j, c := range perm {
				permuted[j] = r[c]
			}
			k := string(rowKey(buf, permuted))
			bag[k]++
			if bag[k] > goldBag[k] {
				return false
			}
		}
		return true // same length and no count exceeded: equal bags
	}
	var search func(j int) bool
	search = func(j int) bool {
		if j == ncol {
			return check()
		}
		for _, c := range allowed[j] {
			if used[c] {
				continue
			}
			used[c], perm[j] = true, c
			if search(j + 1) {
				return true
			}
			used[c] = false
		}
		return false
	}
	return search(0)
}

// spiderQuickAccept is the official quick_rej: each row's values sorted by
// str(x) + str(type(x)), then compared as lists (order matters) or sets. It
// can reject results that a column permutation would make equal (the sort
// key distinguishes 1 from 1.0 while == does not); the official verdict
// includes that quirk, so sqlrl does too.
func spiderQuickAccept(gold, pred [][]sqlexec.Value, orderMatters bool) bool {
	unorder := func(rows [][]sqlexec.Value) []string {
		out := make([]string, len(rows))
		type item struct {
			key string
			v   sqlexec.Value
		}
		var buf []byte
		for i, r := range rows {
			items := make([]item, len(r))
			for k, v := range r {
				items[k] = item{pyStr(v) + pyTypeName(v), v}
			}
			sort.SliceStable(items, func(a, b int) bool { return items[a].key < items[b].key })
			buf = buf[:0]
			for _, it := range items {
				buf = it.v.AppendKey(buf)
			}
			out[i] = string(buf)
		}
		return out
	}
	s1, s2 := unorder(gold), unorder(pred)
	if orderMatters {
		for i := range s1 {
			if s1[i] != s2[i] {
				return false
			}
		}
		return true
	}
	set1 := make(map[string]struct{}, len(s1))
	for _, k := range s1 {
		set1[k] = struct{}{}
	}
	set2 := make(map[string]struct{}, len(s2))
	for _, k := range s2 {
		if _, ok := set1[k]; !ok {
			return false
		}
		set2[k] = struct{}{}
	}
	return len(set1) == len(set2)
}

// pyTypeName is str(type(x)) for the Python object sqlite3 returns.
func pyTypeName(v sqlexec.Value) string {
	switch v.Kind {
	case sqlexec.KindInt:
		return "<class 'int'>"
	case sqlexec.KindFloat:
		return "<class 'float'>"
	case sqlexec.KindText:
		return "<class 'str'>"
	case sqlexec.KindBlob:
		return "<class 'bytes'>"
	}
	return "<class 'NoneType'>"
}

// pyStr is Python's str(x) for the object sqlite3 returns.
func pyStr(v sqlexec.Value) string {
	switch v.Kind {
	case sqlexec.KindInt:
		return strconv.FormatInt(v.I, 10)
	case sqlexec.KindFloat:
		return PyFloatRepr(v.F)
	case sqlexec.KindText:
		return v.S
	case sqlexec.KindBlob:
		return pyBytesRepr(v.S)
	}
	return "None"
}

// PyFloatRepr formats f as Python's repr(float) does: the shortest digits
// that round-trip, positional when the decimal exponent is in [-4, 16),
// scientific otherwise, with ".0" on integral positional values.
func PyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	sign := ""
	if math.Signbit(f) {
		sign = "-"
		f = -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // value = 0.digits * 10^decpt
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			return sign + "0." + strings.Repeat("0", -decpt) + digits
		case decpt >= len(digits):
			return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		default:
			return sign + digits[:decpt] + "." + digits[decpt:]
		}
	}
	out := digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es = "-"
		exp = -exp
	}
	x := strconv.Itoa(exp)
	if len(x) < 2 {
		x = "0" + x
	}
	return sign + out + "e" + es + x
}

// pyBytesRepr is Python's repr(bytes).
func pyBytesRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(quote)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// SoftF1 is BIRD mini-dev's soft F1 of pred against gold: rows deduplicated
// in order, paired by position, values of each pred row found in the gold
// row counted as matches, normalised by the gold row's width; extra rows
// count fully as false positives or negatives.
func SoftF1(pred, gold [][]sqlexec.Value) float64 {
	if len(pred) == 0 && len(gold) == 0 {
		return 1
	}
	pred, gold = dedupRows(pred), dedupRows(gold)
	var tp, fp, fn float64
	for i, g := range gold {
		if i >= len(pred) {
			fn++
			continue
		}
		p := pred[i]
		width := float64(len(g))
		var match, predOnly, goldOnly float64
		for _, pv := range p {
			if containsValue(g, pv) {
				match++
			} else {
				predOnly++
			}
		}
		for _, gv := range g {
			if !containsValue(p, gv) {
				goldOnly++
			}
		}
		tp += match / width
		fp += predOnly / width
		fn += goldOnly / width
	}
	if extra := len(pred) - len(gold); extra > 0 {
		fp += float64(extra)
	}
	var precision, recall float64
	if tp+fp > 0 {
		precision = tp / (tp + fp)
	}
	if tp+fn > 0 {
		recall = tp / (tp + fn)
	}
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

func containsValue(row []sqlexec.Value, v sqlexec.Value) bool {
	for _, w := range row {
		if w.Equal(v) {
			return true
		}
	}
	return false
}

func dedupRows(rows [][]sqlexec.Value) [][]sqlexec.Value {
	seen := make(map[string]struct{}, len(rows))
	out := make([][]sqlexec.Value, 0, len(rows))
	var buf []byte
	for _, r := range rows {
		buf = rowKey(buf, r)
		if _, ok := seen[string(buf)]; ok {
			continue
		}
		seen[string(buf)] = struct{}{}
		out = append(out, r)
	}
	return out
}

// VESRatio is BIRD's time ratio for one EX-correct pair: the mean of
// gold_time/pred_time over repeated runs, after dropping runs outside
// mean ± 3 standard deviations (population std, as numpy computes it).
func VESRatio(goldTimes, predTimes []float64) float64 {
	n := min(len(goldTimes), len(predTimes))
	if n == 0 {
		return 0
	}
	ratios := make([]float64, 0, n)
	for i := range n {
		if predTimes[i] <= 0 {
			continue
		}
		ratios = append(ratios, goldTimes[i]/predTimes[i])
	}
	var mean, sq float64
	for _, r := range ratios {
		mean += r
	}
	mean /= float64(len(ratios))
	for _, r := range ratios {
		sq += (r - mean) * (r - mean)
	}
	std := math.Sqrt(sq / float64(len(ratios)))
	var sum float64
	var kept int
	for _, r := range ratios {
		if r < mean+3*std && r > mean-3*std {
			sum += r
			kept++
		}
	}
	if kept == 0 {
		// All runs identical makes std 0 and the strict bounds drop
		// everything; BIRD's script would divide by zero. Use the mean.
		return mean
	}
	return sum / float64(kept)
}

// VES is BIRD's valid efficiency score over per-question time ratios (0 for
// EX-incorrect questions): 100/N * sum(sqrt(ratio)).
func VES(ratios []float64) float64 {
	if len(ratios) == 0 {
		return 0
	}
	var s float64
	for _, r := range ratios {
		s += math.Sqrt(r)
	}
	return 100 * s / float64(len(ratios))
}

// RVESReward maps a time ratio to BIRD mini-dev's reward: 1.25 if ratio >= 2,
// 1 in [1, 2), 0.75 in [0.5, 1), 0.5 in [0.25, 0.5), 0.25 below, 0 for an
// incorrect answer (ratio 0).
func RVESReward(ratio float64) float64 {
	switch {
	case ratio <= 0:
		return 0
	case ratio >= 2:
		return 1.25
	case ratio >= 1:
		return 1
	case ratio >= 0.5:
		return 0.75
	case ratio >= 0.25:
		return 0.5
	}
	return 0.25
}

// RVES is mini-dev's reward-based VES: 100/N * sum(sqrt(reward(ratio))).
func RVES(ratios []float64) float64 {
	if len(ratios) == 0 {
		return 0
	}
	var s float64
	for _, r := range ratios {
		s += math.Sqrt(RVESReward(r))
	}
	return 100 * s / float64(len(ratios))
}

// PassAtK is the unbiased estimator of pass@k from n samples of which c are
// correct (Chen et al. 2021): 1 - C(n-c, k) / C(n, k).
func PassAtK(n, c, k int) float64 {
	if k <= 0 || n <= 0 {
		return 0
	}
	if k > n {
		k = n
	}
	if n-c < k {
		return 1
	}
	// Product form avoids huge binomials.
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// SignTest is the two-sided exact sign test (McNemar's exact test) of two
// systems scored on the same questions: wins are the questions only the
// first gets right, losses those only the second does. It returns the
// probability, were both equally good, of a split at least this uneven:
// the p-value that says whether a gain in EX is more than the luck of
// which questions flipped. It is significance.McNemar, the one home of
// the project's tests.
func SignTest(wins, losses int) float64 { return significance.McNemar(wins, losses) }
