package dataset

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Schema is one database's entry in a Spider-style tables file (Spider's
// tables.json, BIRD's dev_tables.json).
type Schema struct {
	DBID       string   `json:"db_id"`
	TableNames []string `json:"table_names_original"`
	// Columns are [table index, column name]; index -1 is the "*" column.
	Columns     []ColumnRef `json:"column_names_original"`
	ColumnTypes []string    `json:"column_types"`
	// PrimaryKeys holds column indexes; a composite key is one entry with
	// several columns (BIRD writes those as nested lists).
	PrimaryKeys [][]int  `json:"-"`
	ForeignKeys [][2]int `json:"foreign_keys"`
}

// ColumnRef is a column of a Schema.
type ColumnRef struct {
	Table int
	Name  string
}

// UnmarshalJSON reads the [table_idx, name] pair form.
func (c *ColumnRef) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("column: want [table_index, name], got %s", b)
	}
	if err := json.Unmarshal(pair[0], &c.Table); err != nil {
		return fmt.Errorf("column %s: table index: %w", b, err)
	}
	if err := json.Unmarshal(pair[1], &c.Name); err != nil {
		return fmt.Errorf("column %s: name: %w", b, err)
	}
	return nil
}

// MarshalJSON writes the [table_idx, name] pair form.
func (c ColumnRef) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{c.Table, c.Name})
}

// ReadTables reads a Spider-style tables file into a map by db_id.
func ReadTables(path string) (map[string]*Schema, error) {
	var raws []json.RawMessage
	if err := readJSON(path, &raws); err != nil {
		return nil, err
	}
	out := make(map[string]*Schema, len(raws))
	for i, raw := range raws {
		var s Schema
		var extra struct {
			PrimaryKeys []json.RawMessage `json:"primary_keys"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %w", path, i, err)
		}
		if err := json.Unmarshal(raw, &extra); err != nil {
			return nil, fmt.Errorf("%s: entry %d (%s): primary_keys: %w", path, i, s.DBID, err)
		}
		for _, pk := range extra.PrimaryKeys {
			var one int
			var many []int
			if err := json.Unmarshal(pk, &one); err == nil {
				s.PrimaryKeys = append(s.PrimaryKeys, []int{one})
			} else if err := json.Unmarshal(pk, &many); err == nil {
				s.PrimaryKeys = append(s.PrimaryKeys, many)
			} else {
				return nil, fmt.Errorf("%s: entry %d (%s): primary key %s is neither a column index nor a list of them", path, i, s.DBID, pk)
			}
		}
		if s.DBID == "" {
			return nil, fmt.Errorf("%s: entry %d: missing db_id", path, i)
		}
		if err := CheckDBID(s.DBID); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %w", path, i, err)
		}
		for j, c := range s.Columns {
			if c.Table < -1 || c.Table >= len(s.TableNames) {
				return nil, fmt.Errorf("%s: entry %d (%s): column %d %q: table index %d out of range", path, i, s.DBID, j, c.Name, c.Table)
			}
		}
		out[s.DBID] = &s
	}
	return out, nil
}

// ColumnDescription is one row of BIRD's database_description/<table>.csv.
type ColumnDescription struct {
	Column      string // original_column_name
	Name        string // column_name: a readable name, often empty
	Description string
	Format      string
	Values      string // value_description: codes and their meanings
}

// ReadDescriptions reads BIRD's database_description folder of one
// database: a map from lower-cased table name to its columns' descriptions.
// It returns an empty map when the folder does not exist. BIRD's CSVs mix
// encodings (UTF-8 with and without BOM, Latin-1) and line endings; all are
// accepted and decoded to UTF-8.
func ReadDescriptions(dbDir string) (map[string][]ColumnDescription, error) {
	dir := filepath.Join(dbDir, "database_description")
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return map[string][]ColumnDescription{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read descriptions: %w", err)
	}
	out := map[string][]ColumnDescription{}
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".csv") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read descriptions: %w", err)
		}
		rows, err := parseDescriptionCSV(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[strings.ToLower(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())))] = rows
	}
	return out, nil
}

func parseDescriptionCSV(data []byte) ([]ColumnDescription, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		data = latin1ToUTF8(data)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var out []ColumnDescription
	for line := 0; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if line == 0 {
			continue // header
		}
		for len(rec) < 5 {
			rec = append(rec, "")
		}
		if strings.TrimSpace(rec[0]) == "" {
			continue
		}
		out = append(out, ColumnDescription{
			Column: strings.TrimSpace(rec[0]), Name: strings.TrimSpace(rec[1]),
			Description: strings.TrimSpace(rec[2]), Format: strings.TrimSpace(rec[3]),
			Values: strings.TrimSpace(rec[4]),
		})
	}
	return out, nil
}

func latin1ToUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}
