package agents

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/eval"
)

// Row is one line of a pipeline report: a tier of questions (or all).
type Row struct {
	Level string `json:"level"`
	N     int    `json:"n"`
	// Planner1 is the greedy candidate's EX (planner@1); Pipeline1 the
	// final strategy's (pipeline@1).
	Planner1  float64 `json:"planner_at_1"`
	Pipeline1 float64 `json:"pipeline_at_1"`
	// FixerGain is the EX gained by replacing the greedy candidate by its
	// fix where one was kept.
	FixerGain float64 `json:"fixer_gain"`
	// PassK is the oracle over the planner's K candidates (pass@K);
	// OracleAll adds the fixes.
	PassK     float64 `json:"pass_at_k"`
	OracleAll float64 `json:"oracle_all"`
	// Strategies maps each selection strategy to its EX.
	Strategies map[string]float64 `json:"strategies"`
}

// Report summarises rollouts by difficulty.
type Report struct {
	K    int    `json:"k"`
	Rows []*Row `json:"rows"`
	// Final names the pipeline's final strategy.
	Final string `json:"final"`
	// Stage counts: agent calls that failed or answered garbage, by
	// stage prefix ("planner", "validator", "fixer", "selector").
	Errors map[string]int `json:"errors"`
	// Validators: share of validations concluding correct, incorrect or
	// bad, and accuracy of their verdicts against the candidate's
	// correctness (scored candidates).
	ValidatorAccuracy map[string]float64 `json:"validator_accuracy,omitempty"`
	ValidatorBad      float64            `json:"validator_bad,omitempty"`
	// ValidatorJoint is the accuracy of the validators together: a
	// candidate is judged correct when none of its readable verdicts says
	// incorrect. Each validator checks one aspect and accepts a wrong
	// candidate whose aspect is right, so this is the figure comparable to
	// a candidate's correctness; ValidatorJointBase is the accuracy of
	// calling every candidate the commoner of correct and wrong.
	ValidatorJoint     float64 `json:"validator_joint,omitempty"`
	ValidatorJointBase float64 `json:"validator_joint_base,omitempty"`
	// Paired compares each strategy with the execution vote question by
	// question: Wins are the questions only the strategy gets right,
	// Losses those only the vote does, P the sign test's p-value.
	Paired map[string]Paired `json:"paired,omitempty"`
}

// Paired is a question-by-question comparison of two strategies.
type Paired struct {
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	P      float64 `json:"p"`
}

// BuildReport computes the report of scored records. Questions without a
// gold are left out. The EX of every strategy is the share of questions
// whose chosen candidate is correct by eval's BIRD EX (recorded per
// candidate at run time); a question with no choice counts as wrong.
func BuildReport(recs []*Record) *Report {
	rep := &Report{Errors: map[string]int{}, ValidatorAccuracy: map[string]float64{}, Paired: map[string]Paired{}}
	levels := map[string]*Row{}
	var order []string
	all := &Row{Level: "total", Strategies: map[string]float64{}}
	vOK, vN := map[string]int{}, map[string]int{}
	bad, nv := 0, 0
	jOK, jN, jPos := 0, 0, 0
	for _, r := range recs {
		if len(r.Candidates) > 0 && !r.Candidates[0].Scored {
			continue
		}
		if rep.Final == "" {
			rep.Final = r.Final
		}
		for _, e := range r.Errors {
			stage, _, _ := strings.Cut(e, " ")
			rep.Errors[strings.TrimSuffix(stage, ":")]++
		}
		lv := r.Difficulty
		if lv == "" {
			lv = "unknown"
		}
		row, ok := levels[lv]
		if !ok {
			row = &Row{Level: lv, Strategies: map[string]float64{}}
			levels[lv] = row
			order = append(order, lv)
		}
		k := 0
		for _, c := range r.Candidates {
			if c.Source != SourceFix {
				k++
			}
		}
		rep.K = max(rep.K, k)
		correct := func(i int) float64 {
			if i >= 0 && i < len(r.Candidates) && r.Candidates[i].Correct {
				return 1
			}
			return 0
		}
		anyOf := func(fix bool) float64 {
			for _, c := range r.Candidates {
				if c.Correct && (fix || c.Source != SourceFix) {
					return 1
				}
			}
			return 0
		}
		greedy := correct(0)
		fixed := greedy
		for i, c := range r.Candidates {
			if c.Source == SourceFix && c.From == 0 {
				fixed = correct(i)
			}
		}
		for _, rw := range []*Row{row, all} {
			rw.N++
			rw.Planner1 += greedy
			rw.Pipeline1 += correct(r.Choice())
			rw.FixerGain += fixed - greedy
			rw.PassK += anyOf(false)
			rw.OracleAll += anyOf(true)
			for s, i := range r.Selected {
				rw.Strategies[s] += correct(i)
			}
		}
		if v, ok := r.Selected[StrategyVote]; ok {
			for s, i := range r.Selected {
				if s == StrategyVote {
					continue
				}
				pr := rep.Paired[s]
				switch a, b := correct(i), correct(v); {
				case a > b:
					pr.Wins++
				case a < b:
					pr.Losses++
				}
				rep.Paired[s] = pr
			}
		}
		for i, c := range r.Candidates {
			if vs := r.validations(i); len(vs) > 0 && c.Same < 0 {
				reject, read := false, false
				for _, v := range vs {
					read = read || v.Verdict != VerdictBad
					reject = reject || v.Verdict == VerdictIncorrect
				}
				if read {
					jN++
					if !reject == c.Correct {
						jOK++
					}
					if c.Correct {
						jPos++
					}
				}
			}
			for _, v := range r.validations(i) {
				if r.Candidates[i].Same >= 0 {
					continue
				}
				nv++
				if v.Verdict == VerdictBad {
					bad++
					continue
				}
				vN[v.Kind]++
				if (v.Verdict == VerdictCorrect) == c.Correct {
					vOK[v.Kind]++
				}
			}
		}
	}
	slices.SortFunc(order, func(a, b string) int { return levelRank(a) - levelRank(b) })
	for _, lv := range order {
		rep.Rows = append(rep.Rows, levels[lv])
	}
	rep.Rows = append(rep.Rows, all)
	for _, rw := range rep.Rows {
		n := float64(max(rw.N, 1))
		rw.Planner1 = 100 * rw.Planner1 / n
		rw.Pipeline1 = 100 * rw.Pipeline1 / n
		rw.FixerGain = 100 * rw.FixerGain / n
		rw.PassK = 100 * rw.PassK / n
		rw.OracleAll = 100 * rw.OracleAll / n
		for s := range rw.Strategies {
			rw.Strategies[s] = 100 * rw.Strategies[s] / n
		}
	}
	for s, pr := range rep.Paired {
		pr.P = eval.SignTest(pr.Wins, pr.Losses)
		rep.Paired[s] = pr
	}
	for k, n := range vN {
		rep.ValidatorAccuracy[k] = 100 * float64(vOK[k]) / float64(n)
	}
	if nv > 0 {
		rep.ValidatorBad = 100 * float64(bad) / float64(nv)
	}
	if jN > 0 {
		rep.ValidatorJoint = 100 * float64(jOK) / float64(jN)
		rep.ValidatorJointBase = 100 * float64(max(jPos, jN-jPos)) / float64(jN)
	}
	return rep
}

func levelRank(l string) int {
	if i := slices.Index([]string{"simple", "moderate", "challenging", "easy", "medium", "hard", "extra"}, l); i >= 0 {
		return i
	}
	return 100
}

// PassAtK is eval's unbiased pass@k over the planner's candidates of
// scored records (n = each question's candidate count, c its correct
// ones), the figure `sqlrl eval` prints for the same candidates.
func PassAtK(recs []*Record, k int) float64 {
	s, n := 0.0, 0
	for _, r := range recs {
		var cand, ok int
		for _, c := range r.Candidates {
			if c.Source == SourceFix || !c.Scored {
				continue
			}
			cand++
			if c.Correct {
				ok++
			}
		}
		if cand == 0 {
			continue
		}
		n++
		s += eval.PassAtK(cand, ok, min(k, cand))
	}
	if n == 0 {
		return 0
	}
	return 100 * s / float64(n)
}

// WriteMarkdown prints the report as Markdown tables.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var strat []string
	for _, s := range Strategies {
		if _, ok := rep.Rows[len(rep.Rows)-1].Strategies[s]; ok {
			strat = append(strat, s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| level | n | planner@1 | fixer gain | pipeline@1 (%s) |", rep.Final)
	for _, s := range strat {
		fmt.Fprintf(&b, " %s |", s)
	}
	fmt.Fprintf(&b, " pass@%d (oracle) | oracle with fixes |\n|---|---|---|---|---|", rep.K)
	for range strat {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %+.1f | %.1f |", r.Level, r.N, r.Planner1, r.FixerGain, r.Pipeline1)
		for _, s := range strat {
			fmt.Fprintf(&b, " %.1f |", r.Strategies[s])
		}
		fmt.Fprintf(&b, " %.1f | %.1f |\n", r.PassK, r.OracleAll)
	}
	t := rep.Rows[len(rep.Rows)-1]
	if gap := t.PassK - t.Planner1; gap > 0 {
		b.WriteString("\nShare of the oracle, of the greedy -> oracle gap closed (total), and against the vote question by question (questions only it gets right / only the vote does, sign test):\n\n| strategy | EX | % of oracle | gap closed | vs vote | p |\n|---|---|---|---|---|---|\n")
		for _, s := range strat {
			ex := t.Strategies[s]
			fmt.Fprintf(&b, "| %s | %.1f | %.1f%% | %.0f%% |", s, ex, 100*ex/t.PassK, 100*(ex-t.Planner1)/gap)
			if pr, ok := rep.Paired[s]; ok {
				fmt.Fprintf(&b, " +%d / -%d | %.3g |\n", pr.Wins, pr.Losses, pr.P)
			} else {
				b.WriteString(" - | - |\n")
			}
		}
	}
	if len(rep.ValidatorAccuracy) > 0 {
		b.WriteString("\nValidator verdicts agreeing with execution against the gold: ")
		var parts []string
		for _, k := range ValidatorKinds {
			if a, ok := rep.ValidatorAccuracy[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f%%", k, a))
			}
		}
		fmt.Fprintf(&b, "%s; bad feedback %.1f%%. Together (a candidate is accepted when no verdict rejects it): %.1f%% (calling every candidate the commoner label: %.1f%%).\n",
			strings.Join(parts, ", "), rep.ValidatorBad, rep.ValidatorJoint, rep.ValidatorJointBase)
	}
	if len(rep.Errors) > 0 {
		var parts []string
		for k, n := range rep.Errors {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
		slices.Sort(parts)
		fmt.Fprintf(&b, "\nFailed or unreadable agent calls (replaced by the stage's fallback): %s.\n", strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
