package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/sqlparse"
)

// Diff compares two evaluations of the same questions (two models, or one
// model before and after training) question by question. A difference in
// EX is the net of questions that turned right and questions that turned
// wrong; the sign test on those two counts says whether it is more than
// the luck of which questions flipped, and the class transitions and the
// literal checks say what changed.
type Diff struct {
	// Questions is the number of questions both evaluations scored.
	Questions int         `json:"questions"`
	Levels    []DiffLevel `json:"levels"`
	Total     DiffLevel   `json:"total"`
	// Transitions counts the questions whose class changed, as
	// "before -> after" (correct is a class).
	Transitions map[string]int `json:"transitions"`
	// Literals are the checks of the quoted values the predictions
	// compare against columns, where the gold SQL is known.
	Literals *LiteralDiff `json:"literals,omitempty"`
}

// DiffLevel is one difficulty level (or the total) of a Diff.
type DiffLevel struct {
	Level     string  `json:"level"`
	Count     int     `json:"count"`
	BeforeEX  float64 `json:"before_ex"`
	AfterEX   float64 `json:"after_ex"`
	TurnRight int     `json:"turned_right"`
	TurnWrong int     `json:"turned_wrong"`
	// P is the two-sided exact sign test of TurnRight against TurnWrong.
	P float64 `json:"p"`
}

// LiteralDiff counts, before and after, the predictions that compare a
// quoted value with a column (col = 'v', col LIKE 'v'):
//
//   - Misplaced: a value the gold compares too, against another column
//     (the value is linked to the wrong column);
//   - Repeated: a value compared against two or more columns where the
//     gold compares it against one (the value copied into a second,
//     wrong condition).
//
// Both are schema-linking errors of values: on databases whose names the
// model has not learnt, they are how it goes wrong.
type LiteralDiff struct {
	Compared  [2]int `json:"compared"`
	Misplaced [2]int `json:"misplaced"`
	Repeated  [2]int `json:"repeated"`
}

// Compare diffs two reports of the same questions (matched by
// question_id); gold maps question_id to gold SQL for the literal checks
// (nil: none). Levels follow levels' order; a question of another level
// counts in the total only.
func Compare(before, after *Report, levels []string, gold map[int]string) (*Diff, error) {
	if len(before.Questions) == 0 || len(after.Questions) == 0 {
		return nil, fmt.Errorf("eval: compare: a report without per-question results (write them with eval --json)")
	}
	byID := make(map[int]*QuestionResult, len(after.Questions))
	for i := range after.Questions {
		q := &after.Questions[i]
		if _, dup := byID[q.QuestionID]; dup {
			return nil, fmt.Errorf("eval: compare: question_id %d twice in the second report", q.QuestionID)
		}
		byID[q.QuestionID] = q
	}
	d := &Diff{Transitions: map[string]int{}, Total: DiffLevel{Level: "total"}}
	lv := make(map[string]*DiffLevel, len(levels))
	d.Levels = make([]DiffLevel, len(levels))
	for i, l := range levels {
		d.Levels[i].Level = l
		lv[l] = &d.Levels[i]
	}
	if gold != nil {
		d.Literals = &LiteralDiff{}
	}
	seen := map[int]bool{}
	for i := range before.Questions {
		b := &before.Questions[i]
		a, ok := byID[b.QuestionID]
		if !ok {
			return nil, fmt.Errorf("eval: compare: question_id %d is in the first report and not the second: compare evaluations of the same questions", b.QuestionID)
		}
		if seen[b.QuestionID] {
			return nil, fmt.Errorf("eval: compare: question_id %d twice in the first report", b.QuestionID)
		}
		seen[b.QuestionID] = true
		d.Questions++
		for _, l := range []*DiffLevel{&d.Total, lv[b.Difficulty]} {
			if l == nil {
				continue
			}
			l.Count++
			if b.Correct {
				l.BeforeEX++
			}
			if a.Correct {
				l.AfterEX++
			}
			switch {
			case a.Correct && !b.Correct:
				l.TurnRight++
			case b.Correct && !a.Correct:
				l.TurnWrong++
			}
		}
		if bc, ac := b.Class, a.Class; bc != ac {
			d.Transitions[bc+" -> "+ac]++
		}
		if g, ok := gold[b.QuestionID]; ok && d.Literals != nil {
			gl := compared(g)
			for k, pred := range []string{b.Pred, a.Pred} {
				c, m, r := literalErrors(compared(pred), gl)
				d.Literals.Compared[k] += c
				d.Literals.Misplaced[k] += m
				d.Literals.Repeated[k] += r
			}
		}
	}
	if len(seen) != len(byID) {
		return nil, fmt.Errorf("eval: compare: the second report has %d questions the first has not", len(byID)-len(seen))
	}
	finish := func(l *DiffLevel) {
		if l.Count > 0 {
			l.BeforeEX *= 100 / float64(l.Count)
			l.AfterEX *= 100 / float64(l.Count)
		}
		l.P = SignTest(l.TurnRight, l.TurnWrong)
	}
	finish(&d.Total)
	for i := range d.Levels {
		finish(&d.Levels[i])
	}
	d.Levels = slices.DeleteFunc(d.Levels, func(l DiffLevel) bool { return l.Count == 0 })
	return d, nil
}

// literalErrors counts pred's comparisons, and those Misplaced and
// Repeated against gold's (LiteralDiff).
func literalErrors(pred, gold map[string][]string) (comparedN, misplaced, repeated int) {
	for v, cols := range pred {
		comparedN++
		g, ok := gold[v]
		if !ok {
			continue
		}
		for _, c := range cols {
			if !slices.Contains(g, c) {
				misplaced++
				break
			}
		}
		if len(cols) > 1 && len(g) == 1 {
			repeated++
		}
	}
	return comparedN, misplaced, repeated
}

// compared maps each quoted value sql compares with a column by = or
// LIKE (lower-cased, LIKE's % and surrounding spaces trimmed) to the
// columns (lower-cased, unqualified) it is compared with. It reads
// tokens, not a parse, so that it sees the values of SQL that does not
// parse too.
func compared(sql string) map[string][]string {
	var toks []sqlparse.Token
	for _, t := range sqlparse.Tokenize(sql) {
		if !t.IsTrivia() {
			toks = append(toks, t)
		}
	}
	out := map[string][]string{}
	for i := 0; i+2 < len(toks); i++ {
		col, op, lit := toks[i], toks[i+1], toks[i+2]
		if col.Kind != sqlparse.KindIdentifier && col.Kind != sqlparse.KindQuotedIdentifier || lit.Kind != sqlparse.KindString {
			continue
		}
		if o := strings.ToLower(op.Text); o != "=" && o != "==" && o != "like" {
			continue
		}
		name := strings.ToLower(strings.Trim(col.Text, "\"`[]"))
		// the literal unquoted (an unterminated one runs to the end)
		v := strings.ReplaceAll(strings.TrimSuffix(lit.Text[1:], "'"), "''", "'")
		v = strings.ToLower(strings.Trim(v, "% "))
		if v == "" {
			continue
		}
		if !slices.Contains(out[v], name) {
			out[v] = append(out[v], name)
		}
	}
	return out
}

// WriteText writes d as a terminal table: EX before and after by level
// with the questions that flipped and the sign test, the class
// transitions, and the literal checks.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %6s %8s %8s %7s %7s %7s %8s\n", "", "count", "before", "after", "delta", "+right", "-wrong", "p")
	for _, l := range append(slices.Clone(d.Levels), d.Total) {
		fmt.Fprintf(&b, "%-12s %6d %8.2f %8.2f %+7.2f %7d %7d %8.3g\n", l.Level, l.Count, l.BeforeEX, l.AfterEX, l.AfterEX-l.BeforeEX, l.TurnRight, l.TurnWrong, l.P)
	}
	b.WriteString("\np: two-sided exact sign test of the questions that turned right against those that turned wrong\n")
	if len(d.Transitions) > 0 {
		b.WriteString("\nclass changes (before -> after):\n")
		keys := make([]string, 0, len(d.Transitions))
		for k := range d.Transitions {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y string) int {
			if d.Transitions[x] != d.Transitions[y] {
				return d.Transitions[y] - d.Transitions[x]
			}
			return strings.Compare(x, y)
		})
		for _, k := range keys {
			fmt.Fprintf(&b, "  %-36s %5d\n", k, d.Transitions[k])
		}
	}
	if l := d.Literals; l != nil {
		fmt.Fprintf(&b, "\nquoted values compared with a column (col = 'v', col LIKE 'v'):  before %d, after %d\n", l.Compared[0], l.Compared[1])
		fmt.Fprintf(&b, "  misplaced (a value the gold compares, against another column):   before %d, after %d\n", l.Misplaced[0], l.Misplaced[1])
		fmt.Fprintf(&b, "  repeated (one value against two or more columns, the gold's one): before %d, after %d\n", l.Repeated[0], l.Repeated[1])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CompareFiles reads two reports of `sqlrl eval --json` and compares them
// (Compare) by the first's levels.
func CompareFiles(before, after string, gold map[int]string) (*Diff, error) {
	var reps [2]*Report
	for i, p := range []string{before, after} {
		var err error
		if reps[i], err = ReadReport(p); err != nil {
			return nil, err
		}
	}
	var levels []string
	for _, l := range reps[0].Levels {
		levels = append(levels, l.Level)
	}
	d, err := Compare(reps[0], reps[1], levels, gold)
	if err != nil {
		return nil, fmt.Errorf("compare %s with %s: %w", before, after, err)
	}
	return d, nil
}
