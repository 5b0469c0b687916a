package dbgen

// PostgreSQL sources. The generator does not query PostgreSQL question by
// question: it copies the tables the role can read into a SQLite file (a
// snapshot) and generates over that file exactly as over any SQLite
// database. Golds are written in SQLite's dialect and checked by execution;
// the snapshot is what train, eval, specialise and serve then read, so
// nothing downstream needs a second dialect (docs/dbgen.md, "PostgreSQL").

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// IsPostgres says whether a -db argument is a PostgreSQL DSN rather than a
// SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Source is one database a -db argument names: a SQLite file, or a
// PostgreSQL DSN and one schema.
type Source struct{ DB, Schema string }

// Sources expands -db arguments into the databases they name: a SQLite file
// is one; a postgres:// DSN is one per schema of schemas, a comma-separated
// list ("" is public), since sqlrl db copy puts each database in a schema of
// its own.
func Sources(dbs []string, schemas string) []Source {
	var list []string
	for _, s := range strings.Split(schemas, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		list = []string{"public"}
	}
	var out []Source
	for _, db := range dbs {
		if !IsPostgres(db) {
			out = append(out, Source{DB: db})
			continue
		}
		for _, s := range list {
			out = append(out, Source{DB: db, Schema: s})
		}
	}
	return out
}

// SnapshotRows is the default bound on the rows copied per table.
const SnapshotRows = 200000

// SnapshotOptions configure SnapshotPostgres.
type SnapshotOptions struct {
	// Schema holds the tables; "" means public.
	Schema string
	// MaxRows bounds the rows copied per table (the first ones in primary
	// key order, or in storage order without a key); 0 means SnapshotRows.
	MaxRows int64
}

// Snapshot is what SnapshotPostgres copied.
type Snapshot struct {
	// Source is the DSN without its password, and the schema.
	Source string `json:"source"`
	Schema string `json:"schema"`
	// Path is the SQLite file written.
	Path string `json:"-"`
	// Tables are the tables copied, with their rows; Capped those that held
	// more than MaxRows rows (only the first MaxRows were copied).
	Tables  map[string]int64 `json:"tables"`
	Capped  []string         `json:"capped,omitempty"`
	MaxRows int64            `json:"max_rows"`
	// Skipped names what was not copied and why (no SELECT privilege,
	// views, foreign keys to tables not copied).
	Skipped []string `json:"skipped,omitempty"`
	Seconds float64  `json:"seconds"`
}

// ErrNoReadableTables is returned when the role can SELECT none of the
// schema's tables.
var ErrNoReadableTables = errors.New("the role can SELECT none of the tables")

// pgTable is one table of the schema as pg_catalog describes it.
type pgTable struct {
	name     string
	readable bool
	cols     []pgColumn
	hidden   []string // columns the role may not SELECT
	pk       []string
	fks      []pgForeignKey
	comments map[string]string // column name -> COMMENT ON COLUMN
}

type pgColumn struct{ name, typ string }

type pgForeignKey struct {
	cols, refCols []string
	refTable      string
}

// SnapshotPostgres copies the tables of o.Schema that the DSN's role can
// SELECT into a new SQLite file dir/<id>/<id>.sqlite, id being the schema
// (or, for public, the database), the benchmark's db_id.
// Primary and foreign keys are declared as in PostgreSQL; column comments
// become BIRD's database_description CSVs beside the file. Every read runs
// in a read-only, rolled-back transaction (sqlexec's engine): PostgreSQL is
// never written to. Tables the role cannot read are skipped and named; a
// role that can read none is an error.
func SnapshotPostgres(ctx context.Context, dsn string, o SnapshotOptions, dir string) (*Snapshot, error) {
	start := time.Now()
	if o.Schema == "" {
		o.Schema = "public"
	}
	if o.MaxRows <= 0 {
		o.MaxRows = SnapshotRows
	}
	u, err := url.Parse(dsn)
	if err != nil || !IsPostgres(dsn) {
		return nil, fmt.Errorf("-db: %q is not a postgres:// URL (postgres://user:password@host:port/database)", RedactDSN(dsn))
	}
	snap := &Snapshot{Source: u.Redacted(), Schema: o.Schema, Tables: map[string]int64{}, MaxRows: o.MaxRows}
	where := fmt.Sprintf("-db %s", snap.Source)
	// The generator runs only its own reads, each in a READ ONLY
	// transaction, so a superuser DSN is accepted here (the engine refuses
	// one for model SQL).
	eng, err := sqlexec.NewPostgres(ctx, sqlexec.PostgresOptions{DSN: dsn, AllowSuperuser: true, MaxConns: 2,
		Limits: sqlexec.Limits{Timeout: 10 * time.Minute}})
	if err != nil {
		return nil, fmt.Errorf("%s: cannot connect (check the host, port, user, password and database in the DSN): %w", where, err)
	}
	defer eng.Close()
	if err := checkSchema(ctx, eng, o.Schema); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	tables, skipped, err := readPgCatalog(ctx, eng, o.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: read the schema %s: %w", where, o.Schema, err)
	}
	snap.Skipped = skipped
	var readable, unreadable []string
	for _, t := range tables {
		if t.readable {
			readable = append(readable, t.name)
		} else {
			unreadable = append(unreadable, t.name)
		}
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("%s: schema %s has no tables (nothing to ask questions about; -pg-schema names the schema)", where, o.Schema)
	}
	if len(readable) == 0 {
		return nil, fmt.Errorf("%s: schema %s: %w (%s): GRANT SELECT to the role, or use another DSN", where, o.Schema, ErrNoReadableTables, strings.Join(unreadable, ", "))
	}
	for _, n := range unreadable {
		snap.Skipped = append(snap.Skipped, fmt.Sprintf("table %s: permission denied (the role may SELECT neither it nor any of its columns), not copied", n))
	}
	id := o.Schema
	if id == "public" {
		id = strings.TrimPrefix(u.Path, "/")
	}
	id = sanitizeID(id)
	dir = filepath.Join(dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	snap.Path = filepath.Join(dir, id+".sqlite")
	if err := writeSnapshot(ctx, eng, o, tables, snap); err != nil {
		os.Remove(snap.Path)
		return nil, fmt.Errorf("%s: snapshot into %s: %w", where, snap.Path, err)
	}
	if err := writeComments(dir, tables); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	snap.Seconds = time.Since(start).Seconds()
	return snap, nil
}

// RedactDSN hides the password of a DSN (one that may not parse too), for
// messages and files.
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		return u.Redacted()
	}
	if at := strings.LastIndexByte(dsn, '@'); at >= 0 {
		return "postgres://...@" + dsn[at+1:]
	}
	return dsn
}

// checkSchema says clearly when the schema is missing or not usable, with
// the schemas the role may use.
func checkSchema(ctx context.Context, eng *sqlexec.Postgres, schema string) error {
	res, err := eng.Query(ctx, "pg_catalog", `SELECT nspname::text, has_schema_privilege(oid, 'USAGE') FROM pg_catalog.pg_namespace
		WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%' ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("list schemas: %w", err)
	}
	var usable []string
	for _, r := range res.Rows {
		if r[0].S == schema {
			if r[1].I == 0 {
				return fmt.Errorf("permission denied for schema %s (the role lacks USAGE on it): GRANT USAGE, or choose another with -pg-schema", schema)
			}
			return nil
		}
		if r[1].I != 0 {
			usable = append(usable, r[0].S)
		}
	}
	list := "none"
	if len(usable) > 0 {
		list = strings.Join(usable, ", ")
	}
	return fmt.Errorf("no schema %s in this database: -pg-schema names the schema holding the tables (schemas the role may use: %s)", schema, list)
}

// readPgCatalog reads the schema's tables, columns, keys and comments from
// pg_catalog, which, unlike information_schema, also lists the tables the
// role cannot read (so that they can be named).
func readPgCatalog(ctx context.Context, eng *sqlexec.Postgres, schema string) ([]*pgTable, []string, error) {
	rels, err := sqlexec.ReadPostgresTables(ctx, eng, schema)
	if err != nil {
		return nil, nil, err
	}
	var tables []*pgTable
	var skipped []string
	byName := map[string]*pgTable{}
	for _, r := range rels {
		if r.View {
			skipped = append(skipped, fmt.Sprintf("view %s: views are not generated over (their tables are)", r.Name))
			continue
		}
		t := &pgTable{name: r.Name, readable: r.Select, comments: map[string]string{}}
		for _, c := range r.Columns {
			if !c.Select {
				t.hidden = append(t.hidden, c.Name)
				continue
			}
			t.cols = append(t.cols, pgColumn{name: c.Name, typ: c.Type})
			if strings.TrimSpace(c.Comment) != "" {
				t.comments[c.Name] = c.Comment
			}
		}
		tables = append(tables, t)
		byName[t.name] = t
	}
	skipped, err = readPgKeys(ctx, eng, byName, schema, skipped)
	if err != nil {
		return nil, nil, err
	}
	return tables, partial(tables, skipped), nil
}

// readPgKeys adds the primary and foreign keys of the tables in byName,
// naming in skipped the foreign keys into other schemas.
func readPgKeys(ctx context.Context, eng *sqlexec.Postgres, byName map[string]*pgTable, schema string, skipped []string) ([]string, error) {
	keys, err := sqlexec.ReadPostgresKeys(ctx, eng, schema)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		t := byName[k.Table]
		switch {
		case t == nil:
		case k.Primary:
			t.pk = k.Columns
		case k.External:
			skipped = append(skipped, fmt.Sprintf("foreign key %s.%s: references %s.%s in another schema", t.name, k.Columns[0], k.RefSchema, k.RefTable))
		default:
			t.fks = append(t.fks, pgForeignKey{cols: k.Columns, refCols: k.RefColumns, refTable: k.RefTable})
		}
	}
	return skipped, nil
}

// partial drops what a table readable only in some columns (column-level
// GRANT SELECT) cannot have: the other columns, a primary key or foreign
// key over them, a foreign key into them; each is named in skipped.
func partial(tables []*pgTable, skipped []string) []string {
	hidden := map[string]bool{}
	for _, t := range tables {
		if len(t.cols) == 0 {
			continue // no column readable: the table is skipped whole
		}
		t.readable = true
		for _, c := range t.hidden {
			hidden[t.name+"\x00"+c] = true
			skipped = append(skipped, fmt.Sprintf("column %s.%s: permission denied (the role has no SELECT on it), not copied", t.name, c))
		}
	}
	anyHidden := func(table string, cols []string) bool {
		return slices.ContainsFunc(cols, func(c string) bool { return hidden[table+"\x00"+c] })
	}
	for _, t := range tables {
		if anyHidden(t.name, t.pk) {
			skipped = append(skipped, fmt.Sprintf("primary key of %s: over a column the role may not read", t.name))
			t.pk = nil
		}
		t.fks = slices.DeleteFunc(t.fks, func(fk pgForeignKey) bool {
			if anyHidden(t.name, fk.cols) || anyHidden(fk.refTable, fk.refCols) {
				skipped = append(skipped, fmt.Sprintf("foreign key %s.%s: over a column the role may not read", t.name, strings.Join(fk.cols, ", ")))
				return true
			}
			return false
		})
	}
	return skipped
}

// sqliteType is the declared SQLite type of a PostgreSQL column, chosen so
// that SQLite's affinity keeps the values the engine decodes (sqlexec's
// pgDecoder: integers and booleans as integers, floats and numeric as
// numbers, dates and everything else as text, bytea as blobs) and so that
// date and time columns stay recognisable as such.
func sqliteType(pg string) string {
	t := strings.ToLower(pg)
	switch {
	case strings.HasSuffix(t, "[]"):
		return "TEXT"
	case t == "smallint" || t == "integer" || t == "bigint" || t == "boolean" || t == "oid":
		return "INTEGER"
	case t == "real" || t == "double precision":
		return "REAL"
	case strings.HasPrefix(t, "numeric"):
		return "NUMERIC"
	case t == "date":
		return "DATE"
	case strings.HasPrefix(t, "timestamp"):
		return "DATETIME"
	case strings.HasPrefix(t, "time"):
		return "TIME"
	case t == "bytea":
		return "BLOB"
	}
	return "TEXT"
}

// writeSnapshot creates snap.Path and copies every readable table into it,
// one query per table (each a consistent read of that table).
func writeSnapshot(ctx context.Context, eng *sqlexec.Postgres, o SnapshotOptions, tables []*pgTable, snap *Snapshot) error {
	w, err := sqlexec.CreateSQLite(snap.Path)
	if err != nil {
		return err
	}
	defer w.Close()
	copied := map[string]bool{}
	for _, t := range tables {
		copied[t.name] = t.readable
	}
	for _, t := range tables {
		if !t.readable {
			continue
		}
		var defs, cols []string
		for _, c := range t.cols {
			defs = append(defs, quote(c.name)+" "+sqliteType(c.typ))
			cols = append(cols, quote(c.name))
		}
		if len(t.pk) > 0 {
			defs = append(defs, "PRIMARY KEY ("+quoteAll(t.pk)+")")
		}
		for _, fk := range t.fks {
			if !copied[fk.refTable] {
				snap.Skipped = append(snap.Skipped, fmt.Sprintf("foreign key %s.%s: references %s, which was not copied", t.name, strings.Join(fk.cols, ", "), fk.refTable))
				continue
			}
			defs = append(defs, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", quoteAll(fk.cols), quote(fk.refTable), quoteAll(fk.refCols)))
		}
		if err := w.Exec(fmt.Sprintf("CREATE TABLE %s (%s)", quote(t.name), strings.Join(defs, ", "))); err != nil {
			return err
		}
		order := ""
		if len(t.pk) > 0 {
			order = " ORDER BY " + quoteAll(t.pk)
		}
		res, err := eng.Query(ctx, o.Schema, fmt.Sprintf("SELECT %s FROM %s%s LIMIT %d", strings.Join(cols, ", "), quote(t.name), order, o.MaxRows+1))
		if err != nil {
			return fmt.Errorf("read table %s: %w", t.name, err)
		}
		rows := res.Rows
		if int64(len(rows)) > o.MaxRows {
			rows = rows[:o.MaxRows]
			snap.Capped = append(snap.Capped, t.name)
			snap.Skipped = append(snap.Skipped, fmt.Sprintf("table %s: more than %d rows, only the first %d copied (-pg-rows)", t.name, o.MaxRows, o.MaxRows))
		}
		if err := insertRows(w, t.name, cols, rows); err != nil {
			return fmt.Errorf("write table %s: %w", t.name, err)
		}
		snap.Tables[t.name] = int64(len(rows))
	}
	return nil
}

// insertRows writes rows into table in one transaction.
func insertRows(w *sqlexec.Writer, table string, cols []string, rows [][]sqlexec.Value) error {
	if err := w.Exec("BEGIN"); err != nil {
		return err
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	st, err := w.Prepare(fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", quote(table), strings.Join(cols, ", "), marks))
	if err != nil {
		return err
	}
	defer st.Close()
	args := make([]any, len(cols))
	for _, r := range rows {
		for i, v := range r {
			args[i] = v
		}
		if err := st.Exec(args...); err != nil {
			return err
		}
	}
	return w.Exec("COMMIT")
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// writeComments writes the column comments of the readable tables as BIRD's
// database_description/<table>.csv, which Introspect reads as descriptions.
// Tables whose names cannot be file names keep theirs unwritten.
func writeComments(dir string, tables []*pgTable) error {
	for _, t := range tables {
		if !t.readable || len(t.comments) == 0 || !fileNameOK(t.name) {
			continue
		}
		var rows []dataset.ColumnDescription
		for _, c := range t.cols {
			if d, ok := t.comments[c.name]; ok {
				rows = append(rows, dataset.ColumnDescription{Column: c.name, Description: d})
			}
		}
		if err := writeDescriptionCSV(filepath.Join(dir, "database_description", t.name+".csv"), rows); err != nil {
			return fmt.Errorf("write column comments: %w", err)
		}
	}
	return nil
}

// Apply records the snapshot on the database introspected from its file:
// the source replaces the file as what the benchmark was made from, and what
// the snapshot skipped comes first in d.Skipped.
func (s *Snapshot) Apply(d *Database) {
	d.Source = s.Source + " schema " + s.Schema
	d.Snapshot = s
	d.Skipped = append(append([]string(nil), s.Skipped...), d.Skipped...)
}
