package eval

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// TestLoadIsNotCached: an outcome decided by the machine's load (the gold or
// the prediction times out waiting for the database's only connection, by
// the engine's own limit or the pair budget) is not remembered: once the
// load is gone, the same question and prediction score normally. Before the
// fix the first outcome was cached and returned for good.
func TestLoadIsNotCached(t *testing.T) {
	b, _ := loadSample(t)
	ex := b.Examples[0]
	// Correct, but not the gold's text: it must run to be scored.
	pred := ex.SQL + " ORDER BY T3.power_name DESC"
	const limit = 200 * time.Millisecond
	tests := []struct {
		name string
		mode Mode
		// engineLimit sets the engine's own timeout; otherwise the
		// scorer's Timeout (the pair budget) is the limit.
		engineLimit bool
		keepResults bool
		// loadGold loads the database before the gold ever ran;
		// otherwise the gold is cached first and the prediction waits.
		loadGold bool
		want     string // class under load
	}{
		{"gold, engine limit", ModeBIRD, true, false, true, ClassGoldError},
		{"gold, engine limit, spider", ModeSpider, true, false, true, ClassGoldError},
		{"prediction streamed, pair budget", ModeBIRD, false, false, false, string(sqlexec.ClassTimeout)},
		{"prediction kept, pair budget", ModeBIRD, false, true, false, string(sqlexec.ClassTimeout)},
		{"prediction kept, engine limit", ModeBIRD, true, true, false, string(sqlexec.ClassTimeout)},
		{"prediction streamed, engine limit", ModeBIRD, true, false, false, string(sqlexec.ClassTimeout)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := sqlexec.SQLiteOptions{Root: b.DBRoot, MaxConnsPerDB: 1}
			s := &Scorer{Mode: tt.mode, CachePredictions: true, KeepResults: tt.keepResults, Timeout: time.Minute}
			if tt.engineLimit {
				opts.Timeout = limit
			} else {
				s.Timeout = limit
			}
			e := sqlexec.NewSQLite(opts)
			t.Cleanup(func() { e.Close() })
			s.Engine = e
			ctx := context.Background()
			if !tt.loadGold {
				if o := s.Score(ctx, ex.DBID, ex.SQL, "SELECT 1"); o.Class != ClassWrong {
					t.Fatalf("warming the gold: %+v", o)
				}
			}
			release := testkit.HoldConn(t, e, ex.DBID)
			o := s.Score(ctx, ex.DBID, ex.SQL, pred)
			if o.Class != tt.want {
				t.Errorf("under load: %+v, want class %s", o, tt.want)
			}
			if tt.loadGold && tt.mode == ModeBIRD && o.GoldClass != string(sqlexec.ClassTimeout) {
				t.Errorf("under load: gold class %q, want timeout", o.GoldClass)
			}
			release()
			if o := s.Score(ctx, ex.DBID, ex.SQL, pred); !o.Correct {
				t.Errorf("after the load: %+v, want correct", o)
			}
		})
	}
}

// elapsedEngine answers every query with the same rows; the first gold run
// reports an Elapsed over the pair limit (as on a loaded machine), later
// runs a short one.
type elapsedEngine struct{ runs atomic.Int64 }

func (e *elapsedEngine) Query(_ context.Context, _, _ string) (*sqlexec.Result, error) {
	r := &sqlexec.Result{Columns: []string{"x"}, Rows: [][]sqlexec.Value{{sqlexec.Int(1)}}, Elapsed: time.Millisecond}
	if e.runs.Add(1) == 1 {
		r.Elapsed = 2 * BIRDPairTimeout
	}
	return r, nil
}

func (e *elapsedEngine) Close() error { return nil }

// TestSlowGoldIsMeasuredAgain: a gold that once took longer than the pair
// limit (a busy machine) is not kept with that time, which would leave every
// later prediction of the question no budget at all.
func TestSlowGoldIsMeasuredAgain(t *testing.T) {
	e := &elapsedEngine{}
	s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}
	ctx := context.Background()
	if o := s.Score(ctx, "d", "SELECT 1", "SELECT 1 AS x"); o.Class != string(sqlexec.ClassTimeout) {
		t.Errorf("slow gold: %+v, want timeout", o)
	}
	if o := s.Score(ctx, "d", "SELECT 1", "SELECT 1 AS x"); !o.Correct {
		t.Errorf("gold measured again: %+v, want correct", o)
	}
}

// inflatedGoldEngine: the first run of the gold reports it took nearly the
// whole pair limit (measured under load), later runs a millisecond; the
// prediction needs more than that first remainder and times out when given
// less, as a real engine would.
type inflatedGoldEngine struct{ goldRuns atomic.Int64 }

const inflatedGold, inflatedPred = "SELECT 1", "SELECT 1 AS x"

func (e *inflatedGoldEngine) Query(ctx context.Context, _, sql string) (*sqlexec.Result, error) {
	r := &sqlexec.Result{Columns: []string{"x"}, Rows: [][]sqlexec.Value{{sqlexec.Int(1)}}, Elapsed: time.Millisecond}
	if sql == inflatedGold {
		if e.goldRuns.Add(1) == 1 {
			r.Elapsed = BIRDPairTimeout - time.Millisecond
		}
		return r, nil
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < time.Second {
		return nil, &sqlexec.Error{Class: sqlexec.ClassTimeout, Msg: "interrupted"}
	}
	return r, nil
}

func (e *inflatedGoldEngine) Close() error { return nil }

// TestInflatedGoldTimeIsMeasuredAgain: a gold whose first measured time was
// inflated by load (but under the limit) left later predictions of its
// question too little time, every one a timeout from a cache hit (issue 14's
// reward server after a load spike). A prediction that times out now sends
// the gold to be measured again.
func TestInflatedGoldTimeIsMeasuredAgain(t *testing.T) {
	e := &inflatedGoldEngine{}
	s := &Scorer{Engine: e, Mode: ModeBIRD, CachePredictions: true}
	ctx := context.Background()
	if o := s.Score(ctx, "d", inflatedGold, inflatedPred); o.Class != string(sqlexec.ClassTimeout) {
		t.Fatalf("under the inflated gold time: %+v, want timeout", o)
	}
	if o := s.Score(ctx, "d", inflatedGold, inflatedPred); !o.Correct {
		t.Errorf("after the gold is measured again: %+v, want correct", o)
	}
	if n := e.goldRuns.Load(); n != 2 {
		t.Errorf("gold ran %d times, want 2", n)
	}
}
