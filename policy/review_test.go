package policy

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestReviewPrompt(t *testing.T) {
	schema := "client: client_id integer key, loyalty text\npurchase: purchase_id integer key, client_id integer -> client\n"
	tests := []struct {
		name, prompt, sql, want, err string
	}{
		{name: "with evidence and cue", prompt: schema + "question: How many silver clients?\nevidence: silver refers to loyalty = 'silver'" + CompactCue,
			sql:  "SELECT COUNT(*)\n  FROM client WHERE loyalty = 'silver'",
			want: schema + "evidence: silver refers to loyalty = 'silver'\nSQL: SELECT COUNT(*) FROM client WHERE loyalty = 'silver'" + ReviewCue},
		{name: "no evidence, no cue", prompt: schema + "question: How many clients?",
			sql: "SELECT COUNT(*) FROM client", want: schema + "SQL: SELECT COUNT(*) FROM client" + ReviewCue},
		{name: "no question line", prompt: schema, sql: "SELECT 1", err: "no question line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReviewPrompt(tc.prompt, tc.sql)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			// a reviewer prompt shares the planner prompt's schema lines
			if SchemaEnd(got) != len(schema) || SchemaEnd(tc.prompt) != len(schema) {
				t.Errorf("schema ends at %d (review) and %d (planner), want %d", SchemaEnd(got), SchemaEnd(tc.prompt), len(schema))
			}
		})
	}
}

func TestSchemaEnd(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   int
	}{
		{"a: x\nb: y\nquestion: q\nSQL: ", 10},
		{"a: x\nevidence: e\nSQL: s\nquestion: ", 5},
		{"a: x\nSQL: s", 5},
		{"question: q", 0},
		{"a: x\nb: y", 9},
	} {
		if got := SchemaEnd(tc.prompt); got != tc.want {
			t.Errorf("SchemaEnd(%q) = %d, want %d", tc.prompt, got, tc.want)
		}
	}
}

// CompletionLogProbs equals the scorer's log-probability of each pair
// scored alone, with schema lines shared across prompts and a batch
// boundary inside a run of prompts on one schema; a pair too long for the
// context is left unscored.
func TestCompletionLogProbs(t *testing.T) {
	p := testPolicy(t)
	schema := "customer: customer_id integer key, first_name text\n"
	var prompts, comps []string
	for i := range 20 {
		sql := texts[1+i%2]
		pr, err := ReviewPrompt(schema+"question: x"+CompactCue, sql)
		if err != nil {
			t.Fatal(err)
		}
		prompts, comps = append(prompts, pr), append(comps, []string{"How many customers?", "first name of 7"}[i%3%2])
	}
	prompts = append(prompts, schema+strings.Repeat("SQL: SELECT 1 ", 40)+ReviewCue)
	comps = append(comps, "too long")
	got, err := p.CompletionLogProbs(context.Background(), prompts, comps)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewLogProbScorer(p.Model)
	for i := range 20 {
		want, err := sc.LogProbs([]Sequence{p.Sequence(prompts[i], comps[i])})
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Tokens != want[0].Tokens || math.Abs(got[i].Sum-want[0].Sum) > lpTol(p.Model.Cfg, want[0]) {
			t.Errorf("pair %d: %+v, scored alone %+v", i, got[i], want[0])
		}
	}
	if got[20].Tokens != 0 {
		t.Errorf("a pair longer than the context was scored: %+v", got[20])
	}
	if _, err := p.CompletionLogProbs(context.Background(), prompts, comps[:3]); err == nil {
		t.Error("prompts and completions of different lengths were accepted")
	}
}

// LoadSQL loads a planner and refuses a reviewer, which would decode
// questions where SQL is wanted.
func TestLoadSQL(t *testing.T) {
	p := testPolicy(t)
	planner := t.TempDir()
	if err := p.Save(planner); err != nil {
		t.Fatal(err)
	}
	p.Info.Task = TaskReview
	reviewer := t.TempDir()
	if err := p.Save(reviewer); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSQL(planner); err != nil {
		t.Errorf("a planner: %v", err)
	}
	if _, err := LoadSQL(reviewer); err == nil || !strings.Contains(err.Error(), `task "review"`) {
		t.Errorf("a reviewer: error %v, want a refusal naming its task", err)
	}
	if r, err := Load(reviewer); err != nil || r.Info.Task != TaskReview {
		t.Errorf("Load of a reviewer: %v, task %q", err, r.Info.Task)
	}
}
