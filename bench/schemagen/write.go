package schemagen

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlrl/sqlrl/sqlexec"
)

// Write writes db as dir/<id>.sqlite and dir/database_description/<table>.csv,
// the layout of one database in BIRD's <split>_databases/<id>/. The SQLite
// file must not exist yet: sqlexec refuses to overwrite a benchmark.
func Write(ctx context.Context, db *DB, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", db.ID, err)
	}
	for _, t := range db.Tables {
		data, err := DescriptionCSV(t)
		if err != nil {
			return fmt.Errorf("write %s: table %s: %w", db.ID, t.Name, err)
		}
		p := filepath.Join(dir, "database_description", t.Name+".csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", db.ID, err)
		}
	}
	path := filepath.Join(dir, db.ID+".sqlite")
	w, err := sqlexec.CreateSQLite(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", db.ID, err)
	}
	if err := insertAll(ctx, w, db); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func insertAll(ctx context.Context, w *sqlexec.Writer, db *DB) error {
	// The file is written once and checked after, so durability per
	// statement buys nothing; without a journal the write is much faster.
	script := "PRAGMA journal_mode = OFF;\nPRAGMA synchronous = OFF;\n"
	for _, t := range db.Tables {
		script += DDL(t)
	}
	if err := w.Exec(script); err != nil {
		return err
	}
	if err := w.Exec("BEGIN"); err != nil {
		return err
	}
	for _, t := range db.Tables {
		if err := ctx.Err(); err != nil {
			return err
		}
		cols := make([]string, len(t.Columns))
		marks := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i], marks[i] = c.Name, "?"
		}
		st, err := w.Prepare(fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.Name, strings.Join(cols, ", "), strings.Join(marks, ", ")))
		if err != nil {
			return err
		}
		for _, row := range t.Rows {
			if err := st.Exec(row...); err != nil {
				st.Close()
				return fmt.Errorf("insert into %s: %w", t.Name, err)
			}
		}
		st.Close()
	}
	return w.Exec("COMMIT")
}

// DDL returns a table's CREATE TABLE statement with its keys, and an index
// on each foreign key, as a real schema would have.
func DDL(t *Table) string {
	var lines, fks, idx []string
	single := len(t.PK) == 1
	for _, c := range t.Columns {
		line := "    " + c.Name + " " + c.Type
		if single && t.PK[0] == c.Name {
			line += " NOT NULL PRIMARY KEY"
		}
		lines = append(lines, line)
	}
	if !single {
		lines = append(lines, "    PRIMARY KEY ("+strings.Join(t.PK, ", ")+")")
	}
	for _, fk := range t.FKs {
		fks = append(fks, fmt.Sprintf("    FOREIGN KEY (%s) REFERENCES %s (%s)", fk.Column, fk.RefTable, fk.RefColumn))
		idx = append(idx, fmt.Sprintf("CREATE INDEX idx_%s_%s ON %s (%s);\n", t.Name, fk.Column, t.Name, fk.Column))
	}
	lines = append(lines, fks...)
	return "CREATE TABLE " + t.Name + " (\n" + strings.Join(lines, ",\n") + "\n);\n" + strings.Join(idx, "")
}

// DescriptionCSV renders BIRD's database_description/<table>.csv for one
// table, in the columns and order bench's writer uses: the prompt builder
// reads these to explain abbreviated names and coded values.
func DescriptionCSV(t *Table) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write([]string{"original_column_name", "column_name", "column_description", "data_format", "value_description"}); err != nil {
		return nil, err
	}
	for _, c := range t.Columns {
		if err := w.Write([]string{c.Name, c.Phrase, c.Description, dataFormat(c), c.ValueDescription}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// dataFormat is BIRD's data_format: the declared type in lower case
// (bench writes "integer", "real", "text", "date").
func dataFormat(c *Column) string { return strings.ToLower(c.Type) }
