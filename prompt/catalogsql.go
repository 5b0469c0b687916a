package prompt

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// How the catalog reads a database in each dialect. A PostgreSQL database
// is read into the same Schema as its SQLite original (tables, columns,
// keys, example values, values for value linking), so that a model trained
// over one is prompted the same way over the other.

// EngineDialect is the dialect of database db behind eng: an engine that
// says (one routing several databases, as `sqlrl serve` does, with a
// method Dialect(db string) Dialect) decides; sqlexec's PostgreSQL engine
// is PostgreSQL; any other engine is SQLite.
func EngineDialect(eng sqlexec.Engine, db string) Dialect {
	switch e := eng.(type) {
	case interface{ Dialect(db string) Dialect }:
		return e.Dialect(db)
	case *sqlexec.Postgres:
		return PostgreSQL
	}
	return SQLite
}

// tableList is a database's tables as listTables reads them.
type tableList struct {
	tables []*Table
	// stringCols holds, for PostgreSQL, table + "\x00" + column of every
	// column of a string type (text, varchar, char, enums): value linking
	// reads those alone, as it reads text values alone on SQLite.
	stringCols map[string]bool
}

// listTables reads db's tables, columns and keys, in the order the
// database lists them: SQLite's sqlite_master order (creation), and on
// PostgreSQL creation order too (pg_class's oid), which is the order
// `sqlrl db copy` creates a SQLite database's tables in and the order of
// a snapshot (package dbgen) that a model was trained over.
func (c *Catalog) listTables(ctx context.Context, db string, d Dialect) (*tableList, error) {
	if d == PostgreSQL {
		return c.listPostgresTables(ctx, db)
	}
	res, err := c.eng.Query(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	out := &tableList{}
	for _, row := range res.Rows {
		t := &Table{Name: row[0].S}
		info, err := sqlexec.ReadTableInfo(ctx, c.eng, db, t.Name)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		for _, col := range info.Columns {
			t.Columns = append(t.Columns, Column{Name: col.Name, Type: col.Type, NotNull: col.NotNull})
		}
		t.PrimaryKey = info.PrimaryKey
		for _, fk := range info.ForeignKeys {
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Columns: fk.Columns, RefTable: fk.RefTable, RefColumns: fk.RefColumns})
		}
		out.tables = append(out.tables, t)
	}
	return out, nil
}

// listPostgresTables reads db's tables from pg_catalog
// (sqlexec.ReadPostgresTables: ordinary, partitioned and foreign tables of
// the schema being read, the engine's search_path). What the role may not
// SELECT is left out (a model could not query it), as a snapshot of the
// database leaves it out (package dbgen): tables and columns, keys over
// those columns, and foreign keys into other schemas or tables left out.
func (c *Catalog) listPostgresTables(ctx context.Context, db string) (*tableList, error) {
	rels, err := sqlexec.ReadPostgresTables(ctx, c.eng, db)
	if err != nil {
		return nil, err
	}
	out := &tableList{stringCols: map[string]bool{}}
	byName := map[string]*Table{}
	for _, r := range rels {
		if r.View || !r.AnySelect {
			continue
		}
		t := &Table{Name: r.Name}
		for _, col := range r.Columns {
			if !col.Select {
				continue
			}
			t.Columns = append(t.Columns, Column{Name: col.Name, Type: col.Type, NotNull: col.NotNull})
			if col.String {
				out.stringCols[t.Name+"\x00"+col.Name] = true
			}
		}
		out.tables = append(out.tables, t)
		byName[t.Name] = t
	}
	keys, err := sqlexec.ReadPostgresKeys(ctx, c.eng, db)
	if err != nil {
		return nil, err
	}
	listed := func(t *Table, cols []string) bool {
		return t != nil && !slices.ContainsFunc(cols, func(c string) bool {
			return !slices.ContainsFunc(t.Columns, func(tc Column) bool { return tc.Name == c })
		})
	}
	for _, k := range keys {
		t := byName[k.Table]
		switch {
		case !listed(t, k.Columns):
		case k.Primary:
			t.PrimaryKey = k.Columns
		case !k.External && listed(byName[k.RefTable], k.RefColumns):
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Columns: k.Columns, RefTable: k.RefTable, RefColumns: k.RefColumns})
		}
	}
	return out, nil
}

// firstDistinctSQL is the query for up to limit distinct values of column
// among the first scan rows of t, in the order they first appear there;
// text keeps only text values of at most maxRunes characters (value
// linking), else every non-NULL value is kept (examples).
//
// The first rows are SQLite's storage order (rowid order, which is primary
// key order for an INTEGER PRIMARY KEY): no sort, so a table of millions
// of rows costs what a big one does. PostgreSQL's storage order does not
// survive an UPDATE or a VACUUM FULL, so a table with a primary key is read
// in its order (a walk of the key's index); one without is read in the
// order a sequential scan gives, physical order, unsorted as on SQLite.
// Both are SQLite's order for a copy made by `sqlrl db copy` from a table
// with an INTEGER PRIMARY KEY or none, and for a snapshot (package dbgen,
// which copies rows in primary key order). Where the orders differ, so can
// the values read, and only when a column has more distinct values than
// limit, a table more rows than scan, or two spellings of the same words
// (ValueSet keeps the first).
func (d Dialect) firstDistinctSQL(t *Table, column string, scan, limit int, text bool, maxRunes int) string {
	col, table := d.quoteAlways(column), d.quoteAlways(t.Name)
	if d != PostgreSQL {
		filter := fmt.Sprintf("%s IS NOT NULL", col)
		if text {
			filter = fmt.Sprintf("typeof(%s) = 'text' AND length(%s) <= %d", col, col, maxRunes)
		}
		return fmt.Sprintf("SELECT DISTINCT %s FROM (SELECT %s FROM %s LIMIT %d) WHERE %s LIMIT %d", col, col, table, scan, filter, limit)
	}
	keys, order := "", ""
	if len(t.PrimaryKey) > 0 {
		var outer []string
		for i, k := range t.PrimaryKey {
			keys += fmt.Sprintf(", %s AS o%d", d.quoteAlways(k), i)
			outer = append(outer, fmt.Sprintf("o%d", i))
		}
		order = " ORDER BY " + strings.Join(outer, ", ")
	}
	v, filter := col, "v IS NOT NULL"
	if text {
		v, filter = col+"::text", fmt.Sprintf("char_length(v) <= %d", maxRunes)
	}
	// The first scan rows in that order, numbered n as they come out of
	// it: row_number() over no ORDER BY of its own, since comparing rows
	// would need the key type's equality, which the read-only role may not
	// run (uuid's);
	// DISTINCT ON keeps each value's first row (by its text, which every
	// type has, and not every type an equality), and the outer ORDER BY puts
	// them back in row order.
	return fmt.Sprintf(`SELECT v FROM (SELECT DISTINCT ON (v::text) v, n FROM (SELECT v, row_number() OVER () AS n FROM (SELECT %s AS v%s FROM %s%s LIMIT %d) s) s WHERE %s ORDER BY v::text, n) s ORDER BY n LIMIT %d`,
		v, keys, table, order, scan, filter, limit)
}
