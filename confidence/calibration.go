package confidence

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Outcome is one judged answer of a benchmark question and its verdict
// against the gold (execution accuracy).
type Outcome struct {
	QuestionID int    `json:"question_id"`
	DB         string `json:"db"`
	Difficulty string `json:"difficulty,omitempty"`
	// Level is the judgement the server gave.
	Level Level `json:"level"`
	// Correct: the answer's result equals the gold's (EX); Class is the
	// evaluator's class (correct, wrong_result, syntax_error, ...).
	Correct bool    `json:"correct"`
	Class   string  `json:"class"`
	SQL     string  `json:"sql,omitempty"`
	Signals Signals `json:"signals"`
}

// LevelRow is one level's line of a calibration: how many answers it got,
// their share of all answers, how many of them were right (Accuracy: its
// precision), and the share of all right answers it holds (Coverage).
type LevelRow struct {
	Level    Level   `json:"level"`
	Label    string  `json:"label"`
	Count    int     `json:"count"`
	Share    float64 `json:"share"`
	Right    int     `json:"right"`
	Accuracy float64 `json:"accuracy"`
	Coverage float64 `json:"coverage"`
}

// Bin is a group of answers that share a signal's value, and how many of
// them were right.
type Bin struct {
	Name     string  `json:"name"`
	Count    int     `json:"count"`
	Right    int     `json:"right"`
	Accuracy float64 `json:"accuracy"`
}

// Calibration is how well judgements match the verdicts on a set of
// answers.
type Calibration struct {
	Answers int        `json:"answers"`
	Right   int        `json:"right"`
	EX      float64    `json:"ex"`
	Levels  []LevelRow `json:"levels"`
	// Reliability groups the answers by how many samples agreed with them:
	// the accuracy should rise with agreement.
	Reliability []Bin `json:"reliability"`
	// Signals groups them by the other signals, each answer in the first
	// group that fits it.
	Signals []Bin `json:"signals"`
	// Target is the precision "likely right" should reach, with at least
	// MinCoverage of the right answers; Met says whether both hold.
	Target      float64 `json:"target"`
	MinCoverage float64 `json:"min_coverage"`
	Met         bool    `json:"met"`
}

// Measure computes the calibration of the judgements levelOf gives.
func Measure(outs []Outcome, levelOf func(Outcome) Level, target, minCoverage float64) Calibration {
	c := Calibration{Answers: len(outs), Target: target, MinCoverage: minCoverage}
	rows := map[Level]*LevelRow{}
	for _, l := range Levels {
		rows[l] = &LevelRow{Level: l, Label: l.Label()}
	}
	rel := map[string]*Bin{}
	var relOrder []string
	sig := map[string]*Bin{}
	sigOrder := []string{"error", "value in no column", "empty result", "all NULL", "single 0", "none of these"}
	for _, name := range sigOrder {
		sig[name] = &Bin{Name: name}
	}
	count := func(b *Bin, right bool) {
		b.Count++
		if right {
			b.Right++
		}
	}
	for _, o := range outs {
		if o.Correct {
			c.Right++
		}
		if r := rows[levelOf(o)]; r != nil {
			r.Count++
			if o.Correct {
				r.Right++
			}
		}
		s := o.Signals
		name := "no samples"
		if s.ErrorClass != "" {
			name = "error (no result)"
		} else if s.Samples > 0 {
			name = fmt.Sprintf("%d of %d agree", s.Agree, s.Samples)
		}
		if rel[name] == nil {
			rel[name] = &Bin{Name: name}
			relOrder = append(relOrder, name)
		}
		count(rel[name], o.Correct)
		switch {
		case s.ErrorClass != "":
			count(sig["error"], o.Correct)
		case len(s.Unknown()) > 0:
			count(sig["value in no column"], o.Correct)
		case s.Rows == 0:
			count(sig["empty result"], o.Correct)
		case s.AllNull:
			count(sig["all NULL"], o.Correct)
		case s.SingleZero:
			count(sig["single 0"], o.Correct)
		default:
			count(sig["none of these"], o.Correct)
		}
	}
	c.EX = ratio(c.Right, c.Answers)
	for _, l := range Levels {
		r := rows[l]
		r.Share, r.Accuracy, r.Coverage = ratio(r.Count, c.Answers), ratio(r.Right, r.Count), ratio(r.Right, c.Right)
		c.Levels = append(c.Levels, *r)
	}
	slices.SortFunc(relOrder, func(a, b string) int { return relKey(rel[a]) - relKey(rel[b]) })
	for _, name := range relOrder {
		b := rel[name]
		b.Accuracy = ratio(b.Right, b.Count)
		c.Reliability = append(c.Reliability, *b)
	}
	for _, name := range sigOrder {
		b := sig[name]
		b.Accuracy = ratio(b.Right, b.Count)
		c.Signals = append(c.Signals, *b)
	}
	right := c.Levels[0]
	c.Met = right.Count > 0 && right.Accuracy >= target && right.Coverage >= minCoverage
	return c
}

// relKey orders reliability bins: errors, no samples, then by agreement.
func relKey(b *Bin) int {
	var agree, of int
	if _, err := fmt.Sscanf(b.Name, "%d of %d agree", &agree, &of); err == nil && of > 0 {
		return 2000 + agree*1000/of
	}
	if strings.HasPrefix(b.Name, "error") {
		return 0
	}
	return 1000
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Tuned is the rule Tune chose and its calibration on the answers it was
// chosen on.
type Tuned struct {
	Rule        Rule        `json:"rule"`
	Calibration Calibration `json:"calibration"`
	// Candidates is the number of rules compared.
	Candidates int `json:"candidates"`
}

// Tune chooses the rule that catches the most right answers as likely
// right and the most wrong ones as likely wrong (the sum of the two
// recalls), among rules whose "likely right" answers are right at least
// target of the time with at least minCoverage of the right answers, and
// whose "likely wrong" ones are wrong at least target of the time. The
// thresholds compared are the agreement shares that occur in outs. ok is
// false when no rule meets the constraints.
func Tune(outs []Outcome, target, minCoverage float64) (t Tuned, ok bool) {
	shares := []float64{0, 1}
	for _, o := range outs {
		if o.Signals.Samples > 0 && !slices.Contains(shares, o.Signals.Share()) {
			shares = append(shares, o.Signals.Share())
		}
	}
	slices.Sort(shares)
	best := -1.0
	for _, right := range shares {
		for _, wrong := range shares {
			if wrong > right {
				continue
			}
			for _, unknown := range []bool{true, false} {
				for _, suspect := range []bool{false, true} {
					r := Rule{RightShare: right, WrongShare: wrong, UnknownWrong: unknown, SuspectWrong: suspect}
					t.Candidates++
					c := Measure(outs, func(o Outcome) Level { return r.Judge(o.Signals).Level }, target, minCoverage)
					lr, lw := c.Levels[0], c.Levels[2]
					wrongAnswers := c.Answers - c.Right
					if !c.Met || lw.Count > 0 && 1-lw.Accuracy < target {
						continue
					}
					score := lr.Coverage + ratio(lw.Count-lw.Right, wrongAnswers)
					if score > best {
						best, t.Rule, t.Calibration, ok = score, r, c, true
					}
				}
			}
		}
	}
	return t, ok
}

// Report is a calibration run: what was run and on what, the calibration
// of the server's judgements, and the answers.
type Report struct {
	Command   string  `json:"command"`
	Commit    string  `json:"commit"`
	CPU       string  `json:"cpu"`
	Kernel    string  `json:"kernel,omitempty"` // the gemm kernel (nn.Kernel)
	Date      string  `json:"date"`
	Model     string  `json:"model"`
	Benchmark string  `json:"benchmark"`
	Split     string  `json:"split"`
	Samples   int     `json:"samples"`
	Temp      float64 `json:"sample_temperature"`
	Rule      Rule    `json:"rule"`
	// Seconds is the run's wall time.
	Seconds     float64     `json:"seconds"`
	Calibration Calibration `json:"calibration"`
	// ByDifficulty is the calibration within each difficulty level.
	ByDifficulty map[string]Calibration `json:"by_difficulty,omitempty"`
	Difficulties []string               `json:"difficulties,omitempty"`
	// Tuned is the rule chosen on these answers, when asked for.
	Tuned   *Tuned    `json:"tuned,omitempty"`
	Answers []Outcome `json:"answers"`
}

// WriteMarkdown writes the report for people: the levels, the target,
// the reliability and signal tables, and the tuned rule.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	c := r.Calibration
	fmt.Fprintf(&b, "# Confidence calibration: %s, %s\n\n", r.Benchmark, r.Split)
	fmt.Fprintf(&b, "Every question of the split asked through `sqlrl serve`'s ask path; each answer's judgement compared with its verdict against the gold (BIRD EX).\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| command | `%s` |\n| commit | %s |\n| CPU | %s |\n| kernel | %s |\n| date | %s |\n", r.Command, r.Commit, r.CPU, r.Kernel, r.Date)
	fmt.Fprintf(&b, "| model | %s |\n| samples | %d at temperature %g |\n", r.Model, r.Samples, r.Temp)
	fmt.Fprintf(&b, "| rule | %s |\n", r.Rule.Describe(r.Samples))
	fmt.Fprintf(&b, "| answers | %d, %d right (EX %.1f%%) |\n| wall time | %.0f s |\n\n", c.Answers, c.Right, 100*c.EX, r.Seconds)
	writeLevels(&b, c)
	verdict := "met"
	if !c.Met {
		verdict = "**not met**"
	}
	lr := c.Levels[0]
	fmt.Fprintf(&b, "\nTarget (likely right is right at least %s of the time and holds at least %s of the right answers): %s (%.1f%%, %.1f%%).\n",
		pct(c.Target), pct(c.MinCoverage), verdict, 100*lr.Accuracy, 100*lr.Coverage)
	if len(r.Difficulties) > 0 {
		fmt.Fprintf(&b, "\n## By difficulty\n\n| difficulty | answers | EX | likely right | its accuracy | its coverage | likely wrong | its accuracy |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, d := range r.Difficulties {
			dc := r.ByDifficulty[d]
			fmt.Fprintf(&b, "| %s | %d | %.1f%% | %d | %.1f%% | %.1f%% | %d | %.1f%% |\n", d, dc.Answers, 100*dc.EX,
				dc.Levels[0].Count, 100*dc.Levels[0].Accuracy, 100*dc.Levels[0].Coverage, dc.Levels[2].Count, 100*dc.Levels[2].Accuracy)
		}
	}
	fmt.Fprintf(&b, "\n## Reliability: accuracy by samples agreeing with the answer\n\n")
	writeBins(&b, c.Reliability)
	fmt.Fprintf(&b, "\n## Accuracy by the other signals (each answer in the first row that fits)\n\n")
	writeBins(&b, c.Signals)
	if t := r.Tuned; t != nil {
		fmt.Fprintf(&b, "\n## Rule tuned on this split\n\n")
		fmt.Fprintf(&b, "Of %d rules, the one with the most right answers marked likely right plus wrong answers marked likely wrong, among those whose marks are right at least %s of the time here: %s (`%+v`).\n\n",
			t.Candidates, pct(t.Calibration.Target), t.Rule.Describe(r.Samples), t.Rule)
		writeLevels(&b, t.Calibration)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLevels(b *strings.Builder, c Calibration) {
	fmt.Fprintf(b, "| level | answers | share of answers | right | accuracy (precision) | coverage of right answers |\n|---|---:|---:|---:|---:|---:|\n")
	for _, l := range c.Levels {
		fmt.Fprintf(b, "| %s | %d | %.1f%% | %d | %.1f%% | %.1f%% |\n", l.Label, l.Count, 100*l.Share, l.Right, 100*l.Accuracy, 100*l.Coverage)
	}
}

func writeBins(b *strings.Builder, bins []Bin) {
	fmt.Fprintf(b, "| answers with | count | right | accuracy |\n|---|---:|---:|---:|\n")
	for _, x := range bins {
		fmt.Fprintf(b, "| %s | %d | %d | %.1f%% |\n", x.Name, x.Count, x.Right, 100*x.Accuracy)
	}
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// Describe says the rule in words, its shares as counts of k samples
// where they are whole ("6 of 8").
func (r Rule) Describe(k int) string {
	share := func(f float64) string {
		if n := f * float64(k); k > 0 && n == math.Trunc(n) {
			return fmt.Sprintf("%d of %d samples", int(n), k)
		}
		return pct(f) + " of the samples"
	}
	var wrong []string
	wrong = append(wrong, "an error")
	if r.UnknownWrong {
		wrong = append(wrong, "a value in no column")
	}
	if r.SuspectWrong {
		wrong = append(wrong, "an empty, all-NULL or single-0 result")
	}
	if r.WrongShare > 0 {
		wrong = append(wrong, "fewer than "+share(r.WrongShare)+" agreeing")
	}
	return fmt.Sprintf("likely right: at least %s agree and no warning; likely wrong: %s; else not sure",
		share(r.RightShare), strings.Join(wrong, ", "))
}
