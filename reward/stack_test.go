package reward

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// fakeEngine is an engine without Check that records Close.
type fakeEngine struct{ closed atomic.Bool }

func (e *fakeEngine) Query(context.Context, string, string) (*sqlexec.Result, error) {
	return nil, errors.New("fake engine runs nothing")
}
func (e *fakeEngine) Close() error { e.closed.Store(true); return nil }

// scriptFunc scores a completion "v<n>" as n, fails on "gold", panics on
// "panic", and waits for its context on "block"; it records how many calls
// run at once.
type scriptFunc struct {
	inflight, peak atomic.Int64
}

func (f *scriptFunc) Reward(ctx context.Context, s Sample) (Score, error) {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(time.Millisecond) // let other calls overlap this one
	switch c := s.Completion; {
	case s.SQL != "":
		return Score{}, fmt.Errorf("SQL %q leaked from the prompt", s.SQL)
	case c == "gold":
		return Score{}, fmt.Errorf("%w on database %q: no such column", ErrGold, s.DBID)
	case c == "panic":
		panic("scorer bug")
	case c == "block":
		<-ctx.Done()
		return Score{}, ctx.Err()
	case strings.HasPrefix(c, "v"):
		v, err := strconv.Atoi(c[1:])
		if err != nil {
			return Score{}, err
		}
		return Score{Value: float64(v), Components: map[string]float64{"v": float64(v)}}, nil
	}
	return Score{}, fmt.Errorf("unexpected completion %q", s.Completion)
}

func newScriptStack(t *testing.T, workers int) (*Stack, *scriptFunc, *fakeEngine) {
	t.Helper()
	e := &fakeEngine{}
	st, err := NewStack(e, StackOptions{Reward: Config{Kind: KindEX}, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	f := &scriptFunc{}
	st.Reward = f
	return st, f, e
}

// TestScoreGroup: scores come back in the completions' order, the first
// failure ends the group with an error naming the completion (a panic
// included), and a canceled caller gets its context's error.
func TestScoreGroup(t *testing.T) {
	prompt := Sample{DBID: "superhero", GoldSQL: "SELECT 1", SQL: "SELECT stale", Completion: "stale"}
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("v%d", i%7)
	}
	tests := []struct {
		name        string
		completions []string
		canceled    bool
		want        []float64
		wantErr     error  // errors.Is
		wantMsg     string // in the error
	}{
		{name: "empty", completions: nil, want: []float64{}},
		{name: "order", completions: []string{"v3", "v1", "v4", "v1", "v5"}, want: []float64{3, 1, 4, 1, 5}},
		{name: "more than the workers", completions: many, want: func() []float64 {
			w := make([]float64, len(many))
			for i := range w {
				w[i] = float64(i % 7)
			}
			return w
		}()},
		{name: "gold fails", completions: []string{"v1", "block", "gold", "block"}, wantErr: ErrGold, wantMsg: "completion 2 of 4"},
		{name: "panic", completions: []string{"block", "panic"}, wantMsg: "completion 1 of 2 on database \"superhero\": internal error: scorer bug"},
		{name: "caller canceled", completions: []string{"v1", "v2"}, canceled: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, _ := newScriptStack(t, 3)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.canceled {
				cancel()
			}
			got, err := st.ScoreGroup(ctx, prompt, tt.completions)
			if tt.wantErr != nil || tt.wantMsg != "" {
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("error %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
				}
				if got != nil {
					t.Errorf("scores %v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d scores, want %d", len(got), len(tt.want))
			}
			for i, sc := range got {
				if sc.Value != tt.want[i] || sc.Components["v"] != tt.want[i] {
					t.Errorf("score %d: %v %v, want %v", i, sc.Value, sc.Components, tt.want[i])
				}
			}
		})
	}
}

// TestScoreGroupWorkers: the workers bound holds over concurrent groups
// together (a trainer scoring several prompts at once).
func TestScoreGroupWorkers(t *testing.T) {
	const workers = 2
	st, f, _ := newScriptStack(t, workers)
	comps := []string{"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.ScoreGroup(context.Background(), Sample{DBID: "d", GoldSQL: "g"}, comps); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := f.peak.Load(); p < 1 || p > workers {
		t.Errorf("%d completions scored at once, want 1..%d", p, workers)
	}
}

// TestStackEngine: a stack built over the caller's engine leaves it open;
// Check asks the engine when it can tell and accepts otherwise.
func TestStackEngine(t *testing.T) {
	st, _, e := newScriptStack(t, 1)
	if err := st.Check("anything"); err != nil {
		t.Errorf("engine without Check: %v", err)
	}
	if err := st.Close(); err != nil || e.closed.Load() {
		t.Errorf("Close closed the caller's engine (%v)", err)
	}
	sq, err := NewSQLiteStack(StackOptions{DBRoot: testkit.BirdSampleDBs(), Reward: Config{Kind: KindEX}})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	if err := sq.Check("superhero"); err != nil {
		t.Errorf("superhero: %v", err)
	}
	var se *sqlexec.Error
	if err := sq.Check("no_such_db"); !errors.As(err, &se) || se.Class != sqlexec.ClassNoDatabase {
		t.Errorf("no_such_db: %v, want a %s error", err, sqlexec.ClassNoDatabase)
	}
	if _, err := NewSQLiteStack(StackOptions{DBRoot: t.TempDir() + "/nope"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("missing root: %v", err)
	}
}

// TestScoreGroupLoadIsNotCached: with the database's one connection held,
// a correct completion times out waiting for it and scores as an error (and
// a gold that must run fails with ErrTransient); once the load is gone the
// same prompt and completion score 1. Neither the memo nor eval's caches
// kept what the load decided.
func TestScoreGroupLoadIsNotCached(t *testing.T) {
	st, err := NewSQLiteStack(StackOptions{DBRoot: testkit.BirdSampleDBs(), QueryTimeout: 200 * time.Millisecond, ConnsPerDB: 1,
		Reward: Config{Kind: KindGate, ErrorValue: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	prompt := Sample{DBID: "superhero", GoldSQL: "SELECT COUNT(*) FROM superhero"}
	other := Sample{DBID: "superhero", GoldSQL: "SELECT COUNT(*) FROM superpower"}
	// Correct, but not the gold up to spacing: it must run to be scored.
	const good = "SELECT count(*) AS n FROM superhero"
	if _, err := st.ScoreGroup(ctx, prompt, []string{"SELECT 1"}); err != nil {
		t.Fatalf("warming the gold: %v", err)
	}
	release := testkit.HoldConn(t, st.Engine.(*sqlexec.SQLite), "superhero")
	scores, err := st.ScoreGroup(ctx, prompt, []string{good, good})
	if err != nil {
		t.Fatalf("under load: %v", err)
	}
	for i, sc := range scores {
		if sc.Value != -1 || sc.Class != string(sqlexec.ClassTimeout) {
			t.Errorf("under load, completion %d: %v %s, want -1 %s", i, sc.Value, sc.Class, sqlexec.ClassTimeout)
		}
	}
	if _, err := st.ScoreGroup(ctx, other, []string{good}); !errors.Is(err, ErrTransient) || !errors.Is(err, ErrGold) {
		t.Errorf("gold under load: %v, want ErrTransient and ErrGold", err)
	}
	release()
	after := []struct {
		prompt Sample
		class  string // and a correct one scores 1
	}{
		{prompt, eval.ClassCorrect},
		{other, eval.ClassWrong},
	}
	for _, a := range after {
		scores, err := st.ScoreGroup(ctx, a.prompt, []string{good})
		if err != nil {
			t.Fatalf("after the load, gold %q: %v", a.prompt.GoldSQL, err)
		}
		if sc := scores[0]; sc.Class != a.class || (a.class == eval.ClassCorrect && sc.Value != 1) {
			t.Errorf("after the load, gold %q: %v %s, want %s", a.prompt.GoldSQL, sc.Value, sc.Class, a.class)
		}
	}
}
