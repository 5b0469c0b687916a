package dbcopy

import (
	"context"
	"flag"
)

// Job is a copy as `sqlrl db copy` runs it: where the databases are,
// the target database's DSN, and how to copy (AllOptions).
type Job struct {
	// Data is a benchmark directory (BIRD or Spider layout) or a directory
	// of <db>/<db>.sqlite; Split names BIRD's <split>_databases/.
	Data, Split string
	DSN         string
	AllOptions
}

// Flags declares the copy's settings on fs, defaulting to o's; dsnEnv
// names the environment variable the DSN's default came from.
func (o *Job) Flags(fs *flag.FlagSet, dsnEnv string) {
	fs.StringVar(&o.Data, "data", o.Data, "benchmark `dir` (BIRD or Spider layout) or a directory of <db>/<db>.sqlite")
	fs.StringVar(&o.Split, "split", o.Split, "benchmark split (BIRD: <split>_databases/)")
	fs.StringVar(&o.DSN, "pg-dsn", o.DSN, "PostgreSQL `DSN` of the target database (default $"+dsnEnv+")")
	fs.BoolVar(&o.Replace, "replace", o.Replace, "drop and copy again a schema that already exists")
	fs.StringVar(&o.ReadOnlyRole, "ro-role", o.ReadOnlyRole, "create or refresh this read-only `role` and let it read the copied schemas")
}

// Copy copies the databases named (FindSources; none: all of Data's) into
// DSN with CopyAll.
func (o *Job) Copy(ctx context.Context, names []string) ([]*Report, error) {
	srcs, err := FindSources(o.Data, o.Split, names)
	if err != nil {
		return nil, err
	}
	return CopyAll(ctx, o.DSN, srcs, o.AllOptions)
}
