package eval

import (
	"slices"
	"strings"
	"testing"
)

func report(ids []int, correct []bool) *Report {
	r := &Report{}
	for i, id := range ids {
		q := QuestionResult{QuestionID: id}
		q.Correct = correct[i]
		r.Questions = append(r.Questions, q)
	}
	return r
}

// TestPaired: outcomes are aligned by question_id whatever the reports'
// order, and reports on other questions are refused, naming the problem.
func TestPaired(t *testing.T) {
	before := report([]int{3, 1, 2}, []bool{true, false, false})
	for _, tc := range []struct {
		name         string
		after        *Report
		treat, contr []bool
		err          string
	}{
		{"same order", report([]int{3, 1, 2}, []bool{true, true, false}), []bool{true, false, true}, []bool{false, false, true}, ""},
		{"other order", report([]int{2, 3, 1}, []bool{false, true, true}), []bool{true, false, true}, []bool{false, false, true}, ""},
		{"missing question", report([]int{3, 1}, []bool{true, true}), nil, nil, "question_id 2 is in the first report only"},
		{"extra question", report([]int{3, 1, 2, 4}, []bool{true, true, true, true}), nil, nil, "scores 4 questions, the first 3"},
		{"duplicate", report([]int{3, 3, 1}, []bool{true, true, true}), nil, nil, "question_id 3 twice in the second report"},
		{"no questions", &Report{}, nil, nil, "without per-question results"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Paired(before, tc.after)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// question_id order: 1, 2, 3
			if !slices.Equal(s.Treatment, tc.treat) || !slices.Equal(s.Control, tc.contr) {
				t.Errorf("treatment %v control %v, want %v %v", s.Treatment, s.Control, tc.treat, tc.contr)
			}
		})
	}
}
