package dbgen

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/dataset"
)

// DescriptionsFile is the descriptions a user writes for a database without
// BIRD's CSVs (or to override them), as JSON:
//
//	{"tables": {"emp": {"noun": "employee", "plural": "employees",
//	    "columns": {"sal": {"name": "salary", "description": "yearly pay in euros",
//	                        "values": "", "skip": false}}}}}
//
// Every field is optional. name is how a question names the column;
// description and values become evidence where a question needs them; skip
// leaves a column out of every question. Write merges name, description and
// values into the database_description CSVs it copies, which prompts read.
type DescriptionsFile struct {
	Tables map[string]TableDescription `json:"tables"`
}

// TableDescription describes one table of a DescriptionsFile.
type TableDescription struct {
	Noun    string                       `json:"noun,omitempty"`
	Plural  string                       `json:"plural,omitempty"`
	Columns map[string]ColumnDescription `json:"columns,omitempty"`
}

// ColumnDescription describes one column of a DescriptionsFile.
type ColumnDescription struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Values      string `json:"values,omitempty"`
	Skip        bool   `json:"skip,omitempty"`
}

// ReadDescriptionsFile reads a descriptions file strictly: unknown fields
// are errors, so a misspelt key is not silently ignored.
func ReadDescriptionsFile(path string) (*DescriptionsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read descriptions file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f DescriptionsFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("descriptions file %s: %w (format: docs/dbgen.md)", path, err)
	}
	return &f, nil
}

// apply writes the file's names over the database's; a table or column the
// database lacks is an error that names it.
func (f *DescriptionsFile) apply(d *Database) error {
	for tn, td := range f.Tables {
		t := d.Table(tn)
		if t == nil {
			return fmt.Errorf("table %q: no such table in %s", tn, d.Path)
		}
		if td.Noun != "" {
			t.Noun = strings.TrimSpace(td.Noun)
		}
		if td.Plural != "" {
			t.Plural = strings.TrimSpace(td.Plural)
		}
		for cn, cd := range td.Columns {
			c := t.Column(cn)
			if c == nil {
				return fmt.Errorf("table %q: column %q: no such column", tn, cn)
			}
			if cd.Name != "" {
				c.Label = oneLine(cd.Name)
			}
			if cd.Description != "" {
				c.Description = oneLine(cd.Description)
			}
			if cd.Values != "" {
				c.Values = oneLine(cd.Values)
			}
			if cd.Skip {
				c.Stats.NonNull = 0 // roleOf: bookkeeping, never used
			}
		}
	}
	return nil
}

// mergeDescriptions rewrites, under dst, the database_description CSV of
// each table d's descriptions file names a column of: BIRD's rows from src
// (entries is its listing) with every field the file sets (name,
// description, values) written over theirs, and a row added for a column
// the CSV lacks. Prompts read these CSVs (package prompt), so the file's
// words reach them as they reach generation. Tables the file leaves alone,
// and every table without a file, keep their copied bytes.
func mergeDescriptions(d *Database, src string, entries []os.DirEntry, dst string) error {
	if d.file == nil {
		return nil
	}
	var bird map[string][]dataset.ColumnDescription
	for _, t := range d.Tables {
		td, ok := d.file.lookup(t.Name)
		if !ok || !fileNameOK(t.Name) {
			continue
		}
		if bird == nil {
			var err error
			if bird, err = dataset.ReadDescriptions(filepath.Dir(src)); err != nil {
				return fmt.Errorf("merge the descriptions file: %w", err)
			}
		}
		rows := slices.Clone(bird[strings.ToLower(t.Name)])
		changed := false
		for _, c := range t.Columns {
			cd, ok := td.column(c.Name)
			if !ok || cd.Name == "" && cd.Description == "" && cd.Values == "" {
				continue // a skip alone keeps BIRD's row
			}
			changed = true
			var hit []int
			for i := range rows {
				if strings.EqualFold(rows[i].Column, c.Name) {
					hit = append(hit, i)
				}
			}
			if len(hit) == 0 {
				rows = append(rows, dataset.ColumnDescription{Column: c.Name})
				hit = []int{len(rows) - 1}
			}
			for _, i := range hit {
				if cd.Name != "" {
					rows[i].Name = oneLine(cd.Name)
				}
				if cd.Description != "" {
					rows[i].Description = oneLine(cd.Description)
				}
				if cd.Values != "" {
					rows[i].Values = oneLine(cd.Values)
				}
			}
		}
		if !changed {
			continue
		}
		// The copied file's own name, so that no second file (another
		// case) describes the table.
		name := t.Name + ".csv"
		for _, e := range entries {
			if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".csv") && strings.EqualFold(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), t.Name) {
				name = e.Name()
			}
		}
		if err := writeDescriptionCSV(filepath.Join(dst, name), rows); err != nil {
			return fmt.Errorf("merge the descriptions file into %s: %w", name, err)
		}
	}
	return nil
}

// lookup returns the file's entry for table (any case, as apply matches).
func (f *DescriptionsFile) lookup(table string) (TableDescription, bool) {
	for tn, td := range f.Tables {
		if strings.EqualFold(tn, table) {
			return td, true
		}
	}
	return TableDescription{}, false
}

// column returns the entry for column (any case, as apply matches).
func (td TableDescription) column(column string) (ColumnDescription, bool) {
	for cn, cd := range td.Columns {
		if strings.EqualFold(cn, column) {
			return cd, true
		}
	}
	return ColumnDescription{}, false
}

// writeDescriptionCSV writes one table's rows as BIRD's
// database_description/<table>.csv, creating the folder.
func writeDescriptionCSV(path string, rows []dataset.ColumnDescription) error {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write([]string{"original_column_name", "column_name", "column_description", "data_format", "value_description"})
	for _, r := range rows {
		cw.Write([]string{r.Column, r.Name, r.Description, r.Format, r.Values})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, []byte(b.String()))
}

// fileNameOK says whether a table's name can name its CSV file.
func fileNameOK(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`+"\x00")
}
