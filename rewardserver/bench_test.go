package rewardserver

import (
	"context"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/reward"
)

const sampleDir = "../datasets/bird-dev-sample"

func loadSample(t testing.TB) *dataset.Benchmark {
	t.Helper()
	b, err := dataset.Load(sampleDir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBench runs the load bench briefly over the whole BIRD sample: 64
// clients, K=8, a 2 s load phase. Timings are logged, not asserted (this
// machine is shared); correctness is: no errors, nothing lost, the same
// rewards on every pass, and a repeated completion costs no execution.
func TestBench(t *testing.T) {
	b := loadSample(t)
	rep, err := Bench(context.Background(), BenchOptions{
		Examples: b.Examples, Stack: reward.StackOptions{DBRoot: b.DBRoot, Reward: reward.Config{Kind: reward.KindGate, ErrorValue: -1}},
		Clients: 64, K: 8, Duration: 2 * time.Second, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteText(testWriter{t})
	l := rep.Load
	if l.Errors != 0 || l.Lost != 0 || l.Mismatches != 0 || l.Requests == 0 || l.ServerAnswered != l.Requests {
		t.Errorf("load: %+v", l)
	}
	if rep.Completions != 8*len(b.Examples) {
		t.Errorf("%d completions, want %d", rep.Completions, 8*len(b.Examples))
	}
	if rep.Executions > int64(rep.Distinct) {
		t.Errorf("the server executed %d queries for %d distinct ones: repeats were re-executed", rep.Executions, rep.Distinct)
	}
	if rep.Ratio <= 0 || l.P99MS < l.P50MS || l.CompletionsPerS <= 0 {
		t.Errorf("report %+v", rep)
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
