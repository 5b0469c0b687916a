package agents

import (
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/textclip"
)

// TestRenderFitCuts: a prompt that leaves the agent too little of its
// context is rendered again with the result rows, then all feedback but
// the first, then long SQL cut, and refused when even that does not fit.
func TestRenderFitCuts(t *testing.T) {
	ts, err := LoadTemplates(SetNative, "")
	if err != nil {
		t.Fatal(err)
	}
	long := "SELECT " + strings.Repeat("a_column, ", 80) + "b FROM t"
	d := PromptData{Prompt: "schema\nquestion: q\nSQL: ", SQL: long, Result: "3 rows; a | b: 1 | 2: 3 | 4: 5 | 6",
		Feedback: []string{"first finding. Conclude: incorrect.", "second finding. Conclude: incorrect."}}
	full, _ := ts.Render(RoleFixer, d)
	// The lengths after each cut, to set budgets that need exactly it.
	d1 := d
	d1.Result = cutRows(d.Result)
	rows, _ := ts.Render(RoleFixer, d1)
	d2 := d1
	d2.Feedback = d.Feedback[:1]
	feedback, _ := ts.Render(RoleFixer, d2)
	d3 := d2
	d3.SQL = textclip.Clip(d.SQL, 300)
	sql, _ := ts.Render(RoleFixer, d3)
	need := minRoom[RoleFixer]
	tests := []struct {
		name   string
		budget int // characters of context, one token a character
		ok     bool
		has    []string
		hasNot []string
	}{
		{"fits as it is", len(full) + need, true, []string{"1 | 2", "second finding", long}, nil},
		{"rows cut", len(rows) + need, true, []string{"3 rows; a | b\n", "second finding", long}, []string{"1 | 2"}},
		{"feedback cut", len(feedback) + need, true, []string{"first finding", long}, []string{"second finding"}},
		{"sql cut", len(sql) + need, true, []string{"first finding", "..."}, []string{long}},
		{"nothing fits", len(sql) + need - 1, false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Agent{Templates: ts, Room: func(s string) int { return tc.budget - len(s) }}
			got, ok, err := a.renderFit(RoleFixer, d)
			if err != nil || ok != tc.ok {
				t.Fatalf("ok %v err %v, want ok %v", ok, err, tc.ok)
			}
			if !ok {
				return
			}
			if room := a.Room(got); room < minRoom[RoleFixer] {
				t.Errorf("room %d left, want >= %d", room, minRoom[RoleFixer])
			}
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("prompt lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("prompt still has %q", s)
				}
			}
		})
	}
	if len(d.Feedback) != 2 {
		t.Error("renderFit changed the caller's feedback")
	}
}
