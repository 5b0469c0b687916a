// Package feedbacktest fills a feedback store the way a user of `sqlrl
// serve` would, for the tests of what trains on a store's export (the RL
// trainer, the from-feedback command), so each test does not script its
// own user.
package feedbacktest

import (
	"context"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/feedback"
)

// Record answers each example once as model: when wrong(i), with "SELECT 1"
// and a thumbs down carrying the gold as a validated correction; otherwise
// with the gold and a thumbs up.
func Record(t testing.TB, st feedback.Store, exs []dataset.Example, model string, wrong func(i int) bool) {
	t.Helper()
	ctx := context.Background()
	for i, ex := range exs {
		a := feedback.Answer{DBID: ex.DBID, Question: ex.Question, Evidence: ex.Evidence, Model: model, SQL: ex.SQL, Outcome: feedback.OutcomeOK}
		f := feedback.Feedback{Verdict: feedback.VerdictUp, Author: "test"}
		if wrong(i) {
			a.SQL = "SELECT 1"
			f = feedback.Feedback{Verdict: feedback.VerdictDown, CorrectedSQL: ex.SQL, Correction: feedback.CorrectionOK, Author: "test"}
		}
		a, err := st.RecordAnswer(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		f.AnswerID = a.ID
		if _, err := st.RecordFeedback(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
}
