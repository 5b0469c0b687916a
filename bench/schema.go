package bench

import (
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/bench/schemagen"
	"github.com/sqlrl/sqlrl/dataset"
)

// column is one column of a domain's logical schema. The logical name is
// also the physical name in train databases; dev databases use dev, so that
// a model must read the schema from its prompt instead of recalling it.
type column struct {
	name string
	dev  string // physical name in dev databases; "" keeps name
	typ  string // integer, real, text, date or datetime (BIRD's column_types)
	// desc, values: BIRD's column_description and value_description. They
	// may name tables and columns as {table} and {table.column}.
	desc   string
	values string
	ref    string // foreign key target, "table.column" (logical); "" if none
}

// table is one table of a domain's logical schema.
type table struct {
	name string
	dev  string
	cols []column
	pk   []string // logical column names
}

// names maps logical identifiers ("customer", "customer.city") to the
// physical names of one database instance.
type names map[string]string

// newNames returns the naming of a train (dev=false) or dev instance.
func newNames(tables []table, dev bool) names {
	n := names{}
	for _, t := range tables {
		tn := t.name
		if dev && t.dev != "" {
			tn = t.dev
		}
		n[t.name] = tn
		for _, c := range t.cols {
			cn := c.name
			if dev && c.dev != "" {
				cn = c.dev
			}
			n[t.name+"."+c.name] = cn
		}
	}
	return n
}

// render replaces {table} and {table.column} with physical names. An unknown
// identifier is an error, so a typo in a template fails the generator instead
// of producing a gold query that cannot run.
func (n names) render(s string) (string, error) {
	if !strings.Contains(s, "{") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unclosed { in %q", s)
		}
		key := s[i+1 : i+j]
		phys, ok := n[key]
		if !ok {
			return "", fmt.Errorf("unknown identifier {%s}", key)
		}
		b.WriteString(s[:i])
		b.WriteString(phys)
		s = s[i+j+1:]
	}
}

// readable turns a physical name into BIRD's readable form ("first_name" ->
// "first name"), used for table_names and column_names.
func readable(s string) string { return strings.ReplaceAll(s, "_", " ") }

// ddl returns the CREATE TABLE and CREATE INDEX statements of one table under
// naming n. Foreign-key columns get an index, as a real schema would; joins
// on them stay fast enough to check thousands of gold queries. The SQL is
// schemagen's (one writer for v1 and v2 databases).
func ddl(t table, n names) (string, error) {
	st, err := physicalTable(t, n)
	if err != nil {
		return "", err
	}
	return schemagen.DDL(st), nil
}

// physicalTable is t under naming n as schemagen describes a table, so
// that v1 and v2 databases share one DDL and description writer.
func physicalTable(t table, n names) (*schemagen.Table, error) {
	st := &schemagen.Table{Name: n[t.name]}
	for _, c := range t.cols {
		cn := n[t.name+"."+c.name]
		desc, err := n.render(c.desc)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: description: %w", t.name, c.name, err)
		}
		vals, err := n.render(c.values)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: value description: %w", t.name, c.name, err)
		}
		// Types are lower case (BIRD's column_types) and upper case in
		// the DDL; schemagen's data_format lower-cases them back.
		st.Columns = append(st.Columns, &schemagen.Column{Name: cn, Phrase: readable(cn), Description: desc, ValueDescription: vals, Type: strings.ToUpper(c.typ)})
		if c.ref == "" {
			continue
		}
		rt, _, ok := strings.Cut(c.ref, ".")
		rtn, ok1 := n[rt]
		rcn, ok2 := n[c.ref]
		if !ok || !ok1 || !ok2 {
			return nil, fmt.Errorf("table %s: column %s: unknown reference %q", t.name, c.name, c.ref)
		}
		st.FKs = append(st.FKs, schemagen.FK{Column: cn, RefTable: rtn, RefColumn: rcn})
	}
	for _, p := range t.pk {
		pn, ok := n[t.name+"."+p]
		if !ok {
			return nil, fmt.Errorf("table %s: unknown primary key column %s", t.name, p)
		}
		st.PK = append(st.PK, pn)
	}
	return st, nil
}

// tablesEntry is one database's entry in <split>_tables.json, field for
// field what BIRD writes (Spider-style), in BIRD's key order.
type tablesEntry struct {
	dataset.TablesEntry
	columnIndexByName map[string]int
}

// schemaEntry describes a database instance for <split>_tables.json.
func schemaEntry(dbID string, tables []table, n names) (*tablesEntry, error) {
	e := &tablesEntry{TablesEntry: dataset.TablesEntry{
		DBID:            dbID,
		ColumnNamesOrig: [][2]any{{-1, "*"}},
		ColumnNames:     [][2]any{{-1, "*"}},
		ColumnTypes:     []string{"text"},
		PrimaryKeys:     []any{},
		ForeignKeys:     [][2]int{},
	}, columnIndexByName: map[string]int{}}
	for ti, t := range tables {
		e.TableNamesOrig = append(e.TableNamesOrig, n[t.name])
		e.TableNames = append(e.TableNames, readable(n[t.name]))
		for _, c := range t.cols {
			phys := n[t.name+"."+c.name]
			e.columnIndexByName[t.name+"."+c.name] = len(e.ColumnNamesOrig)
			e.ColumnNamesOrig = append(e.ColumnNamesOrig, [2]any{ti, phys})
			e.ColumnNames = append(e.ColumnNames, [2]any{ti, readable(phys)})
			e.ColumnTypes = append(e.ColumnTypes, c.typ)
		}
	}
	for _, t := range tables {
		var pk []int
		for _, p := range t.pk {
			i, ok := e.columnIndexByName[t.name+"."+p]
			if !ok {
				return nil, fmt.Errorf("%s: table %s: unknown primary key column %s", dbID, t.name, p)
			}
			pk = append(pk, i)
		}
		if len(pk) == 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk[0])
		} else if len(pk) > 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk)
		}
		for _, c := range t.cols {
			if c.ref == "" {
				continue
			}
			from := e.columnIndexByName[t.name+"."+c.name]
			to, ok := e.columnIndexByName[c.ref]
			if !ok {
				return nil, fmt.Errorf("%s: table %s: column %s: unknown reference %s", dbID, t.name, c.name, c.ref)
			}
			e.ForeignKeys = append(e.ForeignKeys, [2]int{from, to})
		}
	}
	return e, nil
}

// descriptionCSV renders BIRD's database_description/<table>.csv for one
// table. The prompt builder reads these to explain columns and coded values.
func descriptionCSV(t table, n names) ([]byte, error) {
	st, err := physicalTable(t, n)
	if err != nil {
		return nil, err
	}
	return schemagen.DescriptionCSV(st)
}
