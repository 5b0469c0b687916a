package prompt

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Schema is what a prompt shows of one database: its tables, in the order
// the database lists them. It is read from the database itself (not from a
// tables.json) so that a prompt describes exactly what the SQL will run on.
// A Schema is shared by every prompt on its database and must not be
// modified.
type Schema struct {
	DBID   string
	Tables []*Table
}

// Table is one table of a Schema.
type Table struct {
	Name    string
	Columns []Column
	// PrimaryKey lists the key's columns in key order; empty when none.
	PrimaryKey  []string
	ForeignKeys []ForeignKey

	// nameTerms, colTerms and valueTerms are the words pruning matches the
	// question against (see rank.go).
	nameTerms, colTerms, valueTerms map[string]bool
}

// Column is one column of a Table.
type Column struct {
	Name string
	// Type is the declared type as written in CREATE TABLE ("" when none).
	Type    string
	NotNull bool
	// Examples are up to CatalogOptions.Examples distinct values, already
	// written as SQL literals ('gold', 42, 3.5), so that a model sees how
	// values are spelled (BIRD's golds hinge on 'M' versus 'Male').
	Examples []string
	// Description is BIRD's column description on one line, "" when none.
	Description string
	// Values are the column's distinct text values, for value linking
	// (CatalogOptions.Values; nil without).
	Values *ValueSet
}

// ForeignKey is one FOREIGN KEY constraint of a Table.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
}

// Table returns the table called name (case-insensitively, as SQL does), or
// nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// Defaults of CatalogOptions.
const (
	DefaultExamples            = 3
	DefaultScanRows            = 1000
	DefaultMaxValueChars       = 40
	DefaultMaxDescriptionChars = 200
)

// CatalogOptions configure how schemas are read. Zero values take the
// defaults above; a negative value turns the feature off (Examples < 0: no
// example values) or the limit off (MaxValueChars, MaxDescriptionChars < 0).
type CatalogOptions struct {
	// DescriptionRoot holds <db>/database_description/*.csv, BIRD's column
	// descriptions; usually the benchmark's database root. Empty: none.
	DescriptionRoot string
	// DescriptionDir, when set, names the folder holding db's
	// database_description/ (it overrides DescriptionRoot): for databases
	// that are configured files rather than one root's <db>/<db>.sqlite,
	// as `sqlrl serve` has them. A model trained with descriptions and
	// served without them answered 3 of 200 questions right.
	DescriptionDir func(db string) string
	// Examples is the number of distinct example values shown per column.
	Examples int
	// ScanRows bounds the rows read per column when looking for examples,
	// so that a table of millions of rows costs what a small one does and
	// the values found do not depend on a timeout.
	ScanRows int
	// MaxValueChars cuts longer text examples (with "..." inside the
	// quotes): a column of long free text needs its kind shown, not its text.
	MaxValueChars int
	// MaxDescriptionChars cuts longer descriptions (with "...").
	MaxDescriptionChars int
	// Values, when positive, indexes up to this many distinct text values
	// of each column for Schema.MatchValues; 0 indexes none (the default:
	// a prompt format asks for it).
	Values int
}

func (o CatalogOptions) withDefaults() CatalogOptions {
	if o.Examples == 0 {
		o.Examples = DefaultExamples
	}
	if o.ScanRows <= 0 {
		o.ScanRows = DefaultScanRows
	}
	if o.MaxValueChars == 0 {
		o.MaxValueChars = DefaultMaxValueChars
	}
	if o.MaxDescriptionChars == 0 {
		o.MaxDescriptionChars = DefaultMaxDescriptionChars
	}
	return o
}

// Catalog reads and caches the Schema of each database. Thousands of prompts
// share a handful of databases, and reading one (a query per column for
// example values) costs far more than writing a prompt, so each database is
// read once; concurrent requests for the same database wait for one read.
// SQLite databases are read through sqlite_master and PRAGMA table_info /
// foreign_key_list, PostgreSQL ones through pg_catalog (EngineDialect says
// which a database is; catalogsql.go holds both).
type Catalog struct {
	eng  sqlexec.Engine
	opts CatalogOptions

	mu      sync.Mutex
	entries map[string]*catalogEntry
}

type catalogEntry struct {
	done   chan struct{}
	schema *Schema
	err    error
}

// NewCatalog returns a Catalog that reads databases through eng.
func NewCatalog(eng sqlexec.Engine, opts CatalogOptions) *Catalog {
	return &Catalog{eng: eng, opts: opts.withDefaults(), entries: map[string]*catalogEntry{}}
}

// Schema returns the schema of database db, reading it on first use. A
// failed read is not cached, so a canceled run can be retried.
func (c *Catalog) Schema(ctx context.Context, db string) (*Schema, error) {
	c.mu.Lock()
	e := c.entries[db]
	if e == nil {
		e = &catalogEntry{done: make(chan struct{})}
		c.entries[db] = e
		c.mu.Unlock()
		e.schema, e.err = c.read(ctx, db)
		if e.err != nil {
			c.mu.Lock()
			delete(c.entries, db)
			c.mu.Unlock()
		}
		close(e.done)
		return e.schema, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("schema of %s: %w", db, ctx.Err())
	}
	return e.schema, e.err
}

func (c *Catalog) read(ctx context.Context, db string) (*Schema, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("schema of %s: %s", db, fmt.Sprintf(format, args...))
	}
	d := EngineDialect(c.eng, db)
	list, err := c.listTables(ctx, db, d)
	if err != nil {
		return nil, fail("%v", err)
	}
	s := &Schema{DBID: db}
	for _, t := range list.tables {
		if err := c.readValues(ctx, db, d, t, list.stringCols); err != nil {
			return nil, fail("table %s: %v", t.Name, err)
		}
		s.Tables = append(s.Tables, t)
	}
	if len(s.Tables) == 0 {
		return nil, fail("no tables")
	}
	// A FOREIGN KEY without target columns references the target's key.
	for _, t := range s.Tables {
		for i, fk := range t.ForeignKeys {
			if len(fk.RefColumns) > 0 && fk.RefColumns[0] != "" {
				continue
			}
			if ref := s.Table(fk.RefTable); ref != nil && len(ref.PrimaryKey) == len(fk.Columns) {
				t.ForeignKeys[i].RefColumns = append([]string(nil), ref.PrimaryKey...)
			} else {
				t.ForeignKeys[i].RefColumns = nil
			}
		}
	}
	descDir := ""
	switch {
	case c.opts.DescriptionDir != nil:
		descDir = c.opts.DescriptionDir(db)
	case c.opts.DescriptionRoot != "":
		descDir = filepath.Join(c.opts.DescriptionRoot, db)
	}
	if descDir != "" {
		descs, err := dataset.ReadDescriptions(descDir)
		if err != nil {
			return nil, fail("%v", err)
		}
		for _, t := range s.Tables {
			c.describe(t, descs[strings.ToLower(t.Name)])
		}
	}
	for _, t := range s.Tables {
		t.indexTerms()
	}
	return s, nil
}

// readValues reads the example values and the values for value linking of
// t's columns; stringCols is listTables' (nil: every column, as on SQLite,
// where the query keeps text values alone).
func (c *Catalog) readValues(ctx context.Context, db string, d Dialect, t *Table, stringCols map[string]bool) error {
	var err error
	for i := range t.Columns {
		col := &t.Columns[i]
		if c.opts.Examples > 0 {
			if col.Examples, err = c.examples(ctx, db, d, t, col.Name); err != nil {
				return fmt.Errorf("example values of column %s: %w", col.Name, err)
			}
		}
		if c.opts.Values > 0 {
			if stringCols != nil && !stringCols[t.Name+"\x00"+col.Name] {
				col.Values = NewValueSet(nil)
				continue
			}
			if col.Values, err = c.values(ctx, db, d, t, col.Name); err != nil {
				return fmt.Errorf("values of column %s: %w", col.Name, err)
			}
		}
	}
	return nil
}

// examples reads up to Examples distinct non-empty values of a column among
// its first ScanRows rows (firstDistinctSQL says which rows). Without ORDER
// BY the rows come in the table's storage order, which is fixed for a given
// database file and SQLite release, so prompts are reproducible; sorting
// instead would scan whole tables of millions of rows.
func (c *Catalog) examples(ctx context.Context, db string, d Dialect, t *Table, column string) ([]string, error) {
	// Ask for a few more than needed: empty strings and blobs are skipped.
	res, err := c.eng.Query(ctx, db, d.firstDistinctSQL(t, column, c.opts.ScanRows, c.opts.Examples+3, false, 0))
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range res.Rows {
		if len(out) == c.opts.Examples {
			break
		}
		lit, ok := literal(r[0], c.opts.MaxValueChars)
		if !ok || seen[lit] {
			continue
		}
		seen[lit] = true
		out = append(out, lit)
	}
	return out, nil
}

// literal writes v as a SQL literal on one line; ok is false for values not
// worth showing (blobs, empty text).
func literal(v sqlexec.Value, maxChars int) (string, bool) {
	switch v.Kind {
	case sqlexec.KindInt:
		return strconv.FormatInt(v.I, 10), true
	case sqlexec.KindFloat:
		s := strconv.FormatFloat(v.F, 'g', -1, 64)
		if v.F > -1e15 && v.F < 1e15 {
			s = strconv.FormatFloat(v.F, 'f', -1, 64)
		}
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return s, true
	case sqlexec.KindText:
		s := oneLine(v.S)
		if s == "" {
			return "", false
		}
		s = cut(s, maxChars)
		return "'" + strings.ReplaceAll(s, "'", "''") + "'", true
	}
	return "", false
}

// oneLine collapses runs of whitespace (line breaks included) into one
// space: a schema comment must stay on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cut shortens s to max runes, marking the cut with "...". max < 0: no limit.
func cut(s string, max int) string {
	if max < 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return strings.TrimRight(s[:i], " ") + "..."
		}
		n++
	}
	return s
}

// describe attaches BIRD's descriptions to t's columns. A description that
// only repeats the column's name is dropped; the readable name is kept when
// it says more than the column name; value notes ("M: male") follow.
func (c *Catalog) describe(t *Table, descs []dataset.ColumnDescription) {
	if len(descs) == 0 {
		return
	}
	find := func(name string) *dataset.ColumnDescription {
		for i := range descs {
			if strings.EqualFold(strings.TrimSpace(descs[i].Column), name) {
				return &descs[i]
			}
		}
		key := squash(name)
		for i := range descs {
			if squash(descs[i].Column) == key {
				return &descs[i]
			}
		}
		return nil
	}
	for i := range t.Columns {
		col := &t.Columns[i]
		d := find(col.Name)
		if d == nil {
			continue
		}
		var parts []string
		name, desc := oneLine(d.Name), oneLine(d.Description)
		if name != "" && squash(name) != squash(col.Name) && squash(name) != squash(desc) {
			parts = append(parts, name)
		}
		if desc != "" && squash(desc) != squash(col.Name) {
			parts = append(parts, desc)
		}
		if v := stripNoise(d.Values); v != "" {
			parts = append(parts, "values: "+v)
		}
		col.Description = cut(strings.Join(parts, "; "), c.opts.MaxDescriptionChars)
	}
}

// stripNoise puts a BIRD value note on one line without the "commonsense
// evidence:" labels its annotators left in, which tell a model nothing.
func stripNoise(s string) string {
	const label = "commonsense evidence:"
	var b strings.Builder
	for i := 0; i < len(s); {
		if i+len(label) <= len(s) && strings.EqualFold(s[i:i+len(label)], label) {
			b.WriteByte(' ')
			i += len(label)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return oneLine(b.String())
}

// squash lower-cases s and drops everything but letters and digits, so that
// "superhero name" matches superhero_name.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// quoteAlways double-quotes an identifier for the introspection queries,
// where a name is data and must never be read as a keyword.
func (Dialect) quoteAlways(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
