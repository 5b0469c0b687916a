package askserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/jsonl"
	"github.com/sqlrl/sqlrl/loadtest"
)

// LoadQuestion is one question a load run asks, with the SQL the fake
// model (BenchOptions.FakeModel) answers it with. SQL is ignored when the
// servers use a real generator.
type LoadQuestion struct {
	DB       string `json:"db"`
	Question string `json:"question"`
	Evidence string `json:"evidence,omitempty"`
	SQL      string `json:"sql,omitempty"`
}

// ReadLoadQuestions reads a JSONL file of LoadQuestions.
func ReadLoadQuestions(path string) ([]LoadQuestion, error) {
	var out []LoadQuestion
	err := jsonl.ReadFile(path, func(_ int, b []byte) error {
		var q LoadQuestion
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return err
		}
		if q.DB == "" || strings.TrimSpace(q.Question) == "" {
			return errors.New(`want "db" and "question"`)
		}
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load questions: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load questions %s: no questions", path)
	}
	return out, nil
}

// BuiltinLoadQuestions returns questions over the tables of each database
// (name -> table names, as GET /api/databases lists them) that exercise
// every outcome a server records: counts and a page of rows (ok), an
// unknown column (an execution error), a write (refused read-only, recorded
// as write_attempt) and a question that reads as SQL injection (only the
// model's SQL runs). At most three tables a database are used.
func BuiltinLoadQuestions(tables map[string][]string) []LoadQuestion {
	var out []LoadQuestion
	for _, db := range sortedKeys(tables) {
		ts := tables[db]
		for i, t := range ts[:min(3, len(ts))] {
			q := `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
			out = append(out,
				LoadQuestion{DB: db, Question: fmt.Sprintf("How many rows does table %s have? (load %s/%d)", t, db, i), SQL: "SELECT COUNT(*) FROM " + q},
				LoadQuestion{DB: db, Question: fmt.Sprintf("List the first 20 rows of table %s (load %s/%d)", t, db, i), SQL: "SELECT * FROM " + q + " LIMIT 20"},
			)
			if i == 0 {
				out = append(out,
					LoadQuestion{DB: db, Question: fmt.Sprintf("Show the column no_such_column of %s (load %s/%d)", t, db, i), SQL: "SELECT no_such_column FROM " + q},
					LoadQuestion{DB: db, Question: fmt.Sprintf("Delete every row of %s (load %s/%d)", t, db, i), SQL: "DELETE FROM " + q},
					LoadQuestion{DB: db, Question: fmt.Sprintf("'; DROP TABLE %s; -- (load %s/%d)", t, db, i), SQL: "SELECT COUNT(*) FROM " + q},
				)
			}
		}
	}
	return out
}

// LoadOptions configure RunLoad.
type LoadOptions struct {
	// Targets are the servers' base URLs (http://host:port); request n of
	// a client goes to Targets[(client+n) % len], so an answer is often
	// given feedback through another replica than the one that wrote it.
	Targets []string
	// Key is an API key the servers accept; feedback needs it.
	Key       string
	Questions []LoadQuestion
	// Clients ask concurrently; default 50.
	Clients int
	// Duration of the run; default 60 s. Requests in flight at its end
	// finish.
	Duration time.Duration
	// FeedbackShare is the share of answers given feedback (a thumb, a
	// correction or a comment, in turn).
	FeedbackShare float64
	Seed          uint64
	// Disrupt, when set, is called once DisruptAfter into the run while the
	// clients go on (a bench SIGKILLs a server there and restarts it).
	Disrupt      func(ctx context.Context) error
	DisruptAfter time.Duration
	// Log gets progress lines; nil discards.
	Log io.Writer
}

// LoadReport is what RunLoad measured and, once Verify ran, what the store
// holds of it. Routes are RouteAsk and RouteFeedback; a route's Errors
// (the servers' failures) must be zero, its ConnErrors are expected while
// a server is killed (each is retried).
type LoadReport struct {
	loadtest.Report
	Targets       int              `json:"targets"`
	Outcomes      map[string]int64 `json:"outcomes"` // acknowledged answers by outcome or error class
	AckedAnswers  int              `json:"acked_answers"`
	AckedFeedback int              `json:"acked_feedback"`
	// Verified: Verify ran. Lost counts acknowledged answers and feedback
	// missing from the store or stored with other content; LostSample
	// describes the first few.
	Verified   bool     `json:"verified"`
	Lost       int      `json:"lost"`
	LostSample []string `json:"lost_sample,omitempty"`

	answers  []ackedAnswer
	feedback []ackedFeedback
}

type ackedAnswer struct {
	id                                   int64
	db, question, model, sql, errorClass string
	outcome                              feedback.Outcome
}

type ackedFeedback struct {
	id, answer                  int64
	verdict, author, correction string
	correctedSQL, comment       string
}

// Routes a load run uses.
const (
	RouteAsk      = "ask"
	RouteFeedback = "feedback"
)

// loadClient is one client's state; only its goroutine touches it.
type loadClient struct {
	o        *LoadOptions
	http     *http.Client
	n        int // requests sent, to pick the target
	id       int
	rng      *rand.Rand
	routes   loadtest.Routes
	outcomes map[string]int64
	answers  []ackedAnswer
	feedback []ackedFeedback
}

// RunLoad runs Clients clients for Duration against Targets: each asks a
// random question and gives feedback on FeedbackShare of the answers,
// recording every acknowledged answer and feedback for Verify. A request
// that gets no HTTP answer is retried (on the next target) until the run
// ends; one that gets a non-200 answer is counted and not retried.
func RunLoad(ctx context.Context, o LoadOptions) (*LoadReport, error) {
	if len(o.Targets) == 0 || len(o.Questions) == 0 {
		return nil, errors.New("load: no targets or no questions")
	}
	if o.FeedbackShare > 0 && o.Key == "" {
		return nil, errors.New("load: feedback needs an API key")
	}
	if o.Clients <= 0 {
		o.Clients = 50
	}
	if o.Duration <= 0 {
		o.Duration = 60 * time.Second
	}
	tr := &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Minute}
	clients := make([]*loadClient, o.Clients)
	for i := range clients {
		clients[i] = &loadClient{o: &o, http: hc, id: i, rng: rand.New(rand.NewPCG(o.Seed, uint64(i))), outcomes: map[string]int64{}}
	}
	lr := loadtest.Run(ctx, loadtest.Options{Clients: o.Clients, Duration: o.Duration, Disrupt: o.Disrupt, DisruptAfter: o.DisruptAfter, Log: o.Log},
		func(ctx context.Context, i int, rs loadtest.Routes) {
			rs.Get(RouteAsk)
			rs.Get(RouteFeedback)
			clients[i].routes = rs
			clients[i].run(ctx)
		})
	rep := &LoadReport{Report: *lr, Targets: len(o.Targets), Outcomes: map[string]int64{}}
	for _, c := range clients {
		for k, n := range c.outcomes {
			rep.Outcomes[k] += n
		}
		rep.answers = append(rep.answers, c.answers...)
		rep.feedback = append(rep.feedback, c.feedback...)
	}
	rep.AckedAnswers, rep.AckedFeedback = len(rep.answers), len(rep.feedback)
	return rep, ctx.Err()
}

func (c *loadClient) run(ctx context.Context) {
	for ctx.Err() == nil {
		q := c.o.Questions[c.rng.IntN(len(c.o.Questions))]
		var a AskResponse
		if !c.call(ctx, RouteAsk, "/api/ask", "", askRequest{DB: q.DB, Question: q.Question, Evidence: q.Evidence}, &a) {
			continue
		}
		ack := ackedAnswer{id: a.AnswerID, db: a.DB, question: a.Question, model: a.Model, sql: a.SQL, outcome: feedback.OutcomeOK}
		if a.Error != nil {
			ack.outcome, ack.errorClass = feedback.OutcomeError, a.Error.Class
			c.outcomes[a.Error.Class]++
		} else {
			c.outcomes[string(feedback.OutcomeOK)]++
		}
		c.answers = append(c.answers, ack)
		if c.rng.Float64() >= c.o.FeedbackShare || ctx.Err() != nil {
			continue
		}
		fb := feedbackRequest{Comment: fmt.Sprintf("load client %d answer %d", c.id, a.AnswerID)}
		switch len(c.feedback) % 3 {
		case 0:
			fb.Verdict = "up"
		case 1:
			// A correction that runs: the answer's own SQL when it ran, a
			// trivial query otherwise.
			fb.Verdict, fb.CorrectedSQL = "down", "SELECT 1"
			if a.Error == nil && a.SQL != "" {
				fb.CorrectedSQL = a.SQL
			}
		default:
			fb.Verdict = ""
		}
		var f FeedbackResponse
		if c.call(ctx, RouteFeedback, fmt.Sprintf("/api/answers/%d/feedback", a.AnswerID), c.o.Key, fb, &f) {
			c.feedback = append(c.feedback, ackedFeedback{id: f.FeedbackID, answer: f.AnswerID, verdict: f.Verdict, author: f.Author,
				correction: f.Correction, correctedSQL: strings.TrimSpace(fb.CorrectedSQL), comment: fb.Comment})
		}
	}
}

// call sends one request, retrying on the next target while it gets no
// HTTP answer and the run lasts, and decodes a 200 answer into out.
func (c *loadClient) call(ctx context.Context, route, path, key string, body, out any) bool {
	r := c.routes.Get(route)
	raw, _ := json.Marshal(body)
	backoff := 10 * time.Millisecond
	for {
		target := c.o.Targets[(c.id+c.n)%len(c.o.Targets)]
		c.n++
		t0 := time.Now()
		code, resp, err := loadtest.Post(context.Background(), c.http, target+path, key, raw)
		el := time.Since(t0)
		switch {
		case err != nil:
			r.Unanswered(err)
			if ctx.Err() != nil {
				return false
			}
			select {
			case <-ctx.Done():
				return false
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 200*time.Millisecond)
			continue
		case code != http.StatusOK:
			r.Failed(code, fmt.Sprintf("HTTP %d: %s", code, clip(string(resp), 200)))
			return false
		}
		if err := json.Unmarshal(resp, out); err != nil {
			// Counted under 200: an answer the client cannot read.
			r.Failed(code, fmt.Sprintf("decoding a 200 answer: %v", err))
			return false
		}
		r.Answered(el)
		return true
	}
}

// Verify looks up every acknowledged answer and feedback in st and counts
// those missing or stored with other content than the server acknowledged
// (Lost, which must be zero: an acknowledged write is durable, whatever
// happened to the server after).
func (rep *LoadReport) Verify(ctx context.Context, st feedback.Store) error {
	byAnswer := map[int64][]ackedFeedback{}
	for _, f := range rep.feedback {
		byAnswer[f.answer] = append(byAnswer[f.answer], f)
	}
	rep.Lost, rep.LostSample = 0, nil
	lost := func(format string, args ...any) {
		rep.Lost++
		if len(rep.LostSample) < 10 {
			rep.LostSample = append(rep.LostSample, fmt.Sprintf(format, args...))
		}
	}
	seen := map[int64]bool{}
	for _, a := range rep.answers {
		e, err := st.Answer(ctx, a.id)
		if errors.Is(err, feedback.ErrNotFound) {
			lost("answer %d (%s: %q) is not in the store", a.id, a.db, a.question)
			if seen[a.id] {
				continue
			}
			seen[a.id] = true
			for _, f := range byAnswer[a.id] {
				lost("feedback %d on answer %d is not in the store", f.id, a.id)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("verify answer %d: %w", a.id, err)
		}
		if e.DBID != a.db || e.Question != a.question || e.Model != a.model || e.SQL != a.sql || e.Outcome != a.outcome || e.ErrorClass != a.errorClass {
			lost("answer %d stored as {%s %q %s %q %s %s}, acknowledged as {%s %q %s %q %s %s}", a.id,
				e.DBID, e.Question, e.Model, e.SQL, e.Outcome, e.ErrorClass, a.db, a.question, a.model, a.sql, a.outcome, a.errorClass)
		}
		if seen[a.id] {
			continue
		}
		seen[a.id] = true
		stored := map[int64]feedback.Feedback{}
		for _, f := range e.Feedback {
			stored[f.ID] = f
		}
		for _, f := range byAnswer[a.id] {
			s, ok := stored[f.id]
			switch {
			case !ok:
				lost("feedback %d on answer %d is not in the store", f.id, a.id)
			case string(s.Verdict) != f.verdict || s.Author != f.author || string(s.Correction) != f.correction ||
				s.CorrectedSQL != f.correctedSQL || s.Comment != f.comment:
				lost("feedback %d on answer %d stored as {%s %s %s %q %q}, acknowledged as {%s %s %s %q %q}", f.id, a.id,
					s.Verdict, s.Author, s.Correction, s.CorrectedSQL, s.Comment, f.verdict, f.author, f.correction, f.correctedSQL, f.comment)
			}
		}
	}
	// Feedback acknowledged on an answer this run did not see
	// acknowledged cannot happen (feedback follows an answer), but is
	// counted if it does.
	for id, fs := range byAnswer {
		if !seen[id] {
			for _, f := range fs {
				lost("feedback %d on answer %d, an answer never acknowledged", f.id, id)
			}
		}
	}
	rep.Verified = true
	return nil
}

// WriteText prints the report for people.
func (rep *LoadReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "load: %d clients on %d server(s) for %.1fs\n", rep.Clients, rep.Targets, rep.Seconds)
	for _, name := range []string{RouteAsk, RouteFeedback} {
		if r := rep.Routes[name]; r != nil {
			r.WriteText(w, name)
		}
	}
	var oc []string
	for _, k := range sortedKeys(rep.Outcomes) {
		oc = append(oc, fmt.Sprintf("%s %d", k, rep.Outcomes[k]))
	}
	fmt.Fprintf(w, "  answers by outcome: %s\n", strings.Join(oc, ", "))
	if rep.Disrupted > 0 {
		fmt.Fprintf(w, "  server killed and restarted at %.1fs", rep.Disrupted)
		if rep.DisruptError != "" {
			fmt.Fprintf(w, " (failed: %s)", rep.DisruptError)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  acknowledged: %d answers, %d feedback", rep.AckedAnswers, rep.AckedFeedback)
	if rep.Verified {
		fmt.Fprintf(w, "; lost or altered in the store: %d", rep.Lost)
	}
	fmt.Fprintln(w)
	for _, s := range rep.LostSample {
		fmt.Fprintf(w, "    %s\n", s)
	}
}
