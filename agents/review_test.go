package agents

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// fakeReviewer scores a prompt by minus the length of its SQL line and
// records what it was asked; fail makes every call fail.
type fakeReviewer struct {
	prompts, comps []string
	fail           bool
}

func (f *fakeReviewer) CompletionLogProbs(ctx context.Context, prompts, comps []string) ([]policy.SeqLogProb, error) {
	if f.fail {
		return nil, errors.New("reviewer down")
	}
	f.prompts, f.comps = append(f.prompts, prompts...), append(f.comps, comps...)
	out := make([]policy.SeqLogProb, len(prompts))
	for i, p := range prompts {
		_, sql, _ := strings.Cut(p, "\nSQL: ")
		sql, _, _ = strings.Cut(sql, "\n")
		out[i] = policy.SeqLogProb{Sum: -float64(len(sql)), Tokens: 4, Mean: -float64(len(sql)) / 4}
	}
	return out, nil
}

// The review stage scores each distinct candidate that ran, once, with
// the question as the completion and the candidate's SQL in the prompt;
// repeats take their first's score, failed queries get none; a reviewer
// that fails is an error of the question, not of the run.
func TestReviewStage(t *testing.T) {
	r := rec("g0 s0 g1+ x")
	r.Candidates[2].SQL = "SELECT longer"
	data := func(i int, set string) (PromptData, bool) {
		return PromptData{Prompt: "t: a, b\nquestion: How  many?\nevidence: e" + policy.CompactCue, Question: "How  many?"}, set == SetNative
	}
	fr := &fakeReviewer{}
	p := &Pipeline{Reviewer: fr}
	if err := p.review(context.Background(), []*Record{r}, data); err != nil {
		t.Fatal(err)
	}
	if len(fr.prompts) != 2 {
		t.Fatalf("reviewed %d prompts, want 2 (the two distinct queries that ran): %q", len(fr.prompts), fr.prompts)
	}
	if want := "t: a, b\nevidence: e\nSQL: q0" + policy.ReviewCue; fr.prompts[0] != want || fr.comps[0] != "How many?" {
		t.Errorf("asked %q -> %q, want %q -> %q", fr.prompts[0], fr.comps[0], want, "How many?")
	}
	got := []float64{}
	for _, c := range r.Candidates {
		got = append(got, c.Review)
		if (c.ReviewTokens > 0) != c.Exec.OK {
			t.Errorf("candidate %q: reviewed %v, ran %v", c.SQL, c.ReviewTokens > 0, c.Exec.OK)
		}
	}
	if want := []float64{-2, -2, -13, 0}; !slicesClose(got, want) {
		t.Errorf("reviews %v, want %v", got, want)
	}
	SelectAll(r, Selection{})
	if r.Selected[StrategyReview] != 0 {
		t.Errorf("review picked %d, want 0 (the likeliest question)", r.Selected[StrategyReview])
	}
	own, group := reviewFeatures(r, 2)
	if math.Abs(own+1.1) > 1e-12 || math.Abs(group+1.1) > 1e-12 {
		t.Errorf("features of candidate 2: %v %v, want -1.1 -1.1", own, group)
	}

	down := rec("g0 g1")
	if err := (&Pipeline{Reviewer: &fakeReviewer{fail: true}}).review(context.Background(), []*Record{down}, data); err != nil {
		t.Fatalf("a failing reviewer stopped the run: %v", err)
	}
	if len(down.Errors) != 2 || !strings.Contains(down.Errors[0], "reviewer down") || hasReviews(down) {
		t.Errorf("a failing reviewer: errors %q, reviewed %v", down.Errors, hasReviews(down))
	}
}

func slicesClose(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// The weight on the planner's log-probability decides between a query
// that explains the question a little better and one the planner is far
// surer of; ReviewSweep scores each weight on scored records.
func TestReviewWeight(t *testing.T) {
	r := rec("g0@-3 g1+@-4 x")
	r.Candidates[0].LogProb, r.Candidates[1].LogProb = -20, -5
	for _, tc := range []struct {
		w    float64
		want int
	}{{0, 0}, {0.05, 0}, {0.5, 1}, {1, 1}} {
		SelectAll(r, Selection{ReviewWeight: tc.w})
		if got := r.Selected[StrategyReview]; got != tc.want {
			t.Errorf("weight %v: picked %d, want %d", tc.w, got, tc.want)
		}
	}
	ex, n := ReviewSweep([]*Record{r, rec("g0+ g1")}, []float64{0, 0.5})
	if n != 2 || ex[0] != 0 || ex[1] != 50 {
		t.Errorf("sweep over %d records: %v, want 2 records, [0 50]", n, ex)
	}
	if _, n := ReviewSweep([]*Record{rec("g0+ g1")}, []float64{0}); n != 0 {
		t.Errorf("a sweep without reviews counted %d records", n)
	}
}
