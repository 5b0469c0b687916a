package reward

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// StackOptions describe a reward stack: the reward and the limits and
// caches of the scorer under it. The reward server and the online trainer
// build their stacks from the same options with the same code (NewStack),
// so a reward means the same thing in both.
type StackOptions struct {
	// Reward is the reward to compute (kind, judge, weights).
	Reward Config
	// QueryTimeout bounds a prediction and its gold together, as BIRD's
	// evaluator does; default 30 s (BIRD's), so rewards agree with
	// `sqlrl eval`.
	QueryTimeout time.Duration
	// CacheEntries bounds each cache (query results, verdicts, remembered
	// scores); a full cache starts afresh. Default 200,000.
	CacheEntries int
	// NoMemo disables the score cache (every completion is scored afresh;
	// results are still cached by eval).
	NoMemo bool

	// The fields below configure the SQLite engine that NewSQLiteStack
	// builds; NewStack, handed an engine, leaves them alone.

	// DBRoot holds <db>/<db>.sqlite.
	DBRoot string
	// ConnsPerDB bounds concurrent queries per database; default 2 x
	// GOMAXPROCS. Read-only connections are cheap, and with more of them
	// than cores a slow or runaway query holds up a smaller share of its
	// database while CPU time is still shared fairly by the OS.
	ConnsPerDB int
	// MaxResultBytes caps one result's payload so that a runaway SELECT
	// cannot exhaust memory before its timeout; default 256 MiB. A larger
	// result scores as an error (result_too_large).
	MaxResultBytes int
}

// withDefaults fills the zero fields with their defaults.
func (o StackOptions) withDefaults() StackOptions {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = eval.BIRDPairTimeout
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 256 << 20
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = 200_000
	}
	if o.ConnsPerDB <= 0 {
		o.ConnsPerDB = 2 * runtime.GOMAXPROCS(0)
	}
	return o
}

// Stack is an engine, a BIRD-mode scorer over it and a reward over the
// scorer (remembered by a Memo unless NoMemo): everything between a
// completion and its reward.
type Stack struct {
	Engine sqlexec.Engine
	Scorer *eval.Scorer
	Reward Func
	// owned: Close closes Engine (the stack opened it).
	owned bool
}

// NewStack builds the reward stack over engine, which may be any engine
// (SQLite, PostgreSQL) and stays the caller's: Close leaves it open. It
// opens nothing.
func NewStack(engine sqlexec.Engine, o StackOptions) (*Stack, error) {
	if engine == nil {
		return nil, errors.New("reward stack: no engine")
	}
	o = o.withDefaults()
	scorer := &eval.Scorer{Engine: engine, Mode: eval.ModeBIRD, Timeout: o.QueryTimeout, CachePredictions: true,
		KeepResults: NeedsResults(o.Reward.Kind), MaxCacheEntries: o.CacheEntries}
	f, err := New(o.Reward, scorer)
	if err != nil {
		return nil, err
	}
	if !o.NoMemo {
		f = &Memo{F: f, Max: o.CacheEntries}
	}
	return &Stack{Engine: engine, Scorer: scorer, Reward: f}, nil
}

// NewSQLiteStack builds the stack over a SQLite engine on o.DBRoot with
// o's limits, for callers that have only a directory. It opens nothing yet:
// the engine connects on first use. Close closes the engine.
func NewSQLiteStack(o StackOptions) (*Stack, error) {
	if o.DBRoot == "" {
		return nil, errors.New("reward stack: no database root")
	}
	if st, err := os.Stat(o.DBRoot); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("reward stack: database root %s is not a directory", o.DBRoot)
	}
	o = o.withDefaults()
	engine := sqlexec.NewSQLite(sqlexec.SQLiteOptions{
		Root:          o.DBRoot,
		Limits:        sqlexec.Limits{Timeout: o.QueryTimeout, MaxBytes: o.MaxResultBytes},
		MaxConnsPerDB: o.ConnsPerDB,
	})
	s, err := NewStack(engine, o)
	if err != nil {
		engine.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// Close closes the engine's connections when the stack opened the engine
// (NewSQLiteStack); an engine handed to NewStack is its owner's to close.
func (s *Stack) Close() error {
	if !s.owned {
		return nil
	}
	return s.Engine.Close()
}
