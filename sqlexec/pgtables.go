package sqlexec

import (
	"context"
	"fmt"
)

// PostgresTable is one relation of a PostgreSQL schema as
// ReadPostgresTables lists it: a table (ordinary, partitioned or foreign)
// or a view (plain or materialized), with what the role may read of it.
type PostgresTable struct {
	Name string
	View bool
	// Select: the role may SELECT the whole relation; AnySelect: at least
	// one of its columns (column-level GRANT SELECT).
	Select, AnySelect bool
	Columns           []PostgresColumn
}

// PostgresColumn is one column of a PostgresTable.
type PostgresColumn struct {
	Name string
	// Type is PostgreSQL's own spelling (format_type: "character
	// varying(20)", "bigint").
	Type    string
	NotNull bool
	// String is set for string types (text, varchar, char, enums).
	String bool
	// Comment is its COMMENT ON COLUMN, "" when none.
	Comment string
	// Select: the role may SELECT this column.
	Select bool
}

// ReadPostgresTables lists the relations of schema db (the engine's
// search_path, as the PostgreSQL engine names databases) in creation order,
// each with its columns in order, from pg_catalog in two queries whatever
// the number of tables; partitions are left to their parent. It is the one
// reader of a PostgreSQL schema's tables for the packages that introspect
// one (prompt's catalog, dbgen's snapshots), each keeping what it needs.
func ReadPostgresTables(ctx context.Context, eng Engine, db string) ([]PostgresTable, error) {
	const ofSchema = `c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
		AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND NOT c.relispartition`
	res, err := eng.Query(ctx, db, `SELECT c.relname::text, c.relkind IN ('v', 'm'), has_table_privilege(c.oid, 'SELECT'), has_any_column_privilege(c.oid, 'SELECT')
		FROM pg_catalog.pg_class c WHERE `+ofSchema+` ORDER BY c.oid`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var out []PostgresTable
	at := map[string]int{}
	for _, r := range res.Rows {
		if len(r) < 4 {
			return nil, fmt.Errorf("list tables: %d fields, want 4", len(r))
		}
		at[r[0].S] = len(out)
		out = append(out, PostgresTable{Name: r[0].S, View: r[1].I != 0, Select: r[2].I != 0, AnySelect: r[3].I != 0})
	}
	res, err = eng.Query(ctx, db, `SELECT c.relname::text, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
			ty.typcategory IN ('S', 'E'), d.description, has_column_privilege(c.oid, a.attnum, 'SELECT')
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
		LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.objsubid = a.attnum AND d.classoid = 'pg_catalog.pg_class'::regclass
		WHERE `+ofSchema+` AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.oid, a.attnum`)
	if err != nil {
		return nil, fmt.Errorf("list columns: %w", err)
	}
	for _, r := range res.Rows {
		if len(r) < 7 {
			return nil, fmt.Errorf("list columns: %d fields, want 7", len(r))
		}
		i, ok := at[r[0].S]
		if !ok {
			continue // created between the two queries
		}
		c := PostgresColumn{Name: r[1].S, Type: r[2].S, NotNull: r[3].I != 0, String: r[4].I != 0, Select: r[6].I != 0}
		if r[5].Kind == KindText {
			c.Comment = r[5].S
		}
		out[i].Columns = append(out[i].Columns, c)
	}
	return out, nil
}
