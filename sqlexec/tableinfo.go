package sqlexec

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// TableInfo is a SQLite table's declared structure: its columns, primary
// key and foreign keys, as PRAGMA table_info and foreign_key_list report
// them. It is the one reader of a table's structure for the packages that
// introspect a database (prompt's schema catalog, dbgen's generator).
type TableInfo struct {
	Columns []ColumnInfo
	// PrimaryKey lists the key's columns in key order; empty when none.
	PrimaryKey []string
	// ForeignKeys are the FOREIGN KEY constraints in declaration order.
	ForeignKeys []ForeignKeyInfo
}

// ColumnInfo is one column of a TableInfo.
type ColumnInfo struct {
	Name string
	// Type is the declared type as written in CREATE TABLE, trimmed ("" when
	// none).
	Type    string
	NotNull bool
	// PKPos is the column's 1-based position in the primary key, 0 when it
	// is not part of it.
	PKPos int
}

// ForeignKeyInfo is one FOREIGN KEY constraint, composite ones included:
// Columns[i] references RefColumns[i]. A RefColumns entry is "" when the
// constraint names no target column, which means the target table's
// primary key (SQLite reports NULL); callers resolve it against that table.
type ForeignKeyInfo struct {
	Columns    []string
	RefTable   string
	RefColumns []string
}

// ReadTableInfo reads table's structure from the SQLite database db through
// eng with PRAGMA table_info and PRAGMA foreign_key_list.
func ReadTableInfo(ctx context.Context, eng Engine, db, table string) (*TableInfo, error) {
	q := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	info, err := eng.Query(ctx, db, "PRAGMA table_info("+q+")")
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	ti := &TableInfo{}
	type pkCol struct {
		pos  int64
		name string
	}
	var pk []pkCol
	for _, r := range info.Rows {
		if len(r) < 6 {
			return nil, fmt.Errorf("columns: PRAGMA table_info returned %d fields, want 6", len(r))
		}
		c := ColumnInfo{Name: r[1].S, Type: strings.TrimSpace(r[2].S), NotNull: r[3].I != 0, PKPos: int(r[5].I)}
		ti.Columns = append(ti.Columns, c)
		if r[5].I > 0 {
			pk = append(pk, pkCol{r[5].I, c.Name})
		}
	}
	sort.Slice(pk, func(i, j int) bool { return pk[i].pos < pk[j].pos })
	for _, p := range pk {
		ti.PrimaryKey = append(ti.PrimaryKey, p.name)
	}

	fks, err := eng.Query(ctx, db, "PRAGMA foreign_key_list("+q+")")
	if err != nil {
		return nil, fmt.Errorf("foreign keys: %w", err)
	}
	// SQLite numbers constraints from the last declared one and lists each
	// constraint's columns by seq; keep declaration order.
	byID := map[int64]*ForeignKeyInfo{}
	var ids []int64
	for _, r := range fks.Rows {
		if len(r) < 5 {
			return nil, fmt.Errorf("foreign keys: PRAGMA foreign_key_list returned %d fields, want 8", len(r))
		}
		fk := byID[r[0].I]
		if fk == nil {
			fk = &ForeignKeyInfo{RefTable: r[2].S}
			byID[r[0].I] = fk
			ids = append(ids, r[0].I)
		}
		fk.Columns = append(fk.Columns, r[3].S)
		fk.RefColumns = append(fk.RefColumns, r[4].S) // "" (NULL): the target's key
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	for _, id := range ids {
		ti.ForeignKeys = append(ti.ForeignKeys, *byID[id])
	}
	return ti, nil
}
