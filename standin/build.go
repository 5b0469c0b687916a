package standin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Write creates s as a SQLite file at path: its tables with their columns
// (INTEGER for keys named like ids, REAL for numeric uses, TEXT
// otherwise), the join keys as primary and foreign keys, and one row per
// quoted text value of a column.
func (s *Schema) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	w, err := sqlexec.CreateSQLite(path)
	if err != nil {
		return err
	}
	defer w.Close()
	for _, t := range s.Tables {
		if err := w.Exec(ddl(t)); err != nil {
			return fmt.Errorf("stand-in %s: %w", s.DBID, err)
		}
	}
	if err := w.Exec("BEGIN"); err != nil {
		return err
	}
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			for _, v := range c.Values {
				if err := w.Exec("INSERT INTO "+quote(t.Name)+" ("+quote(c.Name)+") VALUES (?)", v); err != nil {
					return fmt.Errorf("stand-in %s: %w", s.DBID, err)
				}
			}
		}
	}
	if err := w.Exec("COMMIT"); err != nil {
		return err
	}
	return w.Close()
}

// ddl is a table's CREATE TABLE statement.
func ddl(t *Table) string {
	var defs, fks []string
	if len(t.Columns) == 0 { // read only by COUNT(*) and the like
		return "CREATE TABLE " + quote(t.Name) + ` ("id" INTEGER PRIMARY KEY)`
	}
	pk := primaryKey(t)
	for _, c := range t.Columns {
		typ := "TEXT"
		switch {
		case len(c.Values) == 0 && c.Key && (idLike(c.Name, t.Name) || strings.HasSuffix(strings.ToLower(c.Name), "id")):
			typ = "INTEGER"
		case c.Numeric && len(c.Values) == 0:
			typ = "REAL"
		}
		d := quote(c.Name) + " " + typ
		if c == pk {
			d += " PRIMARY KEY"
		}
		defs = append(defs, d)
		if c.Ref != nil {
			fks = append(fks, "FOREIGN KEY ("+quote(c.Name)+") REFERENCES "+quote(c.Ref[0])+" ("+quote(c.Ref[1])+")")
		}
	}
	return "CREATE TABLE " + quote(t.Name) + " (" + strings.Join(append(defs, fks...), ", ") + ")"
}

// primaryKey is the table's one column named like its own id, if any.
func primaryKey(t *Table) *Column {
	var pk *Column
	for _, c := range t.Columns {
		if idLike(c.Name, t.Name) {
			if pk != nil {
				return nil
			}
			pk = c
		}
	}
	return pk
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Summary is what Build kept and dropped.
type Summary struct {
	Databases int `json:"databases"`
	Questions int `json:"questions"`
	Kept      int `json:"kept"`
	// Dropped counts questions by reason: "line break" (the gold file
	// cannot hold it), "does not run" (the gold fails on the stand-in).
	Dropped map[string]int `json:"dropped"`
	Tables  int            `json:"tables"`
	Columns int            `json:"columns"`
	Seconds float64        `json:"seconds"`
}

// WriteText prints the summary.
func (s *Summary) WriteText(w io.Writer, dir string) {
	fmt.Fprintf(w, "%s: %d of %d questions kept over %d stand-in databases (%d tables, %d columns)\n", dir, s.Kept, s.Questions, s.Databases, s.Tables, s.Columns)
	for _, k := range slices.Sorted(maps.Keys(s.Dropped)) {
		fmt.Fprintf(w, "  dropped, %s: %d\n", k, s.Dropped[k])
	}
}

// ErrExists is returned when the output split already exists.
var ErrExists = errors.New("standin: output exists")

// Options say where Build writes.
type Options struct {
	// Dir receives <Split>.json, <Split>_gold.sql and <Split>_tables.json
	// (BIRD's layout).
	Dir, Split string
	// DBRoot receives <db>/<db>.sqlite for every database (default
	// Dir/<Split>_databases); none may exist yet.
	DBRoot string
	// Progress, when set, is called with the questions checked so far.
	Progress func(done, total int)
}

// Build writes o.Split of o.Dir in BIRD's layout from examples: the
// stand-in databases and the questions whose gold runs on them (question
// ids kept; tabs and line breaks in a question become spaces, a gold
// holding one is dropped).
func Build(ctx context.Context, examples []dataset.Example, o Options) (*Summary, error) {
	start := time.Now()
	root := o.DBRoot
	if root == "" {
		root = filepath.Join(o.Dir, o.Split+"_databases")
	}
	if _, err := os.Stat(filepath.Join(o.Dir, o.Split+".json")); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrExists, filepath.Join(o.Dir, o.Split+".json"))
	}
	sum := &Summary{Questions: len(examples), Dropped: map[string]int{}}
	sqls := map[string][]string{}
	var keep []dataset.Example
	for _, ex := range examples {
		if strings.ContainsAny(ex.SQL, "\t\n\r") {
			sum.Dropped["line break in the gold"]++
			continue
		}
		ex.Question = strings.Join(strings.Fields(ex.Question), " ")
		ex.Evidence = strings.Join(strings.Fields(ex.Evidence), " ")
		sqls[ex.DBID] = append(sqls[ex.DBID], ex.SQL)
		keep = append(keep, ex)
	}
	schemas := Infer(sqls)
	for _, s := range schemas {
		if _, err := os.Stat(filepath.Join(root, s.DBID)); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, filepath.Join(root, s.DBID))
		}
	}
	for _, s := range schemas {
		if err := s.Write(filepath.Join(root, s.DBID, s.DBID+".sqlite")); err != nil {
			return nil, err
		}
		sum.Tables += len(s.Tables)
		for _, t := range s.Tables {
			sum.Columns += len(t.Columns)
		}
	}
	sum.Databases = len(schemas)
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root, Limits: sqlexec.Limits{Timeout: 2 * time.Second, MaxRows: 1000}})
	defer eng.Close()
	var recs []dataset.Record
	for i, ex := range keep {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := eng.Query(ctx, ex.DBID, ex.SQL); err != nil {
			sum.Dropped["does not run on the stand-in"]++
		} else {
			recs = append(recs, dataset.Record{QuestionID: ex.QuestionID, DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence, SQL: ex.SQL, Difficulty: ex.Difficulty})
		}
		if o.Progress != nil {
			o.Progress(i+1, len(keep))
		}
	}
	sum.Kept = len(recs)
	if err := dataset.WriteSplit(o.Dir, o.Split, recs, nil); err != nil {
		return nil, err
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}
