package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/train"
)

// fakeBench writes the files an experiment looks at: question files that
// fingerprint it and the split layout.
func fakeBench(t *testing.T, splits ...string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train.json", `[{"question_id": 1}]`)
	write("train_tables.json", `[]`)
	for _, s := range append([]string{"train"}, splits...) {
		if err := os.MkdirAll(filepath.Join(dir, s+"_databases"), 0o755); err != nil {
			t.Fatal(err)
		}
		if s != "train" {
			write(s+".json", `[{"question_id": 2}]`)
			write(s+"_tables.json", `[]`)
		}
	}
	return dir
}

// fake is a Trainer whose results are a deterministic function of the
// run's config; it counts its calls and can fail once at a given call.
type fake struct {
	mu     sync.Mutex
	calls  map[string]int // by kind
	failAt int            // fail the failAt-th call (1-based), once
	n      int
}

func (f *fake) Do(ctx context.Context, j Job) (*Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	if f.n == f.failAt {
		return nil, context.Canceled
	}
	f.calls[j.Config.Kind]++
	h := fnv.New64a()
	h.Write(j.Config.Canonical())
	u := h.Sum64()
	frac := func(i uint) float64 { return float64((u>>(8*i))&0xff) / 255 }
	switch j.Config.Kind {
	case KindEval:
		// The parent's identity decides the score, so that seeds differ
		// and arms differ.
		h := fnv.New64a()
		h.Write([]byte(j.Config.Parent + j.Config.Eval.Split))
		u = h.Sum64()
		// and the questions, kept as the native trainer keeps them
		rep := &eval.Report{}
		for q := range 10 {
			lv := []string{"simple", "simple", "simple", "simple", "simple", "simple", "moderate", "moderate", "moderate", "challenging"}[q]
			ok := u>>(q+32)&1 == 1
			rep.Questions = append(rep.Questions, eval.QuestionResult{QuestionID: q, Difficulty: lv, Outcome: eval.Outcome{Correct: ok, Class: map[bool]string{true: "correct", false: "wrong_result"}[ok]}})
		}
		if err := os.MkdirAll(j.Dir, 0o755); err != nil {
			return nil, err
		}
		if err := writeEvalFile(j.Dir, rep); err != nil {
			return nil, err
		}
		return &Result{Seconds: 2, Score: &Score{N: 10, EX: 0.3 + 0.4*frac(0),
			Levels: map[string]float64{"simple": 0.4 + 0.5*frac(1), "moderate": 0.2 + 0.5*frac(2), "challenging": 0.5 * frac(3)},
			Counts: map[string]int{"simple": 6, "moderate": 3, "challenging": 1}}}, nil
	case KindRL:
		if j.ParentOut == "" {
			return nil, errors.New("rl without a parent")
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(j.ParentOut), ResultFile)); err != nil {
			return nil, fmt.Errorf("rl before its parent finished: %w", err)
		}
		var log bytes.Buffer
		for s := 1; s <= j.Config.RL.Steps; s++ {
			l := map[string]any{"step": s, "loss": 1, "metrics": map[string]float64{"reward_mean": 0.1*float64(s) + 0.2*frac(uint(s%8))}}
			if s%2 == 0 {
				l["eval"] = map[string]any{"ex": 0.2 + 0.1*frac(uint(s%8))}
			}
			b, _ := json.Marshal(l)
			log.Write(append(b, '\n'))
		}
		if err := os.MkdirAll(j.Out, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(j.Out, "train_log.jsonl"), log.Bytes(), 0o644); err != nil {
			return nil, err
		}
		return &Result{Steps: int64(j.Config.RL.Steps), Seconds: float64(10 + u%50)}, nil
	case KindMerge:
		// the RL run it merges and that run's own start, both finished
		for _, out := range []string{j.ParentOut, j.StartOut} {
			if _, err := os.Stat(filepath.Join(filepath.Dir(out), ResultFile)); out == "" || err != nil {
				return nil, fmt.Errorf("merge of %q and %q before both finished: %v", j.ParentOut, j.StartOut, err)
			}
		}
		return &Result{Seconds: 1}, nil
	}
	return &Result{Steps: 100, Seconds: float64(100 + u%100)}, nil
}

func fixedOptions(bench, out string, tr Trainer) Options {
	p := Quick()
	p.RL.Steps = 4
	return Options{Out: out, Bench: bench, Preset: p, Seeds: []uint64{1, 2, 3}, Trainer: tr,
		Command: "sqlrl experiment okto -quick -seeds 1,2,3 BENCH", Machine: &Machine{CPUs: 2, GOARCH: "amd64", GOOS: "linux"},
		Now: func() time.Time { return time.Unix(0, 0) }}
}

func TestConfigIDStableAndSensitive(t *testing.T) {
	p := Quick()
	base := func() RunConfig {
		s := p.SFT
		s.Fraction = 0.75
		return RunConfig{Kind: KindSFT, Bench: "abc", Seed: 1, SplitSeed: 1, SFT: &s}
	}
	id := base().ID()
	// Stable: the same config, built again, and a golden value (a change
	// of the canonical JSON would orphan every cached run).
	if got := base().ID(); got != id {
		t.Fatalf("ID changed between two builds of one config: %s, %s", id, got)
	}
	if want := "sft-"; !strings.HasPrefix(id, want) || len(id) != len(want)+12 {
		t.Fatalf("ID %q: want sft- and 12 hex digits", id)
	}
	testkit.Golden(t, "testdata/config_id.txt", []byte(id+"\n"+string(base().Canonical())+"\n"))
	for _, tc := range []struct {
		name   string
		change func(c *RunConfig)
	}{
		{"seed", func(c *RunConfig) { c.Seed = 2 }},
		{"bench", func(c *RunConfig) { c.Bench = "abd" }},
		{"split seed", func(c *RunConfig) { c.SplitSeed = 2 }},
		{"fraction", func(c *RunConfig) { c.SFT.Fraction = 1 }},
		{"epochs", func(c *RunConfig) { c.SFT.Epochs++ }},
		{"model width", func(c *RunConfig) { c.SFT.Model.Dim = 64 }},
		{"lr", func(c *RunConfig) { c.SFT.LR *= 1.0000001 }},
		{"parent", func(c *RunConfig) { c.Parent = "sft-000000000000" }},
		{"kind", func(c *RunConfig) { c.Kind = KindRL }},
	} {
		c := base()
		m := *c.SFT.Model
		c.SFT.Model = &m
		tc.change(&c)
		if c.ID() == id {
			t.Errorf("%s: changing it left the ID %s", tc.name, id)
		}
		if base().ID() != id {
			t.Fatalf("%s: the change reached the shared preset", tc.name)
		}
	}
}

// TestConfigIDErrorValue: the gate's value for failed SQL is part of an
// RL run's identity when set, and absent (the IDs of runs made before the
// option, pinned by the golden reports' stage tables) at 0.
func TestConfigIDErrorValue(t *testing.T) {
	r := Flywheel().RL
	c := RunConfig{Kind: KindRL, Bench: "abc", Seed: 1, SplitSeed: 1, Parent: "sft-000000000000", RL: &r}
	id := c.ID()
	if strings.Contains(string(c.Canonical()), "error_value") {
		t.Errorf("canonical config %s names error_value at 0", c.Canonical())
	}
	r2 := r
	r2.Reward.ErrorValue = -1
	c.RL = &r2
	if c.ID() == id {
		t.Errorf("error value -1 left the ID %s", id)
	}
}

func TestDevSplits(t *testing.T) {
	for _, tc := range []struct {
		splits []string
		want   string
	}{
		{[]string{"dev"}, "dev"},
		{[]string{"dev_id", "dev_compositional", "dev"}, "dev dev_compositional dev_id"},
		{[]string{"a"}, "a"},
	} {
		got, err := DevSplits(fakeBench(t, tc.splits...))
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%v: got %v, %v; want %s", tc.splits, got, err, tc.want)
		}
	}
	// A json without databases is not a split; no split is an error.
	dir := fakeBench(t)
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte("{}"), 0o644)
	if got, err := DevSplits(dir); err == nil {
		t.Errorf("no split: got %v, want an error", got)
	}
}

func TestPlanSharesRuns(t *testing.T) {
	pl, err := NewPlan(Quick(), "fp", []uint64{1, 2, 3}, []string{"dev", "dev_id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range pl.Runs {
		count[r.Config.Kind]++
	}
	// Per seed: SFT-75 and SFT-100; RL: 7 algorithms (online KTO is the
	// recipe) + RL on seen data + x1 + exec + judge = 11; evaluations:
	// 13 models x 2 splits.
	want := map[string]int{KindSFT: 2 * 3, KindRL: 11 * 3, KindEval: 13 * 3 * 2}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s runs: %d, want %d", k, count[k], n)
		}
	}
	// The recipe's run is one run in every study that shows it.
	var okto []*Run
	for _, st := range pl.Studies {
		for _, a := range st.Arms {
			if a.Key == "okto" {
				okto = append(okto, a.Models[0])
			}
		}
	}
	if len(okto) != 5 {
		t.Fatalf("okto in %d studies, want 5", len(okto))
	}
	for _, r := range okto[1:] {
		if r != okto[0] {
			t.Errorf("okto planned twice: %s and %s", okto[0].ID, r.ID)
		}
	}
	// Parents come before their children.
	pos := map[string]int{}
	for i, r := range pl.Runs {
		pos[r.ID] = i
		if r.Parent != nil {
			if j, ok := pos[r.Parent.ID]; !ok || j > i {
				t.Errorf("%s runs before its parent %s", r.Name, r.Parent.Name)
			}
		}
	}
	if _, err := NewPlan(Quick(), "fp", nil, []string{"dev"}, []string{"nope"}); err == nil {
		t.Error("unknown study: want an error")
	}
}

func TestExecuteCachesAndResumes(t *testing.T) {
	bench, out := fakeBench(t, "dev"), t.TempDir()
	// The second call is interrupted: the first run is kept, the
	// experiment stops and says how to resume.
	f := &fake{failAt: 2}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := fixedOptions(bench, out, f)
	_, err := Execute(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("interrupted: got %v, want an error that says how to resume", err)
	}
	if f.n != 2 {
		t.Fatalf("trainer called %d times before the interruption, want 2", f.n)
	}
	d, err := Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	total := len(d.Plan.Runs)
	if d.Cached != 1 || d.Ran != total-1 {
		t.Fatalf("after an interruption: %d cached, %d ran; want 1 and %d", d.Cached, d.Ran, total-1)
	}
	calls := f.n
	var log bytes.Buffer
	o.Progress = &log
	d, err = Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if f.n != calls || d.Ran != 0 || d.Cached != total {
		t.Fatalf("rerun of a finished experiment: %d trainer calls, %d ran, %d cached; want none, 0, %d", f.n-calls, d.Ran, d.Cached, total)
	}
	if !strings.Contains(log.String(), fmt.Sprintf("[%d/%d]", total, total)) {
		t.Errorf("progress has no line for the last run:\n%s", log.String())
	}
	// A changed setting reruns what depends on it and nothing else: a
	// different RL step count redoes the RL runs and their evaluations.
	o.Preset.RL.Steps = 5
	o.Progress = nil
	before := map[string]int{}
	for k, v := range f.calls {
		before[k] = v
	}
	if _, err := Execute(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if f.calls[KindSFT] != before[KindSFT] || f.calls[KindRL]-before[KindRL] != 33 || f.calls[KindEval]-before[KindEval] != 33 {
		t.Errorf("after changing RL steps: %d SFT, %d RL, %d eval calls; want 0, 33, 33",
			f.calls[KindSFT]-before[KindSFT], f.calls[KindRL]-before[KindRL], f.calls[KindEval]-before[KindEval])
	}
}

func TestReportGolden(t *testing.T) {
	bench, out := fakeBench(t, "dev", "dev_id"), t.TempDir()
	if _, err := Execute(context.Background(), fixedOptions(bench, out, &fake{})); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/report.md", md)
	var rep Report
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Studies) != 5 || len(rep.Studies[0].Tables) != 2 || len(rep.Claims) == 0 || len(rep.Curves) != 21 {
		t.Errorf("report.json: %d studies, %d tables in the first, %d claims, %d curves; want 5, 2, some, 21",
			len(rep.Studies), len(rep.Studies[0].Tables), len(rep.Claims), len(rep.Curves))
	}
	// Every plot the report names exists and parses as SVG.
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) != 5*2+2 {
		t.Errorf("%d plots, want %d", len(svgs), 5*2+2)
	}
	for _, p := range svgs {
		if !strings.Contains(string(md), filepath.Base(p)) {
			t.Errorf("report.md does not show %s", filepath.Base(p))
		}
		checkSVG(t, p)
	}
}

func checkSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	root, shapes := "", 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "polyline" || se.Name.Local == "rect" {
				shapes++
			}
		}
	}
	if root != "svg" || shapes < 2 {
		t.Errorf("%s: root %q with %d shapes; want svg with some", path, root, shapes)
	}
}

func TestStat(t *testing.T) {
	for _, tc := range []struct {
		xs                   []float64
		mean, std, min, max_ float64
	}{
		{[]float64{50}, 50, 0, 50, 50},
		{[]float64{40, 50, 60}, 50, 10, 40, 60},
		{[]float64{1, 2}, 1.5, 0.7071067811865476, 1, 2},
	} {
		s := stat(tc.xs)
		tol := 1e-12 * 100 * float64(len(tc.xs))
		for _, c := range [][2]float64{{s.Mean, tc.mean}, {s.Std, tc.std}, {s.Min, tc.min}, {s.Max, tc.max_}} {
			if d := c[0] - c[1]; d > tol || d < -tol {
				t.Errorf("stat(%v) = %+v, want mean %g std %g range %g-%g", tc.xs, s, tc.mean, tc.std, tc.min, tc.max_)
				break
			}
		}
	}
}

// TestPlanHeldOut: an RL pool above the SFT share adds the split "heldout",
// evaluated with the pool's share for the models that never saw it (the
// SFT-75 start and RL on the holdout at that pool) and for no other (SFT-100
// and RL on seen data trained on it); the holdout study's RL on seen data
// keeps its config (no pool). Shares outside (SFT share, 1) are refused.
func TestPlanHeldOut(t *testing.T) {
	p := Quick()
	p.RL.Pool = PoolFor(p.RL.Fraction, 0.5)
	if p.RL.Pool != 0.875 || HeldOutShare(p.RL) != 0.5 {
		t.Fatalf("pool %v, held-out share %v; want 0.875 and 0.5", p.RL.Pool, HeldOutShare(p.RL))
	}
	pl, err := NewPlan(p, "fp", []uint64{1}, []string{"dev"}, []string{"holdout", "final"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Splits) != 2 || pl.Splits[1] != train.DevHeldOut {
		t.Fatalf("splits %v; want dev, heldout", pl.Splits)
	}
	held := map[string]bool{}
	for _, r := range pl.Runs {
		if r.Config.Kind == KindEval && r.Config.Eval.Split == train.DevHeldOut {
			if r.Config.Eval.HeldOut != 0.875 {
				t.Errorf("%s: held-out share %v", r.Name, r.Config.Eval.HeldOut)
			}
			held[r.Parent.Name] = true
		}
		if r.Config.Kind == KindRL && r.Config.RL.On == "train" && r.Config.RL.Pool != 0 {
			t.Errorf("%s: RL on seen data with pool %v", r.Name, r.Config.RL.Pool)
		}
	}
	want := map[string]bool{"sft75/seed1": true, "okto/seed1": true}
	if len(held) != len(want) || !held["sft75/seed1"] || !held["okto/seed1"] {
		t.Errorf("evaluated on heldout: %v; want %v", held, want)
	}
	for _, pool := range []float64{0.75, 0.5, 1} {
		q := Quick()
		q.RL.Pool = pool
		if _, err := NewPlan(q, "fp", []uint64{1}, []string{"dev"}, nil); err == nil {
			t.Errorf("pool %v accepted", pool)
		}
	}
}

// TestEvalIDFollowsDecoder: while the decoder is at version 1 an
// evaluation's config is that of the configs written before
// EvalConfig.Decoder (the cache stays valid); a later version changes the
// ID of every evaluation the plan holds and of no training run, so that a
// changed guide redoes the cached evaluations and nothing else.
func TestEvalIDFollowsDecoder(t *testing.T) {
	ids := func(v int) (evals, models map[string]string) {
		old := decodeVersion
		decodeVersion = v
		defer func() { decodeVersion = old }()
		pl, err := NewPlan(Quick(), "fp", []uint64{1}, []string{"dev"}, []string{"final"})
		if err != nil {
			t.Fatal(err)
		}
		evals, models = map[string]string{}, map[string]string{}
		for _, r := range pl.Runs {
			if r.Config.Kind == KindEval {
				evals[r.Name] = r.ID
				if v == 1 && !strings.Contains(string(r.Config.Canonical()), `"eval":{"split":"dev","n":4,"guide":true}`) {
					t.Errorf("version 1 changed the canonical config: %s", r.Config.Canonical())
				}
			} else {
				models[r.Name] = r.ID
			}
		}
		return evals, models
	}
	e1, m1 := ids(1)
	e2, m2 := ids(2)
	if len(e1) == 0 || len(e1) != len(e2) {
		t.Fatalf("%d and %d evaluations", len(e1), len(e2))
	}
	for name, id := range e1 {
		if e2[name] == id {
			t.Errorf("%s: version 2 left its ID %s", name, id)
		}
	}
	for name, id := range m1 {
		if m2[name] != id {
			t.Errorf("%s: the decoder version changed a training run's ID", name)
		}
	}
}

// onceTrainer counts the runs it is handed by ID, each taking a moment,
// so that two experiments on one directory overlap.
type onceTrainer struct {
	inner Trainer
	mu    sync.Mutex
	byID  map[string]int
}

func (o *onceTrainer) Do(ctx context.Context, j Job) (*Result, error) {
	o.mu.Lock()
	o.byID[j.ID]++
	o.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	return o.inner.Do(ctx, j)
}

// TestConcurrentExperimentsShareRuns runs two experiments on one
// directory at once: every run is trained once in all (the other process
// waits on its lock and finds the result), and both finish with every
// run's result.
func TestConcurrentExperimentsShareRuns(t *testing.T) {
	bench, out := fakeBench(t, "dev"), t.TempDir()
	tr := &onceTrainer{inner: &fake{}, byID: map[string]int{}}
	var wg sync.WaitGroup
	dones := make([]*Done, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dones[i], errs[i] = Execute(context.Background(), fixedOptions(bench, out, tr))
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("experiment %d: %v", i, errs[i])
		}
		if dones[i].Ran+dones[i].Cached != len(dones[i].Plan.Runs) {
			t.Errorf("experiment %d: ran %d, cached %d of %d runs", i, dones[i].Ran, dones[i].Cached, len(dones[i].Plan.Runs))
		}
	}
	for id, n := range tr.byID {
		if n != 1 {
			t.Errorf("run %s trained %d times", id, n)
		}
	}
	if len(tr.byID) != len(dones[0].Plan.Runs) || dones[0].Ran+dones[1].Ran != len(dones[0].Plan.Runs) {
		t.Errorf("%d runs trained, %d + %d ran, of %d planned", len(tr.byID), dones[0].Ran, dones[1].Ran, len(dones[0].Plan.Runs))
	}
}

// TestGains: an arm's gain over its SFT start is paired by seed, over the
// seeds both evaluated, and a merge arm's start is found through its RL
// arm.
func TestGains(t *testing.T) {
	results := map[string]*Result{}
	model := func(arm string, seed uint64, ex float64) *Run {
		id := fmt.Sprintf("eval-%s-%d", arm, seed)
		if ex >= 0 {
			results[id] = &Result{Score: &Score{N: 10, EX: ex, Levels: map[string]float64{"simple": ex}, Counts: map[string]int{"simple": 10}}}
		}
		return &Run{Config: RunConfig{Seed: seed}, Evals: map[string]*Run{"dev": {ID: id}}}
	}
	sft := Arm{Key: "sft75", Models: []*Run{model("sft", 1, 0.40), model("sft", 2, 0.60), model("sft", 3, 0.50)}}
	// Seed 3's RL evaluation has not finished; seed 1 comes second.
	rl := Arm{Key: "okto", Start: "sft75", Models: []*Run{model("rl", 2, 0.63), model("rl", 1, 0.45), model("rl", 3, -1)}}
	merged := Arm{Key: "okto_merged", Start: "okto", Models: []*Run{model("m", 1, 0.41)}}
	rep := &Report{arms: map[string]Arm{"sft75": sft, "okto": rl, "okto_merged": merged}}

	for _, tc := range []struct {
		arm            Arm
		n              int
		mean, min, max float64
	}{
		{rl, 2, 4, 3, 5},
		{merged, 1, 1, 1, 1},
	} {
		start, ok := rep.sftStart(tc.arm)
		if !ok || start.Key != "sft75" {
			t.Fatalf("%s: start %q, %v; want sft75", tc.arm.Key, start.Key, ok)
		}
		for _, level := range []string{"total", "simple"} {
			g := gains(start, tc.arm, "dev", results)[level]
			if g.N != tc.n || math.Abs(g.Mean-tc.mean) > 1e-9 || math.Abs(g.Min-tc.min) > 1e-9 || math.Abs(g.Max-tc.max) > 1e-9 {
				t.Errorf("%s %s: gain %+v; want n %d, mean %g [%g, %g]", tc.arm.Key, level, g, tc.n, tc.mean, tc.min, tc.max)
			}
		}
	}
	if _, ok := rep.sftStart(sft); ok {
		t.Error("the SFT arm has a start")
	}
	if got := gainText(Stat{N: 2, Mean: -1.5, Std: 0.7, Min: -2, Max: -1}); got != "-1.5 ± 0.7 [-2.0, -1.0] (2)" {
		t.Errorf("gainText: %q", got)
	}
}

// TestRunsRecordCPU: every run's result.json records the CPU it finished
// on, and a report assembled on another CPU from those cached runs says
// where they ran (its machine line is the invocation's own).
func TestRunsRecordCPU(t *testing.T) {
	bench, out := fakeBench(t, "dev"), t.TempDir()
	o := fixedOptions(bench, out, &fake{})
	o.Machine = &Machine{CPUs: 2, CPU: "CPU A", GOARCH: "amd64", GOOS: "linux"}
	d, err := Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Plan.Runs {
		res, err := readResult(filepath.Join(out, "runs", r.ID))
		if err != nil {
			t.Fatal(err)
		}
		if res.CPU != "CPU A" {
			t.Fatalf("%s: result CPU %q, want %q", r.Name, res.CPU, "CPU A")
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "another CPU") {
		t.Errorf("report on the runs' own CPU names another:\n%s", md)
	}
	o.Machine = &Machine{CPUs: 2, CPU: "CPU B", GOARCH: "amd64", GOOS: "linux"}
	if d, err = Execute(context.Background(), o); err != nil || d.Ran != 0 {
		t.Fatalf("rerun: %v, %d runs redone; want all cached", err, d.Ran)
	}
	if md, err = os.ReadFile(filepath.Join(out, "report.md")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Machine: 2 CPUs (CPU B)") || !strings.Contains(string(md), "Finished on another CPU (CPU A)") {
		t.Errorf("report on CPU B of runs from CPU A does not say so:\n%s", md)
	}
}
