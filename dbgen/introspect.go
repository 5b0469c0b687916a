package dbgen

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Database is what introspection learns about one database: its tables
// with their columns, keys and value statistics, and what it skipped.
type Database struct {
	// ID names the database in the benchmark it feeds (db_id): the file's
	// base name without its extension.
	ID     string
	Path   string
	Tables []*Table
	// Skipped lists what generation will not use and why (views, empty
	// tables, tables without columns SQL can name).
	Skipped []string
	// Descriptions says where column descriptions came from ("" when none).
	Descriptions string
	// file is the descriptions file applied, nil when none: Write merges
	// it into the database_description CSVs it copies, which prompts read.
	file *DescriptionsFile
	// Source and Snapshot are set for a PostgreSQL database: its DSN
	// (without password) and schema, and what was copied into the SQLite
	// snapshot at Path (SnapshotPostgres).
	Source   string
	Snapshot *Snapshot
}

// Table is one table.
type Table struct {
	Name       string
	Rows       int64
	Columns    []*Column
	PrimaryKey []string
	// ForeignKeys are the table's references to other tables, one column
	// each (composite references are skipped: questions never join on them).
	ForeignKeys []ForeignKey
	// Noun is how a question names one row ("superhero"); Plural many.
	Noun, Plural string
}

// Column is one column with its statistics and role.
type Column struct {
	Table *Table `json:"-"`
	Name  string
	Type  string
	PK    bool
	// Ref is the foreign key this column holds, nil when none.
	Ref *ForeignKey
	// Label is the readable name (BIRD's column_name, the descriptions
	// file's name, or the name split into words with abbreviations spelt
	// out); Description and Values are the descriptions' text, if any.
	Label, Description, Values string
	Stats                      Stats
	Role                       Role
}

// ForeignKey is one single-column reference.
type ForeignKey struct {
	Column, RefTable, RefColumn string
	// Inferred marks a reference the database does not declare, inferred
	// from names and value containment (see inferForeignKeys).
	Inferred bool
}

// Stats are a column's value statistics, read with a few aggregate queries.
type Stats struct {
	Rows, NonNull, Distinct int64
	// Numeric: every non-NULL value is an integer or a real; Integer: every
	// one an integer.
	Numeric, Integer bool
	Min, Max         float64
	// Quantiles are the 10th, 25th, 50th, 75th and 90th percentiles of a
	// numeric column.
	Quantiles [5]float64
	// Top are the most frequent values (text, or small-range codes), most
	// frequent first; the pool entity lookups draw from.
	Top []ValueCount
	// Date: most non-NULL values start with YYYY-MM-DD.
	Date bool
	// MeanLen is the mean length of the values as text.
	MeanLen float64
}

// NullShare is the share of rows whose value is NULL.
func (s Stats) NullShare() float64 {
	if s.Rows == 0 {
		return 1
	}
	return 1 - float64(s.NonNull)/float64(s.Rows)
}

// ValueCount is a value with the number of rows holding it.
type ValueCount struct {
	Value sqlexec.Value
	Count int64
}

// IntrospectOptions configure Introspect.
type IntrospectOptions struct {
	// DescriptionDir holds BIRD's database_description/ (default: the
	// database file's folder).
	DescriptionDir string
	// DescriptionsFile is a user's descriptions file (docs/dbgen.md); empty
	// means none.
	DescriptionsFile string
	// TopValues bounds Stats.Top; 0 means 200.
	TopValues int
	// MaxTables refuses databases with more tables; 0 means 1000.
	MaxTables int
}

// ErrPostgres is Introspect's error for a PostgreSQL DSN: IntrospectSource
// snapshots its tables into a SQLite file first.
var ErrPostgres = errors.New("introspect: a PostgreSQL DSN is read through IntrospectSource, which snapshots its tables into a SQLite file")

// IntrospectSource introspects a -db argument: a SQLite file as Introspect
// does, or a postgres:// DSN, whose readable tables SnapshotPostgres first
// copies into a SQLite file under snapDir/<db_id>/ (what the returned
// Database's Path names and everything after generation reads).
func IntrospectSource(ctx context.Context, eng sqlexec.Engine, db, snapDir string, so SnapshotOptions, o IntrospectOptions) (*Database, error) {
	if !IsPostgres(db) {
		return Introspect(ctx, eng, db, o)
	}
	snap, err := SnapshotPostgres(ctx, db, so, snapDir)
	if err != nil {
		return nil, err
	}
	d, err := Introspect(ctx, eng, snap.Path, o)
	if err != nil {
		return nil, fmt.Errorf("%s schema %s: %w", snap.Source, snap.Schema, err)
	}
	snap.Apply(d)
	return d, nil
}

// Introspect reads the schema, descriptions and value statistics of the
// SQLite database at path through eng (read-only: sqlexec's SQLite engine
// opens it with SQLITE_OPEN_READONLY).
func Introspect(ctx context.Context, eng sqlexec.Engine, path string, o IntrospectOptions) (*Database, error) {
	if IsPostgres(path) {
		return nil, ErrPostgres
	}
	if o.TopValues <= 0 {
		o.TopValues = 200
	}
	if o.MaxTables <= 0 {
		o.MaxTables = 1000
	}
	if c, ok := eng.(interface{ Check(string) error }); ok {
		if err := c.Check(path); err != nil {
			return nil, err
		}
	}
	base := filepath.Base(path)
	d := &Database{ID: strings.TrimSuffix(base, filepath.Ext(base)), Path: path}
	if err := dataset.CheckDBID(d.ID); err != nil {
		d.ID = sanitizeID(d.ID)
	}
	q := func(sql string) (*sqlexec.Result, error) { return eng.Query(ctx, path, sql) }
	res, err := q(`SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("introspect %s: list tables: %w", path, err)
	}
	var names []string
	for _, r := range res.Rows {
		if r[0].S == "view" {
			d.Skipped = append(d.Skipped, fmt.Sprintf("view %s: views are not generated over (their tables are)", r[1].S))
			continue
		}
		names = append(names, r[1].S)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("introspect %s: the database has no tables (nothing to ask questions about)", path)
	}
	if len(names) > o.MaxTables {
		return nil, fmt.Errorf("introspect %s: %d tables, more than the generator reads (%d)", path, len(names), o.MaxTables)
	}
	for _, n := range names {
		t, err := readTable(ctx, eng, path, q, n, o.TopValues)
		if err != nil {
			return nil, fmt.Errorf("introspect %s: table %s: %w", path, n, err)
		}
		if t.Rows == 0 {
			d.Skipped = append(d.Skipped, fmt.Sprintf("table %s: empty", n))
		}
		d.Tables = append(d.Tables, t)
	}
	declared := 0
	for _, t := range d.Tables {
		declared += len(t.ForeignKeys)
	}
	if declared == 0 {
		if err := inferForeignKeys(ctx, q, d); err != nil {
			return nil, fmt.Errorf("introspect %s: infer foreign keys: %w", path, err)
		}
	}
	linkColumns(d)
	if err := describe(d, o); err != nil {
		return nil, err
	}
	for _, t := range d.Tables {
		if t.Noun == "" {
			t.Noun = readable(t.Name)
		}
		if t.Plural == "" {
			t.Plural = plural(t.Noun)
		}
		for _, c := range t.Columns {
			if c.Label == "" {
				c.Label = readable(c.Name)
			}
			c.Role = roleOf(c)
		}
	}
	return d, nil
}

var idRune = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func sanitizeID(s string) string {
	s = strings.Trim(idRune.ReplaceAllString(s, "_"), "_")
	if s == "" {
		return "db"
	}
	return s
}

// quote quotes an identifier for SQLite, always: names may be reserved
// words or hold spaces and non-ASCII letters.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// ident writes a name as BIRD's golds do: bare when it is a plain word
// that is not a keyword, in backquotes otherwise.
func ident(name string) string {
	if plainName.MatchString(name) && !reserved[strings.ToUpper(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are SQL keywords a bare column or table name may not be.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY
	CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME
	CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE
	EXCEPT EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FOR FOREIGN FROM FULL GLOB GROUP HAVING IF IGNORE IMMEDIATE IN INDEX
	INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LEFT LIKE LIMIT MATCH NATURAL NO NOT
	NOTHING NOTNULL NULL OF OFFSET ON OR ORDER OUTER OVER PARTITION PLAN PRAGMA PRIMARY QUERY RAISE RANGE RECURSIVE
	REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP
	TEMPORARY THEN TO TRANSACTION TRIGGER UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`) {
		reserved[w] = true
	}
}

// readTable reads one table's columns, keys and statistics.
func readTable(ctx context.Context, eng sqlexec.Engine, path string, q func(string) (*sqlexec.Result, error), name string, top int) (*Table, error) {
	t := &Table{Name: name}
	info, err := sqlexec.ReadTableInfo(ctx, eng, path, name)
	if err != nil {
		return nil, err
	}
	for _, ci := range info.Columns {
		t.Columns = append(t.Columns, &Column{Table: t, Name: ci.Name, Type: strings.ToUpper(ci.Type), PK: ci.PKPos > 0})
	}
	t.PrimaryKey = info.PrimaryKey
	for _, fk := range info.ForeignKeys {
		if len(fk.Columns) != 1 {
			continue // composite reference: questions never join on one
		}
		// RefColumn "" (no target column declared) is the target's key,
		// resolved by linkColumns.
		t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Column: fk.Columns[0], RefTable: fk.RefTable, RefColumn: fk.RefColumns[0]})
	}
	cnt, err := q("SELECT COUNT(*) FROM " + quote(name))
	if err != nil {
		return nil, fmt.Errorf("count rows: %w", err)
	}
	t.Rows = cnt.Rows[0][0].I
	for _, c := range t.Columns {
		if err := readStats(ctx, q, t, c, top); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return t, nil
}

// SampleRows bounds the rows a column's statistics are read from.
const SampleRows = 200000

// readStats fills c.Stats: one aggregate query, then the quantiles of a
// numeric column and the top values of any column with repeated values.
func readStats(ctx context.Context, q func(string) (*sqlexec.Result, error), t *Table, c *Column, top int) error {
	s := &c.Stats
	s.Rows = min(t.Rows, SampleRows)
	if t.Rows == 0 {
		return nil
	}
	col, tab := quote(c.Name), quote(t.Name)
	if t.Rows > SampleRows {
		// A big table's statistics come from its first rows in storage
		// order: exact ones would sort every numeric column five times.
		tab = fmt.Sprintf("(SELECT %s FROM %s LIMIT %d)", col, tab, SampleRows)
	}
	res, err := q(fmt.Sprintf(`SELECT COUNT(%[1]s), COUNT(DISTINCT %[1]s), SUM(typeof(%[1]s) IN ('integer', 'real')), SUM(typeof(%[1]s) = 'integer'),
		MIN(CASE WHEN typeof(%[1]s) IN ('integer', 'real') THEN %[1]s END), MAX(CASE WHEN typeof(%[1]s) IN ('integer', 'real') THEN %[1]s END),
		AVG(length(CAST(%[1]s AS TEXT))), SUM(CAST(%[1]s AS TEXT) GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]*') FROM %[2]s`, col, tab))
	if err != nil {
		return fmt.Errorf("statistics: %w", err)
	}
	r := res.Rows[0]
	s.NonNull, s.Distinct = r[0].I, r[1].I
	if s.NonNull == 0 {
		return nil
	}
	s.Numeric = r[2].I == s.NonNull
	s.Integer = r[3].I == s.NonNull
	s.Min, s.Max = num(r[4]), num(r[5])
	s.MeanLen = num(r[6])
	s.Date = !s.Numeric && float64(r[7].I) >= 0.9*float64(s.NonNull)
	if s.Numeric {
		for i, p := range []float64{0.10, 0.25, 0.50, 0.75, 0.90} {
			off := int64(p * float64(s.NonNull-1))
			qr, err := q(fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY 1 LIMIT 1 OFFSET %d", col, tab, col, off))
			if err != nil {
				return fmt.Errorf("quantiles: %w", err)
			}
			if len(qr.Rows) > 0 {
				s.Quantiles[i] = num(qr.Rows[0][0])
			}
		}
	}
	if s.Distinct < s.NonNull && !(s.Numeric && !s.Integer) {
		tr, err := q(fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE %s IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT %d", col, tab, col, top))
		if err != nil {
			return fmt.Errorf("top values: %w", err)
		}
		for _, row := range tr.Rows {
			s.Top = append(s.Top, ValueCount{row[0], row[1].I})
		}
	} else if !s.Numeric {
		// Unique text (names): a sample in storage order stands for the pool.
		tr, err := q(fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL LIMIT %d", col, tab, col, top))
		if err != nil {
			return fmt.Errorf("sample values: %w", err)
		}
		for _, row := range tr.Rows {
			s.Top = append(s.Top, ValueCount{row[0], 1})
		}
	}
	return ctx.Err()
}

func num(v sqlexec.Value) float64 {
	switch v.Kind {
	case sqlexec.KindInt:
		return float64(v.I)
	case sqlexec.KindFloat:
		return v.F
	}
	return 0
}

// linkColumns points each column at its table's reference and drops
// references to tables or columns that do not exist.
func linkColumns(d *Database) {
	for _, t := range d.Tables {
		var keep []ForeignKey
		for _, fk := range t.ForeignKeys {
			ref := d.Table(fk.RefTable)
			if ref == nil {
				d.Skipped = append(d.Skipped, fmt.Sprintf("foreign key %s.%s: no table %s", t.Name, fk.Column, fk.RefTable))
				continue
			}
			fk.RefTable = ref.Name
			if fk.RefColumn == "" && len(ref.PrimaryKey) == 1 {
				fk.RefColumn = ref.PrimaryKey[0]
			}
			if ref.Column(fk.RefColumn) == nil || t.Column(fk.Column) == nil {
				d.Skipped = append(d.Skipped, fmt.Sprintf("foreign key %s.%s: no column %s.%s", t.Name, fk.Column, fk.RefTable, fk.RefColumn))
				continue
			}
			fk.RefColumn = ref.Column(fk.RefColumn).Name
			keep = append(keep, fk)
		}
		t.ForeignKeys = keep
		for i := range t.ForeignKeys {
			t.Column(t.ForeignKeys[i].Column).Ref = &t.ForeignKeys[i]
		}
	}
}

// Table returns the table named name (any case), nil when none.
func (d *Database) Table(name string) *Table {
	for _, t := range d.Tables {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// Column returns the column named name (any case), nil when none.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// inferForeignKeys adds references for a database that declares none: a
// column named after another table (<table>_id, <table>id, <table>) that
// is not its own table's whole key, whose target is that table's one-column
// key, and whose every non-NULL value occurs in that key. Each is marked
// Inferred.
func inferForeignKeys(ctx context.Context, q func(string) (*sqlexec.Result, error), d *Database) error {
	for _, t := range d.Tables {
		for _, c := range t.Columns {
			if (c.PK && len(t.PrimaryKey) == 1) || c.Stats.NonNull == 0 {
				continue
			}
			stem := strings.ToLower(c.Name)
			for _, suf := range []string{"_id", "id"} {
				if s, ok := strings.CutSuffix(stem, suf); ok && s != "" {
					stem = strings.TrimSuffix(s, "_")
					break
				}
			}
			for _, ref := range d.Tables {
				if ref == t || len(ref.PrimaryKey) != 1 || ref.Rows == 0 {
					continue
				}
				rn := strings.ToLower(ref.Name)
				if rn != stem && rn != stem+"s" && rn != stem+"es" && strings.TrimSuffix(rn, "s") != stem {
					continue
				}
				pk := ref.Column(ref.PrimaryKey[0])
				if pk.Stats.Numeric != c.Stats.Numeric {
					continue
				}
				res, err := q(fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s)",
					quote(t.Name), quote(c.Name), quote(c.Name), quote(pk.Name), quote(ref.Name)))
				if err != nil {
					return err
				}
				if res.Rows[0][0].I == 0 {
					t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Column: c.Name, RefTable: ref.Name, RefColumn: pk.Name, Inferred: true})
					break
				}
			}
		}
	}
	return ctx.Err()
}

// describe takes names and notes from BIRD's CSVs beside the database (or in
// o.DescriptionDir), then from o.DescriptionsFile, and records which were read.
func describe(d *Database, o IntrospectOptions) error {
	dir := o.DescriptionDir
	if dir == "" {
		dir = filepath.Dir(d.Path)
	}
	descs, err := dataset.ReadDescriptions(dir)
	if err != nil {
		return fmt.Errorf("introspect %s: %w", d.Path, err)
	}
	if len(descs) > 0 {
		d.Descriptions = filepath.Join(dir, "database_description")
	}
	applyBIRD(d, descs)
	if o.DescriptionsFile != "" {
		f, err := ReadDescriptionsFile(o.DescriptionsFile)
		if err != nil {
			return err
		}
		if err := f.apply(d); err != nil {
			return fmt.Errorf("%s: %w", o.DescriptionsFile, err)
		}
		d.file = f
		d.Descriptions = strings.TrimPrefix(d.Descriptions+", "+o.DescriptionsFile, ", ")
	}
	return nil
}

// applyBIRD takes labels, descriptions and value notes from BIRD's CSVs.
func applyBIRD(d *Database, descs map[string][]dataset.ColumnDescription) {
	for _, t := range d.Tables {
		for _, cd := range descs[strings.ToLower(t.Name)] {
			c := t.Column(cd.Column)
			if c == nil {
				continue
			}
			c.Label = oneLine(cd.Name)
			c.Description = oneLine(cd.Description)
			c.Values = oneLine(cd.Values)
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
