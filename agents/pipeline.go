package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// When the fixer runs.
const (
	// FixFailed fixes only candidates whose execution failed.
	FixFailed = "failed"
	// FixIncorrect also fixes candidates that any validator called
	// incorrect (the recipe's default).
	FixIncorrect = "incorrect"
)

// Pipeline is the MATS pipeline over a set of questions. Stages run over
// all questions at once (every planner prompt, then every validator
// prompt, ...), because a local model decodes a batch of prompts several
// times faster than one prompt at a time; a remote backend gets the same
// batches and sends their prompts concurrently.
type Pipeline struct {
	// Planner writes the candidates; required. Validator (nil: no
	// validation), Fixer (nil: no fixing) and Selector (nil: no
	// tournament) are optional.
	Planner, Validator, Fixer, Selector *Agent
	// Kinds are the validators run (default ValidatorKinds).
	Kinds []string
	// FixWhen is FixFailed or FixIncorrect (default).
	FixWhen string
	// Reviewer, when set, scores each candidate by the likelihood of the
	// question given it (Candidate.Review; it reads native prompts).
	Reviewer Reviewer
	// ReviewWeight is the review strategy's weight on the planner's
	// log-probability (Selection.ReviewWeight).
	ReviewWeight float64
	// Ranker, when set, adds the learned ranker's choice.
	Ranker *Ranker
	// Final is the strategy whose choice is the answer (default: the
	// review with a reviewer, the best measured, else the tournament with
	// a selector, else the validator-weighted vote with validators, else
	// the execution vote).
	Final string
	// K candidates per question: one greedy decode and K-1 samples at
	// Sampling (default K 1: greedy only).
	K int
	Sampling
	// Guide keeps the native planner's and fixer's SQL to the schema the
	// prompt shows, with Words as the SQL vocabulary (policy.FitBatch).
	Guide bool
	Words []string
	// Engine runs candidates; Scorer, when set, scores them against the
	// gold (BIRD EX, eval's code) and runs them through the same engine.
	Engine sqlexec.Engine
	Scorer *eval.Scorer
	// Timeout bounds each query (default 30s, BIRD's).
	Timeout time.Duration
	// TournamentSize is the number of distinct results the selector
	// compares, most voted first (default 4: 6 comparisons).
	TournamentSize int
	// Progress, when set, gives each stage's report as the stage starts
	// (a nil Func: none for that stage).
	Progress func(stage string) progress.Func
	// Reuse, when set, supplies the planner's candidates from an earlier
	// run's records (by question id) instead of decoding them, so that
	// variants of the later stages are compared on the same candidates.
	Reuse map[int]*Record
}

// Timing is the wall time per stage, in seconds.
type Timing map[string]float64

// stageProgress is the report of one stage's work (nil without Progress).
func (p *Pipeline) stageProgress(stage string) progress.Func {
	if p.Progress == nil {
		return nil
	}
	return p.Progress(stage)
}

// Stages, in order, as Timing and Progress name them.
const (
	StagePlanner   = "planner"
	StageExecute   = "execute"
	StageValidate  = "validate"
	StageFix       = "fix"
	StageReview    = "review"
	StageSelect    = "select"
	stageFixedExec = "execute fixes"
)

// Stages lists the stages Timing reports, in order.
var Stages = []string{StagePlanner, StageExecute, StageValidate, StageFix, StageReview, StageSelect}

func (p *Pipeline) defaults() {
	if p.K <= 0 {
		p.K = 1
	}
	if p.TopP <= 0 {
		p.TopP = 1
	}
	if len(p.Kinds) == 0 {
		p.Kinds = ValidatorKinds
	}
	if p.FixWhen == "" {
		p.FixWhen = FixIncorrect
	}
	if p.Timeout <= 0 {
		p.Timeout = eval.BIRDPairTimeout
	}
	if p.TournamentSize <= 1 {
		p.TournamentSize = 4
	}
	if p.Final == "" {
		switch {
		case p.Reviewer != nil:
			p.Final = StrategyReview
		case p.Selector != nil:
			p.Final = StrategyTournament
		case p.Validator != nil:
			p.Final = StrategyValidatorVote
		case p.K > 1:
			p.Final = StrategyVote
		default:
			p.Final = StrategyGreedy
		}
	}
}

// Prompts are the questions' fitted prompts per template set
// (SetNative: the native checkpoint's compact prompts, SetChat: package
// prompt's plain prompts), aligned with the questions. Each agent reads
// the prompts of its own set, so backends can be mixed.
type Prompts map[string]*policy.FitBatch

// Run passes every question of exs through the pipeline. A question
// without a prompt for the planner gets a record with no candidates and
// its error. An agent that fails, times out or answers garbage on one
// question is recorded in that question's Errors and replaced by the
// stage's fallback; only the context's end stops the run.
func (p *Pipeline) Run(ctx context.Context, exs []dataset.Example, prompts Prompts) ([]*Record, Timing, error) {
	p.defaults()
	if p.Planner == nil || p.Engine == nil {
		return nil, nil, fmt.Errorf("agents: a pipeline needs a planner and an engine")
	}
	for _, a := range []*Agent{p.Planner, p.Validator, p.Fixer, p.Selector} {
		if a == nil {
			continue
		}
		fb := prompts[a.Set]
		if fb == nil {
			return nil, nil, fmt.Errorf("agents: the %s reads %s prompts, and none were given", a.Role, a.Set)
		}
		if len(fb.Errs) != len(exs) {
			return nil, nil, fmt.Errorf("agents: %d fitted %s prompts for %d questions", len(fb.Errs), a.Set, len(exs))
		}
		if a.Templates == nil {
			return nil, nil, fmt.Errorf("agents: the %s has no templates", a.Role)
		}
	}
	if p.Reviewer != nil {
		if fb := prompts[SetNative]; fb == nil || len(fb.Errs) != len(exs) {
			return nil, nil, fmt.Errorf("agents: the reviewer reads native prompts, and none were given for the %d questions", len(exs))
		}
	}
	fb := prompts[p.Planner.Set]
	tm := Timing{}
	recs := make([]*Record, len(exs))
	for i, ex := range exs {
		recs[i] = &Record{QuestionID: ex.QuestionID, DBID: ex.DBID, Difficulty: ex.Difficulty, Question: ex.Question,
			Evidence: ex.Evidence, Gold: ex.SQL, Selected: map[string]int{}, Final: p.Final}
		if fb.Errs[i] != nil {
			recs[i].Errors = append(recs[i].Errors, "prompt: "+fb.Errs[i].Error())
		}
	}
	// data returns what question i's templates of set see; false when
	// the question has no prompt in that set.
	data := func(i int, set string) (PromptData, bool) {
		f := prompts[set].Fits[i]
		if f == nil {
			return PromptData{}, false
		}
		return PromptData{Prompt: f.Text, Context: strings.TrimSuffix(f.Text, policy.CompactCue), Question: exs[i].Question, Evidence: exs[i].Evidence}, true
	}
	var guides func(int) policy.Constraint
	if nb := prompts[SetNative]; p.Guide && nb != nil {
		guides = nb.Guides(p.Words)
	}

	// Planner: K candidates, the greedy one first.
	start := time.Now()
	if p.Reuse != nil {
		if err := p.reuse(recs); err != nil {
			return recs, tm, err
		}
	} else if err := p.plan(ctx, recs, fb, data); err != nil {
		return recs, tm, err
	}
	tm[StagePlanner] = time.Since(start).Seconds()

	start = time.Now()
	results, err := p.execute(ctx, recs, nil, StageExecute)
	if err != nil {
		return recs, tm, err
	}
	tm[StageExecute] = time.Since(start).Seconds()

	if p.Validator != nil {
		start = time.Now()
		if err := p.validate(ctx, recs, data); err != nil {
			return recs, tm, err
		}
		tm[StageValidate] = time.Since(start).Seconds()
	}
	if p.Fixer != nil {
		start = time.Now()
		if err := p.fix(ctx, recs, data, guides, results); err != nil {
			return recs, tm, err
		}
		tm[StageFix] = time.Since(start).Seconds()
	}
	if p.Reviewer != nil {
		start = time.Now()
		if err := p.review(ctx, recs, data); err != nil {
			return recs, tm, err
		}
		tm[StageReview] = time.Since(start).Seconds()
	}
	start = time.Now()
	if p.Selector != nil {
		if err := p.tournament(ctx, recs, data); err != nil {
			return recs, tm, err
		}
	}
	for _, r := range recs {
		SelectAll(r, Selection{Ranker: p.Ranker, ReviewWeight: p.ReviewWeight})
	}
	tm[StageSelect] = time.Since(start).Seconds()
	return recs, tm, nil
}

// plan decodes the planner's candidates.
func (p *Pipeline) plan(ctx context.Context, recs []*Record, fb *policy.FitBatch, data func(int, string) (PromptData, bool)) error {
	a := p.Planner
	pb := fb
	{
		// Render the planner's template over each fitted prompt: a copy of
		// the batch with the rendered texts, the same guides.
		cp := *fb
		cp.Fits = make([]*policy.Fitted, len(fb.Fits))
		for _, i := range fb.OK {
			f := *fb.Fits[i]
			d, _ := data(i, a.Set)
			txt, err := a.Templates.Render(RolePlanner, d)
			if err != nil {
				return err
			}
			f.Text = txt
			cp.Fits[i] = &f
		}
		pb = &cp
	}
	o := policy.DecodeOptions{Greedy: true, Samples: p.K - 1, Temperature: p.Temperature, TopP: p.TopP, MaxTokens: a.maxTokens(),
		Seed: p.Seed, Guide: p.Guide && a.Set != SetChat, Words: p.Words}
	o.Progress = p.stageProgress(StagePlanner)
	decoded, _, err := policy.DecodeBatch(ctx, a.Gen, pb, o)
	if err != nil {
		return err
	}
	for i, d := range decoded {
		r := recs[i]
		if d.Err != nil {
			if fb.Errs[i] == nil {
				r.Errors = append(r.Errors, "planner: "+d.Err.Error())
			}
			continue
		}
		comps := d.Samples
		if d.Greedy != nil {
			comps = append([]policy.Completion{*d.Greedy}, comps...)
		}
		for k, c := range comps {
			src := SourceSample
			if k == 0 && d.Greedy != nil {
				src = SourceGreedy
			}
			sql, perr := a.parseSQL(c.Text)
			if perr != nil {
				r.Errors = append(r.Errors, fmt.Sprintf("planner candidate %d: %v", k, perr))
			}
			r.Candidates = append(r.Candidates, Candidate{SQL: sql, Source: src, From: -1, LogProb: c.LogProb, Tokens: len(c.Tokens), Same: -1})
		}
		markSame(r, 0)
	}
	return nil
}

// reuse copies the planner's candidates of earlier records.
func (p *Pipeline) reuse(recs []*Record) error {
	for _, r := range recs {
		old, ok := p.Reuse[r.QuestionID]
		if !ok {
			return fmt.Errorf("agents: question %d has no earlier record to reuse", r.QuestionID)
		}
		if old.Gold != r.Gold || old.DBID != r.DBID {
			return fmt.Errorf("agents: question %d: the earlier record's gold or database differs: another benchmark?", r.QuestionID)
		}
		for _, c := range old.Candidates {
			if c.Source == SourceFix {
				continue
			}
			r.Candidates = append(r.Candidates, Candidate{SQL: c.SQL, Source: c.Source, From: -1, LogProb: c.LogProb, Tokens: c.Tokens, Same: -1})
		}
		markSame(r, 0)
		for _, e := range old.Errors {
			if strings.HasPrefix(e, "planner") {
				r.Errors = append(r.Errors, e)
			}
		}
	}
	return nil
}

// parseSQL reads a SQL answer: the native model's is the query itself.
func (a *Agent) parseSQL(text string) (string, error) {
	if a.Set == SetChat {
		return ParseSQL(text)
	}
	return cleanSQL(text), nil
}

func (a *Agent) maxTokens() int {
	if a.MaxTokens > 0 {
		return a.MaxTokens
	}
	return 256
}

// markSame links each candidate from index lo on to the first earlier
// candidate with the same text.
func markSame(r *Record, lo int) {
	for j := lo; j < len(r.Candidates); j++ {
		r.Candidates[j].Same = -1
		for k := range j {
			if r.Candidates[k].SQL == r.Candidates[j].SQL {
				r.Candidates[j].Same = k
				break
			}
		}
	}
}

// execute runs every candidate not yet run (those without a result in
// results[i]) and regroups each question's results. It returns every
// question's full results (by candidate), which grouping needs.
func (p *Pipeline) execute(ctx context.Context, recs []*Record, results [][]*sqlexec.Result, stage string) ([][]*sqlexec.Result, error) {
	if results == nil {
		results = make([][]*sqlexec.Result, len(recs))
	}
	var (
		mu     sync.Mutex
		done   int
		report = p.stageProgress(stage)
	)
	err := parallel.For(ctx, len(recs), 4, func(ctx context.Context, i int) error {
		p.executeOne(ctx, recs[i], &results[i])
		mu.Lock()
		done++
		if done%50 == 0 || done == len(recs) {
			report.Report(done, len(recs))
		}
		mu.Unlock()
		return nil
	})
	return results, err // only ctx ends it early
}

// executeOne runs r's new candidates and regroups its results.
func (p *Pipeline) executeOne(ctx context.Context, r *Record, results *[]*sqlexec.Result) {
	for len(*results) < len(r.Candidates) {
		j := len(*results)
		c := &r.Candidates[j]
		var res *sqlexec.Result
		switch {
		case c.Same >= 0:
			s := r.Candidates[c.Same]
			c.Exec, c.Correct, c.Scored = s.Exec, s.Correct, s.Scored
			res = (*results)[c.Same]
		case strings.TrimSpace(c.SQL) == "":
			c.Exec = Execution{Error: "empty query", Class: string(sqlexec.ClassSyntax), Group: -1}
			c.Scored = p.Scorer != nil && r.Gold != ""
		default:
			res = p.run(ctx, r, c)
		}
		*results = append(*results, res)
	}
	// Group equal results (BIRD EX's equality: the same set of rows).
	var reps []int
	for j := range r.Candidates {
		c := &r.Candidates[j]
		if !c.Exec.OK || (*results)[j] == nil {
			c.Exec.Group = -1
			continue
		}
		c.Exec.Group = -1
		for g, k := range reps {
			if eval.BirdEX((*results)[j].Rows, (*results)[k].Rows) {
				c.Exec.Group = g
				break
			}
		}
		if c.Exec.Group < 0 {
			c.Exec.Group = len(reps)
			reps = append(reps, j)
		}
	}
}

// run executes one candidate (scored against the gold when there is a
// scorer and a gold) and fills its Execution.
func (p *Pipeline) run(ctx context.Context, r *Record, c *Candidate) *sqlexec.Result {
	if p.Scorer != nil && r.Gold != "" {
		out := p.Scorer.Score(ctx, r.DBID, r.Gold, c.SQL)
		if out.Class != "gold_error" {
			c.Scored, c.Correct = true, out.Correct
			if out.Pred != nil {
				c.Exec = NewExecution(out.Pred, nil, "")
				return out.Pred
			}
			c.Exec = Execution{Error: out.Error, Class: out.Class, Group: -1}
			return nil
		}
		r.Errors = append(r.Errors, "gold: "+out.Error)
	}
	qctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	res, err := p.Engine.Query(qctx, r.DBID, c.SQL)
	c.Exec = NewExecution(res, err, "")
	if err != nil {
		return nil
	}
	return res
}

// item is one agent call of a stage: question i, candidate j.
type item struct {
	i, j   int
	kind   string
	prompt string
	extra  int
}

// call runs one stage's prompts through agent a, isolating failures.
func (p *Pipeline) call(ctx context.Context, a *Agent, stage string, items []item, con func(item) policy.Constraint) ([]string, []error, error) {
	texts := make([]string, len(items))
	errs := make([]error, len(items))
	done := 0
	report := p.stageProgress(stage)
	run := func(idx []int) error {
		ps := make([]string, len(idx))
		for k, i := range idx {
			ps[k] = items[i].prompt
		}
		so := policy.SampleOptions{N: 1, Temperature: a.Temperature, TopP: 1, MaxTokens: a.maxTokens(), Batch: 32, Seed: p.Seed}
		if con != nil {
			so.Constrain = func(k int) policy.Constraint { return con(items[idx[k]]) }
		}
		outs, _, err := a.Gen.Generate(ctx, ps, so)
		if err == nil && len(outs) != len(idx) {
			err = policy.ErrAnswerCount
		}
		if err != nil {
			return err
		}
		for k, i := range idx {
			if len(outs[k]) == 0 {
				errs[i] = errors.New("the backend answered no completion")
				continue
			}
			texts[i] = outs[k][0].Text
		}
		done += len(idx)
		report.Report(done, len(items))
		return nil
	}
	const chunk = 64
	for lo := 0; lo < len(items); lo += chunk {
		idx := make([]int, 0, chunk)
		for i := lo; i < min(lo+chunk, len(items)); i++ {
			idx = append(idx, i)
		}
		if err := policy.Isolated(ctx, idx, run, func(i int, err error) { errs[i] = err }); err != nil {
			return texts, errs, err
		}
	}
	return texts, errs, nil
}

// validate runs every validator on every distinct candidate that executed.
func (p *Pipeline) validate(ctx context.Context, recs []*Record, data func(int, string) (PromptData, bool)) error {
	a := p.Validator
	var items []item
	for i, r := range recs {
		for j, c := range r.Candidates {
			if c.Same >= 0 || !c.Exec.OK || c.Source == SourceFix {
				continue
			}
			base, ok := data(i, a.Set)
			if !ok {
				r.Errors = append(r.Errors, fmt.Sprintf("validator on candidate %d: no %s prompt", j, a.Set))
				continue
			}
			for _, kind := range p.Kinds {
				d := base
				d.Kind, d.SQL, d.Result = kind, c.SQL, RenderExecution(c.Exec)
				txt, ok, err := a.renderFit(RoleValidator, d)
				if err != nil {
					return err
				}
				if !ok {
					r.Errors = append(r.Errors, fmt.Sprintf("validator %s on candidate %d: %v", kind, j, errNoRoom))
					continue
				}
				items = append(items, item{i: i, j: j, kind: kind, prompt: txt})
			}
		}
	}
	texts, errs, err := p.call(ctx, a, StageValidate, items, nil)
	if err != nil {
		return err
	}
	for k, it := range items {
		v := Validation{Kind: it.kind, Text: strings.TrimSpace(texts[k])}
		r := recs[it.i]
		switch {
		case errs[k] != nil:
			v.Verdict, v.Error = VerdictBad, errs[k].Error()
			r.Errors = append(r.Errors, fmt.Sprintf("validator %s on candidate %d: %v", it.kind, it.j, errs[k]))
		default:
			ok, perr := ParseVerdict(v.Text)
			switch {
			case perr != nil:
				v.Verdict, v.Error = VerdictBad, perr.Error()
				r.Errors = append(r.Errors, fmt.Sprintf("validator %s on candidate %d: unreadable: %v", it.kind, it.j, perr))
			case ok:
				v.Verdict = VerdictCorrect
			default:
				v.Verdict = VerdictIncorrect
			}
		}
		r.Candidates[it.j].Validations = append(r.Candidates[it.j].Validations, v)
	}
	return nil
}

// fix asks the fixer to rewrite each planner candidate that failed (or,
// with FixIncorrect, that a validator called incorrect), and keeps the
// fixes that execute.
func (p *Pipeline) fix(ctx context.Context, recs []*Record, data func(int, string) (PromptData, bool), guides func(int) policy.Constraint, results [][]*sqlexec.Result) error {
	a := p.Fixer
	var items []item
	for i, r := range recs {
		for j, c := range r.Candidates {
			if c.Same >= 0 || c.Source == SourceFix || strings.TrimSpace(c.SQL) == "" {
				continue
			}
			var feedback []string
			if !c.Exec.OK {
				feedback = []string{RenderExecution(c.Exec)}
			} else if p.FixWhen == FixIncorrect {
				for _, v := range c.Validations {
					if v.Verdict == VerdictIncorrect {
						feedback = append(feedback, v.Text)
					}
				}
			}
			if len(feedback) == 0 {
				continue
			}
			d, ok := data(i, a.Set)
			if !ok {
				r.Errors = append(r.Errors, fmt.Sprintf("fixer on candidate %d: no %s prompt", j, a.Set))
				continue
			}
			d.SQL, d.Result, d.Feedback = c.SQL, RenderExecution(c.Exec), feedback
			txt, ok, err := a.renderFit(RoleFixer, d)
			if err != nil {
				return err
			}
			if !ok {
				r.Errors = append(r.Errors, fmt.Sprintf("fixer on candidate %d: %v", j, errNoRoom))
				continue
			}
			items = append(items, item{i: i, j: j, prompt: txt})
		}
	}
	var con func(item) policy.Constraint
	if guides != nil && a.Set != SetChat {
		con = func(it item) policy.Constraint { return guides(it.i) }
	}
	texts, errs, err := p.call(ctx, a, StageFix, items, con)
	if err != nil {
		return err
	}
	first := make([]int, len(recs))
	for i, r := range recs {
		first[i] = len(r.Candidates)
	}
	for k, it := range items {
		r := recs[it.i]
		if errs[k] != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("fixer on candidate %d: %v", it.j, errs[k]))
			continue
		}
		sql, perr := a.parseSQL(texts[k])
		if perr == nil && sql == "" {
			perr = ErrNoSQL
		}
		if perr != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("fixer on candidate %d: %v", it.j, perr))
			continue
		}
		r.Candidates = append(r.Candidates, Candidate{SQL: sql, Source: SourceFix, From: it.j, Same: -1})
	}
	for i, r := range recs {
		markSame(r, first[i])
	}
	if _, err := p.execute(ctx, recs, results, stageFixedExec); err != nil {
		return err
	}
	// A fix is kept only if it executes.
	for i, r := range recs {
		kept := r.Candidates[:first[i]]
		for _, c := range r.Candidates[first[i]:] {
			if c.Exec.OK {
				kept = append(kept, c)
			}
		}
		if len(kept) < len(r.Candidates) {
			r.Candidates = kept
			markSame(r, first[i])
			results[i] = results[i][:first[i]]
			p.executeOne(ctx, r, &results[i])
		}
	}
	return nil
}

// tournament has the selector compare the most voted distinct results of
// each question, two at a time; SelectAll reads the matches.
func (p *Pipeline) tournament(ctx context.Context, recs []*Record, data func(int, string) (PromptData, bool)) error {
	a := p.Selector
	var items []item
	for i, r := range recs {
		reps := TournamentEntrants(r, p.TournamentSize)
		base, ok := data(i, a.Set)
		if !ok && len(reps) > 1 {
			r.Errors = append(r.Errors, fmt.Sprintf("selector: no %s prompt", a.Set))
			continue
		}
		for x := 0; x < len(reps); x++ {
			for y := x + 1; y < len(reps); y++ {
				ca, cb := r.Candidates[reps[x]], r.Candidates[reps[y]]
				d := base
				d.A = Shown{ca.SQL, RenderExecution(ca.Exec)}
				d.B = Shown{cb.SQL, RenderExecution(cb.Exec)}
				txt, ok, err := a.renderFit(RoleSelector, d)
				if err != nil {
					return err
				}
				if !ok {
					r.Errors = append(r.Errors, fmt.Sprintf("selector on %d vs %d: %v", reps[x], reps[y], errNoRoom))
					continue
				}
				items = append(items, item{i: i, j: reps[x], extra: reps[y], prompt: txt})
			}
		}
	}
	texts, errs, err := p.call(ctx, a, StageSelect, items, nil)
	if err != nil {
		return err
	}
	for k, it := range items {
		r := recs[it.i]
		m := Match{A: it.j, B: it.extra, Winner: -1, Text: strings.TrimSpace(texts[k])}
		if errs[k] != nil {
			m.Error = errs[k].Error()
			r.Errors = append(r.Errors, fmt.Sprintf("selector on %d vs %d: %v", it.j, it.extra, errs[k]))
		} else if w, perr := ParseChoice(m.Text); perr != nil {
			m.Error = perr.Error()
			r.Errors = append(r.Errors, fmt.Sprintf("selector on %d vs %d: unreadable: %v", it.j, it.extra, perr))
		} else if w == 0 {
			m.Winner = it.j
		} else {
			m.Winner = it.extra
		}
		r.Matches = append(r.Matches, m)
	}
	return nil
}
