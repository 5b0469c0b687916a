package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/jsonl"
)

// Candidate sources.
const (
	SourceGreedy = "greedy"
	SourceSample = "sample"
	SourceFix    = "fix"
)

// Record is one question's pass through the pipeline: one line of the
// rollout file `sqlrl pipeline run` writes. It holds every stage's output,
// its execution and (with a gold) its correctness, so that every figure of
// `sqlrl pipeline report`, and every selection strategy but the trained
// selector's tournament (whose matches it records), is computed from the
// file alone.
type Record struct {
	QuestionID int    `json:"question_id"`
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty,omitempty"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence,omitempty"`
	Gold       string `json:"gold,omitempty"`
	// Candidates: the planner's (greedy first, then samples), then the
	// fixer's that executed.
	Candidates []Candidate `json:"candidates"`
	// Matches are the selector's comparisons, in order.
	Matches []Match `json:"matches,omitempty"`
	// Selected maps a selection strategy to the index of the candidate it
	// picked (-1: none).
	Selected map[string]int `json:"selected"`
	// Final is the strategy whose choice is the pipeline's answer.
	Final string `json:"final"`
	// Errors are the question's failed agent calls ("planner: ...",
	// "validator join on candidate 2: ..."): each was replaced by its
	// stage's fallback.
	Errors []string `json:"errors,omitempty"`
}

// Candidate is one SQL query with everything the pipeline learned of it.
type Candidate struct {
	SQL    string `json:"sql"`
	Source string `json:"source"`
	// From is the candidate a fix was made from (-1 for the planner's).
	From int `json:"from"`
	// LogProb and Tokens of the completion under the model that wrote it
	// (0 when the backend does not report them).
	LogProb float64   `json:"logprob"`
	Tokens  int       `json:"tokens"`
	Exec    Execution `json:"exec"`
	// Correct is BIRD's EX against the gold; Scored is false when the
	// question has no gold.
	Correct bool `json:"correct"`
	Scored  bool `json:"scored"`
	// Validations are the validators' verdicts on this query (none on a
	// query that failed: the fixer reads its error instead, and none on a
	// repeat of an earlier candidate's text, which shares its verdicts).
	Validations []Validation `json:"validations,omitempty"`
	// Same is the index of an earlier candidate with the same text (-1:
	// none).
	Same int `json:"same"`
	// Review is the reviewer's log P(question | schema, evidence, this
	// SQL) and ReviewTokens the number of tokens it scored (0: not
	// reviewed).
	Review       float64 `json:"review,omitempty"`
	ReviewTokens int     `json:"review_tokens,omitempty"`
}

// Validation is one validator's feedback.
type Validation struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Verdict is "correct", "incorrect" or "bad" (no conclusion, or two);
	// Error is set when the call failed.
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
}

// Verdicts of a validation.
const (
	VerdictCorrect   = "correct"
	VerdictIncorrect = "incorrect"
	VerdictBad       = "bad"
)

// Match is one selector comparison between candidates A and B (indexes).
type Match struct {
	A int `json:"a"`
	B int `json:"b"`
	// Winner is A or B; -1 when the selector's answer could not be read
	// (Text keeps it).
	Winner int    `json:"winner"`
	Text   string `json:"text,omitempty"`
	Error  string `json:"error,omitempty"`
}

// validations returns the verdicts that apply to candidate i (its own, or
// those of the earlier candidate with the same text).
func (r *Record) validations(i int) []Validation {
	c := &r.Candidates[i]
	if c.Same >= 0 {
		return r.Candidates[c.Same].Validations
	}
	return c.Validations
}

// WriteRecords writes records as JSON lines.
func WriteRecords(w io.Writer, recs []*Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// SaveRecords writes a rollout file whole or not at all (a killed run
// leaves no half file for a later -reuse to read).
func SaveRecords(path string, recs []*Record) error {
	if err := atomicfile.Write(path, func(w io.Writer) error { return WriteRecords(w, recs) }); err != nil {
		return fmt.Errorf("save rollouts %s: %w", path, err)
	}
	return nil
}

// ReadRecords reads a rollout file, naming the line of a bad record.
func ReadRecords(path string) ([]*Record, error) {
	var recs []*Record
	var lines []int
	err := jsonl.ReadFile(path, func(n int, line []byte) error {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		r := &Record{}
		if err := dec.Decode(r); err != nil {
			return err
		}
		recs, lines = append(recs, r), append(lines, n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read rollouts: %w", err)
	}
	for i, r := range recs {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("read rollouts %s: line %d (question %d): %w", path, lines[i], r.QuestionID, err)
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("read rollouts %s: no records", path)
	}
	return recs, nil
}

// ReadRecordFiles reads the rollout files in order (ReadRecords) into
// one list.
func ReadRecordFiles(paths []string) ([]*Record, error) {
	var recs []*Record
	for _, p := range paths {
		r, err := ReadRecords(p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r...)
	}
	return recs, nil
}

// check refuses a record whose indexes point nowhere.
func (r *Record) check() error {
	n := len(r.Candidates)
	for i, c := range r.Candidates {
		if c.Same >= i || c.From >= n {
			return fmt.Errorf("candidate %d refers to candidate %d/%d, which does not precede it", i, c.Same, c.From)
		}
	}
	for s, i := range r.Selected {
		if i >= n {
			return fmt.Errorf("strategy %s selected candidate %d of %d", s, i, n)
		}
	}
	for _, m := range r.Matches {
		if m.A < 0 || m.A >= n || m.B < 0 || m.B >= n {
			return fmt.Errorf("a match between candidates %d and %d of %d", m.A, m.B, n)
		}
	}
	return nil
}
