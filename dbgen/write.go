package dbgen

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/dataset"
)

// ErrExists is returned by Write when the output folder exists and force
// is off.
var ErrExists = errors.New("output exists")

// Summary is what Write records in generation.json beside the splits.
type Summary struct {
	Database     string         `json:"database"`
	DBID         string         `json:"db_id"`
	Descriptions string         `json:"descriptions,omitempty"`
	Train        int            `json:"train"`
	Dev          int            `json:"dev"`
	Test         int            `json:"test"`
	Attempts     int            `json:"attempts"`
	Rejected     map[string]int `json:"rejected"`
	Families     map[string]int `json:"families"`
	Roles        map[string]int `json:"roles"`
	Inferred     []string       `json:"inferred_foreign_keys,omitempty"`
	Skipped      []string       `json:"skipped,omitempty"`
	Realism      Realism        `json:"realism"`
	Seed         uint64         `json:"seed"`
	// Snapshot is set for a PostgreSQL database: what was copied from it.
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// Generated is one database with the questions generated over it.
type Generated struct {
	DB     *Database
	Splits *Splits
}

// Write writes the splits of one or more databases in BIRD's layout under
// dir: train, dev and the sealed test split (dataset.SplitTest, which only
// dataset.LoadTest reads), each with copies of the databases and their
// database_description (with a descriptions file's entries). It refuses an existing dir unless force, and then
// replaces it whole. generation.json holds one Summary per database.
func Write(dir string, gens []Generated, seed uint64, force bool) ([]*Summary, error) {
	ids := map[string]string{}
	for _, g := range gens {
		if p, ok := ids[g.DB.ID]; ok {
			return nil, fmt.Errorf("databases %s and %s would both be named %q in the benchmark: rename one file", p, g.DB.Path, g.DB.ID)
		}
		ids[g.DB.ID] = g.DB.Path
	}
	if _, err := os.Stat(dir); err == nil {
		if !force {
			return nil, ErrExists
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("replace %s: %w", dir, err)
		}
	}
	var entries []*dataset.TablesEntry
	for _, g := range gens {
		entries = append(entries, tablesFor(g.DB))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i, name := range []string{"train", "dev", dataset.SplitTest} { // splitOf's order
		var qs []Question
		for _, g := range gens {
			qs = append(qs, splitOf(g.Splits, i)...)
			if err := copyDatabase(g.DB, filepath.Join(dir, name+"_databases", g.DB.ID)); err != nil {
				return nil, err
			}
		}
		if err := writeSplit(dir, name, qs, entries); err != nil {
			return nil, err
		}
	}
	var sums []*Summary
	for _, g := range gens {
		d, s := g.DB, g.Splits
		src := d.Path
		if d.Source != "" {
			src = d.Source
		}
		sum := &Summary{Database: src, Snapshot: d.Snapshot, DBID: d.ID, Descriptions: d.Descriptions, Train: len(s.Train), Dev: len(s.Dev), Test: len(s.Test),
			Attempts: s.Attempts, Rejected: s.Rejected, Families: s.Families, Roles: map[string]int{}, Skipped: d.Skipped, Seed: seed,
			Realism: MeasureRealism(append(append(append([]Question(nil), s.Train...), s.Dev...), s.Test...))}
		for _, t := range d.Tables {
			for _, c := range t.Columns {
				sum.Roles[c.Role.String()]++
			}
			for _, fk := range t.ForeignKeys {
				if fk.Inferred {
					sum.Inferred = append(sum.Inferred, fmt.Sprintf("%s.%s -> %s.%s", t.Name, fk.Column, fk.RefTable, fk.RefColumn))
				}
			}
		}
		sums = append(sums, sum)
	}
	data, err := dataset.MarshalBIRD(sums)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "generation.json"), data); err != nil {
		return nil, err
	}
	return sums, nil
}

// writeSplit writes one split's questions in BIRD's layout.
func writeSplit(dir, split string, qs []Question, entries []*dataset.TablesEntry) error {
	recs := make([]dataset.Record, 0, len(qs))
	for i, q := range qs {
		recs = append(recs, dataset.Record{QuestionID: i, DBID: q.DBID, Question: q.Question, Evidence: q.Evidence, SQL: q.SQL, Difficulty: q.Difficulty})
	}
	return dataset.WriteSplit(dir, split, recs, entries)
}

// tablesFor describes d in BIRD's tables-file form.
func tablesFor(d *Database) *dataset.TablesEntry {
	e := &dataset.TablesEntry{DBID: d.ID, TableNamesOrig: []string{}, TableNames: []string{}, ColumnNamesOrig: [][2]any{{-1, "*"}},
		ColumnNames: [][2]any{{-1, "*"}}, ColumnTypes: []string{"text"}, PrimaryKeys: []any{}, ForeignKeys: [][2]int{}}
	idx := map[string]int{}
	for ti, t := range d.Tables {
		e.TableNamesOrig = append(e.TableNamesOrig, t.Name)
		e.TableNames = append(e.TableNames, readable(t.Name))
		for _, c := range t.Columns {
			idx[strings.ToLower(t.Name+"."+c.Name)] = len(e.ColumnNamesOrig)
			e.ColumnNamesOrig = append(e.ColumnNamesOrig, [2]any{ti, c.Name})
			e.ColumnNames = append(e.ColumnNames, [2]any{ti, c.Label})
			e.ColumnTypes = append(e.ColumnTypes, birdType(c))
		}
	}
	for _, t := range d.Tables {
		var pk []int
		for _, p := range t.PrimaryKey {
			pk = append(pk, idx[strings.ToLower(t.Name+"."+p)])
		}
		if len(pk) == 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk[0])
		} else if len(pk) > 1 {
			e.PrimaryKeys = append(e.PrimaryKeys, pk)
		}
		for _, fk := range t.ForeignKeys {
			e.ForeignKeys = append(e.ForeignKeys, [2]int{idx[strings.ToLower(t.Name+"."+fk.Column)], idx[strings.ToLower(fk.RefTable+"."+fk.RefColumn)]})
		}
	}
	return e
}

// birdType is BIRD's column type: text, integer, real, date or blob.
func birdType(c *Column) string {
	t := strings.ToUpper(c.Type)
	switch {
	case strings.Contains(t, "INT"):
		return "integer"
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB") || strings.Contains(t, "NUM") || strings.Contains(t, "DEC"):
		return "real"
	case strings.Contains(t, "DATE") || strings.Contains(t, "TIME"):
		return "date"
	case strings.Contains(t, "BLOB"):
		return "blob"
	}
	return "text"
}

// copyDatabase copies the database file and any database_description/
// into dir, reading the source only; the CSVs of the tables a descriptions
// file describes are then rewritten with its entries (mergeDescriptions).
func copyDatabase(d *Database, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := copyFile(d.Path, filepath.Join(dir, d.ID+".sqlite")); err != nil {
		return err
	}
	src := filepath.Join(filepath.Dir(d.Path), "database_description")
	entries, err := os.ReadDir(src)
	if errors.Is(err, os.ErrNotExist) {
		return mergeDescriptions(d, src, nil, filepath.Join(dir, "database_description"))
	}
	if err != nil {
		return fmt.Errorf("copy descriptions: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".csv") {
			if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dir, "database_description", e.Name())); err != nil {
				return err
			}
		}
	}
	return mergeDescriptions(d, src, entries, filepath.Join(dir, "database_description"))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
