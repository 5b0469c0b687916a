package dbgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
// leaves a column out of every question.
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
