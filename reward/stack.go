package reward

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// StackOptions describe a reward stack: the reward and the limits and
// caches of the scorer under it. The reward server and the online trainer
// build their stacks from the same options with the same code (NewStack),
// so a reward means the same thing in both.
type StackOptions struct {
	// Reward is the reward to compute (kind, judge, weights).
	Reward Config
	// QueryTimeout bounds the gold and, on its own, the prediction
	// (eval.Scorer.OwnTimeout: a gold timed during a CPU spike must not
	// shorten its predictions' time); default 30 s (BIRD's pair timeout).
	QueryTimeout time.Duration
	// CacheEntries bounds each cache (query results, verdicts, remembered
	// scores); a full cache starts afresh. Default 200,000.
	CacheEntries int
	// NoMemo disables the score cache (every completion is scored afresh;
	// results are still cached by eval).
	NoMemo bool
	// Workers bounds the completions the stack scores at once, over all
	// its ScoreGroup calls together; default 2 x GOMAXPROCS, as many as
	// ConnsPerDB's default, so that the K completions of one prompt (one
	// database) can all hold a connection while the OS shares the cores.
	// A trainer scoring several prompts at once stays within it.
	Workers int

	// The fields below configure the SQLite engine that NewSQLiteStack
	// builds; NewStack, handed an engine, leaves them alone.

	// DBRoot holds <db>/<db>.sqlite.
	DBRoot string
	// ConnsPerDB bounds concurrent queries per database; default 2 x
	// GOMAXPROCS. Read-only connections are cheap, and with more of them
	// than cores a slow or runaway query holds up a smaller share of its
	// database while CPU time is still shared fairly by the OS.
	ConnsPerDB int
	// MaxResultBytes caps the memory one result holds so that a runaway
	// SELECT cannot exhaust memory before its timeout; default
	// sqlexec.DefaultMaxResultBytes. A larger result scores as an error
	// (result_too_large).
	MaxResultBytes int
}

// DefaultStackOptions are the stack the commands build unless told
// otherwise: DefaultConfig's reward and the scorer's defaults.
func DefaultStackOptions() StackOptions {
	o := StackOptions{Reward: DefaultConfig()}.withDefaults()
	o.ConnsPerDB, o.Workers = 0, 0 // 2 x CPUs where it runs
	return o
}

// Flags declares the scorer's limits on fs, o's values their defaults.
// The reward's flags are Config.Flags; DBRoot is the command's to set.
func (o *StackOptions) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&o.QueryTimeout, "query-timeout", o.QueryTimeout, "time limit for a completion and its gold together (BIRD: 30s)")
	fs.IntVar(&o.ConnsPerDB, "conns-per-db", o.ConnsPerDB, "concurrent queries per database (default: 2 x CPUs)")
	fs.Var(mibValue{&o.MaxResultBytes}, "max-result-mib", "largest query result in MiB of memory (larger scores as an error)")
	fs.IntVar(&o.CacheEntries, "cache-entries", o.CacheEntries, "entries each cache (results, verdicts, scores) holds before it starts afresh")
	fs.BoolVar(&o.NoMemo, "no-memo", o.NoMemo, "do not remember scores of repeated completions")
}

// mibValue is a byte count set in MiB.
type mibValue struct{ p *int }

func (v mibValue) String() string {
	if v.p == nil {
		return "0"
	}
	return fmt.Sprint(*v.p >> 20)
}

func (v mibValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a whole number of MiB", s)
	}
	*v.p = n << 20
	return nil
}

// withDefaults fills the zero fields with their defaults.
func (o StackOptions) withDefaults() StackOptions {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = eval.BIRDPairTimeout
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = sqlexec.DefaultMaxResultBytes
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = 200_000
	}
	if o.ConnsPerDB <= 0 {
		o.ConnsPerDB = 2 * runtime.GOMAXPROCS(0)
	}
	if o.Workers <= 0 {
		o.Workers = 2 * runtime.GOMAXPROCS(0)
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
	// sem bounds ScoreGroup's scoring goroutines, stack-wide.
	sem chan struct{}
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
		KeepResults: NeedsResults(o.Reward.Kind), MaxCacheEntries: o.CacheEntries, OwnTimeout: true}
	f, err := New(o.Reward, scorer)
	if err != nil {
		return nil, err
	}
	if !o.NoMemo {
		f = &Memo{F: f, Max: o.CacheEntries}
	}
	return &Stack{Engine: engine, Scorer: scorer, Reward: f, sem: make(chan struct{}, o.Workers)}, nil
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

// Check reports whether the engine will open db, without running a query,
// when the engine can tell (sqlexec.SQLite checks that the file lies inside
// its root and is a whole SQLite database); otherwise it accepts db and the
// first query will tell. A trainer checks its databases once before
// training (eval.CheckDatabases takes the stack), so that a missing file
// fails the run instead of scoring as a failing gold on every step.
func (s *Stack) Check(db string) error {
	if c, ok := s.Engine.(eval.DBChecker); ok {
		return c.Check(db)
	}
	return nil
}

// ScoreGroup scores completions of one prompt (a GRPO group, or the K
// samples of a best-of-K step) concurrently and returns their scores in the
// completions' order. prompt gives the database, gold, question and
// evidence; its Completion and SQL are replaced by each completion, whose
// SQL is extracted as the server extracts it. The scores are those the
// reward server gives for the same label and completions: the same Func
// and memo, so a repeated completion costs a lookup and nothing the
// machine decided (a timeout, a busy database: eval.Transient) is
// remembered.
//
// At most StackOptions.Workers completions are scored at once, over all
// calls on the stack. The first error (the gold fails: ErrGold, maybe with
// ErrTransient; the judge fails without fallback: ErrJudge; ctx ends)
// cancels the rest and is returned, naming the completion, with no scores:
// a prompt whose reward cannot be defined is one the trainer skips.
func (s *Stack) ScoreGroup(ctx context.Context, prompt Sample, completions []string) ([]Score, error) {
	sem := s.sem
	if sem == nil { // a Stack not built by NewStack
		sem = make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	}
	// One goroutine a completion, each waiting for a place in the stack's
	// shared bound.
	scores, err := parallel.Map(ctx, len(completions), len(completions), func(ctx context.Context, i int) (sc Score, err error) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return Score{}, ctx.Err()
		}
		defer func() { <-sem }()
		// A bug met on some model output must cost the trainer an error
		// on this prompt, not the process.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("scoring completion %d of %d on database %q: internal error: %v", i, len(completions), prompt.DBID, p)
			}
		}()
		smp := prompt
		smp.Completion, smp.SQL = completions[i], ""
		if sc, err = s.Reward.Reward(ctx, smp); err != nil {
			return Score{}, fmt.Errorf("scoring completion %d of %d on database %q: %w", i, len(completions), prompt.DBID, err)
		}
		return sc, nil
	})
	if err != nil && (err == context.Canceled || err == context.DeadlineExceeded) {
		return nil, fmt.Errorf("scoring %d completions on database %q: %w", len(completions), prompt.DBID, err)
	}
	return scores, err
}
