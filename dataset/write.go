package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
)

// Record is one question as BIRD's question files hold it, fields in
// BIRD's order (evidence and difficulty always written).
type Record struct {
	QuestionID int    `json:"question_id"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
	Difficulty string `json:"difficulty"`
}

// TablesEntry is one database's entry in a <split>_tables.json as BIRD
// writes it (Spider style), field for field and in BIRD's key order;
// Schema is what reading one keeps.
type TablesEntry struct {
	DBID            string   `json:"db_id"`
	TableNamesOrig  []string `json:"table_names_original"`
	TableNames      []string `json:"table_names"`
	ColumnNamesOrig [][2]any `json:"column_names_original"`
	ColumnNames     [][2]any `json:"column_names"`
	ColumnTypes     []string `json:"column_types"`
	PrimaryKeys     []any    `json:"primary_keys"`
	ForeignKeys     [][2]int `json:"foreign_keys"`
}

// MarshalBIRD writes JSON the way BIRD's files look: indented four spaces,
// and with <, > and & left as they are (they occur in SQL).
func MarshalBIRD(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteSplit writes a split in BIRD's layout into dir: <split>.json (the
// records), <split>_tables.json (the schemas) and <split>_gold.sql (one
// "SQL<TAB>db_id" line per record), each file atomically. A question or
// SQL holding a tab or a line break, which the gold file cannot hold, is
// refused before anything is written.
func WriteSplit(dir, split string, recs []Record, tables []*TablesEntry) error {
	var gold strings.Builder
	for _, r := range recs {
		if strings.ContainsAny(r.SQL, "\t\n\r") || strings.ContainsAny(r.Question, "\t\n\r") {
			return fmt.Errorf("write %s: question %d on %s: tab or line break in question or SQL: %q", split, r.QuestionID, r.DBID, r.Question)
		}
		fmt.Fprintf(&gold, "%s\t%s\n", r.SQL, r.DBID)
	}
	if recs == nil {
		recs = []Record{}
	}
	if tables == nil {
		tables = []*TablesEntry{}
	}
	for _, f := range []struct {
		name string
		v    any
	}{{split + ".json", recs}, {split + "_tables.json", tables}} {
		data, err := MarshalBIRD(f.v)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), data); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, split+"_gold.sql"), []byte(gold.String())); err != nil {
		return fmt.Errorf("write %s_gold.sql: %w", split, err)
	}
	return nil
}
