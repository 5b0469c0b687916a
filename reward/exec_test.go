package reward

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/sqlexec"
)

const sampleRoot = "../datasets/bird-dev-sample/dev_databases"

func newScorer(t testing.TB, keep bool) (*eval.Scorer, *sqlexec.SQLite) {
	t.Helper()
	e := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	t.Cleanup(func() { e.Close() })
	return &eval.Scorer{Engine: e, Mode: eval.ModeBIRD, CachePredictions: true, KeepResults: keep}, e
}

// forEach runs fn(i) for i in [0, n) on a few goroutines.
func forEach(n int, fn func(i int)) {
	parallel.For(context.Background(), n, 4, func(_ context.Context, i int) error { fn(i); return nil })
}

// TestExecAgreesWithOfficialEX checks every scheme on all 2,296 pairs the
// official BIRD evaluator judged: the top value exactly when EX = 1, and
// the scheme's value for wrong answers and errors otherwise.
func TestExecAgreesWithOfficialEX(t *testing.T) {
	pairs := testkit.Official(t, "bird_ex.jsonl")
	sc, _ := newScorer(t, false)
	type got struct {
		score Score
		err   error
	}
	res := make([]got, len(pairs))
	mats := &Exec{Scorer: sc, Scheme: SchemeMATS}
	forEach(len(pairs), func(i int) {
		p := pairs[i]
		s, err := mats.Reward(context.Background(), Sample{DBID: p.DBID, GoldSQL: p.Gold, Completion: p.Pred})
		res[i] = got{s, err}
	})
	for i, p := range pairs {
		r := res[i]
		if r.err != nil {
			t.Fatalf("pair %d: %v", i, r.err)
		}
		if (r.score.Value == 1) != (p.EX == 1) || r.score.Components["ex"] != float64(p.EX) {
			t.Errorf("pair %d (%s): reward %v (%s), official EX %d", i, p.Kind, r.score.Value, r.score.Class, p.EX)
		}
		// The other schemes are functions of the same verdict.
		out := eval.Outcome{Correct: r.score.Class == eval.ClassCorrect, Class: r.score.Class}
		for _, scheme := range Schemes() {
			v := scheme.Value(out)
			if (v == 1) != (p.EX == 1) && scheme != SchemeBinary {
				t.Errorf("pair %d: scheme %s gives %v for EX %d", i, scheme, v, p.EX)
			}
		}
	}
}

func TestSchemeValues(t *testing.T) {
	correct := eval.Outcome{Correct: true, Class: eval.ClassCorrect}
	wrong := eval.Outcome{Class: eval.ClassWrong}
	failed := eval.Outcome{Class: string(sqlexec.ClassSyntax)}
	nosql := eval.Outcome{Class: ClassNoSQL}
	tests := []struct {
		scheme                   Scheme
		correct, wrong, err, non float64
	}{
		{SchemeBinary, 1, 1, 0, 0},
		{SchemeEX, 1, 0, 0, 0},
		{SchemeArctic, 1, 0.1, 0, 0},
		{SchemeMATS, 1, 0, -1, -1},
	}
	for _, tt := range tests {
		got := []float64{tt.scheme.Value(correct), tt.scheme.Value(wrong), tt.scheme.Value(failed), tt.scheme.Value(nosql)}
		want := []float64{tt.correct, tt.wrong, tt.err, tt.non}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: values %v, want %v", tt.scheme, got, want)
				break
			}
		}
	}
}

// TestExecEdgeCases covers completions that must be scored, not crash or
// cheat: no SQL (never executed: an empty statement "returns" no rows and
// would match an empty gold), writes, and a missing gold database.
func TestExecEdgeCases(t *testing.T) {
	sc, _ := newScorer(t, false)
	ctx := context.Background()
	const emptyGold = "SELECT id FROM superhero WHERE id < 0"
	ex := &Exec{Scorer: sc, Scheme: SchemeMATS}
	tests := []struct {
		name, completion string
		class            string
		value            float64
	}{
		{"no sql vs empty gold", "I don't know.", ClassNoSQL, -1},
		{"comment only", "```sql\n-- nothing\n```", ClassNoSQL, -1},
		{"matching empty result", "SELECT id FROM superhero WHERE id < -5", eval.ClassCorrect, 1},
		{"write attempt", "DELETE FROM superhero", string(sqlexec.ClassNotReadOnly), -1},
		{"cte write", "WITH x AS (SELECT 1) DELETE FROM superhero", string(sqlexec.ClassNotReadOnly), -1},
		{"two statements", "SELECT 1; SELECT 2", string(sqlexec.ClassMultiple), -1},
	}
	for _, tt := range tests {
		s, err := ex.Reward(ctx, Sample{DBID: "superhero", GoldSQL: emptyGold, Completion: tt.completion})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.Class != tt.class || s.Value != tt.value {
			t.Errorf("%s: class %q value %v, want %q %v", tt.name, s.Class, s.Value, tt.class, tt.value)
		}
	}
	_, err := ex.Reward(ctx, Sample{DBID: "no_such_db", GoldSQL: "SELECT 1", Completion: "SELECT 1"})
	if !errors.Is(err, ErrGold) {
		t.Errorf("missing database: err %v, want ErrGold", err)
	}
	_, err = ex.Reward(ctx, Sample{DBID: "superhero", GoldSQL: "SELECT nope FROM superhero", Completion: "SELECT 1"})
	if !errors.Is(err, ErrGold) {
		t.Errorf("broken gold: err %v, want ErrGold", err)
	}
}

// spikeEngine times the first run of gold as if a CPU spike had made it
// take spike longer, and makes every other query take slow (ending early
// when its context does).
type spikeEngine struct {
	sqlexec.Engine
	gold        string
	spike, slow time.Duration
	spiked      atomic.Bool
}

func (e *spikeEngine) Query(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	if sql != e.gold {
		select {
		case <-time.After(e.slow):
		case <-ctx.Done():
			return nil, &sqlexec.Error{Class: sqlexec.ClassTimeout, Msg: "query timed out", Err: ctx.Err()}
		}
	}
	res, err := e.Engine.Query(ctx, db, sql)
	if err == nil && sql == e.gold && e.spiked.CompareAndSwap(false, true) {
		res.Elapsed += e.spike
	}
	return res, err
}

// TestSlowGoldDoesNotShortenPrediction replays issue 39: a gold timed
// during a CPU spike at nearly the whole limit must not turn the next
// correct prediction into a timeout, nor lose its cached result.
func TestSlowGoldDoesNotShortenPrediction(t *testing.T) {
	inner := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: sampleRoot})
	defer inner.Close()
	gold := "SELECT COUNT(*) FROM superhero"
	eng := &spikeEngine{Engine: inner, gold: gold, spike: 4900 * time.Millisecond, slow: 500 * time.Millisecond}
	for _, kind := range []string{KindEX, KindGate} {
		t.Run(kind, func(t *testing.T) {
			eng.spiked.Store(false)
			st, err := NewStack(eng, StackOptions{Reward: Config{Kind: kind, ErrorValue: -1}, QueryTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for i, pred := range []string{"SELECT count(*) FROM superhero AS s", "SELECT count(id) FROM superhero"} {
				sc, err := st.Reward.Reward(context.Background(), Sample{DBID: "superhero", GoldSQL: gold, SQL: pred})
				if err != nil || sc.Value != 1 || sc.Class != eval.ClassCorrect {
					t.Errorf("prediction %d after the spike: %v %v (%s: %s), want 1", i, sc.Value, err, sc.Class, sc.Error)
				}
			}
		})
	}
}
