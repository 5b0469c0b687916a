package train

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// TestRenderFitKeepsGoldTables: a training prompt larger than the room
// is pruned to fit, keeping every table the gold reads; one that fits is
// left whole; one that cannot fit is returned whole for the caller to
// skip.
func TestRenderFitKeepsGoldTables(t *testing.T) {
	ctx := context.Background()
	d := loadTiny(t)
	counter := prompt.Approx{}
	var ex *Example
	for i := range d.Train {
		if sh, err := sqlparse.Analyze(d.Train[i].SQL); err == nil && len(sh.Tables) == 2 {
			ex = &d.Train[i]
			break
		}
	}
	if ex == nil {
		t.Fatal("no two-table question in the tiny benchmark")
	}
	full, _, err := d.render(ctx, ex, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := counter.Count(full)
	sh, _ := sqlparse.Analyze(ex.SQL)
	// The room of a prompt showing the gold's tables alone: pruning must
	// keep exactly those.
	s, err := d.TrainPrompter.Schema(ctx, ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	var gold []*prompt.Table
	for _, tb := range s.Tables {
		for _, g := range sh.Tables {
			if strings.EqualFold(tb.Name, g) {
				gold = append(gold, tb)
			}
		}
	}
	tight := counter.Count(d.Format.Compact(&prompt.Schema{DBID: s.DBID, Tables: gold}, ex.Question, ex.Evidence))
	tests := []struct {
		name   string
		room   int
		pruned bool
	}{
		{"fits", n, false},
		{"pruned", n * 3 / 4, true},
		{"gold tables only", tight, true},
		{"cannot fit", 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sql, err := d.renderFit(ctx, ex, nil, 0, nil, &Fitter{Counter: counter, Room: func(string) int { return tc.room }})
			if err != nil || sql != ex.SQL {
				t.Fatalf("sql %q, err %v", sql, err)
			}
			if (got != full) != tc.pruned {
				t.Fatalf("pruned %v, want %v:\n%s", got != full, tc.pruned, got)
			}
			if !tc.pruned {
				return
			}
			if c := counter.Count(got); c > tc.room {
				t.Errorf("%d tokens, room %d", c, tc.room)
			}
			for _, tb := range sh.Tables {
				if !strings.Contains(strings.ToLower(got), tb+":") && !strings.Contains(strings.ToLower(got), "=> "+tb) {
					t.Errorf("the gold's table %s was pruned:\n%s", tb, got)
				}
			}
		})
	}
}
