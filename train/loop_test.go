package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// TestSchedule checks the learning rate along a run: linear warmup (5% of
// the run by default, at least one step), then a cosine to LR*MinLRFrac.
func TestSchedule(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Schedule
		step int64
		want float64
	}{
		{"first warmup step", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 0, 0.25},
		{"end of warmup", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 3, 1},
		{"peak", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 4, 1},
		{"half way down", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 52, 0.55},
		{"last step", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 100, 0.1},
		{"past the end", Schedule{LR: 1, MinLRFrac: 0.1, Warmup: 4, Total: 100}, 150, 0.1},
		{"default warmup is 5%", Schedule{LR: 2, MinLRFrac: 0.5, Total: 200}, 4, 1},
		{"default warmup at least a step", Schedule{LR: 2, MinLRFrac: 0.5, Total: 10}, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.At(c.step); math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
				t.Errorf("At(%d) = %v, want %v", c.step, got, c.want)
			}
		})
	}
}

// quadObjective pulls the weights towards a target that moves with the
// step, and keeps a running value of its own (an extra tensor) that a
// resumed run can only continue if the checkpoint carried it.
type quadObjective struct {
	pol    *policy.Policy
	start  []float32 // the weights Start was given
	steps  int64
	run    []float32 // extra state, updated every step
	empty  int64     // this step reports NoUpdate (-1: none)
	fpKey  string    // an extra fingerprint key
	starts int
}

func (q *quadObjective) Fingerprint() map[string]string {
	f := map[string]string{"objective": "quad"}
	if q.fpKey != "" {
		f[q.fpKey] = "x"
	}
	return f
}

func (q *quadObjective) Steps() int64 { return q.steps }

func (q *quadObjective) Start(ctx context.Context, p *policy.Policy) error {
	q.pol = p
	q.start = slices.Clone(p.Model.Params)
	q.run = make([]float32, 3)
	q.starts++
	return nil
}

func (q *quadObjective) Extra() map[string][]float32 { return map[string][]float32{"running": q.run} }

func (q *quadObjective) Step(ctx context.Context, step int64) (StepStats, error) {
	for i := range q.run {
		q.run[i] = 0.5*q.run[i] + float32(step+int64(i))
	}
	if step == q.empty {
		return StepStats{NoUpdate: true}, nil
	}
	m := q.pol.Model
	var loss float64
	for i, p := range m.Params {
		d := p - float32(math.Sin(float64(step)+float64(i)))
		m.Grads[i] += d
		loss += 0.5 * float64(d) * float64(d)
	}
	loss /= float64(len(m.Params))
	return StepStats{Loss: loss, Tokens: 10, Epoch: int(step / 4), Metrics: map[string]float64{"run0": float64(q.run[0])}}, nil
}

// savedPolicy saves a small random policy (the starting point an RL run
// takes from SFT) into dir.
func savedPolicy(t *testing.T, dir string, step int64) {
	t.Helper()
	p := policytest.New(t, policytest.Options{Corpus: []string{"select name from users where id = 1", "select count(*) from orders"}, Vocab: 270,
		Preset: "custom", Config: nn.Config{Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 64}, Format: policy.Format{Kind: policy.FormatCompact}, Seed: 3})
	p.Info.Step = step
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
}

func quadOptions(out, init string) LoopOptions {
	return LoopOptions{Run: Run{Out: out, Init: init, Seed: 1, SaveEvery: 3, Threads: 1}, LoopConfig: LoopConfig{LR: 1e-2, EvalEvery: -1}}
}

func readLogLines(t *testing.T, dir string) []LogLine {
	t.Helper()
	lines, skipped, err := ReadLog(dir)
	if err != nil || skipped != 0 {
		t.Fatalf("read log: %v (%d lines not JSON)", err, skipped)
	}
	return lines
}

// TestLoopInitExtrasResume runs an objective that starts from a checkpoint
// (LoopOptions.Init) and keeps an extra tensor, straight and killed after
// step 7 (last checkpoint at 6): the resumed run must log the same losses
// and metrics and end with the same weights, optimizer step and extra
// tensor; the run is fingerprinted by its starting checkpoint.
func TestLoopInitExtrasResume(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	init := filepath.Join(tmp, "sft")
	savedPolicy(t, init, 42)
	want, err := policy.Load(init)
	if err != nil {
		t.Fatal(err)
	}

	a := filepath.Join(tmp, "a")
	qa := &quadObjective{steps: 12, empty: 4}
	resA, err := Loop(ctx, nil, quadOptions(a, init), qa)
	if err != nil {
		t.Fatal(err)
	}
	if resA.State.Step != 12 || resA.State.AdamStep != 11 {
		t.Errorf("step %d, optimizer step %d: want 12 and 11 (step 5 had no update)", resA.State.Step, resA.State.AdamStep)
	}
	abs, _ := filepath.Abs(init)
	if fp := resA.State.Fingerprint; fp["init"] != abs || fp["init_step"] != "42" || fp["objective"] != "quad" || fp["lr"] != "0.01" {
		t.Errorf("fingerprint %v", fp)
	}

	b := filepath.Join(tmp, "b")
	qb := &quadObjective{steps: 12, empty: 4}
	ob := quadOptions(b, init)
	ob.StopAfter = 7
	if _, err := Loop(ctx, nil, ob, qb); !errors.Is(err, ErrStopped) {
		t.Fatalf("stop: %v", err)
	}
	// the objective starts on the checkpoint's weights, not on fresh ones
	if !slices.Equal(qb.start, want.Model.Params) || qb.pol.Tok.VocabSize() != want.Tok.VocabSize() {
		t.Fatal("the run did not start from the init checkpoint")
	}
	ob.StopAfter = 0
	qb = &quadObjective{steps: 12, empty: 4}
	resB, err := Loop(ctx, nil, ob, qb)
	if err != nil {
		t.Fatal(err)
	}
	la := readLogLines(t, a)
	// the resumed run trimmed step 7's line (after its checkpoint at 6)
	// and logged it once again: one line per step, in order
	raw, err := os.ReadFile(filepath.Join(b, logFile))
	if err != nil {
		t.Fatal(err)
	}
	lb := readLogLines(t, b)
	if len(la) != 12 || len(lb) != 12 || bytes.Count(raw, []byte("\n")) != 12 {
		t.Fatalf("%d and %d log lines (%d in b's file)", len(la), len(lb), bytes.Count(raw, []byte("\n")))
	}
	if la[9].Metrics["run0"] == 0 || la[9].Epoch != 2 {
		t.Errorf("step 10 logged %+v", la[9])
	}
	byStep := map[int64]LogLine{}
	for _, l := range lb {
		byStep[l.Step] = l
	}
	for _, l := range la {
		r := byStep[l.Step]
		if l.Loss != r.Loss || l.LR != r.LR || l.GradNorm != r.GradNorm || l.Metrics["run0"] != r.Metrics["run0"] {
			t.Errorf("step %d: straight %+v, resumed %+v", l.Step, l, r)
		}
	}
	pa, err := policy.Load(resA.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := policy.Load(resB.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pa.Model.Params, pb.Model.Params) || resB.State.AdamStep != resA.State.AdamStep {
		t.Error("final weights or optimizer step differ between the straight and the resumed run")
	}
	if slices.Equal(pa.Model.Params, want.Model.Params) {
		t.Error("the weights did not move")
	}
	if !slices.Equal(qa.run, qb.run) {
		t.Errorf("extra tensor %v straight, %v resumed", qa.run, qb.run)
	}
	saved, err := nn.LoadFloats(filepath.Join(resB.Checkpoint, "running.bin"), 3)
	if err != nil || !slices.Equal(saved, qb.run) {
		t.Errorf("checkpoint's running.bin %v (%v), want %v", saved, err, qb.run)
	}

	// another starting point refuses to resume
	other := filepath.Join(tmp, "other")
	savedPolicy(t, other, 42)
	_, err = Loop(ctx, nil, quadOptions(b, other), &quadObjective{steps: 12, empty: -1})
	if err == nil || !strings.Contains(err.Error(), "init: checkpoint") {
		t.Errorf("resumed from another init checkpoint: %v", err)
	}
}

// TestLoopRefuses lists the runs the loop will not start.
func TestLoopRefuses(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	init := filepath.Join(tmp, "sft")
	savedPolicy(t, init, 1)
	for i, c := range []struct {
		name string
		o    LoopOptions
		q    *quadObjective
		want string
	}{
		{"no init and no fresh policy", quadOptions("", ""), &quadObjective{steps: 2, empty: -1}, "LoopOptions.Init"},
		{"init is not a checkpoint", quadOptions("", filepath.Join(tmp, "nothing")), &quadObjective{steps: 2, empty: -1}, "not a checkpoint"},
		{"objective claims a loop key", quadOptions("", init), &quadObjective{steps: 2, empty: -1, fpKey: "lr"}, `"lr"`},
		{"no learning rate", LoopOptions{Run: Run{Init: init}}, &quadObjective{steps: 2, empty: -1}, "learning rate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.Out = filepath.Join(tmp, fmt.Sprint("run", i))
			_, err := Loop(ctx, nil, c.o, c.q)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// badExtra names its extra tensor after the weights' file.
type badExtra struct{ quadObjective }

func (b *badExtra) Extra() map[string][]float32 { return map[string][]float32{"model": b.run} }

func TestLoopExtraName(t *testing.T) {
	tmp := t.TempDir()
	init := filepath.Join(tmp, "sft")
	savedPolicy(t, init, 1)
	_, err := Loop(context.Background(), nil, quadOptions(filepath.Join(tmp, "run"), init), &badExtra{quadObjective{steps: 2, empty: -1}})
	if err == nil || !strings.Contains(err.Error(), `"model"`) {
		t.Errorf("error %v, want one naming the tensor", err)
	}
}

// timedObjective reports its own update time, as RL does.
type timedObjective struct{ quadObjective }

func (q *timedObjective) Step(ctx context.Context, step int64) (StepStats, error) {
	ss, err := q.quadObjective.Step(ctx, step)
	if ss.Metrics == nil {
		ss.Metrics = map[string]float64{}
	}
	ss.Metrics[MetricUpdateS] = 1
	return ss, err
}

// TestLoopUpdateTime checks that the loop adds its optimizer step to an
// objective's update_s (the objective's 1 s plus some time, on steps
// with and without an update) and adds no update_s to an objective that
// does not split its time.
func TestLoopUpdateTime(t *testing.T) {
	tmp := t.TempDir()
	init := filepath.Join(tmp, "sft")
	savedPolicy(t, init, 1)
	out := filepath.Join(tmp, "timed")
	if _, err := Loop(context.Background(), nil, quadOptions(out, init), &timedObjective{quadObjective{steps: 3, empty: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, l := range readLogLines(t, out) {
		if got := l.Metrics[MetricUpdateS]; !(got > 1) {
			t.Errorf("step %d: update_s %v, want the objective's 1 s plus the optimizer's time", l.Step, got)
		}
	}
	out = filepath.Join(tmp, "plain")
	if _, err := Loop(context.Background(), nil, quadOptions(out, init), &quadObjective{steps: 2, empty: -1}); err != nil {
		t.Fatal(err)
	}
	for _, l := range readLogLines(t, out) {
		if v, ok := l.Metrics[MetricUpdateS]; ok {
			t.Errorf("step %d: update_s %v in the log of an objective that does not report it", l.Step, v)
		}
	}
}
