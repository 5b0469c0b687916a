package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/policy"
)

// TestExperimentOktoQuick runs every study of the quick preset end to end
// on the generator's tiny benchmark with the real trainers, checks the
// report's structure, then runs the same command again: every run is
// found finished, nothing is trained or evaluated again.
func TestExperimentOktoQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every study's runs")
	}
	dir := t.TempDir()
	b := tinyBench(t, dir)
	out := filepath.Join(dir, "okto")
	args := []string{"experiment", "okto", "-quick", "-q", "-out", out, b}
	if _, stderr, code := sqlrl(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep experiment.Report
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	if len(rep.Studies) != len(experiment.StudyNames()) || len(rep.Splits) == 0 {
		t.Fatalf("report: %d studies on splits %v; want %d on at least dev", len(rep.Studies), rep.Splits, len(experiment.StudyNames()))
	}
	for _, st := range rep.Studies {
		for _, tb := range st.Tables {
			for _, r := range tb.Rows {
				if c := r.Cells["total"]; c.N != 1 {
					t.Errorf("%s on %s, %s: total over %d seeds, want 1", st.Name, tb.Split, r.Label, c.N)
				}
			}
		}
	}
	for _, r := range rep.Runs {
		if !r.Done {
			t.Errorf("run %s not done", r.Name)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Command: `", "CPUs", "## algorithms", "## final", "## The recipe's claims", "## Runs", "online KTO", "GRPO"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) < len(experiment.StudyNames()) {
		t.Errorf("%d plots, want a bar chart per study at least", len(svgs))
	}
	for _, p := range svgs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(f)
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Errorf("%s: %v", p, err)
				break
			}
		}
		f.Close()
	}
	// The rerun finds every run finished: no file in a run's directory
	// is written again.
	stamp := fileTimes(filepath.Join(out, "runs"))
	if _, stderr, code := sqlrl(t, args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	n := checkNotWritten(t, filepath.Join(out, "runs"), stamp)
	t.Logf("%d runs, %d files in their directories", len(rep.Runs), n)
}

// TestExperimentFlywheelQuick runs the main job's -quick preset end to end
// on the generator's tiny benchmark with the real trainers (SFT, online
// KTO with the gate reward, evaluation of both checkpoints): the
// before/after table has every level of every dev split, the stages are
// all done and timed, and the same command again trains and evaluates
// nothing (no file under runs/ is written).
func TestExperimentFlywheelQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains SFT and KTO")
	}
	dir := t.TempDir()
	b := tinyBench(t, dir)
	out := filepath.Join(dir, "flywheel")
	args := []string{"experiment", "flywheel", "-quick", "-q", "-kto-steps", "3", "-out", out, b}
	stdout, stderr, code := sqlrlOS(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep experiment.FlywheelReport
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	if rep.Preset.RL.Steps != 3 || rep.Preset.RL.Algo != "kto" || rep.Preset.RL.Reward.Kind != "gate" || rep.Preset.RL.Augment != 4 {
		t.Errorf("KTO settings %+v; want -kto-steps 3 over the quick preset, kto, gate, x4", rep.Preset.RL)
	}
	if len(rep.Tables) == 0 || len(rep.Tables) != len(rep.Splits) {
		t.Fatalf("%d tables for splits %v; want one per split", len(rep.Tables), rep.Splits)
	}
	for _, tb := range rep.Tables {
		if n := len(tb.Rows); n == 0 || tb.Rows[n-1].Level != "total" {
			t.Errorf("%s: rows %+v; want the levels then total", tb.Split, tb.Rows)
			continue
		}
		total := tb.Rows[len(tb.Rows)-1]
		sum := 0
		for _, r := range tb.Rows[:len(tb.Rows)-1] {
			sum += r.Questions
		}
		if total.Questions == 0 || sum != total.Questions || total.Before.N != 1 || total.After.N != 1 {
			t.Errorf("%s: total %+v over levels of %d questions; want the levels' sum, 1 seed each", tb.Split, total, sum)
		}
		for _, r := range tb.Rows {
			if d := r.After.Mean - r.Before.Mean - r.Delta; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s %s: delta %g, want after - before = %g", tb.Split, r.Level, r.Delta, r.After.Mean-r.Before.Mean)
			}
		}
	}
	kinds := map[string]int{}
	for _, s := range rep.Stages {
		kinds[s.Kind]++
		if !s.Done || s.Seconds <= 0 {
			t.Errorf("stage %s: done %v in %g s; want done and timed", s.Name, s.Done, s.Seconds)
		}
	}
	if kinds["sft"] != 1 || kinds["rl"] != 1 || kinds["eval"] != 2*len(rep.Splits) {
		t.Errorf("stages by kind %v; want 1 sft, 1 rl, 2 evaluations per split", kinds)
	}
	if len(rep.Curves) != 1 || len(rep.Curves[0].Reward) != 3 {
		t.Errorf("curves %+v; want the KTO run's reward at each of 3 steps", rep.Curves)
	}
	// Every evaluation kept its questions, so the two checkpoints are
	// compared question by question on every split, and sqlrl compare
	// reads the same files.
	if len(rep.Flips) != len(rep.Splits) {
		t.Errorf("flips %+v; want one per split", rep.Flips)
	}
	evals, _ := filepath.Glob(filepath.Join(out, "runs", "eval-*", experiment.EvalFile))
	if len(evals) != 2*len(rep.Splits) {
		t.Errorf("%d evaluations kept their questions, want %d", len(evals), 2*len(rep.Splits))
	} else if _, errs, code := sqlrlOS(t, "compare", evals[0], evals[0]); code != 0 {
		t.Errorf("compare on a kept evaluation: %d %s", code, errs)
	}
	for _, want := range []string{"SFT-75 + OKTO", "simple", "moderate", "challenging", "total", "stages in all"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| difficulty | questions | SFT-75 | SFT-75 + OKTO | delta |", "## Stages", "plot-reward.svg"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	stamp := fileTimes(filepath.Join(out, "runs"))
	stdout, stderr, code = sqlrlOS(t, args...)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("(0 now, %d done before)", len(rep.Stages)); !strings.Contains(stdout, want) {
		t.Errorf("rerun: stdout lacks %q:\n%s", want, stdout)
	}
	checkNotWritten(t, filepath.Join(out, "runs"), stamp)

	// -merge 0.5 over the finished runs: the merge and its evaluations
	// only, its weights halfway between KTO's and SFT-75's, its column
	// in the tables.
	if _, stderr, code = sqlrlOS(t, append(args[:len(args)-1:len(args)-1], "-merge", "0.5", b)...); code != 0 {
		t.Fatalf("-merge 0.5: exit %d: %s", code, stderr)
	}
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	ck := map[string]string{}
	for _, s := range rep.Stages {
		if s.Kind != "eval" {
			ck[s.Kind] = filepath.Join(out, "runs", s.ID, experiment.OutDir)
		}
	}
	if len(ck) != 3 || rep.Preset.Merge != 0.5 {
		t.Fatalf("stages %+v; want SFT, RL and a merge", rep.Stages)
	}
	var pol [3]*policy.Policy
	for i, kind := range []string{"sft", "rl", "merge"} {
		p, err := policy.Load(ck[kind])
		if err != nil {
			t.Fatal(err)
		}
		pol[i] = p
	}
	moved := 0
	for i, m := range pol[2].Model.Params {
		s, k := pol[0].Model.Params[i], pol[1].Model.Params[i]
		if want := (s + k) / 2; math.Abs(float64(m-want)) > 1e-6*(1+math.Abs(float64(want))) {
			t.Fatalf("merged param %d = %v; want halfway between SFT-75's %v and KTO's %v", i, m, s, k)
		}
		if s != k {
			moved++
		}
	}
	if moved == 0 {
		t.Error("KTO left every weight where SFT-75 put it: the merge checks nothing")
	}
	for _, tb := range rep.Tables {
		for _, r := range tb.Rows {
			if r.Merged == nil || r.Merged.N != 1 {
				t.Errorf("%s %s: merged %+v; want one seed's EX", tb.Split, r.Level, r.Merged)
			}
		}
	}

	// -sft100-kto over those: SFT-100 and the same KTO from it on train's
	// own questions (fraction 1: no holdout, replay from all of train)
	// train natively and are evaluated on the dev splits, not heldout.
	if _, stderr, code = sqlrlOS(t, append(args[:len(args)-1:len(args)-1], "-merge", "0.5", "-sft100-kto", b)...); code != 0 {
		t.Fatalf("-sft100-kto: exit %d: %s", code, stderr)
	}
	rep = experiment.FlywheelReport{}
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	byKind := map[string]int{}
	for _, s := range rep.Stages {
		if s.Done {
			byKind[s.Kind]++
		}
	}
	if !rep.Preset.SFT100KTO || byKind["sft"] != 2 || byKind["rl"] != 2 {
		t.Fatalf("stages %+v; want SFT-75 and SFT-100, KTO from each, all done", rep.Stages)
	}
	for _, tb := range rep.Tables {
		for _, r := range tb.Rows {
			if got := r.SFT100KTO != nil; got != (tb.Split != "heldout") {
				t.Errorf("%s %s: SFT-100 + OKTO %+v; want a cell on the dev splits only", tb.Split, r.Level, r.SFT100KTO)
			}
		}
	}

	// -kto-rounds 2 over those: one more KTO run, natively from the first
	// round's checkpoint, evaluated on every split.
	if _, stderr, code = sqlrlOS(t, append(args[:len(args)-1:len(args)-1], "-merge", "0.5", "-sft100-kto", "-kto-rounds", "2", b)...); code != 0 {
		t.Fatalf("-kto-rounds 2: exit %d: %s", code, stderr)
	}
	rep = experiment.FlywheelReport{}
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	ids := map[string]string{}
	for _, s := range rep.Stages {
		if !s.Done {
			t.Errorf("stage %s not done", s.Name)
		}
		ids[s.Name] = s.ID
	}
	var cfg experiment.RunConfig
	readJSONFile(t, filepath.Join(out, "runs", ids["okto_r2/seed1"], "config.json"), &cfg)
	if cfg.Kind != experiment.KindRL || cfg.Parent == "" || cfg.Parent != ids["okto/seed1"] {
		t.Fatalf("round 2 %+v (stages %v); want an RL run from the first round %s", cfg, ids, ids["okto/seed1"])
	}
	for _, tb := range rep.Tables {
		for _, r := range tb.Rows {
			if len(r.Rounds) != 1 || r.Rounds[0].Round != 2 || r.Rounds[0].After.N != 1 {
				t.Errorf("%s %s: rounds %+v; want round 2's EX", tb.Split, r.Level, r.Rounds)
			}
		}
	}
}

// TestExperimentFlywheelBadFlags: a setting that cannot train is refused
// before any work, with the usage exit code.
func TestExperimentFlywheelBadFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fw")
	for _, args := range [][]string{
		{"-kto-steps", "0"}, {"-k", "0"}, {"-prompts", "-1"}, {"-kto-lr", "0"}, {"-kto-beta", "-0.1"}, {"-kto-temperature", "0"},
		{"-kto-eval-every", "5", "-kto-eval-n", "0"}, {"-seeds", "x"}, {"-merge", "-0.5"}, {"-merge", "3"}, {"-sft-epochs", "0"}, {"-kto-rounds", "0"},
	} {
		a := append(append([]string{"experiment", "flywheel", "-q", "-out", out}, args...), "no-such-bench")
		_, stderr, code := sqlrl(t, a...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("refused flags left %s: %v", out, err)
	}
}

// tinyBench generates the generator's tiny benchmark into dir/bench.
func tinyBench(t *testing.T, dir string) string {
	t.Helper()
	b := filepath.Join(dir, "bench")
	if _, err := bench.Generate(context.Background(), bench.Options{Preset: "tiny", Seed: 1, Out: b}); err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// fileTimes is the modification time of every file under root.
func fileTimes(root string) map[string]time.Time {
	stamp := map[string]time.Time{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			stamp[p] = fi.ModTime()
		}
		return nil
	})
	return stamp
}

// checkNotWritten fails the test for every file under root that is new
// or written since stamp (fileTimes) and returns how many files there are.
func checkNotWritten(t *testing.T, root string, stamp map[string]time.Time) int {
	t.Helper()
	n := 0
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		n++
		if old, ok := stamp[p]; !ok || !old.Equal(fi.ModTime()) {
			t.Errorf("rerun wrote %s", p)
		}
		return nil
	})
	if n != len(stamp) {
		t.Errorf("rerun: %d files under %s, before %d", n, root, len(stamp))
	}
	return n
}

// TestFlywheelReplayFlag: -replay, -kto-gold-unsolved, -guided=false, -rename and
// -rename-families reach the KTO run's config (a new run, the same SFT-75) and the
// report says so; a negative count or weight, or a rename probability above 1, is
// refused before any work.
func TestFlywheelReplayFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("trains SFT and KTO")
	}
	dir := t.TempDir()
	b := tinyBench(t, dir)
	out := filepath.Join(dir, "fw")
	if _, errs, code := sqlrlOS(t, "experiment", "flywheel", "-quick", "-q", "-replay", "-1", "-out", out, b); code != 2 || !strings.Contains(errs, "-replay") {
		t.Fatalf("-replay -1: code %d, %s", code, errs)
	}
	if _, errs, code := sqlrlOS(t, "experiment", "flywheel", "-quick", "-q", "-kto-gold-unsolved", "-1", "-out", out, b); code != 2 || !strings.Contains(errs, "-kto-gold-unsolved") {
		t.Fatalf("-kto-gold-unsolved -1: code %d, %s", code, errs)
	}
	if _, errs, code := sqlrlOS(t, "experiment", "flywheel", "-quick", "-q", "-rename", "1.5", "-out", out, b); code != 2 || !strings.Contains(errs, "-rename") {
		t.Fatalf("-rename 1.5: code %d, %s", code, errs)
	}
	if _, errs, code := sqlrlOS(t, "experiment", "flywheel", "-quick", "-q", "-rename", "0", "-rename-families", "-out", out, b); code != 2 || !strings.Contains(errs, "-rename-families") {
		t.Fatalf("-rename 0 -rename-families: code %d, %s", code, errs)
	}
	if _, errs, code := sqlrlOS(t, "experiment", "flywheel", "-quick", "-q", "-kto-steps", "2", "-replay", "3", "-kto-gold-unsolved", "2", "-guided=false", "-rename", "0.5", "-rename-families", "-out", out, b); code != 0 {
		t.Fatalf("-replay 3: code %d, %s", code, errs)
	}
	var rep experiment.FlywheelReport
	readJSONFile(t, filepath.Join(out, "report.json"), &rep)
	if rep.Preset.RL.Replay != 3 || rep.Preset.RL.GoldUnsolved != 2 || rep.Preset.RL.Guided || rep.Preset.RL.Rename != 0.5 || !rep.Preset.RL.RenameFamilies {
		t.Errorf("preset RL %+v: want replay 3, gold for the unsolved at 2, unguided, rename 0.5 by families", rep.Preset.RL)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "3 renamed SFT-share examples") || strings.Contains(string(md), "(guided)") || !strings.Contains(string(md), "renamed with probability 0.5") || !strings.Contains(string(md), "(rename families)") || !strings.Contains(string(md), "at weight 2 (gold for the unsolved)") {
		t.Errorf("report.md does not say replay 3, unguided, rename 0.5 by families:\n%s", md)
	}
	var rl string
	for _, s := range rep.Stages {
		if s.Kind == "rl" {
			rl = s.ID
		}
	}
	lines, err := os.ReadFile(filepath.Join(out, "runs", rl, "train", "train_log.jsonl"))
	if err != nil || !strings.Contains(string(lines), "replay_nll") || !strings.Contains(string(lines), "gold_prompts") {
		t.Errorf("the KTO run's log has no replay or no golds: %v", err)
	}
}
