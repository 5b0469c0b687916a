package sqlexec

import (
	"context"
	"fmt"
)

// PostgresKey is one PRIMARY KEY or FOREIGN KEY constraint of a table in a
// PostgreSQL schema; a foreign key's Columns[i] references RefColumns[i].
type PostgresKey struct {
	Table   string
	Primary bool
	Columns []string
	// RefSchema, RefTable and RefColumns are a foreign key's target;
	// External is set when RefSchema is another schema than db.
	RefSchema, RefTable string
	RefColumns          []string
	External            bool
}

// ReadPostgresKeys reads the primary and foreign keys of schema db's tables
// from pg_catalog through eng (db is the schema, as the PostgreSQL engine
// names databases): table by table in creation order, each table's primary
// key first, then its foreign keys in creation order. It is the one reader
// of PostgreSQL keys for the packages that introspect a database (prompt's
// schema catalog, dbgen's snapshots), as ReadTableInfo is for SQLite.
func ReadPostgresKeys(ctx context.Context, eng Engine, db string) ([]PostgresKey, error) {
	// One row per key column, in key order; a foreign key's target column
	// is the one at the same position of confkey.
	res, err := eng.Query(ctx, db, `SELECT con.oid::bigint, con.contype::text, c.relname::text, a.attname::text, rn.nspname::text, rc.relname::text, ra.attname::text, rn.nspname <> current_schema()
		FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
		CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(num, pos)
		JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num
		LEFT JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
		LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
		LEFT JOIN pg_catalog.pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = con.confkey[k.pos::int]
		WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
			AND con.contype IN ('p', 'f') ORDER BY c.oid, con.contype DESC, con.oid, k.pos`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	var out []PostgresKey
	oid := int64(-1)
	for _, r := range res.Rows {
		if len(r) < 8 {
			return nil, fmt.Errorf("list keys: %d fields, want 8", len(r))
		}
		if r[0].I != oid {
			out = append(out, PostgresKey{Table: r[2].S, Primary: r[1].S == "p", RefSchema: r[4].S, RefTable: r[5].S, External: r[7].I != 0})
			oid = r[0].I
		}
		k := &out[len(out)-1]
		k.Columns = append(k.Columns, r[3].S)
		if !k.Primary {
			k.RefColumns = append(k.RefColumns, r[6].S)
		}
	}
	return out, nil
}
