package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/policy"
)

// pipelineBench is the tiny generated benchmark cut to its first n dev
// questions (the databases linked, not copied), so that `sqlrl eval` of a
// predictions file covers exactly the questions the pipeline ran on.
func pipelineBench(t *testing.T, n int) string {
	t.Helper()
	full := tinyBench(t, t.TempDir())
	var qs []json.RawMessage
	readJSONFile(t, filepath.Join(full, "dev.json"), &qs)
	if len(qs) < n {
		t.Fatalf("the tiny benchmark has %d dev questions", len(qs))
	}
	sub := filepath.Join(t.TempDir(), "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(qs[:n])
	if err := os.WriteFile(filepath.Join(sub, "dev.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dev_databases", "dev_tables.json"} {
		if err := os.Symlink(filepath.Join(full, name), filepath.Join(sub, name)); err != nil {
			t.Fatal(err)
		}
	}
	return sub
}

// TestPipelineCommands runs `sqlrl pipeline run` with one tiny untrained
// checkpoint as every agent on four questions, then checks that every
// figure of `pipeline report` is what `sqlrl eval` gives on the strategy's
// predictions, that `pipeline train-ranker` fits the rollouts and
// `pipeline report -ranker` applies the ranker. The model writes junk, so
// question 0's greedy candidate is set to its gold in the rollout file
// (as if the planner had written it) for the figures to be more than 0.
func TestPipelineCommands(t *testing.T) {
	bench := pipelineBench(t, 4)
	ck := tinyCheckpoint(t, 1024)
	dir := t.TempDir()
	roll := filepath.Join(dir, "rollouts.jsonl")
	out, errs, code := sqlrlOS(t, "pipeline", "run", "-planner", ck, "-validator", ck, "-fixer", ck, "-selector", ck,
		"-k", "3", "-out", roll, "-threads", "1", bench)
	if code != 0 {
		t.Fatalf("pipeline run: code %d\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"wrote 4 rollouts to " + roll, "time per stage: planner", "validate ", "fix ", "select ", "| total | 4 |", "pipeline@1 (tournament)"} {
		if !strings.Contains(out, s) {
			t.Errorf("pipeline run output lacks %q:\n%s", s, out)
		}
	}
	t.Logf("pipeline run:\n%s", out)
	recs, err := agents.ReadRecords(roll)
	if err != nil {
		t.Fatal(err)
	}
	var golds []string
	var qs []struct {
		QuestionID int    `json:"question_id"`
		SQL        string `json:"SQL"`
	}
	readJSONFile(t, filepath.Join(bench, "dev.json"), &qs)
	if len(recs) != len(qs) {
		t.Fatalf("%d records for %d questions", len(recs), len(qs))
	}
	for i, r := range recs {
		golds = append(golds, qs[i].SQL)
		if r.QuestionID != qs[i].QuestionID || r.Final != agents.StrategyTournament {
			t.Errorf("record %d: question %d, final %q", i, r.QuestionID, r.Final)
		}
		planned := 0
		for _, c := range r.Candidates {
			if c.Source != agents.SourceFix {
				planned++
			}
			if !c.Scored {
				t.Errorf("question %d: a candidate was not scored", r.QuestionID)
			}
		}
		if planned != 3 && len(r.Errors) == 0 {
			t.Errorf("question %d: %d planner candidates, want 3", r.QuestionID, planned)
		}
	}

	// Question 0's greedy decode and question 1's first sample become
	// their golds, so that the strategies differ (greedy right on 0, the
	// vote on both); every choice is recomputed by the report.
	setGold := func(r *agents.Record, j int, gold string) {
		if len(r.Candidates) <= j {
			t.Fatalf("question %d has %d candidates: %q", r.QuestionID, len(r.Candidates), r.Errors)
		}
		c := &r.Candidates[j]
		c.SQL, c.Same, c.Correct, c.Validations = gold, -1, true, nil
		c.Exec = agents.Execution{OK: true, Columns: []string{"x"}, Rows: [][]string{{"1"}}, NRows: 1, Group: 99}
		for i := range r.Candidates {
			if r.Candidates[i].Same == j {
				r.Candidates[i].Same = -1
			}
		}
		r.Matches = nil
	}
	setGold(recs[0], 0, golds[0])
	setGold(recs[1], 1, qs[1].SQL)
	for _, r := range recs {
		r.Selected = nil
	}
	if err := agents.SaveRecords(roll, recs); err != nil {
		t.Fatal(err)
	}

	preds := filepath.Join(dir, "preds")
	repJSON := filepath.Join(dir, "report.json")
	out, errs, code = sqlrlOS(t, "pipeline", "report", "-preds", preds, "-json", repJSON, roll)
	if code != 0 {
		t.Fatalf("pipeline report: code %d\n%s\n%s", code, out, errs)
	}
	var rep agents.Report
	readJSONFile(t, repJSON, &rep)
	total := rep.Rows[len(rep.Rows)-1]
	if total.N != 4 || math.Abs(total.Planner1-25) > 1e-9 || math.Abs(total.Strategies[agents.StrategyVote]-50) > 1e-9 {
		t.Errorf("report total %+v: want 4 questions, planner@1 25, vote 50", total)
	}
	for s, ex := range total.Strategies {
		evalOut := filepath.Join(dir, s+".json")
		_, errs, code := sqlrlOS(t, "eval", "--data", bench, "--split", "dev", "--pred", filepath.Join(preds, s+".jsonl"), "--quiet", "--json", evalOut)
		if code != 0 {
			t.Fatalf("eval %s: code %d: %s", s, code, errs)
		}
		var ev struct{ Total struct{ Count, Correct int } }
		readJSONFile(t, evalOut, &ev)
		if ev.Total.Count != 4 || math.Abs(100*float64(ev.Total.Correct)/4-ex) > 1e-9 {
			t.Errorf("strategy %s: the report says %.2f, sqlrl eval %d of %d", s, ex, ev.Total.Correct, ev.Total.Count)
		}
	}
	if _, ok := total.Strategies[agents.StrategyGreedy]; !ok || len(total.Strategies) < 3 {
		t.Errorf("strategies %v", total.Strategies)
	}

	ranker := filepath.Join(dir, "ranker.json")
	out, errs, code = sqlrlOS(t, "pipeline", "train-ranker", "-out", ranker, "-epochs", "50", roll)
	if code != 0 {
		t.Fatalf("train-ranker: code %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "ranker on 4 questions") {
		t.Errorf("train-ranker output:\n%s", out)
	}
	if _, err := agents.LoadRanker(ranker); err != nil {
		t.Fatal(err)
	}
	out, errs, code = sqlrlOS(t, "pipeline", "report", "-ranker", ranker, roll)
	if code != 0 || !strings.Contains(out, " ranker |") {
		t.Errorf("report -ranker: code %d, no ranker column\n%s\n%s", code, out, errs)
	}
}

// TestPipelineBadInput: usage errors exit 2 saying what is wrong; a
// rollout file with a bad line makes report and train-ranker fail naming
// the file and the line.
func TestPipelineBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question_id": 1, "db_id": "d", "question": "q", "candidates": [], "selected": {}, "final": "vote"}`+"\n{oops\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"run without planner", []string{"pipeline", "run", "-out", filepath.Join(dir, "r.jsonl"), "datasets/bird-dev-sample"}, 2, []string{"-planner and -out are required"}},
		{"run without out", []string{"pipeline", "run", "-planner", "x", "datasets/bird-dev-sample"}, 2, []string{"-planner and -out are required"}},
		{"bad fix-when", []string{"pipeline", "run", "-planner", "x", "-out", filepath.Join(dir, "r.jsonl"), "-fix-when", "always", "datasets/bird-dev-sample"}, 2,
			[]string{`-fix-when "always"`}},
		{"bad k", []string{"pipeline", "run", "-planner", "x", "-out", filepath.Join(dir, "r.jsonl"), "-k", "0", "datasets/bird-dev-sample"}, 2, []string{"-k >= 1"}},
		{"no bench", []string{"pipeline", "run", "-planner", "x", "-out", filepath.Join(dir, "r.jsonl")}, 2, []string{"want one benchmark directory"}},
		{"report of a bad line", []string{"pipeline", "report", bad}, 1, []string{bad, "line 2"}},
		{"train-ranker on a bad line", []string{"pipeline", "train-ranker", "-out", filepath.Join(dir, "rk.json"), bad}, 1, []string{bad, "line 2"}},
		{"train-ranker without out", []string{"pipeline", "train-ranker", bad}, 2, []string{"want -out"}},
		{"templates without out", []string{"pipeline", "templates"}, 2, []string{"-out is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := sqlrlOS(t, tt.args...)
			if code != tt.code {
				t.Fatalf("code %d, want %d\n%s\n%s", code, tt.code, out, errs)
			}
			for _, s := range tt.want {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "r.jsonl")); err == nil {
		t.Error("a refused run wrote its rollouts")
	}
}

// TestPipelineReviewer: `pipeline run -reviewer` scores every candidate
// that ran with a reviewer checkpoint and answers with the review
// strategy; a planner given as the reviewer, or a reviewer as the
// planner, is refused before any work.
func TestPipelineReviewer(t *testing.T) {
	bench := pipelineBench(t, 4)
	ck := tinyCheckpoint(t, 1024)
	p, err := policy.Load(ck)
	if err != nil {
		t.Fatal(err)
	}
	p.Info.Task = policy.TaskReview
	rv := filepath.Join(t.TempDir(), "reviewer")
	if err := p.Save(rv); err != nil {
		t.Fatal(err)
	}
	p.Info.Prompt.Types = !p.Info.Prompt.Types
	otherFormat := filepath.Join(t.TempDir(), "reviewer-other-format")
	if err := p.Save(otherFormat); err != nil {
		t.Fatal(err)
	}
	// The untrained planner's queries fail: the candidates to review are
	// the golds, given as an earlier run's rollouts (-reuse).
	var qs []struct {
		QuestionID int    `json:"question_id"`
		DBID       string `json:"db_id"`
		SQL        string `json:"SQL"`
	}
	readJSONFile(t, filepath.Join(bench, "dev.json"), &qs)
	var old []*agents.Record
	for _, q := range qs {
		old = append(old, &agents.Record{QuestionID: q.QuestionID, DBID: q.DBID, Gold: q.SQL,
			Candidates: []agents.Candidate{{SQL: q.SQL, Source: agents.SourceGreedy, Same: -1}, {SQL: "SELECT nothing", Source: agents.SourceSample, Same: -1}}})
	}
	reuse := filepath.Join(t.TempDir(), "old.jsonl")
	if err := agents.SaveRecords(reuse, old); err != nil {
		t.Fatal(err)
	}
	roll := filepath.Join(t.TempDir(), "rollouts.jsonl")
	out, errs, code := sqlrlOS(t, "pipeline", "run", "-planner", ck, "-reviewer", rv, "-reuse", reuse, "-out", roll, "-threads", "1", bench)
	if code != 0 {
		t.Fatalf("pipeline run: code %d\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"review ", "pipeline@1 (review)"} {
		if !strings.Contains(out, s) {
			t.Errorf("pipeline run output lacks %q:\n%s", s, out)
		}
	}
	recs, err := agents.ReadRecords(roll)
	if err != nil {
		t.Fatal(err)
	}
	reviewed := 0
	for _, r := range recs {
		for _, c := range r.Candidates {
			if c.Exec.OK != (c.ReviewTokens > 0) {
				t.Errorf("question %d, %q: ran %v, reviewed %v", r.QuestionID, c.SQL, c.Exec.OK, c.ReviewTokens > 0)
			}
			if c.ReviewTokens > 0 {
				reviewed++
				if c.Review >= 0 {
					t.Errorf("question %d: log-probability %v", r.QuestionID, c.Review)
				}
			}
		}
		if r.Final != agents.StrategyReview || r.Choice() != 0 {
			t.Errorf("question %d: final %s picked %d, want the review's pick of the only query that ran", r.QuestionID, r.Final, r.Choice())
		}
	}
	if reviewed != len(qs) {
		t.Errorf("%d candidates reviewed, want the %d golds", reviewed, len(qs))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-planner", ck, "-reviewer", ck}, "trained to write SQL"},
		{[]string{"-planner", rv}, "task"},
		{[]string{"-planner", ck, "-reviewer", "http://localhost:1/v1"}, "native checkpoint"},
		{[]string{"-planner", ck, "-reviewer", otherFormat}, "prompt format or context differs"},
	} {
		args := append(append([]string{"pipeline", "run"}, tc.args...), "-out", filepath.Join(t.TempDir(), "r.jsonl"), bench)
		if out, errs, code := sqlrlOS(t, args...); code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want an error saying %q\n%s", tc.args, code, errs, tc.want, out)
		}
	}
	// Every command that decodes SQL refuses a reviewer (policy.LoadSQL).
	if out, errs, code := sqlrlOS(t, "generate", "-model", rv, "-out", filepath.Join(t.TempDir(), "p.jsonl"), bench); code == 0 || !strings.Contains(errs, `task "review"`) {
		t.Errorf("generate with a reviewer: code %d, stderr %q\n%s", code, errs, out)
	}
}
