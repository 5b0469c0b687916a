package experiment

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/significance"
)

// ComparisonRow is one arm against another on one split, question by
// question (significance.Compare): the paired EX difference pooled over
// the seeds where both were evaluated, its bootstrap interval, McNemar's
// test per seed and pooled, and the pooled p-value corrected (Holm) across
// the comparisons made together with it: a study's on that split.
type ComparisonRow struct {
	Study     string `json:"study"`
	Split     string `json:"split"`
	Treatment string `json:"treatment"`
	Control   string `json:"control"`
	// Labels of the two arms, for the report.
	TreatmentLabel string `json:"treatment_label"`
	ControlLabel   string `json:"control_label"`
	// Stats is nil when the comparison could not be made; Note says why.
	Stats *significance.Comparison `json:"stats,omitempty"`
	Note  string                   `json:"note,omitempty"`
}

// armPair names a comparison by arm keys.
type armPair struct{ treatment, control string }

// bootstrapSeed seeds the reports' bootstrap draws: fixed, so that a report
// rebuilt from the same evaluations prints the same intervals.
const bootstrapSeed = 1

// compareArms makes each comparison of pairs on split from the arms'
// evaluation files (EvalFile, under runsDir) and corrects their p-values
// together (Holm).
func compareArms(study, split string, arms map[string]Arm, pairs []armPair, runsDir string, o significance.Options) []ComparisonRow {
	var out []ComparisonRow
	var made []*significance.Comparison
	for _, pr := range pairs {
		t, c := arms[pr.treatment], arms[pr.control]
		row := ComparisonRow{Study: study, Split: split, Treatment: pr.treatment, Control: pr.control, TreatmentLabel: t.Label, ControlLabel: c.Label}
		seeds, note := pairedOutcomes(t, c, split, runsDir)
		if note == "" {
			cmp, err := significance.Compare(seeds, o)
			if err != nil {
				note = err.Error()
			} else {
				row.Stats = &cmp
			}
		}
		row.Note = note
		out = append(out, row)
	}
	for i := range out {
		if out[i].Stats != nil {
			made = append(made, out[i].Stats)
		}
	}
	significance.Adjust(made)
	return out
}

// pairedOutcomes reads, seed by seed, which questions the treatment arm's
// and the control arm's models answered on split, over the questions both
// were scored on in every such seed (a sample of questions drawn per seed
// leaves only their common part). A note says why there is nothing to
// compare.
func pairedOutcomes(t, c Arm, split, runsDir string) ([]significance.Seed, string) {
	type pair struct {
		seed uint64
		t, c map[int]bool
	}
	var pairs []pair
	for i, m := range t.Models {
		j := slices.IndexFunc(c.Models, func(r *Run) bool { return r.Config.Seed == m.Config.Seed })
		if j < 0 {
			continue
		}
		te, ce := m.Evals[split], c.Models[j].Evals[split]
		if te == nil || ce == nil {
			continue
		}
		tr, err := readEvalFile(filepath.Join(runsDir, te.ID))
		if err != nil {
			return nil, err.Error()
		}
		cr, err := readEvalFile(filepath.Join(runsDir, ce.ID))
		if err != nil {
			return nil, err.Error()
		}
		if tr == nil || cr == nil {
			continue // not finished, or evaluated before runs kept their questions
		}
		p := pair{seed: t.Models[i].Config.Seed, t: map[int]bool{}, c: map[int]bool{}}
		for _, q := range tr.Questions {
			p.t[q.QuestionID] = q.Correct
		}
		for _, q := range cr.Questions {
			p.c[q.QuestionID] = q.Correct
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return nil, "no seed with both arms' evaluations question by question"
	}
	var ids []int
	for id := range pairs[0].t {
		common := true
		for _, p := range pairs {
			_, a := p.t[id]
			_, b := p.c[id]
			common = common && a && b
		}
		if common {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Sprintf("no question scored for both arms in all %d seeds (each seed sampled its own questions: evaluate all of them)", len(pairs))
	}
	slices.Sort(ids)
	out := make([]significance.Seed, len(pairs))
	for k, p := range pairs {
		s := significance.Seed{Seed: p.seed, Treatment: make([]bool, len(ids)), Control: make([]bool, len(ids))}
		for i, id := range ids {
			s.Treatment[i], s.Control[i] = p.t[id], p.c[id]
		}
		out[k] = s
	}
	return out, ""
}

// startComparisons are the ordinary reports' comparisons: every trained
// arm of each study (RL, or RL merged back) against its SFT start, on
// every split, corrected across the study's arms on that split, the
// bootstrap drawn as so says.
func startComparisons(rep *Report, pl *Plan, runsDir string, so significance.Options) []ComparisonRow {
	var out []ComparisonRow
	for _, st := range pl.Studies {
		arms := map[string]Arm{}
		var pairs []armPair
		for _, a := range st.Arms {
			arms[a.Key] = a
		}
		for _, a := range st.Arms {
			start, ok := rep.sftStart(a)
			if !ok {
				continue
			}
			arms[start.Key] = start
			pairs = append(pairs, armPair{a.Key, start.Key})
		}
		if len(pairs) == 0 {
			continue
		}
		for _, split := range pl.Splits {
			out = append(out, compareArms(st.Name, split, arms, pairs, runsDir, so)...)
		}
	}
	return out
}

// writeComparisons renders rows (one study's, on one split) as a table:
// the difference, its interval, the discordant pairs, McNemar's pooled p
// and its Holm correction, and each seed's p.
func writeComparisons(b *bytes.Buffer, rows []ComparisonRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "Question by question (treatment minus control, EX points pooled over seeds; 95%% paired bootstrap interval resampling questions; p: McNemar's exact test on the discordant pairs pooled over seeds, Holm-corrected over the %d comparison(s) here; per seed: each seed's McNemar p):\n\n", len(rows))
	b.WriteString("| arm | against | seeds x questions | difference | 95% interval | right only / wrong only | p | p (Holm) | per seed p |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		s := r.Stats
		if s == nil {
			fmt.Fprintf(b, "| %s | %s | - | - | - | - | - | - | %s |\n", r.TreatmentLabel, r.ControlLabel, r.Note)
			continue
		}
		var per []string
		for _, p := range s.PerSeed {
			per = append(per, fmt.Sprintf("%d: %.2g", p.Seed, p.P))
		}
		if s.Wins+s.Losses == 0 {
			// Nothing to test: say why the row is empty, since two arms
			// that differ in a setting can still train the same model.
			per = append(per, "no question answered differently in any seed: the arms' models may be the same (see their training logs)")
		}
		fmt.Fprintf(b, "| %s | %s | %d x %d | %+.1f | [%+.1f, %+.1f] | %d / %d | %.2g | %.2g | %s |\n", r.TreatmentLabel, r.ControlLabel, s.Seeds, s.Questions,
			s.Diff, s.Low, s.High, s.Wins, s.Losses, s.P, s.PHolm, strings.Join(per, ", "))
	}
	b.WriteString("\n")
}

// comparisonsOf is rows' comparisons of study on split.
func comparisonsOf(rows []ComparisonRow, study, split string) []ComparisonRow {
	var out []ComparisonRow
	for _, r := range rows {
		if r.Study == study && r.Split == split {
			out = append(out, r)
		}
	}
	return out
}
