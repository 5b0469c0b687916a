package agents

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/internal/fakeopenai"
	"github.com/sqlrl/sqlrl/internal/policytest"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// SQL the scripted agents answer besides the gold: two that run and
// return results no gold of the bundled sample has, and two that fail.
const (
	sqlWrongA = "SELECT 'wrong a'"
	sqlWrongB = "SELECT 'wrong b'"
	sqlFails  = "SELECT no_such_column FROM superhero"
	sqlFails2 = "SELECT still_no_such_column FROM superhero"
)

// sampleQuestions loads the bundled BIRD sample's dev questions with these
// ids, in this order, and an engine and scorer over its databases.
func sampleQuestions(t *testing.T, ids ...int) ([]dataset.Example, sqlexec.Engine, *eval.Scorer) {
	t.Helper()
	b, err := dataset.Load(testkit.BirdSample(), "dev")
	if err != nil {
		t.Fatal(err)
	}
	var exs []dataset.Example
	for _, id := range ids {
		k := slices.IndexFunc(b.Examples, func(e dataset.Example) bool { return e.QuestionID == id })
		if k < 0 {
			t.Fatalf("no question %d in the sample", id)
		}
		exs = append(exs, b.Examples[k])
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	t.Cleanup(func() { eng.Close() })
	sc := &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true, KeepResults: true}
	return exs, eng, sc
}

// questionPrompts is a fitted batch whose prompt for question i is
// "Q<id> <question><cue>": the scripted agents read the id back.
func questionPrompts(exs []dataset.Example, cue string) *policy.FitBatch {
	fb := &policy.FitBatch{Fits: make([]*policy.Fitted, len(exs)), Errs: make([]error, len(exs))}
	for i, ex := range exs {
		fb.Fits[i] = &policy.Fitted{Text: fmt.Sprintf("Q%d %s%s", ex.QuestionID, ex.Question, cue)}
		fb.OK = append(fb.OK, i)
	}
	return fb
}

// agentCall is one completion asked of a scripted agent, as read back from
// its prompt.
type agentCall struct {
	Role string
	QID  int
	// Kind is a validator's; SQL the candidate a validator or fixer
	// reads; A and B the selector's two.
	Kind, SQL, A, B string
	// J is the completion's index; Greedy says temperature 0.
	J      int
	Greedy bool
}

// errHang makes a scripted agent hang until its per-call deadline.
var errHang = errors.New("hang")

// scriptGen is a policy.Generator that answers each completion by a function of
// what the prompt asks (native template set), as a model would, so that a
// test states which agent answers what on which question. A call that
// holds a prompt whose answer is an error fails as a whole, as a batched
// decoder does; an answer of errHang blocks until the call's own deadline
// (callTimeout, the per-call limit a remote client has), then fails.
type scriptGen struct {
	answer      func(c agentCall) (string, error)
	callTimeout time.Duration

	mu    sync.Mutex
	calls int
}

var (
	qidRe      = regexp.MustCompile(`^Q(\d+) `)
	checkRe    = regexp.MustCompile(`\ncheck (\w+): $`)
	reviewedRe = regexp.MustCompile(`(?s)\nSQL: (.*?)\nresult: `)
	selectARe  = regexp.MustCompile(`(?s)\nA: (.*?)\nresult A: `)
	selectBRe  = regexp.MustCompile(`(?s)\nB: (.*?)\nresult B: `)
)

// readNative reads a native prompt back into a call.
func readNative(p string) agentCall {
	var c agentCall
	if m := qidRe.FindStringSubmatch(p); m != nil {
		c.QID, _ = strconv.Atoi(m[1])
	}
	sub := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(p); m != nil {
			return m[1]
		}
		return ""
	}
	switch {
	case strings.HasSuffix(p, "fixed SQL: "):
		c.Role, c.SQL = RoleFixer, sub(reviewedRe)
	case strings.HasSuffix(p, "better: "):
		c.Role, c.A, c.B = RoleSelector, sub(selectARe), sub(selectBRe)
	case checkRe.MatchString(p):
		c.Role, c.Kind, c.SQL = RoleValidator, checkRe.FindStringSubmatch(p)[1], sub(reviewedRe)
	default:
		c.Role = RolePlanner
	}
	return c
}

func (g *scriptGen) Generate(ctx context.Context, prompts []string, o policy.SampleOptions) ([][]policy.Completion, policy.Stats, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	if g.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.callTimeout)
		defer cancel()
	}
	out := make([][]policy.Completion, len(prompts))
	for i, p := range prompts {
		c := readNative(p)
		c.Greedy = o.Temperature == 0
		for j := range max(o.N, 1) {
			c.J = j
			txt, err := g.answer(c)
			if errors.Is(err, errHang) {
				<-ctx.Done()
				return nil, policy.Stats{}, fmt.Errorf("prompt %d: %w", i, ctx.Err())
			}
			if err != nil {
				return nil, policy.Stats{}, fmt.Errorf("prompt %d: %w", i, err)
			}
			out[i] = append(out[i], policy.Completion{Text: txt, Tokens: make([]int32, len(txt)), LogProb: -0.5 * float64(len(txt))})
		}
	}
	return out, policy.Stats{}, nil
}

// plannerPlan is what the planner answers on one question: the greedy
// decode and the samples (by index); fail makes every planner call on it
// fail.
type plannerPlan struct {
	greedy  string
	samples []string
	fail    bool
}

// candSig writes a candidate as "source/from/same ok|fail group correct"
// with its verdicts: the shape a test states by hand.
func candSig(c Candidate) string {
	ex := "fail"
	if c.Exec.OK {
		ex = "ok"
	}
	s := fmt.Sprintf("%s/%d/%d %s g%d %v", c.Source, c.From, c.Same, ex, c.Exec.Group, c.Correct)
	if len(c.Validations) > 0 {
		var vs []string
		for _, v := range c.Validations {
			vs = append(vs, v.Kind[:1]+"="+v.Verdict)
		}
		s += " [" + strings.Join(vs, " ") + "]"
	}
	return s
}

func matchSig(ms []Match) []string {
	var out []string
	for _, m := range ms {
		s := fmt.Sprintf("%dv%d->%d", m.A, m.B, m.Winner)
		if m.Error != "" {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

// closeTo compares percentages computed from a handful of questions.
func closeTo(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// TestPipelineNativeScripted runs the pipeline end to end over six
// questions of the bundled sample with scripted native agents, each
// question set up for one path: all correct; a wrong greedy decode that
// validators reject and the fixer repairs; a failing greedy decode whose
// fix fails too (dropped) and wrong samples whose fix is kept; a planner
// that errors; validators and selector answering garbage; validators that
// hang and a fixer that errors. Every record and the report are checked
// against what was worked out by hand.
func TestPipelineNativeScripted(t *testing.T) {
	exs, eng, sc := sampleQuestions(t, 717, 718, 719, 720, 721, 722)
	gold := map[int]string{}
	for _, ex := range exs {
		gold[ex.QuestionID] = ex.SQL
	}
	plans := map[int]plannerPlan{
		717: {greedy: gold[717], samples: []string{gold[717], gold[717]}},
		718: {greedy: sqlWrongA, samples: []string{gold[718], gold[718] + ";"}},
		719: {greedy: sqlFails, samples: []string{sqlWrongA, sqlWrongA}},
		720: {fail: true},
		721: {greedy: gold[721], samples: []string{sqlWrongA, sqlWrongB}},
		722: {greedy: sqlFails, samples: []string{gold[722], gold[722]}},
	}
	answer := func(c agentCall) (string, error) {
		g := gold[c.QID]
		switch c.Role {
		case RolePlanner:
			pl := plans[c.QID]
			switch {
			case pl.fail:
				return "", errors.New("decoder exploded")
			case c.Greedy:
				return pl.greedy, nil
			}
			return pl.samples[c.J], nil
		case RoleValidator:
			switch c.QID {
			case 721: // garbage: no conclusion, two, or a letter
				return map[string]string{ValidateSelection: "the columns look plausible",
					ValidateCondition: "Conclude: correct. On second thought, Conclude: incorrect.", ValidateJoin: "C"}[c.Kind], nil
			case 722:
				return "", errHang
			}
			if c.Kind == ValidateJoin || c.SQL == g { // the join validator approves of everything
				return c.Kind + " as asked. Conclude: correct.", nil
			}
			return c.Kind + " differs from the question. Conclude: incorrect.", nil
		case RoleFixer:
			switch {
			case c.QID == 722:
				return "", errors.New("fixer exploded")
			case c.SQL == sqlFails:
				return sqlFails2 + ";", nil
			}
			return g, nil
		case RoleSelector:
			switch {
			case c.QID == 721:
				return "C", nil
			case c.B == g:
				return "B", nil
			}
			return "A", nil
		}
		return "", fmt.Errorf("unknown role of %+v", c)
	}
	gen := &scriptGen{answer: answer, callTimeout: 20 * time.Millisecond}
	nat, err := LoadTemplates(SetNative, "")
	if err != nil {
		t.Fatal(err)
	}
	agent := func(role string) *Agent {
		return &Agent{Role: role, Gen: gen, Set: SetNative, Templates: nat}
	}
	p := &Pipeline{Planner: agent(RolePlanner), Validator: agent(RoleValidator), Fixer: agent(RoleFixer), Selector: agent(RoleSelector),
		K: 3, Sampling: Sampling{Temperature: 1, Seed: 3}, Engine: eng, Scorer: sc}
	stages := map[string]bool{}
	var mu sync.Mutex
	p.Progress = func(s string) progress.Func {
		return func(done, total int) {
			mu.Lock()
			stages[s] = true
			mu.Unlock()
		}
	}
	recs, tm, err := p.Run(context.Background(), exs, Prompts{SetNative: questionPrompts(exs, policy.CompactCue)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{StagePlanner, StageExecute, StageValidate, StageFix, StageSelect} {
		if _, ok := tm[s]; !ok {
			t.Errorf("no time for stage %s: %v", s, tm)
		}
	}
	for _, s := range []string{StagePlanner, StageValidate, StageFix, StageSelect} {
		if !stages[s] {
			t.Errorf("no progress for stage %s: %v", s, stages)
		}
	}
	const (
		c3 = " [s=correct c=correct j=correct]"
		w3 = " [s=incorrect c=incorrect j=correct]"
		b3 = " [s=bad c=bad j=bad]"
	)
	want := []struct {
		cands    []string
		matches  []string
		selected map[string]int
		errs     []string // substrings, in order, of the record's errors
	}{
		{ // 717: all candidates the gold; one result, no match.
			cands:    []string{"greedy/-1/-1 ok g0 true" + c3, "sample/-1/0 ok g0 true", "sample/-1/0 ok g0 true"},
			selected: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 0, "tournament": 0},
		},
		{ // 718: wrong greedy, rejected and fixed to the gold (the samples' text once the ";" goes).
			cands: []string{"greedy/-1/-1 ok g0 false" + w3, "sample/-1/-1 ok g1 true" + c3, "sample/-1/1 ok g1 true",
				"fix/0/1 ok g1 true"},
			matches:  []string{"1v0->1"},
			selected: map[string]int{"greedy": 0, "vote": 1, "validator_vote": 1, "tournament": 1},
		},
		{ // 719: the failed greedy's fix fails (dropped); the wrong sample's fix is kept and wins the tournament.
			cands:    []string{"greedy/-1/-1 fail g-1 false", "sample/-1/-1 ok g0 false" + w3, "sample/-1/1 ok g0 false", "fix/1/-1 ok g1 true"},
			matches:  []string{"1v3->3"},
			selected: map[string]int{"greedy": 0, "vote": 1, "validator_vote": 1, "tournament": 3},
		},
		{ // 720: the planner fails: no candidates, nothing chosen.
			selected: map[string]int{"greedy": -1, "vote": -1, "tournament": -1},
			errs:     []string{"planner: ", "decoder exploded"},
		},
		{ // 721: unreadable verdicts and choices: bad verdicts, no fix, the tournament falls back to greedy.
			cands:    []string{"greedy/-1/-1 ok g0 true" + b3, "sample/-1/-1 ok g1 false" + b3, "sample/-1/-1 ok g2 false" + b3},
			matches:  []string{"0v1->-1!", "0v2->-1!", "1v2->-1!"},
			selected: map[string]int{"greedy": 0, "vote": 0, "validator_vote": 0, "tournament": 0},
			errs: []string{"validator selection on candidate 0: unreadable", "validator condition on candidate 0: unreadable: the feedback concludes more than once",
				"selector on 0 vs 1: unreadable", "selector on 1 vs 2: unreadable"},
		},
		{ // 722: validators time out, the fixer fails: the votes decide.
			cands:    []string{"greedy/-1/-1 fail g-1 false", "sample/-1/-1 ok g0 true" + b3, "sample/-1/1 ok g0 true"},
			selected: map[string]int{"greedy": 0, "vote": 1, "validator_vote": 1, "tournament": 1},
			errs: []string{"validator selection on candidate 1", "deadline", "validator condition on candidate 1", "validator join on candidate 1",
				"fixer on candidate 0", "fixer exploded"},
		},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		t.Run(strconv.Itoa(r.QuestionID), func(t *testing.T) {
			if r.QuestionID != exs[i].QuestionID || r.Gold != exs[i].SQL || r.Difficulty != exs[i].Difficulty || r.Final != StrategyTournament {
				t.Errorf("record header %d %q %q %q", r.QuestionID, r.Difficulty, r.Final, r.Gold)
			}
			var got []string
			for _, c := range r.Candidates {
				got = append(got, candSig(c))
			}
			if strings.Join(got, "\n") != strings.Join(w.cands, "\n") {
				t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w.cands, "\n"))
			}
			if g := matchSig(r.Matches); !slices.Equal(g, w.matches) {
				t.Errorf("matches %v, want %v", g, w.matches)
			}
			if fmt.Sprint(r.Selected) != fmt.Sprint(w.selected) {
				t.Errorf("selected %v, want %v", r.Selected, w.selected)
			}
			if r.Choice() != w.selected[StrategyTournament] {
				t.Errorf("choice %d, want the tournament's %d", r.Choice(), w.selected[StrategyTournament])
			}
			all := strings.Join(r.Errors, "\n")
			at := 0
			for _, s := range w.errs {
				k := strings.Index(all[at:], s)
				if k < 0 {
					t.Errorf("errors %q lack %q (in order)", r.Errors, s)
					break
				}
				at += k + len(s)
			}
			if len(w.errs) == 0 && len(r.Errors) > 0 {
				t.Errorf("unexpected errors %q", r.Errors)
			}
			for j, c := range r.Candidates {
				if c.Source != SourceFix && c.Same < 0 && (c.Tokens == 0 || c.LogProb >= 0) {
					t.Errorf("candidate %d: tokens %d, logprob %g not recorded", j, c.Tokens, c.LogProb)
				}
				if c.Exec.OK && (c.Exec.NRows == 0 || len(c.Exec.Rows) == 0 || len(c.Exec.Rows) > MaxShownRows) {
					t.Errorf("candidate %d: execution %+v", j, c.Exec)
				}
				if !c.Exec.OK && c.Exec.Error == "" {
					t.Errorf("candidate %d: failed without an error", j)
				}
			}
		})
	}
	// The hanging validators and the failing fixer cost their own
	// questions only: their verdicts carry the call's error.
	for _, v := range recs[5].Candidates[1].Validations {
		if !strings.Contains(v.Error, "deadline") {
			t.Errorf("722 validation %+v: want the deadline's error", v)
		}
	}
	for _, v := range recs[4].Candidates[0].Validations {
		if v.Error == "" || v.Text == "" {
			t.Errorf("721 validation %+v: want the unreadable text and the parse error", v)
		}
	}

	// The report, by hand: greedy right on 717 and 721 (2/6); the fix of
	// 718's greedy gains one; the planner's candidates hold a correct one
	// on 717, 718, 721, 722 (4/6), with the fixes 719 too; the vote misses
	// 719 and 720, the tournament 720 only.
	rep := BuildReport(recs)
	tot := rep.Rows[len(rep.Rows)-1]
	h := func(n float64) float64 { return 100 * n / 6 }
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"planner@1", tot.Planner1, h(2)}, {"fixer gain", tot.FixerGain, h(1)}, {"pipeline@1", tot.Pipeline1, h(5)},
		{"pass@K", tot.PassK, h(4)}, {"oracle with fixes", tot.OracleAll, h(5)},
		{"greedy", tot.Strategies[StrategyGreedy], h(2)}, {"vote", tot.Strategies[StrategyVote], h(4)},
		{"validator vote", tot.Strategies[StrategyValidatorVote], h(4)}, {"tournament", tot.Strategies[StrategyTournament], h(5)},
		// Verdicts on distinct candidates: 24, 12 of them bad; the join
		// validator is right on 717's and 718's gold, wrong on 718's and 719's wrong ones.
		{"bad feedback", rep.ValidatorBad, 50}, {"selection accuracy", rep.ValidatorAccuracy[ValidateSelection], 100},
		{"join accuracy", rep.ValidatorAccuracy[ValidateJoin], 50},
	} {
		if !closeTo(x.got, x.want) {
			t.Errorf("%s %.4f, want %.4f", x.name, x.got, x.want)
		}
	}
	if tot.N != 6 || rep.K != 3 || rep.Final != StrategyTournament || len(rep.Rows) != 3 || rep.Rows[0].Level != "simple" || rep.Rows[0].N != 5 ||
		rep.Rows[1].Level != "moderate" || rep.Rows[1].N != 1 || !closeTo(rep.Rows[1].Pipeline1, 100) || !closeTo(rep.Rows[1].Planner1, 0) {
		t.Errorf("report rows: %+v %+v", rep.Rows[0], rep.Rows[1])
	}
	// 721's nine unreadable verdicts and three choices count with 722's
	// three timed-out validators.
	if rep.Errors["planner"] != 1 || rep.Errors["validator"] != 12 || rep.Errors["selector"] != 3 || rep.Errors["fixer"] != 1 {
		t.Errorf("error counts %v", rep.Errors)
	}
}

var (
	chatSQLRe = regexp.MustCompile("(?s)```sql\n(.*?)\n```")
	chatARe   = regexp.MustCompile("(?s)Candidate A:\n```sql\n(.*?)\n```")
	chatBRe   = regexp.MustCompile("(?s)Candidate B:\n```sql\n(.*?)\n```")
)

// readChat reads a chat prompt (the built-in chat templates) back into a
// call.
func readChat(q fakeopenai.Request) agentCall {
	p := q.Text()
	var c agentCall
	if m := qidRe.FindStringSubmatch(p); m != nil {
		c.QID, _ = strconv.Atoi(m[1])
	}
	sub := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(p); m != nil {
			return m[1]
		}
		return ""
	}
	switch {
	case strings.Contains(p, "Write a corrected query"):
		c.Role, c.SQL = RoleFixer, sub(chatSQLRe)
	case strings.Contains(p, "Which candidate answers"):
		c.Role, c.A, c.B = RoleSelector, sub(chatARe), sub(chatBRe)
	case strings.Contains(p, "Conclude: correct.\" or"):
		c.Role, c.SQL = RoleValidator, sub(chatSQLRe)
		for _, k := range ValidatorKinds {
			if strings.Contains(p, map[string]string{ValidateSelection: "SELECT clause only", ValidateCondition: "which rows come back only",
				ValidateJoin: "tables and joins only"}[k]) {
				c.Kind = k
			}
		}
	case strings.Contains(p, "Think about which tables"):
		c.Role = RolePlanner
	}
	c.Greedy = q.Temperature == nil || *q.Temperature == 0
	return c
}

func finalSQL(sql string) string {
	return "The question needs one table and a filter.\nFinal SQL query:\n```sql\n" + sql + "\n```"
}

// TestPipelineChatFakeServer runs every agent on the chat template set
// through Remote against the fake OpenAI-compatible server, answering in
// the recipe's formats, with a server fault on some questions' calls: a
// 500 that a retry survives, a planner answer without SQL, validators
// answered with garbage, a selector that hangs past the client's timeout,
// a fixer refused with a 400. Each fault stays in its question.
func TestPipelineChatFakeServer(t *testing.T) {
	exs, eng, sc := sampleQuestions(t, 717, 718, 719, 721, 722, 723)
	gold := map[int]string{}
	for _, ex := range exs {
		gold[ex.QuestionID] = ex.SQL
	}
	greedy := map[int]string{717: gold[717], 718: gold[718], 719: gold[719], 721: gold[721], 722: gold[722], 723: sqlWrongA}
	sample := map[int]string{717: sqlWrongA, 718: gold[718], 721: sqlWrongA, 722: sqlWrongA, 723: sqlWrongA}
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	srv := fakeopenai.New(fakeopenai.Options{
		Answer: func(q fakeopenai.Request, j int) string {
			c := readChat(q)
			g := gold[c.QID]
			switch c.Role {
			case RolePlanner:
				if c.Greedy {
					return finalSQL(greedy[c.QID])
				}
				if c.QID == 719 {
					return "I cannot answer this question."
				}
				return finalSQL(sample[c.QID])
			case RoleValidator:
				if c.SQL == g {
					return "The " + c.Kind + " matches the question.\nConclude: correct."
				}
				return "The " + c.Kind + " does not match the question.\nConclude: incorrect."
			case RoleFixer:
				return finalSQL(g)
			case RoleSelector:
				if c.B == g {
					return "B returns what is asked.\nAnswer: B"
				}
				return "A returns what is asked.\nAnswer: A"
			}
			return "?"
		},
		Fault: func(_ int, q fakeopenai.Request) fakeopenai.Fault {
			c := readChat(q)
			mu.Lock()
			key := fmt.Sprintf("%s|greedy %v", q.Text(), c.Greedy)
			seen[key]++
			n := seen[key]
			mu.Unlock()
			switch {
			case c.Role == RolePlanner && c.QID == 718 && c.Greedy && n == 1:
				return fakeopenai.ServerError
			case c.Role == RoleValidator && c.QID == 721:
				return fakeopenai.Garbage
			case c.Role == RoleSelector && c.QID == 722:
				return fakeopenai.Hang
			case c.Role == RoleFixer && c.QID == 723:
				return fakeopenai.BadRequest
			}
			return fakeopenai.OK
		},
	})
	defer srv.Close()
	chat, err := LoadTemplates(SetChat, "")
	if err != nil {
		t.Fatal(err)
	}
	client := &llmclient.Client{BaseURL: srv.URL, Model: "m", Retries: 1, Backoff: time.Millisecond, Timeout: 250 * time.Millisecond}
	agent := func(role string) *Agent {
		return &Agent{Role: role, Gen: &Remote{Chat: true, Client: client}, Set: SetChat, Templates: chat, MaxTokens: 1024}
	}
	p := &Pipeline{Planner: agent(RolePlanner), Validator: agent(RoleValidator), Fixer: agent(RoleFixer), Selector: agent(RoleSelector),
		K: 2, Sampling: Sampling{Temperature: 0.8, Seed: 1}, Engine: eng, Scorer: sc}
	recs, _, err := p.Run(context.Background(), exs, Prompts{SetChat: questionPrompts(exs, "")})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		cands   []string
		matches []string
		choice  int
		errs    []string
	}{
		{ // 717: the wrong sample is rejected, fixed to the gold; the selector keeps the greedy decode.
			cands: []string{"greedy/-1/-1 ok g0 true [s=correct c=correct j=correct]", "sample/-1/-1 ok g1 false [s=incorrect c=incorrect j=incorrect]",
				"fix/1/0 ok g0 true"},
			matches: []string{"0v1->0"}, choice: 0,
		},
		{ // 718: a 500 on the greedy decode, then an answer to the retry: no trace.
			cands:  []string{"greedy/-1/-1 ok g0 true [s=correct c=correct j=correct]", "sample/-1/0 ok g0 true"},
			choice: 0,
		},
		{ // 719: the sample has no SQL: an error, an empty candidate that fails, and no fix of it.
			cands:  []string{"greedy/-1/-1 ok g0 true [s=correct c=correct j=correct]", "sample/-1/-1 fail g-1 false"},
			choice: 0, errs: []string{"planner candidate 1: ", "no SQL"},
		},
		{ // 721: garbage from the server on every validator call: bad verdicts, no fix; the selector decides.
			cands:   []string{"greedy/-1/-1 ok g0 true [s=bad c=bad j=bad]", "sample/-1/-1 ok g1 false [s=bad c=bad j=bad]"},
			matches: []string{"0v1->0"}, choice: 0,
			errs: []string{"validator selection on candidate 0", "validator condition on candidate 0", "validator join on candidate 0", "validator selection on candidate 1"},
		},
		{ // 722: the selector hangs past the client's timeout: the tournament falls back to the greedy decode.
			cands: []string{"greedy/-1/-1 ok g0 true [s=correct c=correct j=correct]", "sample/-1/-1 ok g1 false [s=incorrect c=incorrect j=incorrect]",
				"fix/1/0 ok g0 true"},
			matches: []string{"0v1->-1!"}, choice: 0, errs: []string{"selector on 0 vs 1"},
		},
		{ // 723: the fixer is refused (400): no fix, the wrong answer stays.
			cands:  []string{"greedy/-1/-1 ok g0 false [s=incorrect c=incorrect j=incorrect]", "sample/-1/0 ok g0 false"},
			choice: 0, errs: []string{"fixer on candidate 0", "HTTP 400"},
		},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		var got []string
		for _, c := range r.Candidates {
			got = append(got, candSig(c))
		}
		if strings.Join(got, "\n") != strings.Join(w.cands, "\n") {
			t.Errorf("question %d: candidates:\n%s\nwant:\n%s", r.QuestionID, strings.Join(got, "\n"), strings.Join(w.cands, "\n"))
		}
		if g := matchSig(r.Matches); !slices.Equal(g, w.matches) {
			t.Errorf("question %d: matches %v, want %v", r.QuestionID, g, w.matches)
		}
		if r.Choice() != w.choice {
			t.Errorf("question %d: choice %d, want %d", r.QuestionID, r.Choice(), w.choice)
		}
		all := strings.Join(r.Errors, "\n")
		for _, s := range w.errs {
			if !strings.Contains(all, s) {
				t.Errorf("question %d: errors %q lack %q", r.QuestionID, r.Errors, s)
			}
		}
		if len(w.errs) == 0 && len(r.Errors) > 0 {
			t.Errorf("question %d: unexpected errors %q", r.QuestionID, r.Errors)
		}
	}
	if n := seen[finalPrompt(t, chat, exs[1])+"|greedy true"]; n != 2 {
		t.Errorf("question 718's greedy decode: %d requests, want 2 (a 500, then its retry)", n)
	}
}

// finalPrompt is the chat planner's prompt for ex as questionPrompts and
// the built-in template write it.
func finalPrompt(t *testing.T, ts Templates, ex dataset.Example) string {
	t.Helper()
	p := fmt.Sprintf("Q%d %s", ex.QuestionID, ex.Question)
	s, err := ts.Render(RolePlanner, PromptData{Prompt: p, Context: p, Question: ex.Question, Evidence: ex.Evidence})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPipelineServeModel runs the planner on `sqlrl serve-model`'s handler
// in process through Remote, in chat mode (the chat templates, the
// recipe's answer format) and in completions mode (the native templates:
// the answer is the SQL): the pipeline runs end to end and writes a record
// per question. The policy is untrained, so its SQL is junk: the test
// checks the records' structure, and that the greedy candidate is what the
// policy itself decodes for the prompt, not accuracy. The chat planner's
// template comes from testdata (a bare prompt: the tiny policy's context
// has no room for the built-in instructions).
func TestPipelineServeModel(t *testing.T) {
	exs, eng, sc := sampleQuestions(t, 717, 718, 719)
	pol := policytest.Peaked(t)
	ms := &modelserver.Server{Policy: pol, Name: "m"}
	defer ms.Close()
	srv := httptest.NewServer(ms.Handler())
	defer srv.Close()
	chatQuestion := "question: How many customers?"
	for _, tt := range []struct {
		name, set, prompt, local string
		chat                     bool
	}{
		{"chat", SetChat, chatQuestion, pol.Info.Prompt.ChatPrompt([]prompt.Message{{Role: "user", Content: chatQuestion}}), true},
		{"completions", SetNative, policytest.Texts[0], policytest.Texts[0], false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := LoadTemplates(tt.set, filepath.Join("testdata", "servemodel"))
			if err != nil {
				t.Fatal(err)
			}
			planner := &Agent{Role: RolePlanner, Set: tt.set, Templates: ts, MaxTokens: 12,
				Gen: &Remote{Chat: tt.chat, Client: &llmclient.Client{BaseURL: srv.URL + "/v1", Model: "m", Retries: 1, Backoff: time.Millisecond},
					Extra: map[string]any{"guide": false}}}
			fb := &policy.FitBatch{Fits: make([]*policy.Fitted, len(exs)), Errs: make([]error, len(exs))}
			for i := range exs {
				fb.Fits[i] = &policy.Fitted{Text: tt.prompt}
				fb.OK = append(fb.OK, i)
			}
			p := &Pipeline{Planner: planner, K: 3, Sampling: Sampling{Temperature: 1, Seed: 2}, Engine: eng, Scorer: sc}
			recs, _, err := p.Run(context.Background(), exs, Prompts{tt.set: fb})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(exs) {
				t.Fatalf("%d records for %d questions", len(recs), len(exs))
			}
			local, _, err := pol.Generate(context.Background(), []string{tt.local}, policy.SampleOptions{N: 1, MaxTokens: 12})
			if err != nil {
				t.Fatal(err)
			}
			wantGreedy, wantErr := cleanSQL(jsonText(local[0][0].Text)), error(nil)
			if tt.chat {
				wantGreedy, wantErr = ParseSQL(jsonText(local[0][0].Text))
			}
			t.Logf("the policy's greedy answer %q reads as %q (%v)", local[0][0].Text, wantGreedy, wantErr)
			var buf strings.Builder
			if err := WriteRecords(&buf, recs); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "rollouts.jsonl")
			if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range back {
				if r.QuestionID != exs[i].QuestionID || r.Final != StrategyVote {
					t.Errorf("record %d: question %d, final %q", i, r.QuestionID, r.Final)
				}
				if len(r.Candidates) != 3 {
					t.Fatalf("question %d: %d candidates, want 3; errors %q", r.QuestionID, len(r.Candidates), r.Errors)
				}
				if g := r.Candidates[0].SQL; g != wantGreedy {
					t.Errorf("question %d: greedy candidate %q, the policy decodes %q", r.QuestionID, g, wantGreedy)
				}
				greedyErr := slices.ContainsFunc(r.Errors, func(e string) bool { return strings.HasPrefix(e, "planner candidate 0: ") })
				if greedyErr != (wantErr != nil) {
					t.Errorf("question %d: errors %q; parsing the policy's own answer: %v", r.QuestionID, r.Errors, wantErr)
				}
				parseErrs := 0
				for _, e := range r.Errors {
					if strings.HasPrefix(e, "planner candidate ") {
						parseErrs++
					}
				}
				if !tt.chat && len(r.Errors) > 0 {
					t.Errorf("question %d: errors %q in completions mode", r.QuestionID, r.Errors)
				}
				empty := 0
				for j, c := range r.Candidates {
					if c.Source != []string{SourceGreedy, SourceSample, SourceSample}[j] || !c.Scored || (c.Exec.OK != (c.Exec.Group >= 0)) {
						t.Errorf("question %d candidate %d: %+v", r.QuestionID, j, c)
					}
					if c.SQL == "" {
						empty++
					}
				}
				if tt.chat && empty != parseErrs {
					t.Errorf("question %d: %d empty candidates, %d parse errors %q", r.QuestionID, empty, parseErrs, r.Errors)
				}
				if r.Selected[StrategyGreedy] != 0 || r.Choice() != r.Selected[StrategyVote] {
					t.Errorf("question %d: selected %v", r.QuestionID, r.Selected)
				}
			}
		})
	}
}
