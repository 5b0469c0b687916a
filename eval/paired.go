package eval

import (
	"fmt"
	"slices"

	"github.com/sqlrl/sqlrl/significance"
)

// Paired reads which questions each of two reports on the same questions
// answered correctly, in question_id order: one seed's paired outcomes for
// significance.Compare (treatment: after; control: before). The two must
// score exactly the same questions.
func Paired(before, after *Report) (significance.Seed, error) {
	var s significance.Seed
	if len(before.Questions) == 0 || len(after.Questions) == 0 {
		return s, fmt.Errorf("eval: paired: a report without per-question results (write them with eval --json)")
	}
	correct := func(r *Report, which string) (map[int]bool, error) {
		m := make(map[int]bool, len(r.Questions))
		for _, q := range r.Questions {
			if _, dup := m[q.QuestionID]; dup {
				return nil, fmt.Errorf("eval: paired: question_id %d twice in the %s report", q.QuestionID, which)
			}
			m[q.QuestionID] = q.Correct
		}
		return m, nil
	}
	b, err := correct(before, "first")
	if err != nil {
		return s, err
	}
	a, err := correct(after, "second")
	if err != nil {
		return s, err
	}
	ids := make([]int, 0, len(b))
	for id := range b {
		if _, ok := a[id]; !ok {
			return s, fmt.Errorf("eval: paired: question_id %d is in the first report only: the reports must score the same questions", id)
		}
		ids = append(ids, id)
	}
	if len(a) != len(b) {
		return s, fmt.Errorf("eval: paired: the second report scores %d questions, the first %d: they must score the same questions", len(a), len(b))
	}
	slices.Sort(ids)
	for _, id := range ids {
		s.Control = append(s.Control, b[id])
		s.Treatment = append(s.Treatment, a[id])
	}
	return s, nil
}
