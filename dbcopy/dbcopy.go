// Package dbcopy copies SQLite benchmark databases (BIRD, Spider, sqlrl's
// own) into PostgreSQL, one schema per database, so that the same questions
// can be evaluated on PostgreSQL with sqlexec.Postgres.
//
// The copy must keep every value identical under comparison
// (sqlexec.Value.Equal): an evaluation on PostgreSQL is only comparable to
// one on SQLite if the gold queries return the same rows. So:
//
//   - A column's PostgreSQL type comes from its declared type's SQLite
//     affinity and from the storage classes its values really have (one scan
//     with typeof()), because SQLite's typing is dynamic: a TEXT value in an
//     INTEGER column is legal there. Integers -> bigint, REAL values ->
//     double precision (SQLite's REAL is an IEEE double), text -> text
//     COLLATE "C" (byte order, as SQLite's BINARY collation), BLOB -> bytea.
//     A column whose values mix text and numbers is copied as text (numbers
//     written as SQLite's CAST(x AS TEXT) would), and reported.
//   - DATE, DATETIME, TIMESTAMP, TIME columns stay text: SQLite stores
//     dates as text, and BIRD's gold SQL compares and slices them as text
//     (SUBSTR(event_date, 1, 4) = '2019', event_date LIKE '2019-10-08%',
//     BETWEEN '2019-01-01' AND ...). A date type would change those values
//     ('2020-03-24T12:00:00' is not a date) and fail those predicates.
//   - Identifiers keep their exact spelling, always double-quoted (BIRD has
//     columns with spaces, parentheses and mixed case).
//   - Primary keys, unique and plain indexes, and foreign keys are added
//     after the data (faster, and a constraint the data violates is skipped
//     and reported rather than failing the copy: SQLite does not enforce
//     foreign keys by default and BIRD's data violates some).
//
// Rows travel by the COPY protocol (pgx CopyFrom, binary format) while the
// next page is read from SQLite. A database is copied in one transaction, so
// a copy is all or nothing, and with Replace an existing schema is dropped and
// recreated atomically: readers see the old or the new copy, never half.
package dbcopy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// Source is one SQLite database to copy.
type Source struct {
	// Name is the database id (BIRD/Spider db_id), and the schema it is
	// copied into.
	Name string
	Path string
}

// FindSources lists the databases of a benchmark. dir is a database root
// (<dir>/<db>/<db>.sqlite) or a benchmark directory in BIRD layout
// (<split>_databases/) or Spider layout (database/). names selects databases
// by id, or by path to a .sqlite file (its base name is the id); none means
// all of them.
func FindSources(dir, split string, names []string) ([]Source, error) {
	root := dir
	for _, sub := range []string{split + "_databases", "database"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err == nil && st.IsDir() {
			root = filepath.Join(dir, sub)
			break
		}
	}
	if len(names) > 0 {
		var out []Source
		for _, n := range names {
			if strings.HasSuffix(n, ".sqlite") || strings.HasSuffix(n, ".db") || strings.ContainsRune(n, filepath.Separator) {
				if _, err := os.Stat(n); err != nil {
					return nil, fmt.Errorf("database file %s: %w", n, err)
				}
				base := filepath.Base(n)
				out = append(out, Source{Name: strings.TrimSuffix(base, filepath.Ext(base)), Path: n})
				continue
			}
			p := filepath.Join(root, n, n+".sqlite")
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("database %q: no file %s", n, p)
			}
			out = append(out, Source{Name: n, Path: p})
		}
		return out, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("list databases in %s: %w", root, err)
	}
	var out []Source
	for _, e := range entries {
		p := filepath.Join(root, e.Name(), e.Name()+".sqlite")
		if st, err := os.Stat(p); e.IsDir() && err == nil && !st.IsDir() {
			out = append(out, Source{Name: e.Name(), Path: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no databases (<db>/<db>.sqlite) under %s", root)
	}
	return out, nil
}

// Column is one column of a planned table.
type Column struct {
	Name     string
	Declared string // the SQLite declared type, verbatim
	Type     string // the PostgreSQL type it is created with
	NotNull  bool
	// Counts of non-NULL values by SQLite storage class.
	Ints, Reals, Texts, Blobs int64
}

// Table is one planned table.
type Table struct {
	Name    string
	Columns []Column
	Rows    int64
	// PrimaryKey lists the key's columns in key order.
	PrimaryKey  []string
	ForeignKeys []ForeignKey
	Indexes     []Index
	// rowid is the name under which the table's rowid can be selected, ""
	// for WITHOUT ROWID tables (read in one query).
	rowid string
}

// ForeignKey is one FOREIGN KEY clause.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string // empty: the referenced table's primary key
}

// Index is a UNIQUE constraint or a CREATE INDEX of plain columns.
type Index struct {
	Name    string
	Unique  bool
	Columns []string
}

// Plan is what will be created for one database.
type Plan struct {
	Source Source
	Tables []*Table
	// Notes are the decisions a user should know about: type fallbacks,
	// skipped virtual tables, indexes on expressions.
	Notes []string
}

// Rows is the number of rows the plan copies.
func (p *Plan) Rows() int64 {
	var n int64
	for _, t := range p.Tables {
		n += t.Rows
	}
	return n
}

// reader runs the planning and paging queries on the SQLite file through the
// read-only SQLite engine, so a copy can never write to a benchmark.
type reader struct {
	eng  *sqlexec.SQLite
	path string
}

func (r *reader) query(ctx context.Context, sql string) (*sqlexec.Result, error) {
	res, err := r.eng.Query(ctx, r.path, sql)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", r.path, sql, err)
	}
	return res, nil
}

func newReader(src Source) (*reader, error) {
	path, err := filepath.Abs(src.Path)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", src.Path, err)
	}
	return &reader{eng: sqlexec.NewSQLite(sqlexec.SQLiteOptions{MaxConnsPerDB: 1}), path: path}, nil
}

// qi quotes a SQLite or PostgreSQL identifier (both use double quotes).
func qi(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// PlanCopy reads src's schema and scans each table once to learn the storage
// classes its columns really hold. Tables keep the file's order (creation),
// so that the copy lists them as the file does and a prompt written from
// either is the same.
func PlanCopy(ctx context.Context, src Source) (*Plan, error) {
	r, err := newReader(src)
	if err != nil {
		return nil, err
	}
	defer r.eng.Close()
	res, err := r.query(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	p := &Plan{Source: src}
	for _, row := range res.Rows {
		name, ddl := row[0].S, row[1].S
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(ddl)), "CREATE VIRTUAL") {
			p.Notes = append(p.Notes, fmt.Sprintf("table %s: virtual table not copied", qi(name)))
			continue
		}
		t, notes, err := planTable(ctx, r, name)
		if err != nil {
			return nil, err
		}
		p.Tables = append(p.Tables, t)
		p.Notes = append(p.Notes, notes...)
	}
	checkNameLengths(p)
	return p, nil
}

func planTable(ctx context.Context, r *reader, name string) (*Table, []string, error) {
	t := &Table{Name: name}
	info, err := r.query(ctx, "PRAGMA table_info("+qi(name)+")")
	if err != nil {
		return nil, nil, err
	}
	type pkCol struct {
		pos  int64
		name string
	}
	var pk []pkCol
	for _, row := range info.Rows {
		// cid, name, type, notnull, dflt_value, pk
		c := Column{Name: row[1].S, Declared: row[2].S, NotNull: row[3].I != 0}
		t.Columns = append(t.Columns, c)
		if row[5].I > 0 {
			pk = append(pk, pkCol{row[5].I, c.Name})
		}
	}
	if len(t.Columns) == 0 {
		return nil, nil, fmt.Errorf("%s: table %s has no columns", r.path, qi(name))
	}
	sort.Slice(pk, func(i, j int) bool { return pk[i].pos < pk[j].pos })
	for _, c := range pk {
		t.PrimaryKey = append(t.PrimaryKey, c.name)
	}

	// The rowid, for paging: under a name no column shadows; absent in
	// WITHOUT ROWID tables.
	for _, alias := range []string{"rowid", "_rowid_", "oid"} {
		shadowed := false
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, alias) {
				shadowed = true
			}
		}
		if shadowed {
			continue
		}
		if _, err := r.eng.Query(ctx, r.path, "SELECT "+alias+" FROM "+qi(name)+" LIMIT 0"); err == nil {
			t.rowid = alias
		}
		break
	}

	notes, err := scanClasses(ctx, r, t)
	if err != nil {
		return nil, nil, err
	}
	// Foreign keys: id, seq, table, from, to, on_update, on_delete, match.
	fks, err := r.query(ctx, "PRAGMA foreign_key_list("+qi(name)+")")
	if err != nil {
		return nil, nil, err
	}
	byID := map[int64]*ForeignKey{}
	var ids []int64
	for _, row := range fks.Rows {
		id := row[0].I
		fk := byID[id]
		if fk == nil {
			fk = &ForeignKey{RefTable: row[2].S}
			byID[id] = fk
			ids = append(ids, id)
		}
		fk.Columns = append(fk.Columns, row[3].S)
		if row[4].Kind != sqlexec.KindNull {
			fk.RefColumns = append(fk.RefColumns, row[4].S)
		}
	}
	// SQLite numbers constraints from the last declared one: create them
	// in declaration order, the order sqlexec.ReadTableInfo reads them in.
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	for _, id := range ids {
		fk := byID[id]
		if len(fk.RefColumns) != 0 && len(fk.RefColumns) != len(fk.Columns) {
			fk.RefColumns = nil
		}
		t.ForeignKeys = append(t.ForeignKeys, *fk)
	}

	// Indexes: seq, name, unique, origin (c: CREATE INDEX, u: UNIQUE, pk), partial.
	idx, err := r.query(ctx, "PRAGMA index_list("+qi(name)+")")
	if err != nil {
		return nil, nil, err
	}
	for _, row := range idx.Rows {
		iname, unique, origin, partial := row[1].S, row[2].I != 0, row[3].S, row[4].I != 0
		if origin == "pk" {
			continue
		}
		if partial {
			notes = append(notes, fmt.Sprintf("table %s: partial index %s not copied", qi(name), qi(iname)))
			continue
		}
		cols, err := r.query(ctx, "PRAGMA index_info("+qi(iname)+")")
		if err != nil {
			return nil, nil, err
		}
		ix := Index{Name: iname, Unique: unique}
		expr := false
		for _, c := range cols.Rows {
			if c[2].Kind == sqlexec.KindNull {
				expr = true
				break
			}
			ix.Columns = append(ix.Columns, c[2].S)
		}
		if expr || len(ix.Columns) == 0 {
			notes = append(notes, fmt.Sprintf("table %s: index %s on expressions not copied", qi(name), qi(iname)))
			continue
		}
		t.Indexes = append(t.Indexes, ix)
	}

	return t, notes, nil
}

// scanClasses counts the storage classes of every column's values in one
// scan and chooses the columns' types. A declared type's affinity limits
// what can be stored (TEXT affinity turns numbers into text, REAL affinity
// integers into reals), so only the classes a column can hold are counted:
// the scan's cost is typeof() comparisons per row, and most BIRD columns are
// TEXT. An INTEGER PRIMARY KEY is the rowid: always an integer.
func scanClasses(ctx context.Context, r *reader, t *Table) ([]string, error) {
	type agg struct {
		col   int
		class string // "", integer, real, text, blob: count(x) or a class count
	}
	var aggs []agg
	var b strings.Builder
	b.WriteString("SELECT count(*)")
	rowidAlias := t.rowid != "" && len(t.PrimaryKey) == 1
	for i, c := range t.Columns {
		if rowidAlias && strings.EqualFold(c.Name, t.PrimaryKey[0]) && strings.EqualFold(strings.TrimSpace(c.Declared), "INTEGER") {
			continue // counted as integers below
		}
		q := qi(c.Name)
		classes := []string{"integer", "real", "text"}
		switch affinity(c.Declared) {
		case "TEXT":
			classes = []string{"blob"}
		case "REAL":
			classes = []string{"real", "text"}
		}
		fmt.Fprintf(&b, ", count(%s)", q)
		aggs = append(aggs, agg{i, ""})
		for _, cl := range classes {
			fmt.Fprintf(&b, ", sum(typeof(%s) = '%s')", q, cl)
			aggs = append(aggs, agg{i, cl})
		}
	}
	b.WriteString(" FROM " + qi(t.Name))
	st, err := r.query(ctx, b.String())
	if err != nil {
		return nil, err
	}
	row := st.Rows[0]
	t.Rows = row[0].I
	nonNull := make([]int64, len(t.Columns))
	counted := make([]map[string]int64, len(t.Columns))
	for i := range t.Columns {
		counted[i] = map[string]int64{}
		nonNull[i] = -1 // not scanned: the rowid
	}
	for k, a := range aggs {
		v := row[1+k].I
		if a.class == "" {
			nonNull[a.col] = v
		} else {
			counted[a.col][a.class] = v
		}
	}
	var notes []string
	for i := range t.Columns {
		c := &t.Columns[i]
		n, cl := nonNull[i], counted[i]
		switch {
		case n < 0:
			c.Ints = t.Rows
		case affinity(c.Declared) == "TEXT":
			c.Blobs = cl["blob"]
			c.Texts = n - c.Blobs
		case affinity(c.Declared) == "REAL":
			c.Reals, c.Texts = cl["real"], cl["text"]
			c.Blobs = n - c.Reals - c.Texts
		default:
			c.Ints, c.Reals, c.Texts = cl["integer"], cl["real"], cl["text"]
			c.Blobs = n - c.Ints - c.Reals - c.Texts
		}
		bigInts := false
		if c.Ints > 0 && c.Reals > 0 && c.Texts == 0 && c.Blobs == 0 {
			// Only then does it matter whether a double holds them all.
			q := qi(c.Name)
			res, err := r.query(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE typeof(%s) = 'integer' AND (%s > 9007199254740992 OR %s < -9007199254740992)", qi(t.Name), q, q, q))
			if err != nil {
				return nil, err
			}
			bigInts = res.Rows[0][0].I > 0
		}
		var note string
		c.Type, note = pgType(c, bigInts)
		if note != "" {
			notes = append(notes, fmt.Sprintf("table %s column %s: %s", qi(t.Name), qi(c.Name), note))
		}
	}
	return notes, nil
}

// affinity is SQLite's column affinity of a declared type (datatype3.html,
// section 3.1: the rules apply in this order).
func affinity(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "INTEGER"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "TEXT"
	case strings.Contains(d, "BLOB"), d == "":
		return "BLOB"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// textType is what every text column is created as: "C" compares bytes, as
// SQLite's default BINARY collation does, whatever the database's locale.
const textType = `text COLLATE "C"`

// pgType chooses c's PostgreSQL type from its affinity and the storage
// classes of its values, and says why when the two disagree. bigInts reports
// integers beyond ±2^53, which a double cannot hold exactly.
//
// Integers are always bigint, SQLite's 64 bits: a narrower type would make
// arithmetic that SQLite does (weight_kg * 100) fail with "integer out of
// range". That PostgreSQL's SUM of a bigint is numeric, where SQLite's SUM
// of integers is an integer (it matters to division), is for package
// translate to fix in the query.
func pgType(c *Column, bigInts bool) (string, string) {
	aff := affinity(c.Declared)
	decl := c.Declared
	if decl == "" {
		decl = "(no type)"
	}
	nums := c.Ints + c.Reals
	switch {
	case c.Blobs > 0 && nums+c.Texts > 0:
		return "bytea", fmt.Sprintf("declared %s holds %d blobs among %d other values: copied as bytea (text and numbers become their bytes)", decl, c.Blobs, nums+c.Texts)
	case c.Blobs > 0:
		if aff != "BLOB" {
			return "bytea", fmt.Sprintf("declared %s holds only blobs: copied as bytea", decl)
		}
		return "bytea", ""
	case c.Texts > 0 && nums > 0:
		return textType, fmt.Sprintf("declared %s holds %d text values and %d numbers: copied as text, numbers written as SQLite's CAST(x AS TEXT) (a comparison with a number literal now needs a cast)", decl, c.Texts, nums)
	case c.Texts > 0:
		if aff == "INTEGER" || aff == "REAL" {
			return textType, fmt.Sprintf("declared %s holds only text: copied as text", decl)
		}
		return textType, ""
	case c.Reals > 0 && bigInts:
		return "numeric", fmt.Sprintf("declared %s holds REAL values and integers beyond 2^53: copied as numeric to keep both exact", decl)
	case c.Reals > 0:
		if aff == "INTEGER" && c.Ints > 0 {
			return "double precision", fmt.Sprintf("declared %s holds %d REAL values among %d integers: copied as double precision (integer division on it now gives fractions)", decl, c.Reals, c.Ints)
		}
		return "double precision", ""
	case c.Ints > 0:
		return "bigint", ""
	}
	// No values: the declared type decides.
	switch aff {
	case "INTEGER":
		return "bigint", ""
	case "REAL":
		return "double precision", ""
	case "TEXT":
		return textType, ""
	case "BLOB":
		if strings.Contains(strings.ToUpper(c.Declared), "BLOB") {
			return "bytea", ""
		}
		return textType, ""
	}
	d := strings.ToUpper(c.Declared)
	switch {
	case strings.Contains(d, "DATE"), strings.Contains(d, "TIME"):
		return textType, ""
	case strings.Contains(d, "BOOL"):
		return "bigint", ""
	}
	return "numeric", ""
}

// checkNameLengths notes identifiers PostgreSQL will truncate to 63 bytes.
// Queries are truncated the same way, so they keep working unless two names
// collide.
func checkNameLengths(p *Plan) {
	const maxIdent = 63
	for _, t := range p.Tables {
		if len(t.Name) > maxIdent {
			p.Notes = append(p.Notes, fmt.Sprintf("table %s: name longer than %d bytes is truncated by PostgreSQL", qi(t.Name), maxIdent))
		}
		for _, c := range t.Columns {
			if len(c.Name) > maxIdent {
				p.Notes = append(p.Notes, fmt.Sprintf("table %s column %s: name longer than %d bytes is truncated by PostgreSQL", qi(t.Name), qi(c.Name), maxIdent))
			}
		}
	}
}

// Options control a copy.
type Options struct {
	// Replace drops an existing schema of the same name first (in the same
	// transaction). Without it an existing schema is an error.
	Replace bool
	// Schema overrides the target schema; default Source.Name.
	Schema string
	// PageRows is how many rows are read from SQLite per query (default
	// 20000).
	PageRows int
	// Progress, if set, is called with the number of rows copied so far in
	// this database.
	Progress func(rows int64)
}

// Report says what a copy did.
type Report struct {
	DB      string        `json:"db"`
	Schema  string        `json:"schema"`
	Path    string        `json:"path"`
	Tables  int           `json:"tables"`
	Rows    int64         `json:"rows"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Created counts constraints and indexes created.
	PrimaryKeys int `json:"primary_keys"`
	ForeignKeys int `json:"foreign_keys"`
	Indexes     int `json:"indexes"`
	// Skipped lists constraints and indexes the data or schema did not
	// allow, with PostgreSQL's reason.
	Skipped []string `json:"skipped,omitempty"`
	// Notes carries the plan's notes and value repairs (invalid UTF-8).
	Notes []string `json:"notes,omitempty"`
}

// RowsPerSecond is the copy's throughput.
func (r *Report) RowsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Rows) / r.Elapsed.Seconds()
}

// Copy copies the planned database into a schema of conn's database, in one
// transaction.
func Copy(ctx context.Context, conn *pgx.Conn, p *Plan, opts Options) (*Report, error) {
	start := time.Now()
	schema := opts.Schema
	if schema == "" {
		schema = p.Source.Name
	}
	if opts.PageRows <= 0 {
		opts.PageRows = 20000
	}
	rep := &Report{DB: p.Source.Name, Schema: schema, Path: p.Source.Path, Tables: len(p.Tables)}
	rep.Notes = append(rep.Notes, p.Notes...)
	r, err := newReader(p.Source)
	if err != nil {
		return nil, err
	}
	defer r.eng.Close()

	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("copy %s: begin: %w", p.Source.Name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	exec := func(sql string) error {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("copy %s into schema %s: %s: %w", p.Source.Name, qi(schema), firstLine(sql), err)
		}
		return nil
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists); err != nil {
		return nil, fmt.Errorf("copy %s: %w", p.Source.Name, err)
	}
	if exists {
		if !opts.Replace {
			return nil, fmt.Errorf("copy %s: schema %s already exists (use --replace to drop and copy it again)", p.Source.Name, qi(schema))
		}
		if err := exec("DROP SCHEMA " + qi(schema) + " CASCADE"); err != nil {
			return nil, err
		}
	}
	if err := exec("CREATE SCHEMA " + qi(schema)); err != nil {
		return nil, err
	}
	for _, t := range p.Tables {
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE TABLE %s.%s (", qi(schema), qi(t.Name))
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(qi(c.Name) + " " + c.Type)
			if c.NotNull {
				b.WriteString(" NOT NULL")
			}
		}
		b.WriteString(")")
		if err := exec(b.String()); err != nil {
			return nil, err
		}
	}
	var done int64
	for _, t := range p.Tables {
		n, repaired, err := copyTable(ctx, tx, r, schema, t, opts.PageRows, func(k int64) {
			if opts.Progress != nil {
				opts.Progress(done + k)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("copy %s: table %s: %w", p.Source.Name, qi(t.Name), err)
		}
		if n != t.Rows {
			return nil, fmt.Errorf("copy %s: table %s: copied %d rows, counted %d (was the file changed during the copy?)", p.Source.Name, qi(t.Name), n, t.Rows)
		}
		done += n
		rep.Rows += n
		rep.Notes = append(rep.Notes, repaired...)
	}

	// Constraints and indexes after the data; each in a savepoint, so one the
	// data does not allow is reported and skipped.
	try := func(what, sql string) (bool, error) {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return false, fmt.Errorf("copy %s: savepoint: %w", p.Source.Name, err)
		}
		if _, err := sp.Exec(ctx, sql); err != nil {
			if rerr := sp.Rollback(ctx); rerr != nil {
				return false, fmt.Errorf("copy %s: %s: %w (rollback: %v)", p.Source.Name, what, err, rerr)
			}
			rep.Skipped = append(rep.Skipped, what+": "+pgMessage(err))
			return false, nil
		}
		return true, sp.Commit(ctx)
	}
	tables := map[string]*Table{}
	for _, t := range p.Tables {
		tables[strings.ToLower(t.Name)] = t
	}
	for _, t := range p.Tables {
		if len(t.PrimaryKey) == 0 {
			continue
		}
		ok, err := try(fmt.Sprintf("primary key %s%s", qi(t.Name), cols(t.PrimaryKey)),
			fmt.Sprintf("ALTER TABLE %s.%s ADD PRIMARY KEY %s", qi(schema), qi(t.Name), cols(t.PrimaryKey)))
		if err != nil {
			return nil, err
		}
		if ok {
			rep.PrimaryKeys++
		}
	}
	for _, t := range p.Tables {
		for _, ix := range t.Indexes {
			kw := "INDEX"
			if ix.Unique {
				kw = "UNIQUE INDEX"
			}
			ok, err := try(fmt.Sprintf("%s %s on %s%s", strings.ToLower(kw), qi(ix.Name), qi(t.Name), cols(ix.Columns)),
				fmt.Sprintf("CREATE %s ON %s.%s %s", kw, qi(schema), qi(t.Name), cols(ix.Columns)))
			if err != nil {
				return nil, err
			}
			if ok {
				rep.Indexes++
			}
		}
	}
	for _, t := range p.Tables {
		for _, fk := range t.ForeignKeys {
			what := fmt.Sprintf("foreign key %s%s -> %s%s", qi(t.Name), cols(fk.Columns), qi(fk.RefTable), cols(fk.RefColumns))
			parent := tables[strings.ToLower(fk.RefTable)]
			if parent == nil {
				rep.Skipped = append(rep.Skipped, what+": referenced table does not exist")
				continue
			}
			ref := fk.RefColumns
			if len(ref) == 0 {
				ref = parent.PrimaryKey
			}
			if len(ref) != len(fk.Columns) {
				rep.Skipped = append(rep.Skipped, what+": referenced table has no matching primary key")
				continue
			}
			ok, err := try(what, fmt.Sprintf("ALTER TABLE %s.%s ADD FOREIGN KEY %s REFERENCES %s.%s %s",
				qi(schema), qi(t.Name), cols(fk.Columns), qi(schema), qi(parent.Name), cols(exactNames(parent, ref))))
			if err != nil {
				return nil, err
			}
			if ok {
				rep.ForeignKeys++
			}
		}
	}
	for _, t := range p.Tables {
		if err := exec(fmt.Sprintf("ANALYZE %s.%s", qi(schema), qi(t.Name))); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("copy %s: commit: %w", p.Source.Name, err)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// exactNames spells names as t's columns are spelled (SQLite matches names
// case-insensitively; PostgreSQL's quoted names are exact).
func exactNames(t *Table, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, n) {
				out[i] = c.Name
				break
			}
		}
	}
	return out
}

func cols(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = qi(n)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return textclip.Clip(s, 120)
}

// pgMessage is the server's message and detail, the reason a user needs.
func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Detail != "" {
			return pe.Message + " (" + pe.Detail + ")"
		}
		return pe.Message
	}
	return err.Error()
}

// copyTable streams t's rows into schema.t by COPY and returns how many it
// copied and notes on values it had to repair.
func copyTable(ctx context.Context, tx pgx.Tx, r *reader, schema string, t *Table, pageRows int, progress func(int64)) (int64, []string, error) {
	src := &pageSource{ctx: ctx, r: r, t: t, pageRows: pageRows, progress: progress}
	names := make([]string, len(t.Columns))
	src.conv = make([]func(sqlexec.Value) (any, error), len(t.Columns))
	src.repaired = make([]int64, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
		src.conv[i] = converter(c.Type, &src.repaired[i])
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{schema, t.Name}, names, src)
	if err != nil {
		if src.err != nil {
			return 0, nil, src.err
		}
		return 0, nil, err
	}
	var notes []string
	for i, k := range src.repaired {
		if k > 0 {
			notes = append(notes, fmt.Sprintf("table %s column %s: %d text values were not valid UTF-8 or held NUL bytes; invalid bytes became U+FFFD and NULs were dropped (PostgreSQL text cannot hold them)", qi(t.Name), qi(t.Columns[i].Name), k))
		}
	}
	return n, notes, nil
}

// pageSource feeds CopyFrom from SQLite, one page of rows per query, in
// rowid order (keyset paging: each page is an index seek, not a scan).
type pageSource struct {
	ctx      context.Context
	r        *reader
	t        *Table
	pageRows int
	progress func(int64)
	conv     []func(sqlexec.Value) (any, error)
	repaired []int64

	page    [][]sqlexec.Value
	i       int
	last    int64
	started bool
	done    bool
	copied  int64
	vals    []any
	err     error
}

func (s *pageSource) Next() bool {
	if s.err != nil {
		return false
	}
	if s.i+1 < len(s.page) {
		s.i++
		return s.row()
	}
	if s.done {
		return false
	}
	if err := s.fetch(); err != nil {
		s.err = err
		return false
	}
	if len(s.page) == 0 {
		return false
	}
	s.i = 0
	return s.row()
}

func (s *pageSource) fetch() error {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.t.rowid != "" {
		b.WriteString(s.t.rowid + ", ")
	}
	for i, c := range s.t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(selectExpr(c))
	}
	b.WriteString(" FROM " + qi(s.t.Name))
	switch {
	case s.t.rowid == "":
		s.done = true // WITHOUT ROWID: the whole table at once
	case s.started:
		fmt.Fprintf(&b, " WHERE %s > %d ORDER BY %s LIMIT %d", s.t.rowid, s.last, s.t.rowid, s.pageRows)
	default:
		// rowids may be negative: the first page has no lower bound.
		fmt.Fprintf(&b, " ORDER BY %s LIMIT %d", s.t.rowid, s.pageRows)
	}
	res, err := s.r.query(s.ctx, b.String())
	if err != nil {
		return err
	}
	s.page = res.Rows
	if s.t.rowid != "" {
		if len(s.page) < s.pageRows {
			s.done = true
		}
		if n := len(s.page); n > 0 {
			s.last = s.page[n-1][0].I
			s.started = true
		}
	}
	return nil
}

func (s *pageSource) row() bool {
	row := s.page[s.i]
	if s.t.rowid != "" {
		row = row[1:]
	}
	if s.vals == nil {
		s.vals = make([]any, len(row))
	}
	for k, v := range row {
		x, err := s.conv[k](v)
		if err != nil {
			s.err = fmt.Errorf("column %s: %w", qi(s.t.Columns[k].Name), err)
			return false
		}
		s.vals[k] = x
	}
	s.copied++
	if s.progress != nil && (s.copied%4096 == 0 || s.i == len(s.page)-1) {
		s.progress(s.copied)
	}
	return true
}

func (s *pageSource) Values() ([]any, error) { return s.vals, s.err }
func (s *pageSource) Err() error             { return s.err }

// converter returns how a SQLite value becomes a Go value pgx encodes into a
// column of type typ. The plan chose typ from the values' storage classes, so
// only a file changed during the copy can make it fail.
func converter(typ string, repaired *int64) func(sqlexec.Value) (any, error) {
	mismatch := func(v sqlexec.Value) error {
		return fmt.Errorf("%s value in a %s column (was the file changed during the copy?)", v.Kind, typ)
	}
	switch typ {
	case "bigint":
		return func(v sqlexec.Value) (any, error) {
			switch v.Kind {
			case sqlexec.KindNull:
				return nil, nil
			case sqlexec.KindInt:
				return v.I, nil
			}
			return nil, mismatch(v)
		}
	case "double precision", "numeric":
		return func(v sqlexec.Value) (any, error) {
			switch v.Kind {
			case sqlexec.KindNull:
				return nil, nil
			case sqlexec.KindInt:
				if typ == "numeric" {
					return v.I, nil
				}
				return float64(v.I), nil
			case sqlexec.KindFloat:
				return v.F, nil
			}
			return nil, mismatch(v)
		}
	case "bytea":
		return func(v sqlexec.Value) (any, error) {
			switch v.Kind {
			case sqlexec.KindNull:
				return nil, nil
			case sqlexec.KindBlob, sqlexec.KindText:
				return []byte(v.S), nil
			}
			return []byte(numberText(v)), nil
		}
	}
	return func(v sqlexec.Value) (any, error) {
		switch v.Kind {
		case sqlexec.KindNull:
			return nil, nil
		case sqlexec.KindText, sqlexec.KindBlob:
			s := v.S
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				*repaired++
				s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
			}
			return s, nil
		}
		return numberText(v), nil
	}
}

// selectExpr is how a column is read for copying. Numbers bound for a text
// or bytea column are converted by SQLite itself, CAST(x AS TEXT), so the
// text is exactly what SQLite (of whichever version reads the file) shows
// for them.
func selectExpr(c Column) string {
	q := qi(c.Name)
	if (c.Type == textType || c.Type == "bytea") && c.Ints+c.Reals > 0 {
		return fmt.Sprintf("CASE WHEN typeof(%[1]s) IN ('integer', 'real') THEN CAST(%[1]s AS TEXT) ELSE %[1]s END", q)
	}
	return q
}

// numberText writes a number that reached a text column unconverted (only
// possible if the file changed between planning and copying): the
// shortest decimal that reads back as the same value.
func numberText(v sqlexec.Value) string {
	if v.Kind == sqlexec.KindInt {
		return strconv.FormatInt(v.I, 10)
	}
	return strconv.FormatFloat(v.F, 'g', -1, 64)
}
