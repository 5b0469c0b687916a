package askserver

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// DefaultBenchOptions are `sqlrl serve bench`'s defaults.
func DefaultBenchOptions() BenchOptions {
	return BenchOptions{Clients: 50, Duration: 60 * time.Second, FeedbackShare: 0.5, Replicas: 1, Seed: 1, FakeModel: true}
}

// ServeSelf is BenchOptions.Serve for the running executable, sqlrl:
// `sqlrl serve -config CONFIG -addr ADDR -quiet`.
func ServeSelf(config, addr string) []string {
	exe, _ := os.Executable()
	return []string{exe, "serve", "-config", config, "-addr", addr, "-quiet"}
}

// Flags declares the bench's settings on fs, defaulting to o's, all but
// Serve and Log.
func (o *BenchOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Config, "config", o.Config, "the servers' config (required)")
	fs.IntVar(&o.Clients, "clients", o.Clients, "concurrent clients")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "length of the run")
	fs.Float64Var(&o.FeedbackShare, "feedback-share", o.FeedbackShare, "share of answers given feedback (0 to 1)")
	fs.DurationVar(&o.KillAfter, "kill-after", o.KillAfter, "SIGKILL the first server this far into the run and restart it (0: never)")
	fs.IntVar(&o.Replicas, "replicas", o.Replicas, "servers sharing the store (more than 1 needs a PostgreSQL store)")
	fs.StringVar(&o.Questions, "questions", o.Questions, "questions file (JSONL {db, question, evidence?, sql}); default: built from the databases' tables")
	fs.Var(modelFlag{&o.FakeModel}, "model", "fake (a free fake model answering each question's sql) or config (the config's generator)")
	fs.StringVar(&o.Store, "store", o.Store, "feedback store to use instead of the config's (a SQLite file or a postgres:// DSN)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the clients' choices")
}

// Check refuses settings out of range, naming the flags.
func (o *BenchOptions) Check() error {
	switch {
	case o.Config == "":
		return errors.New("-config is required")
	case o.Clients < 1 || o.Duration <= 0 || o.Replicas < 1:
		return errors.New("-clients, -duration and -replicas must be positive")
	case o.FeedbackShare < 0 || o.FeedbackShare > 1:
		return fmt.Errorf("-feedback-share %v: want 0 to 1", o.FeedbackShare)
	case o.KillAfter < 0 || o.KillAfter >= o.Duration && o.KillAfter > 0:
		return fmt.Errorf("-kill-after %v: want a time within -duration %v", o.KillAfter, o.Duration)
	}
	return nil
}

// modelFlag is -model: fake (FakeModel) or config.
type modelFlag struct{ fake *bool }

func (m modelFlag) String() string {
	if m.fake == nil || !*m.fake {
		return "config"
	}
	return "fake"
}

func (m modelFlag) Set(s string) error {
	if s != "fake" && s != "config" {
		return errors.New("want fake or config")
	}
	*m.fake = s == "fake"
	return nil
}

// DatabaseFlags collects repeated -db NAME=PATH flags, for StarterConfig.
type DatabaseFlags map[string]string

func (d DatabaseFlags) String() string {
	var out []string
	for k, v := range d {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Set adds one NAME=PATH, refusing a name given twice.
func (d DatabaseFlags) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=PATH, got %q", s)
	}
	if _, dup := d[name]; dup {
		return fmt.Errorf("database %q given twice", name)
	}
	d[name] = path
	return nil
}
