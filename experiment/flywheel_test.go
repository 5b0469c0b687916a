package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/train"
)

func flywheelOptions(bench, out string, tr Trainer) Options {
	o := fixedOptions(bench, out, tr)
	o.Preset = FlywheelQuick()
	o.Preset.RL.Steps = 4
	o.Seeds = nil
	o.Command = "sqlrl experiment flywheel -quick BENCH"
	return o
}

// TestFlywheelPlanAndReport runs the flywheel with the fake trainer on two
// dev splits: SFT-75, KTO from it and both models evaluated on each split,
// nothing else; the report's before/after rows are the evaluations' EX by
// level with after minus before, and report.md matches its golden file.
func TestFlywheelPlanAndReport(t *testing.T) {
	bench, out := fakeBench(t, "dev", "dev_id"), t.TempDir()
	f := &fake{}
	d, err := ExecuteFlywheel(context.Background(), flywheelOptions(bench, out, f))
	if err != nil {
		t.Fatal(err)
	}
	// two dev splits and the held-out half of the holdout
	want := map[string]int{KindSFT: 1, KindRL: 1, KindEval: 6}
	for k, n := range want {
		if f.calls[k] != n {
			t.Errorf("%s runs: %d, want %d", k, f.calls[k], n)
		}
	}
	if len(d.Plan.Runs) != 8 || d.Ran != 8 {
		t.Fatalf("planned %d runs, ran %d; want 8 and 8", len(d.Plan.Runs), d.Ran)
	}
	// The KTO run is the recipe's: online KTO on the holdout x4, gate.
	rl := d.Plan.Runs[1].Config.RL
	if rl == nil || rl.Algo != "kto" || !rl.Online || rl.On != "holdout" || rl.Augment != 4 || rl.Reward.Kind != "gate" || rl.Fraction != 0.75 || rl.Pool != 0.875 {
		t.Errorf("KTO run: %+v; want online kto on half the holdout x4, gate, after SFT on 0.75", rl)
	}
	fr := d.Flywheel
	if len(fr.Tables) != 3 || fr.Tables[0].Split != "dev" || fr.Tables[1].Split != "dev_id" || fr.Tables[2].Split != "heldout" {
		t.Fatalf("tables: %+v; want dev, dev_id and heldout", fr.Tables)
	}
	// The fake's scores: compare each cell with the evaluation's result.
	runs := filepath.Join(out, "runs")
	sft, okto := d.Plan.Runs[0], d.Plan.Runs[1]
	for _, tb := range fr.Tables {
		var levels []string
		for _, r := range tb.Rows {
			levels = append(levels, r.Level)
		}
		if strings.Join(levels, " ") != strings.Join(Levels, " ") {
			t.Errorf("%s rows %v, want %v", tb.Split, levels, Levels)
		}
		b, a := readScore(t, runs, sft.Evals[tb.Split]), readScore(t, runs, okto.Evals[tb.Split])
		for _, r := range tb.Rows {
			wantB, wantA, n := 100*b.EX, 100*a.EX, b.N
			if r.Level != "total" {
				wantB, wantA, n = 100*b.Levels[r.Level], 100*a.Levels[r.Level], b.Counts[r.Level]
			}
			tol := 1e-9 * 100
			if math.Abs(r.Before.Mean-wantB) > tol || math.Abs(r.After.Mean-wantA) > tol || math.Abs(r.Delta-(wantA-wantB)) > 2*tol || r.Questions != n {
				t.Errorf("%s %s: %+v; want before %.3f after %.3f delta %.3f over %d questions", tb.Split, r.Level, r, wantB, wantA, wantA-wantB, n)
			}
			if r.Gain == nil || r.Gain.N != 1 || math.Abs(r.Gain.Mean-r.Delta) > 2*tol {
				t.Errorf("%s %s: gain seed by seed %+v; want the delta %.3f over 1 seed", tb.Split, r.Level, r.Gain, r.Delta)
			}
		}
	}
	// Question by question: each split's flips are eval.Compare's on the
	// two evaluations' kept questions.
	if len(fr.Flips) != 3 {
		t.Fatalf("flips %+v: want one per split", fr.Flips)
	}
	for _, fl := range fr.Flips {
		rb, err1 := readEvalFile(filepath.Join(runs, sft.Evals[fl.Split].ID))
		ra, err2 := readEvalFile(filepath.Join(runs, okto.Evals[fl.Split].ID))
		if err1 != nil || err2 != nil || rb == nil || ra == nil {
			t.Fatalf("%s: eval files %v %v", fl.Split, err1, err2)
		}
		var right, wrong int
		for q := range rb.Questions {
			b, a := rb.Questions[q].Correct, ra.Questions[q].Correct
			if a && !b {
				right++
			}
			if b && !a {
				wrong++
			}
		}
		if fl.TurnedRight != right || fl.TurnedWrong != wrong || fl.P != eval.SignTest(right, wrong) || fl.Seed != 1 {
			t.Errorf("%s: %+v; want %d right, %d wrong", fl.Split, fl, right, wrong)
		}
	}
	if len(fr.Claims) != 3 || !strings.Contains(fr.Claims[0].Claim, "SFT-75 start") {
		t.Errorf("claims: %+v; want the gain-over-SFT-75 check on each split", fr.Claims)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/flywheel.md", md)
	var got FlywheelReport
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &got); err != nil || len(got.Tables) != 3 || len(got.Stages) != 8 || len(got.Curves) != 1 {
		t.Errorf("report.json: %v; %d tables, %d stages, %d curves; want 3, 8, 1", err, len(got.Tables), len(got.Stages), len(got.Curves))
	}
	// Bars per split, the reward and the dev EX curve (the fake logs
	// dev EX), each shown in report.md and parsing as SVG.
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) != 5 {
		t.Errorf("%d plots, want 5", len(svgs))
	}
	for _, p := range svgs {
		if !strings.Contains(string(md), filepath.Base(p)) {
			t.Errorf("report.md does not show %s", filepath.Base(p))
		}
		checkSVG(t, p)
	}
	if txt := fr.Text(); !strings.Contains(txt, "SFT-75 + OKTO") || !strings.Contains(txt, "challenging") || !strings.Contains(txt, "stages in all") {
		t.Errorf("terminal table:\n%s", txt)
	}
	// A rerun trains nothing; a changed KTO setting redoes KTO and its
	// evaluations, not SFT.
	calls := f.n
	d, err = ExecuteFlywheel(context.Background(), flywheelOptions(bench, out, f))
	if err != nil || f.n != calls || d.Ran != 0 || d.Cached != 8 {
		t.Fatalf("rerun: %v, %d trainer calls, %d ran, %d cached; want none, 0, 8", err, f.n-calls, d.Ran, d.Cached)
	}
	o := flywheelOptions(bench, out, f)
	o.Preset.RL.Beta = 0.2
	if d, err = ExecuteFlywheel(context.Background(), o); err != nil || d.Ran != 4 || f.calls[KindSFT] != 1 {
		t.Fatalf("changed beta: %v, ran %d runs (%d SFT in all); want 4 (KTO, 3 evaluations), SFT once", err, d.Ran, f.calls[KindSFT])
	}
}

// points is a score's EX on level ("total" or a difficulty) in points.
func points(sc *Score, level string) float64 {
	if level == "total" {
		return 100 * sc.EX
	}
	return 100 * sc.Levels[level]
}

func readScore(t *testing.T, runs string, r *Run) *Score {
	t.Helper()
	res, err := readResult(filepath.Join(runs, r.ID))
	if err != nil || res.Score == nil {
		t.Fatalf("%s: %v, %+v", r.Name, err, res)
	}
	return res.Score
}

// TestFlywheelBudget checks the arithmetic of the default budget: the
// recipe's 2,256 SFT steps, and that the estimate follows the settings.
func TestFlywheelBudget(t *testing.T) {
	p := Flywheel()
	if !strings.Contains(p.Budget, "SFT-75 2256 steps") || !strings.Contains(p.Budget, "500 dev and 375 held-out questions") {
		t.Errorf("budget %q: want 2256 SFT steps and evaluations of 500 dev and 375 held-out questions", p.Budget)
	}
	q := p
	q.RL.Steps = 2 * p.RL.Steps
	if FlywheelBudget(q) == p.Budget {
		t.Error("doubling the KTO steps left the budget")
	}
	// SFT-100: 16 epochs of all 3,000 questions in batches of 16.
	q = p
	q.SFT100 = true
	if b := FlywheelBudget(q); !strings.Contains(b, "SFT-100 3008 steps") {
		t.Errorf("budget with SFT-100 %q: want its 3008 steps", b)
	}
	// The merge costs an evaluation, no training.
	q = p
	q.Merge = 0.5
	if b := FlywheelBudget(q); !strings.Contains(b, "3 evaluations of 500 dev") || !strings.Contains(p.Budget, "2 evaluations of 500 dev") {
		t.Errorf("budgets %q and, merged, %q: want 2 evaluations, 3 with the merge", p.Budget, b)
	}
}

// TestFlywheelSFT100 adds SFT-100 to the flywheel into the directory of a
// finished one: the cached SFT-75, KTO and their evaluations are reused,
// SFT-100 is trained and evaluated on the dev splits and not on heldout
// (it trained on those questions), and its column and the headline claim
// are the evaluations' numbers.
func TestFlywheelSFT100(t *testing.T) {
	d, f, out := addToFinished(t, func(p *Preset) { p.SFT100 = true })
	if d.Ran != 2 || f.calls[KindSFT] != 2 || f.calls[KindRL] != 1 {
		t.Fatalf("ran %d runs (%d SFT, %d RL in all); want 2 new (SFT-100 and its dev evaluation), SFT twice, RL once", d.Ran, f.calls[KindSFT], f.calls[KindRL])
	}
	var sft100 *Run
	for _, r := range d.Plan.Runs {
		if r.Config.SFT != nil && r.Config.SFT.Fraction == 1 {
			sft100 = r
		}
	}
	if sft100 == nil || sft100.Evals["dev"] == nil || sft100.Evals["heldout"] != nil {
		t.Fatalf("SFT-100 run %+v: want one, evaluated on dev and not on heldout", sft100)
	}
	sc := readScore(t, filepath.Join(out, "runs"), sft100.Evals["dev"])
	fr := d.Flywheel
	for _, tb := range fr.Tables {
		for _, r := range tb.Rows {
			switch {
			case tb.Split == "heldout" && r.SFT100 != nil:
				t.Errorf("heldout %s has an SFT-100 cell", r.Level)
			case tb.Split == "dev" && r.SFT100 == nil:
				t.Errorf("dev %s has no SFT-100 cell", r.Level)
			case tb.Split == "dev":
				want := points(sc, r.Level)
				if math.Abs(r.SFT100.Mean-want) > 1e-7 {
					t.Errorf("dev %s SFT-100 %.4f, want %.4f", r.Level, r.SFT100.Mean, want)
				}
			}
		}
	}
	var headline *Claim
	for i, c := range fr.Claims {
		if strings.Contains(c.Claim, ">= SFT-100") {
			headline = &fr.Claims[i]
		}
	}
	if headline == nil || headline.Split != "dev" {
		t.Fatalf("claims %+v: want the headline on dev", fr.Claims)
	}
	md := string(fr.Markdown())
	if !strings.Contains(md, "| SFT-100 | OKTO - SFT-100 |") || !strings.Contains(md, "not evaluated on heldout") {
		t.Errorf("report.md does not show SFT-100:\n%s", md)
	}
	if !strings.Contains(FlywheelBudget(d.Plan.Preset), "SFT-100") {
		t.Errorf("budget %q does not count SFT-100", FlywheelBudget(d.Plan.Preset))
	}
}

// TestFlywheelSFT100KTO adds SFT-100 + OKTO to a finished flywheel: the
// cached SFT-75, KTO and their evaluations are reused; SFT-100 and the
// preset's KTO from it on train's questions (the holdout study's rl_seen,
// under the same ID) are trained and evaluated on dev only; its column,
// its gain over SFT-100, its flips against SFT-100 and the claim on RL
// over seen data are the evaluations' numbers.
func TestFlywheelSFT100KTO(t *testing.T) {
	d, f, out := addToFinished(t, func(p *Preset) { p.SFT100KTO = true })
	if d.Ran != 4 || f.calls[KindSFT] != 2 || f.calls[KindRL] != 2 {
		t.Fatalf("ran %d runs (calls %v); want 4 new (SFT-100, KTO from it, their dev evaluations), SFT and RL twice in all", d.Ran, f.calls)
	}
	var seen *Run
	for _, r := range d.Plan.Runs {
		if r.Config.Kind == KindRL && r.Config.RL.On == train.RLOnTrain {
			seen = r
		}
	}
	if seen == nil || seen.Parent == nil || seen.Parent.Config.SFT == nil || seen.Parent.Config.SFT.Fraction != 1 ||
		seen.Config.RL.Fraction != 1 || seen.Config.RL.Pool != 0 || seen.Evals["dev"] == nil || seen.Evals["heldout"] != nil {
		t.Fatalf("KTO from SFT-100 %+v: want one, from the SFT-100 run, on all of train, evaluated on dev and not on heldout", seen)
	}
	if seen.Config.RL.Steps != d.Plan.Preset.RL.Steps || !seen.Config.RL.Guided || seen.Config.RL.Replay != d.Plan.Preset.RL.Replay {
		t.Errorf("KTO from SFT-100 %+v: want the flywheel's KTO settings %+v", seen.Config.RL, d.Plan.Preset.RL)
	}
	// The holdout study plans the same run: one cache for both commands.
	st, err := NewPlan(d.Plan.Preset, d.Plan.Runs[0].Config.Bench, d.Plan.Seeds, []string{"dev"}, []string{"holdout"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st.Runs, func(r *Run) bool { return r.ID == seen.ID }) {
		t.Errorf("the holdout study's rl_seen is another run than the flywheel's SFT-100 + OKTO %s", seen.ID)
	}
	runs := filepath.Join(out, "runs")
	after, before := readScore(t, runs, seen.Evals["dev"]), readScore(t, runs, seen.Parent.Evals["dev"])
	fr := d.Flywheel
	for _, tb := range fr.Tables {
		for _, r := range tb.Rows {
			if tb.Split == "heldout" {
				if r.SFT100KTO != nil {
					t.Errorf("heldout %s has an SFT-100 + OKTO cell", r.Level)
				}
				continue
			}
			want, wantGain := points(after, r.Level), points(after, r.Level)-points(before, r.Level)
			if r.SFT100KTO == nil || math.Abs(r.SFT100KTO.Mean-want) > 1e-7 {
				t.Errorf("dev %s: SFT-100 + OKTO %+v, want %.4f", r.Level, r.SFT100KTO, want)
			}
			if r.SFT100KTOGain == nil || math.Abs(r.SFT100KTOGain.Mean-wantGain) > 1e-7 {
				t.Errorf("dev %s: SFT-100 + OKTO's gain %+v, want %.4f over SFT-100", r.Level, r.SFT100KTOGain, wantGain)
			}
		}
	}
	var fl []Flip
	for _, x := range fr.Flips {
		if x.Arm == "rl_seen" {
			fl = append(fl, x)
		}
	}
	if len(fl) != 1 || fl[0].Split != "dev" || fl[0].From != "SFT-100" {
		t.Errorf("flips of SFT-100 + OKTO %+v: want one, on dev, from SFT-100", fl)
	}
	if !slices.ContainsFunc(fr.Claims, func(c Claim) bool { return strings.Contains(c.Claim, "RL on data SFT already saw") && c.Split == "dev" }) {
		t.Errorf("claims %+v: want the one on RL over seen data, on dev", fr.Claims)
	}
	md, txt := string(fr.Markdown()), fr.Text()
	if !strings.Contains(md, "| SFT-100 | OKTO - SFT-100 | SFT-100 + OKTO | delta |") || !strings.Contains(md, "SFT-100 + OKTO: step 2's KTO from SFT-100") ||
		!strings.Contains(txt, "SFT-100 + OKTO") {
		t.Errorf("report does not show SFT-100 + OKTO:\n%s\n%s", md, txt)
	}
	if b := FlywheelBudget(d.Plan.Preset); !strings.Contains(b, "2 runs (from SFT-75 and one from SFT-100)") || !strings.Contains(b, "SFT-100 + OKTO's") {
		t.Errorf("budget %q does not count the second KTO run and its evaluation", b)
	}
}

// TestFlywheelStudiesShareRuns: the OKTO studies at the flywheel's
// settings plan the flywheel's SFT-75 and its evaluations under the same
// IDs, so an experiment directory shared with the main job reuses them;
// their KTO arm is the recipe's (no guided samples, no replay), another
// run than the main job's.
func TestFlywheelStudiesShareRuns(t *testing.T) {
	fw, err := NewPlan(Flywheel(), "b", []uint64{1, 2}, []string{"dev"}, []string{StudyFlywheel})
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewPlan(FlywheelStudies(), "b", []uint64{1, 2}, []string{"dev"}, []string{"algorithms"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, r := range st.Runs {
		ids[r.Name] = r.ID
	}
	shared := 0
	for _, r := range fw.Runs {
		same := ids[r.Name] == r.ID
		if sft := strings.Contains(r.Name, "sft75"); same != sft {
			t.Errorf("%s: %s in the studies, %s in the flywheel (want shared: %v)", r.Name, ids[r.Name], r.ID, sft)
		}
		if same {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no run shared")
	}
	// 2,256 and 3,008 steps of 0.32 s
	if b := FlywheelStudies().Budget; !strings.Contains(b, "SFT-75 ~12 min and SFT-100 ~16 min") {
		t.Errorf("budget %q: want SFT-75 ~12 min and SFT-100 ~16 min", b)
	}
	if len(st.Runs) <= len(fw.Runs) {
		t.Errorf("the algorithms study plans %d runs, the flywheel %d: want the other algorithms too", len(st.Runs), len(fw.Runs))
	}
}

// TestFlywheelMerge adds the merged arm to a finished flywheel: SFT-75,
// KTO and their evaluations are reused; the merge of KTO with its own
// SFT-75 start is made and evaluated on every split (heldout too: neither
// saw it); its column, its flips and its claim are its evaluations'
// numbers; report.md matches its golden file.
func TestFlywheelMerge(t *testing.T) {
	d, f, out := addToFinished(t, func(p *Preset) { p.Merge = 0.5 })
	if d.Ran != 3 || f.calls[KindMerge] != 1 || f.calls[KindRL] != 1 || f.calls[KindSFT] != 1 {
		t.Fatalf("ran %d runs (calls %v); want 3 new (the merge, its dev and heldout evaluations), SFT and RL once", d.Ran, f.calls)
	}
	var merged *Run
	for _, r := range d.Plan.Runs {
		if r.Config.Kind == KindMerge {
			merged = r
		}
	}
	if merged == nil || merged.Config.Merge.Alpha != 0.5 || merged.Parent == nil || merged.Parent.Config.Kind != KindRL ||
		merged.Parent.Parent == nil || merged.Parent.Parent.Config.Kind != KindSFT || len(merged.Evals) != 2 {
		t.Fatalf("merge run %+v: want alpha 0.5 of the KTO run and its SFT start, evaluated on dev and heldout", merged)
	}
	runs := filepath.Join(out, "runs")
	fr := d.Flywheel
	for _, tb := range fr.Tables {
		m := readScore(t, runs, merged.Evals[tb.Split])
		for _, r := range tb.Rows {
			want := points(m, r.Level)
			if r.Merged == nil || math.Abs(r.Merged.Mean-want) > 1e-7 {
				t.Errorf("%s %s: merged %+v, want %.3f", tb.Split, r.Level, r.Merged, want)
			}
		}
	}
	var mergedFlips, mergedClaims int
	for _, fl := range fr.Flips {
		if fl.Arm == "okto_merged" {
			mergedFlips++
		}
	}
	for _, c := range fr.Claims {
		if strings.Contains(c.Claim, "merged 0.5") {
			mergedClaims++
		}
	}
	if mergedFlips != 2 || mergedClaims != 2 {
		t.Errorf("%d flips and %d claims of the merged arm; want one per split (dev, heldout)", mergedFlips, mergedClaims)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/flywheel-merged.md", md)
}

// addToFinished runs the flywheel on a fake benchmark with one dev split,
// then again into the same directory with the preset changed: what the
// second run did, the fake trainer that did both, and the directory.
func addToFinished(t *testing.T, change func(*Preset)) (*Done, *fake, string) {
	t.Helper()
	bench, out := fakeBench(t, "dev"), t.TempDir()
	f := &fake{}
	if _, err := ExecuteFlywheel(context.Background(), flywheelOptions(bench, out, f)); err != nil {
		t.Fatal(err)
	}
	o := flywheelOptions(bench, out, f)
	change(&o.Preset)
	d, err := ExecuteFlywheel(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return d, f, out
}

// TestFlywheelSeedsGain: over two seeds, the delta column is the gain seed
// by seed, whose mean is the change of the means and whose range is the
// two seeds' own gains.
func TestFlywheelSeedsGain(t *testing.T) {
	bench, out := fakeBench(t, "dev"), t.TempDir()
	o := flywheelOptions(bench, out, &fake{})
	o.Seeds = []uint64{1, 2}
	d, err := ExecuteFlywheel(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(out, "runs")
	var sft, okto []*Run
	for _, r := range d.Plan.Runs {
		switch r.Config.Kind {
		case KindSFT:
			sft = append(sft, r)
		case KindRL:
			okto = append(okto, r)
		}
	}
	if len(sft) != 2 || len(okto) != 2 {
		t.Fatalf("%d SFT and %d RL runs; want 2 and 2", len(sft), len(okto))
	}
	var g []float64
	for i := range sft {
		g = append(g, 100*(readScore(t, runs, okto[i].Evals["dev"]).EX-readScore(t, runs, sft[i].Evals["dev"]).EX))
	}
	if g[0] == g[1] {
		t.Fatalf("the fake gives both seeds the gain %.3f: the test cannot tell the gains' range from the change of the means", g[0])
	}
	total := d.Flywheel.Tables[0].Rows[len(Levels)-1]
	tol := 1e-9 * 100
	if total.Level != "total" || total.Gain == nil || total.Gain.N != 2 || math.Abs(total.Gain.Mean-total.Delta) > 2*tol ||
		math.Abs(total.Gain.Min-min(g[0], g[1])) > 2*tol || math.Abs(total.Gain.Max-max(g[0], g[1])) > 2*tol {
		t.Fatalf("dev total %+v; gains per seed %v", total, g)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if cell := " " + gainText(*total.Gain) + " |"; !strings.Contains(string(md), cell) {
		t.Errorf("report.md has no delta cell %q", cell)
	}
}

// TestFlywheelRounds: -kto-rounds 3 adds two KTO runs, each from the run
// before (its Init and so its reference), with the first round's settings,
// evaluated on every split the first round is (heldout included: no round
// saw its questions); each round's cells and gains over SFT-75 equal its
// evaluations, its flips are against SFT-75 and against the round before,
// and the claims, the report and the budget name every round.
func TestFlywheelRounds(t *testing.T) {
	d, f, out := addToFinished(t, func(p *Preset) { p.Rounds, p.SFT100 = 3, true })
	if d.Ran != 8 || f.calls[KindRL] != 3 {
		t.Fatalf("ran %d runs (calls %v); want 8 new (2 rounds, SFT-100, SFT-100 on dev, each round on dev and heldout), RL 3 times in all", d.Ran, f.calls)
	}
	byName := map[string]*Run{}
	for _, r := range d.Plan.Runs {
		byName[r.Name] = r
	}
	okto := byName["okto/seed1"]
	prev := okto
	for r := 2; r <= 3; r++ {
		run := byName[fmt.Sprintf("okto_r%d/seed1", r)]
		if run == nil || run.Parent != prev || run.Config.Parent != prev.ID || run.Config.Kind != KindRL {
			t.Fatalf("round %d %+v: want an RL run from %s", r, run, prev.ID)
		}
		if *run.Config.RL != *okto.Config.RL {
			t.Errorf("round %d's settings %+v, want the first round's %+v", r, *run.Config.RL, *okto.Config.RL)
		}
		if run.Evals["dev"] == nil || run.Evals["heldout"] == nil {
			t.Errorf("round %d evaluated on %v; want dev and heldout", r, run.Evals)
		}
		prev = run
	}
	if roundOf("okto") != 1 || roundOf("okto_r3") != 3 || roundOf("okto_merged") != 0 || roundOf("okto_r03") != 0 || roundOf("rl_seen") != 0 {
		t.Error("roundOf does not invert RoundKey")
	}
	runs := filepath.Join(out, "runs")
	fr := d.Flywheel
	for _, tb := range fr.Tables {
		sft := readScore(t, runs, byName["sft75/seed1"].Evals[tb.Split])
		for _, row := range tb.Rows {
			if len(row.Rounds) != 2 {
				t.Fatalf("%s %s: rounds %+v; want 2 and 3", tb.Split, row.Level, row.Rounds)
			}
			for i, rd := range row.Rounds {
				sc := readScore(t, runs, byName[fmt.Sprintf("okto_r%d/seed1", i+2)].Evals[tb.Split])
				want, wantGain := points(sc, row.Level), points(sc, row.Level)-points(sft, row.Level)
				if rd.Round != i+2 || math.Abs(rd.After.Mean-want) > 1e-7 || rd.Gain == nil || math.Abs(rd.Gain.Mean-wantGain) > 1e-7 {
					t.Errorf("%s %s round %d: %+v (gain %+v), want %.4f and gain %.4f over SFT-75", tb.Split, row.Level, i+2, rd, rd.Gain, want, wantGain)
				}
			}
		}
	}
	from := map[string][]string{}
	for _, x := range fr.Flips {
		if x.Split == "dev" {
			from[x.Arm] = append(from[x.Arm], x.From)
		}
	}
	if !slices.Equal(from["okto_r2"], []string{"SFT-75", "SFT-75 + OKTO"}) || !slices.Equal(from["okto_r3"], []string{"SFT-75", "SFT-75 + OKTO x2"}) {
		t.Errorf("flips on dev by arm: %v; want each round against SFT-75 and the round before", from)
	}
	for _, want := range []string{"online KTO, 3 rounds, raises EX", "SFT-75 + OKTO-25 x3 >= SFT-100"} {
		if !slices.ContainsFunc(fr.Claims, func(c Claim) bool { return strings.Contains(c.Claim, want) && c.Split == "dev" }) {
			t.Errorf("claims %+v: want %q on dev", fr.Claims, want)
		}
	}
	md, txt := string(fr.Markdown()), fr.Text()
	if !strings.Contains(md, "| OKTO x2 | delta | OKTO x3 | delta | SFT-100 | OKTO x3 - SFT-100 |") || !strings.Contains(md, "OKTO x2, x3: step 2 again") ||
		!strings.Contains(txt, "OKTO x3") {
		t.Errorf("report does not show the rounds:\n%s\n%s", md, txt)
	}
	if b := FlywheelBudget(d.Plan.Preset); !strings.Contains(b, "3 runs (3 rounds from SFT-75) of ") || !strings.Contains(b, "4 evaluations") {
		t.Errorf("budget %q does not count the rounds and their evaluations", b)
	}
}
