package askserver

import (
	"context"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// ServedDatabases are a config's databases under the names the server
// answers for them, for what reads them outside a server: `sqlrl data
// from-feedback -config` builds the training prompts of the recorded
// answers from them, so that the loop closes without a database root laid
// out by hand.
type ServedDatabases struct{ r *router }

// LoadDataConfig reads a config file for its databases and store alone,
// as `sqlrl data from-feedback -config` does: its generator and API keys
// are not read, so that the environment variables only the server needs
// (SQLRL_SERVE_KEY, a generator's key) need not be set to export.
func LoadDataConfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("serve config: %w", err)
	}
	c, err := decodeConfig(path, raw)
	if err != nil {
		return nil, err
	}
	c.Generator, c.APIKeys = GeneratorConfig{}, nil
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("serve config %s: %w", path, err)
	}
	return c, nil
}

// OpenDatabases opens c's databases as the server does (read-only, with
// the config's limits).
func OpenDatabases(ctx context.Context, c *Config) (*ServedDatabases, error) {
	r, err := openDatabases(ctx, c)
	if err != nil {
		return nil, err
	}
	return &ServedDatabases{r}, nil
}

// Engine runs SQL on a database named as the config names it.
func (d *ServedDatabases) Engine() sqlexec.Engine { return d.r }

// DescriptionDir is the folder holding db's database_description/ (beside
// a SQLite file, as BIRD lays databases out; "" for PostgreSQL).
func (d *ServedDatabases) DescriptionDir(db string) string { return d.r.descriptionDir(db) }

// Postgres names the PostgreSQL databases, sorted.
func (d *ServedDatabases) Postgres() []string {
	var out []string
	for _, name := range sortedKeys(d.r.dbs) {
		if d.r.dbs[name].kind == "postgres" {
			out = append(out, name)
		}
	}
	return out
}

// Close closes the databases.
func (d *ServedDatabases) Close() error { return d.r.Close() }
