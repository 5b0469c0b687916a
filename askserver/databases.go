package askserver

import (
	"context"
	"errors"
	"fmt"
	"github.com/sqlrl/sqlrl/confidence"
	"path/filepath"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// database is one configured database: the engine that runs its SQL and
// the name that engine knows it by (a SQLite file, a PostgreSQL schema).
type database struct {
	name    string
	kind    string // "sqlite" or "postgres"
	eng     sqlexec.Engine
	target  string
	dialect prompt.Dialect
	// descriptions is the configured folder of database_description/
	// ("" for the default)
	descriptions string
}

// router is an sqlexec.Engine over the configured databases by their
// configured names: prompt's catalog and the native prompter read schemas
// through it, and every query of the server goes through it, so that a
// user's db can only ever name a configured database.
type router struct {
	dbs     map[string]*database
	engines []sqlexec.Engine
}

var errUnknownDB = errors.New("no such database")

// descriptionDir is where db's database_description/ is: the configured
// folder, else beside its SQLite file, as BIRD lays databases out.
// PostgreSQL databases have none unless configured.
func (r *router) descriptionDir(db string) string {
	d := r.dbs[db]
	switch {
	case d == nil:
		return ""
	case d.descriptions != "":
		return d.descriptions
	case d.kind == "sqlite":
		return filepath.Dir(d.target)
	}
	return ""
}

// Dialect says db's dialect (prompt.EngineDialect), so that package
// prompt's catalog reads each database in its own.
func (r *router) Dialect(db string) prompt.Dialect {
	if d := r.dbs[db]; d != nil {
		return d.dialect
	}
	return prompt.SQLite
}

// Query implements sqlexec.Engine.
func (r *router) Query(ctx context.Context, db, sql string) (*sqlexec.Result, error) {
	d := r.dbs[db]
	if d == nil {
		return nil, &sqlexec.Error{Class: sqlexec.ClassNoDatabase, Msg: fmt.Sprintf("no database %q", db), Err: errUnknownDB}
	}
	return d.eng.Query(ctx, d.target, sql)
}

// rowQuerier is an engine that streams rows (SQLite): a result past the
// row cap is cut there instead of failing.
type rowQuerier interface {
	QueryRows(ctx context.Context, db, sql string, fn func(cols []string, row []sqlexec.Value) bool) (*sqlexec.Result, error)
}

// run runs sql on db keeping at most maxRows rows and maxBytes bytes; a
// larger result is cut (truncated) where the engine can stream, and fails
// with result_too_large where it cannot (PostgreSQL).
func (r *router) run(ctx context.Context, db, sql string, maxRows, maxBytes int) (res *sqlexec.Result, truncated bool, err error) {
	d := r.dbs[db]
	if d == nil {
		return nil, false, &sqlexec.Error{Class: sqlexec.ClassNoDatabase, Msg: fmt.Sprintf("no database %q", db), Err: errUnknownDB}
	}
	rq, ok := d.eng.(rowQuerier)
	if !ok {
		res, err := d.eng.Query(ctx, d.target, sql)
		return res, false, err
	}
	var rows [][]sqlexec.Value
	bytes := 0
	res, err = rq.QueryRows(ctx, d.target, sql, func(_ []string, row []sqlexec.Value) bool {
		if row == nil {
			return true
		}
		if len(rows) >= maxRows {
			truncated = true
			return false
		}
		cp := make([]sqlexec.Value, len(row))
		copy(cp, row)
		size := sqlexec.RowOverhead(len(row))
		for _, v := range row {
			size += 8 + len(v.S)
		}
		if bytes+size > maxBytes {
			truncated = true
			return false
		}
		bytes += size
		rows = append(rows, cp)
		return true
	})
	if err != nil {
		return nil, false, err
	}
	res.Rows, res.Bytes = rows, bytes
	return res, truncated, nil
}

// Close closes every engine.
func (r *router) Close() error {
	var first error
	for _, e := range r.engines {
		if err := e.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openDatabases opens an engine per SQLite file set and per PostgreSQL DSN.
func openDatabases(ctx context.Context, c *Config) (*router, error) {
	lim := sqlexec.Limits{Timeout: time.Duration(c.Limits.StatementTimeout), MaxBytes: c.Limits.MaxBytes}
	r := &router{dbs: map[string]*database{}}
	sqlite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Limits: lim})
	r.engines = append(r.engines, sqlite)
	pg := map[string]*sqlexec.Postgres{}
	for _, name := range c.DatabaseNames() {
		dc := c.Databases[name]
		d := &database{name: name, descriptions: dc.Descriptions}
		if dc.SQLite != "" {
			if err := sqlite.Check(dc.SQLite); err != nil {
				r.Close()
				return nil, fmt.Errorf("serve config %s: databases.%s: %w", c.path, name, err)
			}
			d.kind, d.eng, d.target, d.dialect = "sqlite", sqlite, dc.SQLite, prompt.SQLite
		} else {
			e := pg[dc.Postgres]
			if e == nil {
				var err error
				plim := lim
				plim.MaxRows = c.Limits.MaxRows
				e, err = sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: dc.Postgres, Limits: plim})
				if err != nil {
					r.Close()
					return nil, fmt.Errorf("serve config %s: databases.%s: %w", c.path, name, err)
				}
				pg[dc.Postgres] = e
				r.engines = append(r.engines, e)
			}
			d.kind, d.eng, d.target, d.dialect = "postgres", e, dc.Schema, prompt.PostgreSQL
		}
		r.dbs[name] = d
	}
	return r, nil
}

// schemas is the schemas as read at start or at the last reload, and the
// prompt builder over them.
type schemas struct {
	builder *prompt.Builder
	byDB    map[string]*prompt.Schema
	errs    map[string]error
	// tables is each schema's tables and columns as the literal check
	// reads them, derived once per load rather than per ask.
	tables map[string][]confidence.Table
}

// schemaCache reads schemas and swaps them whole on reload.
type schemaCache struct {
	r            *router
	promptTokens int
	mu           sync.RWMutex
	cur          *schemas
}

func (s *schemaCache) get() *schemas {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cur
}

// load reads the schema of every database (of only, when set) and
// publishes them.
func (s *schemaCache) load(ctx context.Context, only string) (*schemas, error) {
	// the descriptions beside each SQLite file, as `data prepare` writes
	// them into the chat prompts an LLM is trained on; PostgreSQL databases
	// are read from pg_catalog (prompt.EngineDialect asks the router)
	cat := prompt.NewCatalog(s.r, prompt.CatalogOptions{DescriptionDir: s.r.descriptionDir})
	b, err := prompt.NewBuilder(cat, prompt.Options{Budget: s.promptTokens, Counter: estimateTokens{}})
	if err != nil {
		return nil, err
	}
	next := &schemas{builder: b, byDB: map[string]*prompt.Schema{}, errs: map[string]error{}, tables: map[string][]confidence.Table{}}
	old := s.get()
	for name := range s.r.dbs {
		if only != "" && name != only && old != nil {
			next.byDB[name], next.errs[name], next.tables[name] = old.byDB[name], old.errs[name], old.tables[name]
			continue
		}
		sc, err := cat.Schema(ctx, name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			next.errs[name] = err
			continue
		}
		next.byDB[name], next.tables[name] = sc, literalTables(sc)
	}
	s.mu.Lock()
	s.cur = next
	s.mu.Unlock()
	return next, nil
}

// literalTables is schema's tables and their columns for
// confidence.CheckLiterals.
func literalTables(schema *prompt.Schema) []confidence.Table {
	tables := make([]confidence.Table, 0, len(schema.Tables))
	for _, t := range schema.Tables {
		ct := confidence.Table{Name: t.Name}
		for _, c := range t.Columns {
			ct.Columns = append(ct.Columns, c.Name)
		}
		tables = append(tables, ct)
	}
	return tables
}
