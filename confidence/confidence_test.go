package confidence

import (
	"reflect"
	"testing"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func TestJudge(t *testing.T) {
	unknown := Literal{Text: "'superhero Maps'", Tables: []string{"superhero"}}
	variant := Literal{Text: "'female'", Tables: []string{"gender"}, Variant: "Female"}
	pattern := Literal{Text: "'%Maps%'", Pattern: true, Tables: []string{"superhero", "colour"}}
	known := Literal{Text: "'Female'", Tables: []string{"gender"}, Found: true}
	ok := Signals{Rows: 3, Columns: 1, Samples: 4, Agree: 4}
	with := func(s Signals, f func(*Signals)) Signals { f(&s); return s }
	r := Rule{RightShare: 0.75, WrongShare: 0.5, UnknownWrong: true}
	tests := []struct {
		name    string
		rule    Rule
		s       Signals
		level   Level
		reasons []string
	}{
		{"error, its words first", r, Signals{ErrorClass: "unknown_column", ErrorText: "the column gender does not exist in table superhero", Samples: 4, Agree: 4},
			LikelyWrong, []string{"the column gender does not exist in table superhero"}},
		{"error without words", r, Signals{ErrorClass: "generation_timeout"}, LikelyWrong, []string{"the model did not write SQL in time"}},
		{"all samples agree", r, ok, LikelyRight, []string{"4 of 4 samples agree on the result"}},
		{"at the threshold", r, with(ok, func(s *Signals) { s.Agree, s.Rival = 3, 1 }), LikelyRight, []string{"3 of 4 samples agree on the result"}},
		{"between the thresholds", r, with(ok, func(s *Signals) { s.Agree, s.Rival = 2, 2 }), Unsure, []string{"2 of 4 samples agree on the result"}},
		{"below: a rival result wins", r, with(ok, func(s *Signals) { s.Agree, s.Rival = 1, 3 }), LikelyWrong,
			[]string{"1 of 4 samples agrees on the result; 3 agree on another result"}},
		{"most samples fail", r, with(ok, func(s *Signals) { s.Agree, s.Failed = 1, 3 }), LikelyWrong,
			[]string{"1 of 4 samples agrees on the result; 3 fail to run"}},
		{"a value in no column", r, with(ok, func(s *Signals) { s.Rows, s.Literals = 1, []Literal{known, unknown}; s.SingleZero = true }), LikelyWrong,
			[]string{"the value 'superhero Maps' occurs in no column of superhero", "the answer is a single 0", "4 of 4 samples agree on the result"}},
		{"a value only in another case", r, with(ok, func(s *Signals) { s.Literals = []Literal{variant} }), LikelyWrong,
			[]string{"the value 'female' occurs in no column of gender as written ('Female' does)", "4 of 4 samples agree on the result"}},
		{"a pattern that matches nothing, not decisive", Rule{RightShare: 0.75, WrongShare: 0.5}, with(ok, func(s *Signals) { s.Literals = []Literal{pattern} }), Unsure,
			[]string{"4 of 4 samples agree on the result", "the pattern '%Maps%' matches no value of superhero, colour"}},
		{"empty result caps at unsure", r, with(ok, func(s *Signals) { s.Rows = 0 }), Unsure,
			[]string{"4 of 4 samples agree on the result", "the result is empty"}},
		{"empty result is wrong when the rule says so", Rule{RightShare: 0.75, WrongShare: 0.5, SuspectWrong: true}, with(ok, func(s *Signals) { s.Rows = 0 }), LikelyWrong,
			[]string{"the result is empty", "4 of 4 samples agree on the result"}},
		{"single NULL", r, with(ok, func(s *Signals) { s.Rows, s.AllNull = 1, true }), Unsure,
			[]string{"4 of 4 samples agree on the result", "the answer is a single NULL"}},
		{"all NULL", r, with(ok, func(s *Signals) { s.AllNull = true }), Unsure,
			[]string{"4 of 4 samples agree on the result", "every value in the result is NULL"}},
		{"no samples", r, Signals{Rows: 2, Columns: 2}, Unsure, []string{"no samples were drawn to cross-check it"}},
		{"no samples, with a note", r, Signals{Rows: 2, Columns: 2, SamplesNote: "the samples could not be checked in time"}, Unsure,
			[]string{"the samples could not be checked in time"}},
	}
	for _, tc := range tests {
		got := tc.rule.Judge(tc.s)
		want := Judgement{Level: tc.level, Label: tc.level.Label(), Reasons: tc.reasons}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, want)
		}
	}
}

func TestRuleCheck(t *testing.T) {
	for _, tc := range []struct {
		r  Rule
		ok bool
	}{
		{DefaultRule, true},
		{Rule{RightShare: 0.5, WrongShare: 0.5}, true},
		{Rule{RightShare: 0.5, WrongShare: 0.75}, false},
		{Rule{RightShare: 1.5}, false},
		{Rule{RightShare: 0.5, WrongShare: -0.1}, false},
	} {
		if err := tc.r.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v: err %v, want ok %t", tc.r, err, tc.ok)
		}
	}
}

func TestSetResult(t *testing.T) {
	i, f, s, null := sqlexec.Int, sqlexec.Float, sqlexec.Text, sqlexec.Null()
	tests := []struct {
		name string
		cols int
		rows [][]sqlexec.Value
		want Signals
	}{
		{"empty", 1, nil, Signals{Columns: 1}},
		{"single 0", 1, [][]sqlexec.Value{{i(0)}}, Signals{Rows: 1, Columns: 1, SingleZero: true}},
		{"single 0.0", 1, [][]sqlexec.Value{{f(0)}}, Signals{Rows: 1, Columns: 1, SingleZero: true}},
		{"single NULL", 1, [][]sqlexec.Value{{null}}, Signals{Rows: 1, Columns: 1, AllNull: true}},
		{"all NULL", 2, [][]sqlexec.Value{{null, null}, {null, null}}, Signals{Rows: 2, Columns: 2, AllNull: true}},
		{"some NULL", 2, [][]sqlexec.Value{{null, s("x")}}, Signals{Rows: 1, Columns: 2}},
		{"a count", 1, [][]sqlexec.Value{{i(203)}}, Signals{Rows: 1, Columns: 1}},
		{"text 0 is a value", 1, [][]sqlexec.Value{{s("0")}}, Signals{Rows: 1, Columns: 1}},
	}
	for _, tc := range tests {
		var got Signals
		got.SetResult(tc.cols, tc.rows)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestSetVotes(t *testing.T) {
	tests := []struct {
		name string
		v    consensus.Votes
		want Signals
	}{
		{"all agree", consensus.Votes{Of: []int{0, 0, 0, 0, 0}, Size: []int{5}}, Signals{Samples: 4, Agree: 4}},
		{"a rival and a failure", consensus.Votes{Of: []int{0, 1, 1, -1, 0}, Size: []int{2, 2}}, Signals{Samples: 4, Agree: 1, Failed: 1, Rival: 2}},
		{"no samples", consensus.Votes{Of: []int{0}, Size: []int{1}}, Signals{}},
		{"the answer did not run again", consensus.Votes{Of: []int{-1, 0}, Size: []int{1}},
			Signals{SamplesNote: "the samples could not be compared: the answer's SQL did not run again"}},
	}
	for _, tc := range tests {
		var got Signals
		got.SetVotes(tc.v)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestRuleDescribe(t *testing.T) {
	tests := []struct {
		r    Rule
		k    int
		want string
	}{
		{DefaultRule, 8, "likely right: at least 6 of 8 samples agree and no warning; likely wrong: an error, a value in no column, an empty, all-NULL or single-0 result, fewer than 3 of 8 samples agreeing; else not sure"},
		{Rule{RightShare: 0.75, WrongShare: 0.375}, 4, "likely right: at least 3 of 4 samples agree and no warning; likely wrong: an error, fewer than 38% of the samples agreeing; else not sure"},
		{Rule{RightShare: 1}, 0, "likely right: at least 100% of the samples agree and no warning; likely wrong: an error; else not sure"},
	}
	for _, tc := range tests {
		if got := tc.r.Describe(tc.k); got != tc.want {
			t.Errorf("%+v with %d:\n got %q\nwant %q", tc.r, tc.k, got, tc.want)
		}
	}
}
