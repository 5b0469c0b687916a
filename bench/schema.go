package bench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
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
// on them stay fast enough to check thousands of gold queries.
func ddl(t table, n names) (string, error) {
	tn := n[t.name]
	single := len(t.pk) == 1
	var lines, fks, idx []string
	for _, c := range t.cols {
		cn := n[t.name+"."+c.name]
		line := fmt.Sprintf("    %s %s", cn, strings.ToUpper(c.typ))
		if single && t.pk[0] == c.name {
			line += " NOT NULL PRIMARY KEY"
		}
		lines = append(lines, line)
		if c.ref == "" {
			continue
		}
		rt, _, ok := strings.Cut(c.ref, ".")
		rtn, ok1 := n[rt]
		rcn, ok2 := n[c.ref]
		if !ok || !ok1 || !ok2 {
			return "", fmt.Errorf("table %s: column %s: unknown reference %q", t.name, c.name, c.ref)
		}
		fks = append(fks, fmt.Sprintf("    FOREIGN KEY (%s) REFERENCES %s (%s)", cn, rtn, rcn))
		idx = append(idx, fmt.Sprintf("CREATE INDEX idx_%s_%s ON %s (%s);\n", tn, cn, tn, cn))
	}
	if !single {
		pk := make([]string, len(t.pk))
		for i, p := range t.pk {
			pn, ok := n[t.name+"."+p]
			if !ok {
				return "", fmt.Errorf("table %s: unknown primary key column %s", t.name, p)
			}
			pk[i] = pn
		}
		lines = append(lines, "    PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	lines = append(lines, fks...)
	return "CREATE TABLE " + tn + " (\n" + strings.Join(lines, ",\n") + "\n);\n" + strings.Join(idx, ""), nil
}

// tablesEntry is one database's entry in <split>_tables.json, field for
// field what BIRD writes (Spider-style), in BIRD's key order.
type tablesEntry struct {
	DBID              string   `json:"db_id"`
	TableNamesOrig    []string `json:"table_names_original"`
	TableNames        []string `json:"table_names"`
	ColumnNamesOrig   [][2]any `json:"column_names_original"`
	ColumnNames       [][2]any `json:"column_names"`
	ColumnTypes       []string `json:"column_types"`
	PrimaryKeys       []any    `json:"primary_keys"`
	ForeignKeys       [][2]int `json:"foreign_keys"`
	columnIndexByName map[string]int
}

// schemaEntry describes a database instance for <split>_tables.json.
func schemaEntry(dbID string, tables []table, n names) (*tablesEntry, error) {
	e := &tablesEntry{
		DBID:              dbID,
		ColumnNamesOrig:   [][2]any{{-1, "*"}},
		ColumnNames:       [][2]any{{-1, "*"}},
		ColumnTypes:       []string{"text"},
		PrimaryKeys:       []any{},
		ForeignKeys:       [][2]int{},
		columnIndexByName: map[string]int{},
	}
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
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write([]string{"original_column_name", "column_name", "column_description", "data_format", "value_description"}); err != nil {
		return nil, err
	}
	for _, c := range t.cols {
		phys := n[t.name+"."+c.name]
		desc, err := n.render(c.desc)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: description: %w", t.name, c.name, err)
		}
		vals, err := n.render(c.values)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: value description: %w", t.name, c.name, err)
		}
		if err := w.Write([]string{phys, readable(phys), desc, c.typ, vals}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
