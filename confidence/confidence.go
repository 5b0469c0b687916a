// Package confidence judges how far one answer of `sqlrl serve` can be
// trusted, from signals the answer already carries, and measures how well
// that judgement is calibrated against gold answers.
//
// The signals: how many of K SQLs sampled for the same question return the
// answer's result (execution agreement, grouped as package consensus votes);
// string and number literals of the SQL's filters that occur in no column
// of the tables it reads; a result that is empty, all NULL, or a single 0;
// and the error, in plain words, when the SQL did not run. Rule combines
// them into one Judgement (likely right, not sure, likely wrong) with the
// reasons a user reads. Signals, the rule and the calibration report are
// pure; CheckLiterals reads the database, read-only and bounded in time.
package confidence

import (
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/textclip"
)

// Level is the judgement's value. The values are stable: they are stored
// with each answer and appear in the API.
type Level string

// Levels, from most to least trusted.
const (
	LikelyRight Level = "likely_right"
	Unsure      Level = "unsure"
	LikelyWrong Level = "likely_wrong"
)

// Levels lists the levels in order, most trusted first.
var Levels = []Level{LikelyRight, Unsure, LikelyWrong}

// Label is the level as the page shows it.
func (l Level) Label() string {
	switch l {
	case LikelyRight:
		return "Likely right"
	case LikelyWrong:
		return "Likely wrong"
	}
	return "Not sure"
}

// Judgement is what the user is shown about one answer: the level, its
// label, and the reasons, the decisive one first.
type Judgement struct {
	Level   Level    `json:"level"`
	Label   string   `json:"label"`
	Reasons []string `json:"reasons"`
}

// Literal is a value the SQL compares a column with, as written in the SQL
// ('superhero Maps', 42, '%Maps%'), and what the database said of it.
type Literal struct {
	// Text is the literal's SQL text, quotes included.
	Text string `json:"text"`
	// Pattern: the literal is a LIKE pattern, matched rather than compared.
	Pattern bool `json:"pattern,omitempty"`
	// Tables are the tables searched, as the schema names them.
	Tables []string `json:"tables,omitempty"`
	// Found: some column of Tables holds the value (matches the pattern).
	Found bool `json:"found"`
	// Variant is a value that equals the literal but for letter case, when
	// only such a value was found ('Female' for 'female').
	Variant string `json:"variant,omitempty"`
}

// Signals are what is known about one answer.
type Signals struct {
	// ErrorClass is set when the answer has no result: a sqlexec class
	// (syntax_error, unknown_column, ...) or the server's generation
	// classes; ErrorText is the error in plain words (Explain).
	ErrorClass string `json:"error_class,omitempty"`
	ErrorText  string `json:"error_text,omitempty"`
	// Samples is the number of SQLs sampled for the question (0: none were
	// drawn, or they could not be checked); Agree how many of them return
	// the answer's result; Failed how many did not run; Rival the size of
	// the largest group of samples agreeing on another result.
	Samples int `json:"samples"`
	Agree   int `json:"agree"`
	Failed  int `json:"failed,omitempty"`
	Rival   int `json:"rival,omitempty"`
	// SamplesNote says why there are no samples when they were asked for
	// (they failed, or could not be checked in time).
	SamplesNote string `json:"samples_note,omitempty"`
	// Rows and Columns are the result's size; AllNull: every cell of a
	// non-empty result is NULL; SingleZero: the result is one cell holding
	// 0 (an aggregate over nothing, or a count of nothing).
	Rows       int  `json:"rows"`
	Columns    int  `json:"columns"`
	AllNull    bool `json:"all_null,omitempty"`
	SingleZero bool `json:"single_zero,omitempty"`
	// Literals are the filter literals checked against the database
	// (found or not); those not checked in time are left out.
	Literals []Literal `json:"literals,omitempty"`
}

// Unknown returns the literals that occur in no column searched.
func (s Signals) Unknown() []Literal {
	var out []Literal
	for _, l := range s.Literals {
		if !l.Found {
			out = append(out, l)
		}
	}
	return out
}

// Share is the share of samples that agree with the answer (0 without
// samples).
func (s Signals) Share() float64 {
	if s.Samples == 0 {
		return 0
	}
	return float64(s.Agree) / float64(s.Samples)
}

// Suspect reports whether the result has the shape of a wrong answer:
// empty, all NULL, or a single 0.
func (s Signals) Suspect() bool {
	return s.ErrorClass == "" && (s.Rows == 0 || s.AllNull || s.SingleZero)
}

// Rule combines Signals into a Judgement. An answer without a result is
// always likely wrong; one whose filter compares with a value that occurs
// in no column is likely wrong (when UnknownWrong); otherwise the share of
// samples agreeing with it decides: at least RightShare and no suspect
// shape (empty, all NULL, a single 0) is likely right, below WrongShare
// (or a suspect shape, when SuspectWrong) likely wrong, the rest not sure.
// Without samples an answer is at best not sure.
type Rule struct {
	RightShare   float64 `json:"right_share"`
	WrongShare   float64 `json:"wrong_share"`
	UnknownWrong bool    `json:"unknown_wrong"`
	SuspectWrong bool    `json:"suspect_wrong"`
}

// DefaultRule is the rule the server applies: at least 6 of 8 samples
// agreeing and no warning is likely right; an error, a value in no
// column, an empty, all-NULL or single-0 result, or fewer than 3 of 8
// agreeing is likely wrong. It is what Tune chose, for a precision of 90%,
// on a benchmark split apart from the one the calibration is reported on
// (docs/serve.md, Confidence, names both and the reports).
var DefaultRule = Rule{RightShare: 0.75, WrongShare: 0.375, UnknownWrong: true, SuspectWrong: true}

// Check refuses a rule whose thresholds are out of order or out of range.
func (r Rule) Check() error {
	if !(r.WrongShare >= 0 && r.WrongShare <= r.RightShare && r.RightShare <= 1) {
		return fmt.Errorf("confidence rule: want 0 <= wrong_share (%v) <= right_share (%v) <= 1", r.WrongShare, r.RightShare)
	}
	return nil
}

// Judge combines s into a Judgement.
func (r Rule) Judge(s Signals) Judgement {
	level, reasons := r.judge(s)
	if reasons == nil {
		reasons = []string{}
	}
	return Judgement{Level: level, Label: level.Label(), Reasons: reasons}
}

func (r Rule) judge(s Signals) (Level, []string) {
	if s.ErrorClass != "" {
		text := s.ErrorText
		if text == "" {
			text = Explain(s.ErrorClass, "", "")
		}
		return LikelyWrong, []string{text}
	}
	var warn []string
	unknown := s.Unknown()
	for _, l := range unknown {
		warn = append(warn, literalReason(l))
	}
	shape := shapeReason(s)
	if shape != "" {
		warn = append(warn, shape)
	}
	agree := agreeReason(s)
	share := s.Share()
	switch {
	case len(unknown) > 0 && r.UnknownWrong:
		return LikelyWrong, appendNonEmpty(warn, agree)
	case shape != "" && r.SuspectWrong:
		return LikelyWrong, appendNonEmpty(warn, agree)
	case s.Samples > 0 && share < r.WrongShare:
		return LikelyWrong, prependNonEmpty(agree, warn)
	case s.Samples > 0 && share >= r.RightShare && len(warn) == 0:
		return LikelyRight, []string{agree}
	case s.Samples == 0:
		note := s.SamplesNote
		if note == "" {
			note = "no samples were drawn to cross-check it"
		}
		return Unsure, append(warn, note)
	}
	return Unsure, prependNonEmpty(agree, warn)
}

func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(list, s)
}

func prependNonEmpty(s string, list []string) []string {
	if s == "" {
		return list
	}
	return append([]string{s}, list...)
}

// agreeReason says how the samples voted ("" without samples).
func agreeReason(s Signals) string {
	if s.Samples == 0 {
		return ""
	}
	verb := "agree"
	if s.Agree == 1 {
		verb = "agrees"
	}
	msg := fmt.Sprintf("%d of %d samples %s on the result", s.Agree, s.Samples, verb)
	if s.Rival > s.Agree {
		msg += fmt.Sprintf("; %d agree on another result", s.Rival)
	}
	if s.Failed*2 >= s.Samples && s.Failed > 0 {
		msg += fmt.Sprintf("; %d fail to run", s.Failed)
	}
	return msg
}

// shapeReason says what is suspect in the result's shape ("" if nothing).
func shapeReason(s Signals) string {
	switch {
	case s.Rows == 0:
		return "the result is empty"
	case s.Rows == 1 && s.Columns == 1 && s.AllNull:
		return "the answer is a single NULL"
	case s.AllNull:
		return "every value in the result is NULL"
	case s.SingleZero:
		return "the answer is a single 0"
	}
	return ""
}

func literalReason(l Literal) string {
	l.Text = textclip.Clip(l.Text, 80)
	where := "in no column"
	if len(l.Tables) > 0 {
		where = "in no column of " + strings.Join(l.Tables, ", ")
	}
	if l.Pattern {
		where = strings.Replace(where, "in no column", "no value", 1)
		return fmt.Sprintf("the pattern %s matches %s", l.Text, where)
	}
	msg := fmt.Sprintf("the value %s occurs %s", l.Text, where)
	if l.Variant != "" {
		msg += fmt.Sprintf(" as written (%s does)", quote(l.Variant))
	}
	return msg
}

// quote writes s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// SetResult records the shape of the answer's result.
func (s *Signals) SetResult(columns int, rows [][]sqlexec.Value) {
	s.Rows, s.Columns = len(rows), columns
	s.AllNull = len(rows) > 0
	for _, r := range rows {
		for _, v := range r {
			if v.Kind != sqlexec.KindNull {
				s.AllNull = false
			}
		}
	}
	if len(rows) == 1 && len(rows[0]) == 1 {
		v := rows[0][0]
		s.SingleZero = v.Kind == sqlexec.KindInt && v.I == 0 || v.Kind == sqlexec.KindFloat && v.F == 0
	}
}

// SetVotes records how the samples voted: v counts the answer's own SQL
// first (candidate 0), then the samples.
func (s *Signals) SetVotes(v consensus.Votes) {
	s.Samples, s.Agree, s.Failed, s.Rival = 0, 0, 0, 0
	if len(v.Of) < 2 {
		return
	}
	own := v.Of[0]
	if own < 0 {
		s.SamplesNote = "the samples could not be compared: the answer's SQL did not run again"
		return
	}
	s.Samples, s.Agree = len(v.Of)-1, v.Size[own]-1
	for _, g := range v.Of[1:] {
		if g < 0 {
			s.Failed++
		}
	}
	for g, n := range v.Size {
		if g != own && n > s.Rival {
			s.Rival = n
		}
	}
}
