package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// builder fills one database file. Domains call add once per row; the first
// error sticks and is returned by finish, which keeps data generators short
// and still never loses an error (the bufio.Writer pattern).
type builder struct {
	w     *sqlexec.Writer
	n     names
	stmts map[string]*sqlexec.WriterStmt
	width map[string]int
	rows  map[string]int64
	scale float64
	err   error
}

// newBuilder creates path, its tables and indexes, and opens the one
// transaction all rows are inserted in.
func newBuilder(path string, tables []table, n names, scale float64) (*builder, error) {
	w, err := sqlexec.CreateSQLite(path)
	if err != nil {
		return nil, err
	}
	b := &builder{w: w, n: n, stmts: map[string]*sqlexec.WriterStmt{}, width: map[string]int{}, rows: map[string]int64{}, scale: scale}
	// The file is built in a temporary directory that is renamed into place
	// only once everything checks out, so per-commit durability buys
	// nothing; without a journal or fsync the build is several times faster.
	var script strings.Builder
	script.WriteString("PRAGMA journal_mode = OFF;\nPRAGMA synchronous = OFF;\n")
	for _, t := range tables {
		s, err := ddl(t, n)
		if err != nil {
			w.Close()
			return nil, err
		}
		script.WriteString(s)
	}
	if err := w.Exec(script.String()); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Exec("BEGIN"); err != nil {
		w.Close()
		return nil, err
	}
	for _, t := range tables {
		cols := make([]string, len(t.cols))
		marks := make([]string, len(t.cols))
		for i, c := range t.cols {
			cols[i] = n[t.name+"."+c.name]
			marks[i] = "?"
		}
		st, err := w.Prepare(fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", n[t.name], strings.Join(cols, ", "), strings.Join(marks, ", ")))
		if err != nil {
			b.closeStmts()
			w.Close()
			return nil, err
		}
		b.stmts[t.name] = st
		b.width[t.name] = len(t.cols)
	}
	return b, nil
}

// count scales a table size by the preset's scale, never below min.
func (b *builder) count(n, min int) int {
	return max(min, int(math.Round(float64(n)*b.scale)))
}

// add inserts one row into the logical table t, values in schema order.
func (b *builder) add(t string, vals ...any) {
	if b.err != nil {
		return
	}
	st, ok := b.stmts[t]
	if !ok {
		b.err = fmt.Errorf("insert into unknown table %s", t)
		return
	}
	if len(vals) != b.width[t] {
		b.err = fmt.Errorf("insert into %s: %d values for %d columns", t, len(vals), b.width[t])
		return
	}
	if err := st.Exec(vals...); err != nil {
		b.err = fmt.Errorf("insert into %s: %w", t, err)
		return
	}
	b.rows[t]++
}

func (b *builder) closeStmts() {
	for _, st := range b.stmts {
		st.Close()
	}
	b.stmts = nil
}

// finish commits and closes the database, returning the first error.
func (b *builder) finish() error {
	b.closeStmts()
	if b.err == nil {
		if err := b.w.Exec("COMMIT"); err != nil {
			b.err = err
		}
	}
	if err := b.w.Close(); err != nil && b.err == nil {
		b.err = err
	}
	return b.err
}

// buildDatabase creates <dir>/<db>.sqlite and its database_description
// folder for one instance, and returns the row count per table.
func buildDatabase(inst *instance, scale float64) (int64, error) {
	dir := filepath.Dir(inst.path)
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		return 0, fmt.Errorf("build %s: %w", inst.id, err)
	}
	for _, t := range inst.dom.tables {
		data, err := descriptionCSV(t, inst.names)
		if err != nil {
			return 0, fmt.Errorf("build %s: %w", inst.id, err)
		}
		p := filepath.Join(dir, "database_description", inst.names[t.name]+".csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return 0, fmt.Errorf("build %s: %w", inst.id, err)
		}
	}
	b, err := newBuilder(inst.path, inst.dom.tables, inst.names, scale)
	if err != nil {
		return 0, fmt.Errorf("build %s: %w", inst.id, err)
	}
	inst.dom.populate(b, newRand(inst.seed, inst.label+"/data"))
	if err := b.finish(); err != nil {
		return 0, fmt.Errorf("build %s: %w", inst.id, err)
	}
	var total int64
	for _, t := range inst.dom.tables {
		total += b.rows[t.name]
		if b.rows[t.name] == 0 {
			return 0, fmt.Errorf("build %s: table %s is empty", inst.id, t.name)
		}
	}
	return total, nil
}
