package askserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// SchemaJSON is GET /api/databases/{db}/schema's answer: what a schema
// browser shows of a database.
type SchemaJSON struct {
	DB     string      `json:"db"`
	Engine string      `json:"engine"`
	Tables []TableJSON `json:"tables"`
	// Notes say what is missing and why (no descriptions, counts that
	// took too long).
	Notes []string `json:"notes,omitempty"`
}

// TableJSON is one table of a SchemaJSON.
type TableJSON struct {
	Name string `json:"name"`
	// Rows is the table's row count; null when counting failed or took
	// longer than the schema's query budget.
	Rows        *int64       `json:"rows"`
	Description string       `json:"description,omitempty"`
	Columns     []ColumnJSON `json:"columns"`
}

// ColumnJSON is one column of a TableJSON.
type ColumnJSON struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	PrimaryKey bool   `json:"primary_key"`
	// References is "table.column" for a foreign key ("table" when the
	// target column is not known).
	References  string `json:"references,omitempty"`
	Description string `json:"description,omitempty"`
	// Examples are up to 3 distinct non-NULL values as text, long ones
	// clipped with "...".
	Examples []string `json:"examples"`
}

// perLoad caches a value per database for one schema load: a reload (a
// new *schemas) empties it. Concurrent requests for a database wait for
// one computation; a failed one is not kept, so the next request retries,
// and a request that waited on one that stopped because its own request
// ended computes it again.
type perLoad[T any] struct {
	mu sync.Mutex
	of *schemas
	m  map[string]*perLoadEntry[T]
}

type perLoadEntry[T any] struct {
	done chan struct{}
	v    T
	err  error
}

func (c *perLoad[T]) get(ctx context.Context, sc *schemas, db string, compute func(context.Context) (T, error)) (T, error) {
	c.mu.Lock()
	if c.of != sc {
		c.of, c.m = sc, map[string]*perLoadEntry[T]{}
	}
	e := c.m[db]
	if e == nil {
		e = &perLoadEntry[T]{done: make(chan struct{})}
		c.m[db] = e
		c.mu.Unlock()
		e.v, e.err = compute(ctx)
		if e.err != nil {
			c.mu.Lock()
			if c.m[db] == e {
				delete(c.m, db)
			}
			c.mu.Unlock()
		}
		close(e.done)
		return e.v, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		if e.err != nil && ctx.Err() == nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
			return c.get(ctx, sc, db, compute)
		}
		return e.v, e.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// browseCaches are what the analyst routes compute once per schema load.
type browseCaches struct {
	schema   perLoad[*SchemaJSON]
	examples perLoad[[]ExampleQuestion]
}

// loadedSchema returns db's database and its schema as last loaded; 409
// when the schema could not be read.
func (s *Server) loadedSchema(r *http.Request) (*database, *schemas, *prompt.Schema, error) {
	d, err := s.db(r.PathValue("db"))
	if err != nil {
		return nil, nil, nil, err
	}
	sc := s.schemas.get()
	schema := sc.byDB[d.name]
	if schema == nil {
		return nil, nil, nil, httpserve.Errorf(http.StatusConflict, "the schema of %s could not be read; an admin can retry with POST /api/admin/reload", d.name)
	}
	return d, sc, schema, nil
}

// schema: GET /api/databases/{db}/schema.
func (s *Server) schema(ctx context.Context, r *http.Request) (any, error) {
	d, sc, schema, err := s.loadedSchema(r)
	if err != nil {
		return nil, err
	}
	return s.browse.schema.get(ctx, sc, d.name, func(ctx context.Context) (*SchemaJSON, error) {
		return s.browseSchema(ctx, d, schema)
	})
}

// browseSchema builds db's SchemaJSON from the schema the server loaded
// (tables, columns, keys and the prompts' example values), the
// descriptions the prompts' catalog reads (BIRD's database_description/
// beside a SQLite file; PostgreSQL's column comments), and queries bounded
// together by one statement timeout: row counts and, where the loaded
// schema has none, example values.
func (s *Server) browseSchema(ctx context.Context, d *database, schema *prompt.Schema) (*SchemaJSON, error) {
	out := &SchemaJSON{DB: d.name, Engine: d.kind, Tables: []TableJSON{}}
	descs, note := s.descriptions(ctx, d, schema)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	qctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Limits.StatementTimeout))
	defer cancel()
	uncounted := 0
	for _, t := range schema.Tables {
		tj := TableJSON{Name: t.Name, Description: descs[descKey{t.Name, ""}], Columns: []ColumnJSON{}}
		if n, err := s.count(qctx, d, t.Name); err == nil {
			tj.Rows = &n
		} else {
			uncounted++
			if qctx.Err() == nil {
				s.log.Warn("schema browser: count failed", "db", d.name, "table", t.Name, "err", err)
			}
		}
		refs := map[string]string{}
		for _, fk := range t.ForeignKeys {
			for i, c := range fk.Columns {
				refs[strings.ToLower(c)] = fk.RefTable
				if i < len(fk.RefColumns) && fk.RefColumns[i] != "" {
					refs[strings.ToLower(c)] += "." + fk.RefColumns[i]
				}
			}
		}
		for _, c := range t.Columns {
			cj := ColumnJSON{Name: c.Name, Type: c.Type, References: refs[strings.ToLower(c.Name)],
				Description: descs[descKey{t.Name, c.Name}], Examples: []string{}}
			for _, k := range t.PrimaryKey {
				cj.PrimaryKey = cj.PrimaryKey || strings.EqualFold(k, c.Name)
			}
			for _, lit := range c.Examples {
				cj.Examples = append(cj.Examples, unquoteLiteral(lit))
			}
			tj.Columns = append(tj.Columns, cj)
		}
		out.Tables = append(out.Tables, tj)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if uncounted > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("the rows of %d of %d tables were not counted (failed, or past the statement timeout of %v)",
			uncounted, len(schema.Tables), time.Duration(s.cfg.Limits.StatementTimeout)))
	}
	return out, nil
}

// descKey names a table's description (column "") or a column's.
type descKey struct{ table, column string }

// descriptions returns db's table and column descriptions, and a note when
// there are none to show. SQLite: BIRD's database_description/*.csv beside
// the file, as package prompt's catalog reads and words them for prompts.
// PostgreSQL: COMMENT ON TABLE / COLUMN.
func (s *Server) descriptions(ctx context.Context, d *database, loaded *prompt.Schema) (map[descKey]string, string) {
	out := map[descKey]string{}
	var sc *prompt.Schema
	switch d.kind {
	case "sqlite":
		sc = loaded
		if !hasDescriptions(sc) {
			// The server's prompts may be read without descriptions; the
			// browser reads them whole, without example values.
			cat := prompt.NewCatalog(s.dbs, prompt.CatalogOptions{DescriptionDir: s.dbs.descriptionDir, Examples: -1, MaxDescriptionChars: -1})
			var err error
			if sc, err = cat.Schema(ctx, d.name); err != nil {
				s.log.Warn("schema browser: descriptions not read", "db", d.name, "err", err)
				return out, "descriptions could not be read (the server log has the details)"
			}
		}
		for _, t := range sc.Tables {
			for _, c := range t.Columns {
				if c.Description != "" {
					out[descKey{t.Name, c.Name}] = c.Description
				}
			}
		}
		if len(out) == 0 {
			return out, "descriptions not available: no database_description/*.csv beside the SQLite file"
		}
	case "postgres":
		if err := s.postgresComments(ctx, d, out); err != nil {
			s.log.Warn("schema browser: comments not read", "db", d.name, "err", err)
			return out, "descriptions could not be read (the server log has the details)"
		}
		if len(out) == 0 {
			return out, "descriptions not available: no COMMENT ON TABLE or COLUMN in schema " + d.target
		}
	}
	return out, ""
}

func hasDescriptions(sc *prompt.Schema) bool {
	for _, t := range sc.Tables {
		for _, c := range t.Columns {
			if c.Description != "" {
				return true
			}
		}
	}
	return false
}

// postgresComments reads the comments on d's tables and columns.
func (s *Server) postgresComments(ctx context.Context, d *database, out map[descKey]string) error {
	lit := "'" + strings.ReplaceAll(d.target, "'", "''") + "'"
	// pg_description is read as a table: a read-only role may not call
	// obj_description and col_description.
	res, err := d.eng.Query(ctx, d.target, `SELECT c.relname, COALESCE(a.attname, ''), d.description
FROM pg_catalog.pg_description d
JOIN pg_catalog.pg_class c ON c.oid = d.objoid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid AND d.objsubid > 0 AND NOT a.attisdropped
WHERE n.nspname = `+lit+` AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
  AND d.classoid = (SELECT k.oid FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace kn ON kn.oid = k.relnamespace WHERE k.relname = 'pg_class' AND kn.nspname = 'pg_catalog')
  AND (d.objsubid = 0 OR a.attname IS NOT NULL)`)
	if err != nil {
		return err
	}
	for _, row := range res.Rows {
		if len(row) == 3 && row[2].S != "" {
			out[descKey{row[0].S, row[1].S}] = strings.Join(strings.Fields(row[2].S), " ")
		}
	}
	return nil
}

// quoteIdent double-quotes a name for SQL (SQLite and PostgreSQL alike).
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// count counts table's rows.
func (s *Server) count(ctx context.Context, d *database, table string) (int64, error) {
	res, err := s.dbs.Query(ctx, d.name, "SELECT COUNT(*) FROM "+quoteIdent(table))
	if err != nil {
		return 0, err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 || res.Rows[0][0].Kind != sqlexec.KindInt {
		return 0, fmt.Errorf("count of %s: unexpected result", table)
	}
	return res.Rows[0][0].I, nil
}

// unquoteLiteral turns a prompt's example literal ('gold', 42, 3.5) back
// into the value as text.
func unquoteLiteral(lit string) string {
	if len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'' {
		return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	}
	return lit
}
