package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/jsonl"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// Per-kind limits of the readers, below jsonl.MaxLine because what a line
// holds is bounded far below it; they are listed in jsonl.LimitsDoc.
//
// MaxPredictionLine, 16 MiB, bounds a prediction: a line of sqlrl's JSONL
// (its SQL and every candidate), a line of a one-SQL-per-line file, or one
// value of a BIRD prediction file. The engine runs no statement over
// sqlexec.DefaultMaxSQLBytes, and model output is capped in tokens far
// below that, so a longer line is not a model's answer; it would only be
// held in memory and scored as wrong.
//
// MaxGoldSQL bounds a gold query to what the SQLite engine will run
// (sqlexec.DefaultMaxSQLBytes): a longer gold could only fail as
// gold_error, silently taking its question out of the score.
const (
	MaxPredictionLine = 16 << 20
	MaxGoldSQL        = sqlexec.DefaultMaxSQLBytes
)

// checkGoldSQL refuses a gold query longer than MaxGoldSQL.
func checkGoldSQL(sql string) error {
	if len(sql) > MaxGoldSQL {
		return fmt.Errorf("gold SQL of %d bytes: the limit is %d, the longest statement the SQLite engine runs (%s)", len(sql), MaxGoldSQL, jsonl.LimitsDoc)
	}
	return nil
}

// Prediction is a model's answer to one question. Index ties it to the
// Example at the same position; Candidates (optional) are K sampled answers
// for pass@K, of which SQL is the one submitted.
type Prediction struct {
	Index      int      `json:"index"`
	QuestionID int      `json:"question_id"`
	DBID       string   `json:"db_id,omitempty"`
	SQL        string   `json:"sql"`
	Candidates []string `json:"candidates,omitempty"`
	// Error, written when set, says why a question has no SQL (generation
	// failed on it; it scores as wrong).
	Error string `json:"error,omitempty"`
	// Source is where the prediction was read ("line 3", `key "12"`), so
	// that an error found later, when pairing it with a question, can
	// name the record.
	Source string `json:"-"`
}

// birdSeparator splits SQL from db_id in BIRD's prediction files.
const birdSeparator = "\t----- bird -----\t"

// ReadBIRDPredictions reads BIRD's prediction file, a JSON object
// {"<idx>": "<SQL>\t----- bird -----\t<db_id>"}, sorted by idx. BIRD's own
// script pairs predictions with gold lines by their order in the file; sqlrl
// pairs them by idx and rejects a file whose keys are not integers or repeat
// (Python's json keeps the last of two equal keys without a word, so a
// repeated key is a prediction silently lost). The object is read token by
// token, because decoding it into a map would drop the repeat unseen.
func ReadBIRDPredictions(path string) ([]Prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %w", err)
	}
	if err := jsonl.CheckUTF8(path, data); err != nil {
		return nil, err
	}
	const want = "a JSON object of idx -> \"SQL\\t----- bird -----\\tdb_id\""
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func() int { return 1 + bytes.Count(data[:dec.InputOffset()], []byte{'\n'}) }
	syntax := func(err error) error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			off, err = int64(len(data)), io.ErrUnexpectedEOF
		}
		line := 1 + bytes.Count(data[:min(max(off, 0), int64(len(data)))], []byte{'\n'})
		return fmt.Errorf("%s: not a BIRD prediction file (%s): line %d: %w", path, want, line, err)
	}
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: no predictions: the file is empty", path)
	}
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: not a BIRD prediction file: the top level is %s, want %s", path, jsonKind(tok), want)
	}
	var out []Prediction
	keyLine := map[string]int{}
	byIdx := map[int]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		line := lineAt()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(err)
		}
		if len(raw) > MaxPredictionLine {
			return nil, fmt.Errorf("%s: line %d: key %q: a value of %d bytes, the limit is %d (%s)", path, line, key, len(raw), MaxPredictionLine, jsonl.LimitsDoc)
		}
		if first, dup := keyLine[key]; dup {
			return nil, fmt.Errorf("%s: line %d: key %q repeats the key on line %d; only one prediction per question", path, line, key, first)
		}
		keyLine[key] = line
		idx, err := strconv.Atoi(key)
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("%s: line %d: key %q: not a question index (a non-negative integer)", path, line, key)
		}
		if other, dup := byIdx[idx]; dup {
			return nil, fmt.Errorf("%s: line %d: key %q names question %d, as key %q (line %d) does", path, line, key, idx, other, keyLine[other])
		}
		byIdx[idx] = key
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: line %d: key %q: value is %s, want a string \"SQL\\t----- bird -----\\tdb_id\"", path, line, key, textclip.Clip(string(raw), 57))
		}
		sql, db, ok := strings.Cut(s, birdSeparator)
		if !ok {
			return nil, fmt.Errorf("%s: line %d: key %q: missing the \"\\t----- bird -----\\t<db_id>\" suffix", path, line, key)
		}
		out = append(out, Prediction{Index: idx, QuestionID: idx, SQL: sql, DBID: db, Source: fmt.Sprintf("line %d (key %q)", line, key)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	if tok, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: line %d: %s after the JSON object; want one object", path, lineAt(), jsonKind(tok))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no predictions: the object is empty", path)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// jsonKind names a JSON token's kind for an error message.
func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '[':
			return "a list"
		case '{':
			return "an object"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "more data"
	}
	return fmt.Sprintf("%T", tok)
}

// WriteBIRDPredictions writes preds in BIRD's prediction format.
func WriteBIRDPredictions(path string, preds []Prediction) error {
	obj := make(map[string]string, len(preds))
	for _, p := range preds {
		obj[strconv.Itoa(p.Index)] = p.SQL + birdSeparator + p.DBID
	}
	data, err := json.MarshalIndent(obj, "", "    ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, data)
}

// ReadGoldSQL reads a gold file of "SQL<TAB>db_id" lines (BIRD's
// dev_gold.sql, Spider's gold.txt). Blank lines are skipped, as both official
// scripts do; each line is trimmed first, as BIRD's script does.
func ReadGoldSQL(path string) ([]Example, error) {
	var out []Example
	err := jsonl.ReadFile(path, func(_ int, b []byte) error {
		parts := strings.Split(string(b), "\t")
		if len(parts) != 2 || parts[1] == "" {
			return fmt.Errorf("want \"SQL<TAB>db_id\", got %d tab-separated fields", len(parts))
		}
		if err := CheckDBID(parts[1]); err != nil {
			return err
		}
		if err := checkGoldSQL(parts[0]); err != nil {
			return err
		}
		i := len(out)
		out = append(out, Example{Index: i, QuestionID: i, SQL: parts[0], DBID: parts[1]})
		return nil
	})
	if err != nil {
		return nil, loadError(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no gold queries: the file is empty or blank", path)
	}
	return out, nil
}

// ReadSQLLines reads a prediction file with one SQL per line (Spider's
// format; anything after a tab is ignored). Blank lines are skipped, as
// Spider's evaluator does, so line k pairs with the k-th gold question.
func ReadSQLLines(path string) ([]Prediction, error) {
	var out []Prediction
	err := jsonl.ReadFileLimit(path, MaxPredictionLine, func(line int, b []byte) error {
		sql, _, _ := strings.Cut(string(b), "\t")
		i := len(out)
		out = append(out, Prediction{Index: i, QuestionID: i, SQL: sql, Source: fmt.Sprintf("line %d", line)})
		return nil
	})
	if err != nil {
		return nil, loadError(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no predictions: the file is empty or blank", path)
	}
	return out, nil
}

type jsonlPrediction struct {
	QuestionID *int            `json:"question_id"`
	Index      *int            `json:"index"`
	DBID       string          `json:"db_id"`
	SQL        *string         `json:"sql"`
	Candidates json.RawMessage `json:"candidates"`
}

// ReadJSONLPredictions reads sqlrl's prediction format: one JSON object a
// line with question_id (or index), sql and optional candidates. A line with
// candidates but no sql submits the first candidate.
func ReadJSONLPredictions(path string) ([]Prediction, error) {
	var out []Prediction
	err := jsonl.ReadFileLimit(path, MaxPredictionLine, func(line int, b []byte) error {
		var r jsonlPrediction
		if err := strictUnmarshal(b, &r); err != nil {
			return err
		}
		p := Prediction{DBID: r.DBID, Source: fmt.Sprintf("line %d", line)}
		switch {
		case r.QuestionID != nil:
			p.QuestionID = *r.QuestionID
			p.Index = -1
		case r.Index != nil:
			p.Index = *r.Index
			p.QuestionID = *r.Index
		default:
			return errors.New("missing question_id")
		}
		if len(r.Candidates) > 0 && string(r.Candidates) != "null" {
			if err := json.Unmarshal(r.Candidates, &p.Candidates); err != nil {
				return fmt.Errorf("candidates: want a list of SQL strings: %w", err)
			}
		}
		switch {
		case r.SQL != nil:
			p.SQL = *r.SQL
		case len(p.Candidates) > 0:
			p.SQL = p.Candidates[0]
		default:
			return errors.New("missing sql (and no candidates)")
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, loadError(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no predictions: the file is empty or blank", path)
	}
	return out, nil
}

// WriteJSONLPredictions writes preds in sqlrl's JSONL format.
func WriteJSONLPredictions(path string, preds []Prediction) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, p := range preds {
		rec := struct {
			QuestionID int      `json:"question_id"`
			DBID       string   `json:"db_id,omitempty"`
			SQL        string   `json:"sql"`
			Candidates []string `json:"candidates,omitempty"`
			Error      string   `json:"error,omitempty"`
		}{p.QuestionID, p.DBID, p.SQL, p.Candidates, p.Error}
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// ReadPredictions reads any prediction format sqlrl knows, by content: a
// JSON object is BIRD's format, JSON lines are sqlrl's, anything else is one
// SQL per line.
func ReadPredictions(path string) ([]Prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %w", err)
	}
	head := make([]byte, 512)
	n, _ := f.Read(head)
	f.Close()
	head = bytes.TrimLeft(head[:n], " \t\r\n\xef\xbb\xbf")
	switch {
	case strings.HasSuffix(path, ".jsonl"), bytes.HasPrefix(head, []byte(`{"`)) && !strings.HasSuffix(path, ".json"):
		return ReadJSONLPredictions(path)
	case bytes.HasPrefix(head, []byte("{")):
		return ReadBIRDPredictions(path)
	case bytes.HasPrefix(head, []byte("[")):
		// Read as SQL lines, a list would score "[" and each quoted
		// string as a query; no format sqlrl reads is a list.
		return nil, fmt.Errorf("%s: line 1: a JSON list; BIRD's prediction format is a JSON object {\"<idx>\": \"SQL\\t----- bird -----\\tdb_id\"}, sqlrl's is JSON lines {\"question_id\", \"sql\"}", path)
	case strings.HasSuffix(path, ".json") && len(head) > 0:
		return ReadBIRDPredictions(path)
	}
	return ReadSQLLines(path)
}

// Align orders preds to match examples: by Index where the predictions carry
// one, else by QuestionID. The result has one entry per example; a question
// without a prediction gets nil. A prediction that names another database
// than its question, or no question at all, is an error naming its record.
func Align(path string, examples []Example, preds []Prediction) ([]*Prediction, error) {
	out := make([]*Prediction, len(examples))
	byQID := map[int]int{}
	for i, ex := range examples {
		byQID[ex.QuestionID] = i
	}
	for k := range preds {
		p := &preds[k]
		where := p.Source
		if where == "" {
			where = fmt.Sprintf("prediction %d", k)
		}
		i := p.Index
		if i < 0 {
			j, ok := byQID[p.QuestionID]
			if !ok {
				return nil, fmt.Errorf("%s: %s: prediction for question_id %d: no such question in the gold set", path, where, p.QuestionID)
			}
			i = j
		}
		if i >= len(examples) {
			return nil, fmt.Errorf("%s: %s: prediction for question index %d: no such question (the gold set has %d questions, indexes 0 to %d)", path, where, i, len(examples), len(examples)-1)
		}
		if out[i] != nil {
			return nil, fmt.Errorf("%s: %s: a second prediction for question %d (the first: %s)", path, where, examples[i].QuestionID, out[i].Source)
		}
		if p.DBID != "" && p.DBID != examples[i].DBID {
			return nil, fmt.Errorf("%s: %s: db_id %q, but question %d is on %q", path, where, p.DBID, examples[i].QuestionID, examples[i].DBID)
		}
		out[i] = p
	}
	return out, nil
}

// loadError words a reader's error: a line's error names the file and the
// line already; a file that cannot be read says it was being loaded.
func loadError(err error) error {
	var le *jsonl.LineError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("load %w", err)
}
