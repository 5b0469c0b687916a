package rewardserver

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// StackOptions describe the execution and reward stack behind a server.
type StackOptions struct {
	// DBRoot holds <db>/<db>.sqlite.
	DBRoot string
	// Reward is the reward to serve (kind, judge, weights).
	Reward reward.Config
	// QueryTimeout bounds a prediction and its gold together, as BIRD's
	// evaluator does; default 30 s (BIRD's), so rewards agree with
	// `sqlrl eval`.
	QueryTimeout time.Duration
	// ConnsPerDB bounds concurrent queries per database; default 2 x
	// GOMAXPROCS. Read-only connections are cheap, and with more of them
	// than cores a slow or runaway query holds up a smaller share of its
	// database while CPU time is still shared fairly by the OS.
	ConnsPerDB int
	// MaxResultBytes caps one result's payload so that a runaway SELECT
	// cannot exhaust memory before its timeout; default 256 MiB. A larger
	// result scores as an error (result_too_large).
	MaxResultBytes int
	// CacheEntries bounds each cache (query results, verdicts, remembered
	// scores); a full cache starts afresh. Default 200,000.
	CacheEntries int
	// NoMemo disables the score cache (every completion is scored afresh;
	// results are still cached by eval).
	NoMemo bool
}

// Stack is an engine, a scorer and a reward built from StackOptions.
type Stack struct {
	Engine *sqlexec.SQLite
	Scorer *eval.Scorer
	Reward reward.Func
	root   string
	known  sync.Map // db -> true
}

// BuildStack opens nothing yet: the engine connects on first use.
func BuildStack(o StackOptions) (*Stack, error) {
	if o.DBRoot == "" {
		return nil, errors.New("reward stack: no database root")
	}
	if st, err := os.Stat(o.DBRoot); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("reward stack: database root %s is not a directory", o.DBRoot)
	}
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
	engine := sqlexec.NewSQLite(sqlexec.SQLiteOptions{
		Root:          o.DBRoot,
		Limits:        sqlexec.Limits{Timeout: o.QueryTimeout, MaxBytes: o.MaxResultBytes},
		MaxConnsPerDB: o.ConnsPerDB,
	})
	keep := reward.NeedsResults(o.Reward.Kind)
	scorer := &eval.Scorer{Engine: engine, Mode: eval.ModeBIRD, Timeout: o.QueryTimeout, CachePredictions: true,
		KeepResults: keep, MaxCacheEntries: o.CacheEntries}
	f, err := reward.New(o.Reward, scorer)
	if err != nil {
		engine.Close()
		return nil, err
	}
	if !o.NoMemo {
		f = &reward.Memo{F: f, Max: o.CacheEntries}
	}
	return &Stack{Engine: engine, Scorer: scorer, Reward: f, root: o.DBRoot}, nil
}

// DBExists reports whether the root holds db's file. Found databases are
// remembered; missing ones are looked up again (they may be added).
func (s *Stack) DBExists(db string) bool {
	if _, ok := s.known.Load(db); ok {
		return true
	}
	if !dbName.MatchString(db) {
		return false
	}
	st, err := os.Stat(s.Engine.Path(db))
	if err != nil || st.IsDir() {
		return false
	}
	s.known.Store(db, true)
	return true
}

// Close closes the engine's connections.
func (s *Stack) Close() error { return s.Engine.Close() }

// ServerConfig returns a server Config wired to the stack.
func (s *Stack) ServerConfig(name string) Config {
	return Config{Reward: s.Reward, Name: name, DBExists: s.DBExists, CacheStats: s.Scorer.CacheStats}
}
