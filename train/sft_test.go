package train

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/bench"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

var benchDir string

// tinyBench generates the benchmark generator's "tiny" preset once.
func tinyBench(t *testing.T) string {
	t.Helper()
	if benchDir != "" {
		return benchDir
	}
	if testing.Short() {
		t.Skip("generates a benchmark")
	}
	dir := filepath.Join(os.TempDir(), "sqlrl-train-test-bench")
	if _, err := os.Stat(filepath.Join(dir, "dev.json")); err != nil {
		os.RemoveAll(dir)
		if _, err := bench.Generate(context.Background(), bench.Options{Preset: "tiny", Seed: 1, Out: dir}); err != nil {
			t.Fatal(err)
		}
	}
	benchDir = dir
	return dir
}

func loadTiny(t *testing.T) *Data {
	d, err := LoadBench(BenchOptions{Dir: tinyBench(t), Seed: 1, Format: policy.Format{Kind: policy.FormatCompact, Types: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	d.Train = d.Train[:48] // 6 steps an epoch at batch 8
	return d
}

func tinyOptions(out string) SFTOptions {
	return SFTOptions{
		Run: Run{Out: out, Seed: 7, SaveEvery: 3},
		SFTConfig: SFTConfig{LoopConfig: LoopConfig{EvalEvery: -1, LR: 3e-3},
			Model: &nn.Config{Dim: 32, Layers: 2, Heads: 2, Hidden: 64, MaxSeq: 1024, PrevToken: true, Copy: true}, VocabSize: 400,
			Epochs: 2, BatchSize: 8},
	}
}

func readLog(t *testing.T, dir string) map[int64]float64 {
	f, err := os.Open(filepath.Join(dir, logFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l LogLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out[l.Step] = l.Loss
	}
	return out
}

// TestKilledRunResumesExactly trains 12 steps straight, and again with a
// simulated kill after step 7 (last checkpoint at step 6); the resumed run
// must repeat step 7 with the same loss and end with identical weights.
func TestKilledRunResumesExactly(t *testing.T) {
	d := loadTiny(t)
	ctx := context.Background()
	a := filepath.Join(t.TempDir(), "a")
	resA, err := SFT(ctx, d, tinyOptions(a))
	if err != nil {
		t.Fatal(err)
	}
	if resA.State.Step != 12 {
		t.Fatalf("ran %d steps, want 12", resA.State.Step)
	}
	b := filepath.Join(t.TempDir(), "b")
	ob := tinyOptions(b)
	ob.StopAfter = 7
	if _, err := SFT(ctx, d, ob); !errors.Is(err, ErrStopped) {
		t.Fatalf("stop: %v", err)
	}
	killed := readLog(t, b)
	ob.StopAfter = 0
	resB, err := SFT(ctx, d, ob)
	if err != nil {
		t.Fatal(err)
	}
	la, lb := readLog(t, a), readLog(t, b)
	if lb[7] != killed[7] {
		t.Errorf("step 7 loss before kill %v, after resume %v", killed[7], lb[7])
	}
	for s := int64(1); s <= 12; s++ {
		if la[s] != lb[s] {
			t.Errorf("step %d: loss %v straight, %v resumed", s, la[s], lb[s])
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
	if !slices.Equal(pa.Model.Params, pb.Model.Params) {
		t.Error("final weights differ between the straight and the resumed run")
	}
	if la[12] >= la[1] {
		t.Errorf("loss did not fall: %v -> %v", la[1], la[12])
	}
	// a different setting refuses to resume
	oc := tinyOptions(b)
	oc.LR = 1e-3
	if _, err := SFT(ctx, d, oc); err == nil {
		t.Error("resumed a run with another learning rate")
	}
}

// TestDevEval runs the evaluation path: greedy decoding of dev questions
// scored by execution.
func TestDevEval(t *testing.T) {
	d := loadTiny(t)
	o := tinyOptions(t.TempDir())
	o.MaxSteps, o.EvalEvery, o.EvalN = 2, 0, 6
	res, err := SFT(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.LastEval == nil || res.LastEval.N != 6 {
		t.Fatalf("eval %+v", res.LastEval)
	}
}

// TestGroupsShareSchemas checks an epoch's plan with groups: every batch
// holds every example once, questions on one database come in runs that
// share their schema tokens, and the shared part is the prompt's schema.
func TestGroupsShareSchemas(t *testing.T) {
	d := loadTiny(t)
	o := tinyOptions(filepath.Join(t.TempDir(), "g"))
	o.Group = 4
	o.defaults()
	tr := newSFT(d, o)
	planEpoch(t, tr, 0)
	if len(tr.plan) != tr.nb {
		t.Fatalf("%d batches, want %d", len(tr.plan), tr.nb)
	}
	n, shared, runs := 0, 0, 0
	for _, b := range tr.plan {
		for i, s := range b {
			n++
			if s.Shared == 0 {
				continue
			}
			shared++
			if i == 0 || b[i-1].Shared != s.Shared || !slices.Equal(b[i-1].Tokens[:s.Shared], s.Tokens[:s.Shared]) {
				runs++
			}
			prompt := tr.pol.Tok.Decode(s.Tokens[:s.PromptLen])
			if head := tr.pol.Tok.Decode(s.Tokens[:s.Shared]); !strings.HasSuffix(head, "\n") || !strings.HasPrefix(prompt[len(head):], "question: ") {
				t.Fatalf("shared part is not the schema: %q", head)
			}
		}
	}
	if n != len(d.Train)-tr.skipped || shared < n*9/10 {
		t.Fatalf("%d sequences, %d with a shared schema (of %d examples)", n, shared, len(d.Train))
	}
	if runs > shared/2 {
		t.Errorf("%d runs of shared schemas for %d sequences: groups do not share", runs, shared)
	}
}

// planEpoch starts tr on a new policy and plans epoch e, as the loop
// does before the epoch's first step.
func planEpoch(t *testing.T, tr *sft, e int) {
	t.Helper()
	pol, err := tr.NewPolicy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background(), pol); err != nil {
		t.Fatal(err)
	}
	if err := tr.epochPlan(context.Background(), e); err != nil {
		t.Fatal(err)
	}
}
