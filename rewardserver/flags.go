package rewardserver

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/reward"
)

// StackSource is a reward stack's settings and where its databases come
// from: a benchmark (whose questions labels may name by question_id) or a
// directory of <db>/<db>.sqlite. `reward serve` and `reward bench` share it.
type StackSource struct {
	Data, Split, DBRoot string
	Stack               reward.StackOptions
}

// Flags declares the source's flags, the reward's (reward.Config.Flags)
// and the scorer's (reward.StackOptions.Flags); defaultData is -data's
// default.
func (s *StackSource) Flags(fs *flag.FlagSet, defaultData string) {
	fs.StringVar(&s.Data, "data", defaultData, "benchmark `dir` (BIRD or Spider layout): databases, and questions for question_id labels")
	fs.StringVar(&s.Split, "split", "dev", "benchmark split")
	fs.StringVar(&s.DBRoot, "db-root", "", "`dir` holding <db>/<db>.sqlite (instead of, or overriding, --data's)")
	s.Stack = reward.DefaultStackOptions()
	s.Stack.Reward.Flags(fs)
	s.Stack.Flags(fs)
}

// Load returns the stack's options with their DBRoot (DBRoot, else the
// benchmark's) and the benchmark, nil without one. A benchmark that does
// not load is an error unless DBRoot is given.
func (s *StackSource) Load() (reward.StackOptions, *dataset.Benchmark, error) {
	so := s.Stack
	so.DBRoot = s.DBRoot
	if s.Data == "" {
		return so, nil, nil
	}
	b, err := dataset.Load(s.Data, s.Split)
	switch {
	case err != nil && s.DBRoot == "":
		return so, nil, err
	case err != nil:
		return so, nil, nil
	}
	if so.DBRoot == "" {
		so.DBRoot = b.DBRoot
	}
	return so, b, nil
}

// Flags declares the server's limits, bound to c, their defaults New's.
func (c *Config) Flags(fs *flag.FlagSet) {
	c.MaxBodyBytes = DefaultMaxBodyBytes
	fs.DurationVar(&c.RequestTimeout, "request-timeout", DefaultRequestTimeout, "deadline for one request (OpenRLHF's client waits 180s)")
	httpserve.MaxBodyFlag(fs, &c.MaxBodyBytes)
	fs.IntVar(&c.MaxInFlight, "max-inflight", 0, "completions scored at once, server-wide (default 32 x CPUs)")
}

// UseStack makes st the server's reward, named name.
func (c *Config) UseStack(st *reward.Stack, name string) {
	c.Reward, c.Name, c.DBExists, c.CacheStats = st.Reward, name, dbExists(st), st.Scorer.CacheStats
}

// NewOnStack is New(c) with a SQLite reward stack of so as c's reward
// (the stack 'sqlrl reward serve' runs), naming b's questions when b is
// set. closeStack closes the stack once the server is done.
func (c *Config) NewOnStack(so reward.StackOptions, b *dataset.Benchmark) (srv *Server, closeStack func() error, err error) {
	st, err := reward.NewSQLiteStack(so)
	if err != nil {
		return nil, nil, err
	}
	c.UseStack(st, so.Reward.Name())
	if b != nil {
		c.UseQuestions(b.Examples)
	}
	if srv, err = New(*c); err != nil {
		st.Close()
		return nil, nil, err
	}
	return srv, st.Close, nil
}

// UseQuestions lets labels name the questions exs by question_id.
func (c *Config) UseQuestions(exs []dataset.Example) {
	c.Questions = map[int]dataset.Example{}
	for _, ex := range exs {
		c.Questions[ex.QuestionID] = ex
	}
}

// Flags declares the bench's load settings, bound to o, with their
// defaults.
func (o *BenchOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Clients, "clients", 64, "concurrent clients")
	fs.IntVar(&o.K, "k", 8, "completions per question (per request)")
	fs.DurationVar(&o.Duration, "duration", 60*time.Second, "length of the load phase")
	fs.Int64Var(&o.Seed, "seed", 1, "seed for the mutations")
	fs.IntVar(&o.Questions, "questions", 0, "use only the first `N` questions (0: all)")
	fs.IntVar(&o.Rounds, "rounds", 1, "repeat floor and server `N` times, alternately, and report the median ratio (a shared machine is noisy)")
}

// WriteJSON writes r as indented JSON to path.
func (r *BenchReport) WriteJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Err is the load phase's failures, nil without any: rewards must come
// back, and the same ones every time.
func (r *BenchReport) Err() error {
	if l := r.Load; l.Errors > 0 || l.Lost > 0 || l.Mismatches > 0 {
		return fmt.Errorf("load phase: %d errors, %d lost, %d mismatches", l.Errors, l.Lost, l.Mismatches)
	}
	return nil
}
