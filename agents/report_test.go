package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/eval"
)

// reportRecords are five scored questions over four tiers (one without a
// difficulty) and one unscored question, with the figures worked out by
// hand in TestBuildReport.
func reportRecords() []*Record {
	specs := []struct{ spec, level string }{
		{"g0+ g1", "simple"},        // greedy right; the tie goes to it
		{"g0 g1+ s1", "simple"},     // greedy wrong, the vote right
		{"x g0 F0>g1+", "moderate"}, // the fix of the failed greedy is right; the vote ties to the wrong one
		{"g0 g1", "challenging"},    // nothing right
		{"g0+", ""},                 // no difficulty
		{"g0+ g0+", "simple"},       // unscored: left out
	}
	var recs []*Record
	for i, s := range specs {
		r := rec(s.spec)
		r.QuestionID, r.Difficulty = i, s.level
		if i == len(specs)-1 {
			for j := range r.Candidates {
				r.Candidates[j].Scored = false
			}
			r.Errors = []string{"planner candidate 0: ignored"}
		}
		SelectAll(r, Selection{})
		recs = append(recs, r)
	}
	recs[2].Errors = []string{"planner candidate 1: no SQL in the answer", "fixer on candidate 0: HTTP 400"}
	return recs
}

func TestBuildReport(t *testing.T) {
	rep := BuildReport(reportRecords())
	type fig struct{ n, planner, pipeline, gain, passK, oracle, vote float64 }
	want := map[string]fig{
		"simple":      {2, 50, 100, 0, 100, 100, 100},
		"moderate":    {1, 0, 0, 100, 0, 100, 0},
		"challenging": {1, 0, 0, 0, 0, 0, 0},
		"unknown":     {1, 100, 100, 0, 100, 100, 100},
		"total":       {5, 40, 60, 20, 60, 80, 60},
	}
	var levels []string
	for _, r := range rep.Rows {
		levels = append(levels, r.Level)
		w, ok := want[r.Level]
		if !ok {
			t.Errorf("unexpected row %+v", r)
			continue
		}
		got := fig{float64(r.N), r.Planner1, r.Pipeline1, r.FixerGain, r.PassK, r.OracleAll, r.Strategies[StrategyVote]}
		gw := []float64{got.n, got.planner, got.pipeline, got.gain, got.passK, got.oracle, got.vote}
		ww := []float64{w.n, w.planner, w.pipeline, w.gain, w.passK, w.oracle, w.vote}
		for k := range gw {
			if !closeTo(gw[k], ww[k]) {
				t.Errorf("%s: %+v, want %+v", r.Level, got, w)
				break
			}
		}
		if !closeTo(r.Strategies[StrategyGreedy], r.Planner1) {
			t.Errorf("%s: greedy strategy %g, planner@1 %g", r.Level, r.Strategies[StrategyGreedy], r.Planner1)
		}
	}
	if strings.Join(levels, " ") != "simple moderate challenging unknown total" {
		t.Errorf("rows %v", levels)
	}
	if rep.K != 3 || rep.Final != StrategyVote || rep.Errors["planner"] != 1 || rep.Errors["fixer"] != 1 || len(rep.Errors) != 2 {
		t.Errorf("k %d, final %q, errors %v", rep.K, rep.Final, rep.Errors)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| level | n | planner@1 | fixer gain | pipeline@1 (vote) | greedy | vote | pass@3 (oracle) | oracle with fixes |",
		"| moderate | 1 | 0.0 | +100.0 | 0.0 | 0.0 | 0.0 | 0.0 | 100.0 |",
		"| total | 5 | 40.0 | +20.0 | 60.0 | 40.0 | 60.0 | 60.0 | 80.0 |",
		"| vote | 60.0 | 100.0% | 100% |",
		"| greedy | 40.0 | 66.7% | 0% |",
		"Failed or unreadable agent calls (replaced by the stage's fallback): fixer 1, planner 1.",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, md.String())
		}
	}
}

// TestPassAtK: the report's pass@k is eval's estimator averaged over
// scored questions, on the planner's candidates only.
func TestPassAtK(t *testing.T) {
	recs := reportRecords()
	// Candidates (n, correct) per scored question, fixes left out:
	// (2,1) (3,2) (2,0) (2,0) (1,1).
	nc := [][2]int{{2, 1}, {3, 2}, {2, 0}, {2, 0}, {1, 1}}
	for _, k := range []int{1, 2, 3} {
		want := 0.0
		for _, x := range nc {
			want += eval.PassAtK(x[0], x[1], min(k, x[0]))
		}
		want = 100 * want / float64(len(nc))
		if got := PassAtK(recs, k); !closeTo(got, want) {
			t.Errorf("pass@%d %g, want %g", k, got, want)
		}
	}
	// By hand: pass@1 is the mean share of correct candidates, pass@2 the
	// mean chance a pair holds one.
	if got, want := PassAtK(recs, 1), 100*(0.5+2.0/3+1)/5; !closeTo(got, want) {
		t.Errorf("pass@1 %g, want %g", got, want)
	}
	if got := PassAtK(recs, 2); !closeTo(got, 60) {
		t.Errorf("pass@2 %g, want 60", got)
	}
	if got := PassAtK([]*Record{rec("g0 g1 g2+ g3")}, 2); !closeTo(got, 50) {
		t.Errorf("pass@2 of 1 correct in 4: %g, want 50", got)
	}
	if got := PassAtK(nil, 2); got != 0 {
		t.Errorf("pass@2 of nothing: %g", got)
	}
}

// TestReadRecords: records round-trip through a file; a bad line is
// refused naming the file and the line (blank lines counted).
func TestReadRecords(t *testing.T) {
	dir := t.TempDir()
	var good bytes.Buffer
	if err := WriteRecords(&good, reportRecords()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "good.jsonl")
	os.WriteFile(path, good.Bytes(), 0o644)
	back, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 6 || len(back[2].Candidates) != 3 || back[2].Candidates[2].Source != SourceFix || back[2].Candidates[2].From != 0 ||
		back[1].Candidates[2].Same != 1 || back[1].Selected[StrategyVote] != 1 {
		t.Fatalf("records read back differ: %+v", back[1])
	}
	line := func(r *Record) string {
		var b bytes.Buffer
		WriteRecords(&b, []*Record{r})
		return strings.TrimSuffix(b.String(), "\n")
	}
	ok := line(rec("g0+ g1"))
	forward := rec("g0 g1")
	forward.QuestionID = 9
	forward.Candidates[0].Same = 1
	badFrom := rec("g0 g1")
	badFrom.Candidates[1].From = 5
	badSel := rec("g0 g1")
	badSel.Selected = map[string]int{StrategyVote: 2}
	badMatch := rec("g0 g1", Match{A: 0, B: 2, Winner: 0})
	tests := []struct {
		name, body string
		want       []string
	}{
		{"bad JSON", ok + "\n{\"question_id\": 1,\n", []string{"line 2"}},
		{"unknown field", ok + "\n\n" + `{"question_id": 3, "candidatez": []}`, []string{"line 3", "candidatez"}},
		{"a repeat of a later candidate", line(forward), []string{"line 1 (question 9)", "candidate 0"}},
		{"a fix of no candidate", ok + "\n" + line(badFrom), []string{"line 2", "candidate 1"}},
		{"a choice past the candidates", line(badSel), []string{"line 1", "strategy vote selected candidate 2 of 2"}},
		{"a match past the candidates", line(badMatch), []string{"line 1", "match between candidates 0 and 2"}},
		{"empty", "\n\n", []string{"no records"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".jsonl")
			os.WriteFile(p, []byte(tt.body), 0o644)
			_, err := ReadRecords(p)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range append(tt.want, p) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
	if _, err := ReadRecords(filepath.Join(dir, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("a missing file: %v", err)
	}
}
