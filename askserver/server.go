// Package askserver is `sqlrl serve`: a JSON API and a web page that
// answer questions over a user's own databases and record every answer and
// every human verdict in the feedback store, the production half of the
// flywheel (package feedback turns the store into training data).
//
// A question becomes SQL only through an SQLGenerator (the native policy, a
// model behind an OpenAI-compatible server, a test's fake): the question is
// prompt data and is never put into SQL. The SQL runs read-only under the
// engines' own enforcement (sqlexec), a statement timeout, and row and byte
// caps. Feedback and admin routes need an API key (compared in constant
// time); bodies are capped, requests bounded and timed out (httpserve); an
// error says what went wrong without internals (file paths, DSNs, stack
// traces). Every answer is in the store before its response is sent, and an
// acknowledged feedback is durable (feedback.Store's guarantee).
//
// Config is the config file an operator writes (serve.json); Options are
// what a calling program sets besides it. Bench (`sqlrl serve bench`)
// starts servers as child processes, puts them under load (RunLoad) and
// checks the store for every acknowledged answer and feedback.
package askserver

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlrl/sqlrl/confidence"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/prompt"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
	"github.com/sqlrl/sqlrl/textclip"
)

//go:embed web
var webFS embed.FS

// Options are New's settings that are not in the config file (Config):
// what a calling program, not the server's operator, decides.
type Options struct {
	// Generator replaces the config's (tests, embedding programs).
	Generator SQLGenerator
	// Store replaces the config's store (tests); the server does not
	// close it.
	Store feedback.Store
	// Log receives failed requests and generator errors; nil discards.
	Log *slog.Logger
	// Threads for the native policy (nn.SetThreads); 0 leaves it.
	Threads int
	// Rule judges answers' confidence; nil is confidence.DefaultRule.
	Rule *confidence.Rule
}

// Server answers the API and serves the page.
type Server struct {
	cfg       *Config
	gen       SQLGenerator
	store     feedback.Store
	ownStore  bool
	dbs       *router
	schemas   *schemaCache
	http      *httpserve.Server
	log       *slog.Logger
	keyHashes []keyHash
	browse    browseCaches
	closers   []func()
	rule      confidence.Rule
}

// New opens the databases, reads their schemas, opens the store and the
// generator, and registers the routes.
func New(ctx context.Context, cfg *Config, o Options) (*Server, error) {
	s := &Server{cfg: cfg, gen: o.Generator, store: o.Store, log: o.Log, rule: confidence.DefaultRule}
	if o.Rule != nil {
		s.rule = *o.Rule
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dbs, err := openDatabases(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.dbs = dbs
	s.closers = append(s.closers, func() { dbs.Close() })
	s.schemas = &schemaCache{r: dbs, promptTokens: cfg.Generator.PromptTokens}
	if _, err := s.schemas.load(ctx, ""); err != nil {
		s.Close()
		return nil, fmt.Errorf("read schemas: %w", err)
	}
	for name, err := range s.schemas.get().errs {
		s.log.Warn("schema not read", "db", name, "err", err)
	}
	if s.gen == nil {
		if err := s.openGenerator(cfg, o.Threads); err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.store == nil {
		st, err := feedback.Open(ctx, cfg.Store)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("serve config %s: store: %w", cfg.path, err)
		}
		s.store, s.ownStore = st, true
	}
	s.keyHashes = keyHashes(cfg.APIKeys)
	s.routes()
	return s, nil
}

func (s *Server) openGenerator(cfg *Config, threads int) error {
	g := cfg.Generator
	switch {
	case g.OpenAI != nil:
		key := ""
		if g.OpenAI.APIKeyEnv != "" {
			key = getenv(g.OpenAI.APIKeyEnv)
		}
		s.gen = &OpenAIGenerator{Client: &llmclient.Client{BaseURL: g.OpenAI.BaseURL, Model: g.OpenAI.Model, APIKey: key,
			Retries: g.OpenAI.Retries, MaxTokens: g.MaxTokens, Timeout: time.Duration(g.Timeout)}, PromptTokens: g.PromptTokens,
			Databases: s.dbs, DescriptionDir: s.dbs.descriptionDir, Label: g.Name}
	case g.Native != "":
		if threads > 0 {
			nn.SetThreads(threads)
		}
		pol, err := policy.LoadSQL(g.Native)
		if err != nil {
			return fmt.Errorf("serve config %s: generator.native: %w", cfg.path, err)
		}
		if err := checkNativeDatabases(pol, s.dbs); err != nil {
			return fmt.Errorf("serve config %s: generator.native: %w", cfg.path, err)
		}
		label := g.Name
		if label == "" {
			label = checkpointLabel(g.Native)
		}
		n, err := NewNativeGenerator(pol, s.dbs, s.dbs.descriptionDir, label, g.Slots, g.MaxTokens)
		if err != nil {
			return fmt.Errorf("serve config %s: generator.native: %w", cfg.path, err)
		}
		s.gen = n
		s.closers = append(s.closers, n.Close)
	default:
		return fmt.Errorf("serve config %s: generator: want \"native\" (a checkpoint directory) or \"openai\" (base_url, model)", cfg.path)
	}
	return nil
}

// checkpointLabel names the checkpoint dir resolves to by its path from
// dir's parent ("sft/step-002256", "rl-1/train/step-000400"): what
// answers record as their model, rather than a path of the server's disk.
func checkpointLabel(dir string) string {
	ck, err := policy.Resolve(dir)
	if err != nil {
		return filepath.Base(dir)
	}
	from := filepath.Dir(filepath.Clean(dir))
	if filepath.Base(filepath.Clean(dir)) == policy.RunTrainDir {
		from = filepath.Dir(from) // an experiment run's train/: name the run
	}
	rel, err := filepath.Rel(from, ck)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(ck)
	}
	return filepath.ToSlash(rel)
}

// Close releases the databases, the generator and the store.
func (s *Server) Close() error {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	if s.ownStore && s.store != nil {
		return s.store.Close()
	}
	return nil
}

// Handler is the server's handler (API, page, /healthz, /metrics).
func (s *Server) Handler() http.Handler { return s.http.Handler() }

// Serve answers on ln until ctx ends, then drains (httpserve.Serve).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error { return s.http.Serve(ctx, ln) }

// Requests is how many requests to endpoint were answered with code.
func (s *Server) Requests(endpoint string, code int) int64 { return s.http.Requests(endpoint, code) }

func (s *Server) routes() {
	l := s.cfg.Limits
	h := httpserve.New(httpserve.Config{Name: "sqlrl serve", Namespace: "sqlrl_serve", MaxBodyBytes: l.MaxBodyBytes,
		MaxConcurrent: l.MaxRequests, RequestTimeout: time.Duration(l.RequestTimeout), Log: s.log,
		TimeoutHint: "ask a narrower question or raise limits.request_timeout"})
	h.Handle(http.MethodPost, "/api/ask", "ask", s.ask)
	h.Handle(http.MethodGet, "/api/answers/{id}", "answer", s.answer)
	h.Handle(http.MethodGet, "/api/answers/{id}/rows", "rows", s.rows)
	h.Handle(http.MethodPost, "/api/answers/{id}/feedback", "feedback", s.feedback)
	h.Handle(http.MethodGet, "/api/history", "history", s.history)
	h.Handle(http.MethodGet, "/api/stats", "stats", s.stats)
	h.Handle(http.MethodGet, "/api/databases", "databases", s.databases)
	h.Handle(http.MethodPost, "/api/admin/reload", "reload", s.reload)
	h.Handle(http.MethodGet, "/api/admin/export", "export", s.export)
	h.Handle(http.MethodGet, "/api/me", "me", s.me)
	h.Handle(http.MethodPost, "/api/run", "run", s.run)
	h.Handle(http.MethodGet, "/api/answers/{id}/csv", "csv", s.answerCSV)
	h.Handle(http.MethodGet, "/api/databases/{db}/schema", "schema", s.schema)
	h.Handle(http.MethodGet, "/api/databases/{db}/examples", "examples", s.examples)
	h.Handle("", "/api/", "other", func(context.Context, *http.Request) (any, error) {
		return nil, httpserve.Errorf(http.StatusNotFound, "no such endpoint")
	})
	static, _ := fs.Sub(webFS, "web")
	files := http.FileServerFS(static)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			httpserve.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET"})
			return
		}
		// The page runs no script but its own, loads nothing from elsewhere
		// and cannot be framed.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
	// Every other path is httpserve's JSON 404.
	for _, p := range []string{"/{$}", "/app.js", "/style.css"} {
		h.HandleRaw(p, "page", page)
	}
	s.http = h
}

// ---- requests and responses ----

type askRequest struct {
	DB       string `json:"db"`
	Question string `json:"question"`
	Evidence string `json:"evidence,omitempty"`
}

// ErrorInfo is a failed generation or execution as the client sees it.
type ErrorInfo struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Chart is a chart of a result with one label and one number column.
type Chart struct {
	// Kind is ChartLine when the labels are dates or years in order,
	// else ChartBar.
	Kind   string    `json:"kind"`
	Label  string    `json:"label"`
	Value  string    `json:"value"`
	Labels []string  `json:"labels"`
	Values []float64 `json:"values"`
}

// Rows is one page of a result.
type Rows struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Page      int      `json:"page"`
	PageSize  int      `json:"page_size"`
	Pages     int      `json:"pages"`
	TotalRows int      `json:"total_rows"`
	// Truncated: the result had more rows (or bytes) than the server
	// keeps; TotalRows counts those kept.
	Truncated bool `json:"truncated"`
	// Sort and Desc: the column (from 0) the kept rows were sorted by
	// before the page was cut, descending when Desc; absent, the
	// result's own order.
	Sort *int `json:"sort,omitempty"`
	Desc bool `json:"desc,omitempty"`
}

// AskResponse is POST /api/ask's answer.
type AskResponse struct {
	AnswerID  int64      `json:"answer_id"`
	DB        string     `json:"db"`
	Question  string     `json:"question"`
	Evidence  string     `json:"evidence,omitempty"`
	Model     string     `json:"model"`
	SQL       string     `json:"sql"`
	Error     *ErrorInfo `json:"error,omitempty"`
	Chart     *Chart     `json:"chart,omitempty"`
	LatencyMS int64      `json:"latency_ms"`
	Rows
	// Confidence is the judgement shown with the answer (confidence.go).
	Confidence *confidence.Judgement `json:"confidence"`
	// signals are what Confidence was judged from (for calibration).
	signals confidence.Signals
}

// Generation error classes, recorded as the answer's error class when no
// SQL was written.
const (
	ClassGeneration        = "generation_error"
	ClassGenerationTimeout = "generation_timeout"
	ClassSchema            = "schema_error"
)

func (s *Server) db(name string) (*database, error) {
	if name == "" {
		return nil, httpserve.Errorf(http.StatusBadRequest, "\"db\" is required (GET /api/databases lists them)")
	}
	d := s.dbs.dbs[name]
	if d == nil {
		return nil, httpserve.Errorf(http.StatusNotFound, "no database %q (GET /api/databases lists them)", clip(name, 64))
	}
	return d, nil
}

func (s *Server) ask(ctx context.Context, r *http.Request) (any, error) {
	var req askRequest
	if err := httpserve.DecodeStrictJSON(r.Body, &req); err != nil {
		return nil, err
	}
	d, err := s.db(req.DB)
	if err != nil {
		return nil, err
	}
	req.Question = strings.TrimSpace(req.Question)
	switch {
	case req.Question == "":
		return nil, httpserve.Errorf(http.StatusBadRequest, "\"question\" is empty")
	case utf8.RuneCountInString(req.Question) > MaxQuestionChars || utf8.RuneCountInString(req.Evidence) > MaxQuestionChars:
		return nil, httpserve.Errorf(http.StatusBadRequest, "question and evidence are at most %d characters each", MaxQuestionChars)
	case !utf8.ValidString(req.Question) || !utf8.ValidString(req.Evidence):
		return nil, httpserve.Errorf(http.StatusBadRequest, "question and evidence must be UTF-8")
	}
	start := time.Now()
	a := feedback.Answer{DBID: d.name, Question: req.Question, Evidence: req.Evidence, Model: s.gen.Name()}
	out := AskResponse{DB: d.name, Question: req.Question, Evidence: req.Evidence, Model: a.Model}
	sql, samples, gerr := s.generate(ctx, d, req)
	var votes *consensus.Votes
	if gerr == nil && s.cfg.Generator.Vote && len(samples) > 0 {
		sql, samples, votes = s.vote(ctx, d, sql, samples)
	}
	var res *sqlexec.Result
	truncated := false
	if gerr != nil {
		out.Error = gerr
	} else {
		a.SQL, out.SQL = sql, sql
		var err error
		res, truncated, err = s.result(ctx, d.name, sql)
		if err != nil {
			out.Error = s.execError(err)
		}
	}
	j, sig := s.judge(ctx, d, sql, samples, votes, res, truncated, out.Error)
	out.Confidence, out.signals, a.Confidence = &j, sig, storedConfidence(j)
	if ctx.Err() != nil {
		// The request's deadline passed: nothing is recorded for an
		// answer the user never sees; httpserve answers 504.
		return nil, ctx.Err()
	}
	a.Latency = time.Since(start)
	if out.Error != nil {
		a.Outcome, a.ErrorClass, a.ErrorMessage = feedback.OutcomeError, out.Error.Class, out.Error.Message
	} else {
		a.Outcome, a.Rows = feedback.OutcomeOK, int64(len(res.Rows))
	}
	rec, err := s.store.RecordAnswer(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("record answer: %w", err)
	}
	out.AnswerID, out.LatencyMS = rec.ID, a.Latency.Milliseconds()
	out.Rows = s.page(res, truncated, 1)
	if res != nil {
		out.Chart = chartOf(res)
	}
	return out, nil
}

// generate asks the generator for SQL under the generator's timeout; a
// failure is returned as what the client and the store see.
func (s *Server) generate(ctx context.Context, d *database, req askRequest) (string, []string, *ErrorInfo) {
	sc := s.schemas.get()
	schema := sc.byDB[d.name]
	if schema == nil {
		s.log.Warn("no schema", "db", d.name, "err", sc.errs[d.name])
		return "", nil, &ErrorInfo{Class: ClassSchema, Message: fmt.Sprintf("the schema of %s could not be read; an admin can retry with POST /api/admin/reload", d.name)}
	}
	q := Question{DB: d.name, Question: req.Question, Evidence: req.Evidence, Dialect: d.dialect, Schema: schema}
	if d.kind == "sqlite" {
		in := prompt.Input{DBID: d.name, Question: req.Question, Evidence: req.Evidence}
		p, err := sc.builder.Build(ctx, in)
		if err == nil {
			q.Prompt = p
			q.Build = func(ctx context.Context, budget int) (*prompt.Prompt, error) {
				in.Budget = budget
				return sc.builder.Build(ctx, in)
			}
		}
	}
	gctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Generator.Timeout))
	defer cancel()
	sql, samples, err := s.generateSampled(gctx, q)
	if err == nil && strings.TrimSpace(sql) == "" {
		err = errors.New("empty SQL")
	}
	if err != nil {
		s.log.Warn("generator failed", "db", d.name, "err", err)
		if gctx.Err() != nil && ctx.Err() == nil {
			return "", nil, &ErrorInfo{Class: ClassGenerationTimeout, Message: fmt.Sprintf("the model did not write SQL within %v", time.Duration(s.cfg.Generator.Timeout))}
		}
		// The generator's own error may name internal hosts: it is logged,
		// and the client is told what happened, not where.
		return "", nil, &ErrorInfo{Class: ClassGeneration, Message: "the model failed to write SQL for this question (the server log has the details)"}
	}
	return sql, samples, nil
}

// vote chooses the answer among the greedy sql and its samples (package
// consensus) and returns it first, the other candidates as its samples,
// and their votes as counted for that order, which the confidence
// judgement reuses rather than running the samples again. A vote that
// cannot finish in time keeps the greedy decode and returns no votes.
func (s *Server) vote(ctx context.Context, d *database, sql string, samples []string) (string, []string, *consensus.Votes) {
	cands := append([]string{sql}, samples...)
	vctx, cancel := context.WithTimeout(ctx, voteBudget)
	defer cancel()
	v, err := consensus.Count(vctx, s.dbs, d.name, cands, consensus.Options{Timeout: time.Duration(s.cfg.Limits.StatementTimeout)})
	if err != nil {
		s.log.Warn("vote not finished; the greedy answer stands", "db", d.name, "err", err)
		return sql, samples, nil
	}
	i := 0
	if g := v.Best(false); g >= 0 {
		i = v.First[g]
	}
	led := v.Lead(i)
	cands = append(append([]string{cands[i]}, cands[:i]...), cands[i+1:]...)
	return cands[0], cands[1:], &led
}

// execError is a failed query as the client sees it: the database's own
// message (it is about the SQL the user sees), except where it would name
// a file or a connection.
func (s *Server) execError(err error) *ErrorInfo {
	class := sqlexec.ClassOf(err)
	msg := err.Error()
	var qe *sqlexec.Error
	if errors.As(err, &qe) {
		msg = qe.Msg
	}
	switch class {
	case sqlexec.ClassNoDatabase:
		s.log.Warn("database unavailable", "err", err)
		msg = "the database is unavailable"
	case sqlexec.ClassTimeout:
		msg = fmt.Sprintf("the query ran longer than %v and was stopped", time.Duration(s.cfg.Limits.StatementTimeout))
	case sqlexec.ClassNotReadOnly:
		msg = "the SQL would change the database; only read-only queries are run (" + clip(msg, 200) + ")"
	}
	return &ErrorInfo{Class: string(class), Message: clip(msg, 1000)}
}

// page returns page p (from 1) of res.
func (s *Server) page(res *sqlexec.Result, truncated bool, p int) Rows {
	size := s.cfg.Limits.PageSize
	out := Rows{Columns: []string{}, Rows: [][]any{}, Page: p, PageSize: size, Truncated: truncated}
	if res == nil {
		return out
	}
	out.Columns = append(out.Columns, res.Columns...)
	out.TotalRows = len(res.Rows)
	out.Pages = (out.TotalRows + size - 1) / size
	lo := min((p-1)*size, out.TotalRows)
	hi := min(lo+size, out.TotalRows)
	for _, row := range res.Rows[lo:hi] {
		cells := make([]any, len(row))
		for i, v := range row {
			cells[i] = jsonValue(v)
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// jsonValue is a cell as JSON: null, a number, or text. Non-finite floats
// and blobs, which JSON cannot carry as such, become text.
func jsonValue(v sqlexec.Value) any {
	switch v.Kind {
	case sqlexec.KindNull:
		return nil
	case sqlexec.KindInt:
		return v.I
	case sqlexec.KindFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return strconv.FormatFloat(v.F, 'g', -1, 64)
		}
		return v.F
	case sqlexec.KindBlob:
		return fmt.Sprintf("<blob %d bytes>", len(v.S))
	}
	if !utf8.ValidString(v.S) {
		return strings.ToValidUTF8(v.S, "\uFFFD")
	}
	return v.S
}

// MaxChartBars is the most bars a chart shows.
const MaxChartBars = 50

// chartOf returns a bar chart when res has two columns, one of which is
// numeric in every non-null row (the value) and the other not (the label;
// when both are numeric, the first is the label), and at least one row.
func chartOf(res *sqlexec.Result) *Chart {
	if len(res.Columns) != 2 || len(res.Rows) == 0 {
		return nil
	}
	numeric := func(c int) bool {
		any := false
		for _, row := range res.Rows {
			switch row[c].Kind {
			case sqlexec.KindInt, sqlexec.KindFloat:
				any = true
			case sqlexec.KindNull:
			default:
				return false
			}
		}
		return any
	}
	label, value := 0, 1
	switch {
	case numeric(1):
	case numeric(0):
		label, value = 1, 0
	default:
		return nil
	}
	c := &Chart{Label: res.Columns[label], Value: res.Columns[value]}
	for _, row := range res.Rows[:min(len(res.Rows), MaxChartBars)] {
		var f float64
		switch v := row[value]; v.Kind {
		case sqlexec.KindInt:
			f = float64(v.I)
		case sqlexec.KindFloat:
			f = v.F
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		l := "NULL"
		if v := jsonValue(row[label]); v != nil {
			l = fmt.Sprint(v)
		}
		c.Labels = append(c.Labels, l)
		c.Values = append(c.Values, f)
	}
	c.setKind(res, label)
	return c
}

func (s *Server) answerID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpserve.Errorf(http.StatusBadRequest, "answer id %q is not a positive integer", clip(r.PathValue("id"), 32))
	}
	return id, nil
}

func (s *Server) entry(ctx context.Context, r *http.Request) (feedback.Entry, error) {
	id, err := s.answerID(r)
	if err != nil {
		return feedback.Entry{}, err
	}
	e, err := s.store.Answer(ctx, id)
	if errors.Is(err, feedback.ErrNotFound) {
		return e, httpserve.Errorf(http.StatusNotFound, "no answer %d", id)
	}
	return e, err
}

// answer: GET /api/answers/{id}: the answer with its feedback.
func (s *Server) answer(ctx context.Context, r *http.Request) (any, error) {
	e, err := s.entry(ctx, r)
	if err != nil {
		return nil, err
	}
	return entryJSON(e), nil
}

// rows: GET /api/answers/{id}/rows?page=N[&sort=C[&desc=1]] runs the
// answer's SQL again (read-only, same caps) and returns page N, of the kept
// rows sorted by column C when asked: the server keeps no results, so
// replicas behind a load balancer page alike.
func (s *Server) rows(ctx context.Context, r *http.Request) (any, error) {
	p, err := parsePage(r.URL.Query().Get("page"))
	if err != nil {
		return nil, err
	}
	order, err := sortQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	e, res, truncated, err := s.answerResult(ctx, r)
	if err != nil {
		return nil, err
	}
	out, err := s.pageOf(res, truncated, p, order)
	if err != nil {
		return nil, err
	}
	// the chart too, so that a reopened answer looks as it did
	return struct {
		AnswerID int64 `json:"answer_id"`
		Rows
		Chart *Chart `json:"chart,omitempty"`
	}{e.ID, out, chartOf(res)}, nil
}

type feedbackRequest struct {
	Verdict      string `json:"verdict"`
	CorrectedSQL string `json:"corrected_sql,omitempty"`
	Comment      string `json:"comment,omitempty"`
}

// FeedbackResponse is POST /api/answers/{id}/feedback's answer.
type FeedbackResponse struct {
	FeedbackID int64  `json:"feedback_id"`
	AnswerID   int64  `json:"answer_id"`
	Verdict    string `json:"verdict,omitempty"`
	Author     string `json:"author"`
	// Correction is "ok" or "error" when a corrected SQL was sent, with
	// its error and its result's first page.
	Correction      string     `json:"correction,omitempty"`
	CorrectionError *ErrorInfo `json:"correction_error,omitempty"`
	CorrectionRows  *Rows      `json:"correction_rows,omitempty"`
}

func (s *Server) feedback(ctx context.Context, r *http.Request) (any, error) {
	u, err := s.authorize(r, RoleAnalyst)
	if err != nil {
		return nil, err
	}
	author := u.name
	var req feedbackRequest
	if err := httpserve.DecodeStrictJSON(r.Body, &req); err != nil {
		return nil, err
	}
	e, err := s.entry(ctx, r)
	if err != nil {
		return nil, err
	}
	f := feedback.Feedback{AnswerID: e.ID, Author: author, Comment: strings.TrimSpace(req.Comment), CorrectedSQL: strings.TrimSpace(req.CorrectedSQL)}
	switch req.Verdict {
	case "up", "down", "":
		f.Verdict = feedback.Verdict(req.Verdict)
	default:
		return nil, httpserve.Errorf(http.StatusBadRequest, "verdict %q: want \"up\", \"down\" or none", clip(req.Verdict, 32))
	}
	switch {
	case utf8.RuneCountInString(f.Comment) > MaxQuestionChars:
		return nil, httpserve.Errorf(http.StatusBadRequest, "comment: at most %d characters", MaxQuestionChars)
	case len(f.CorrectedSQL) > MaxSQLChars:
		return nil, httpserve.Errorf(http.StatusBadRequest, "corrected_sql: at most %d bytes", MaxSQLChars)
	case !utf8.ValidString(f.Comment) || !utf8.ValidString(f.CorrectedSQL):
		return nil, httpserve.Errorf(http.StatusBadRequest, "comment and corrected_sql must be UTF-8")
	case f.Verdict == "" && f.Comment == "" && f.CorrectedSQL == "":
		return nil, httpserve.Errorf(http.StatusBadRequest, "empty feedback: send a verdict, a corrected_sql or a comment")
	}
	out := FeedbackResponse{AnswerID: e.ID, Verdict: req.Verdict, Author: author}
	if f.CorrectedSQL != "" {
		// A correction becomes a training target: one read of the
		// database's own tables, or nothing is stored.
		if err := sqlparse.CheckRead(f.CorrectedSQL); err != nil {
			return nil, httpserve.Errorf(http.StatusUnprocessableEntity, "corrected_sql was refused and nothing was stored: %v", err)
		}
		if _, err := s.db(e.DBID); err != nil {
			return nil, httpserve.Errorf(http.StatusConflict, "answer %d's database %q is no longer served: a correction cannot be checked", e.ID, e.DBID)
		}
		// The correction runs read-only before anything is stored, so
		// that only a correction that ran becomes a training target.
		res, truncated, err := s.result(ctx, e.DBID, f.CorrectedSQL)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			ei := s.execError(err)
			if ei.Class == string(sqlexec.ClassNotReadOnly) {
				return nil, httpserve.Errorf(http.StatusUnprocessableEntity, "corrected_sql was refused and nothing was stored: %s", ei.Message)
			}
			f.Correction, f.CorrectionError = feedback.CorrectionError, ei.Class+": "+ei.Message
			out.CorrectionError = ei
		} else {
			f.Correction = feedback.CorrectionOK
			rows := s.page(res, truncated, 1)
			out.CorrectionRows = &rows
		}
		out.Correction = string(f.Correction)
	}
	rec, err := s.store.RecordFeedback(ctx, f)
	if errors.Is(err, feedback.ErrNotFound) {
		return nil, httpserve.Errorf(http.StatusNotFound, "no answer %d", e.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("record feedback: %w", err)
	}
	out.FeedbackID = rec.ID
	return out, nil
}

// EntryJSON is an answer with its feedback as the API writes it.
type EntryJSON struct {
	AnswerID     int64          `json:"answer_id"`
	Time         time.Time      `json:"time"`
	DB           string         `json:"db"`
	Question     string         `json:"question"`
	Evidence     string         `json:"evidence,omitempty"`
	Model        string         `json:"model"`
	SQL          string         `json:"sql"`
	Outcome      string         `json:"outcome"`
	ErrorClass   string         `json:"error_class,omitempty"`
	ErrorMessage string         `json:"error_message,omitempty"`
	Rows         int64          `json:"rows"`
	LatencyMS    int64          `json:"latency_ms"`
	Verdict      string         `json:"verdict,omitempty"`
	Feedback     []FeedbackJSON `json:"feedback"`
	// Confidence is the judgement shown with the answer; null for answers
	// recorded before judgements were kept.
	Confidence *confidence.Judgement `json:"confidence"`
}

// FeedbackJSON is one feedback as the API writes it.
type FeedbackJSON struct {
	ID              int64     `json:"id"`
	Time            time.Time `json:"time"`
	Verdict         string    `json:"verdict,omitempty"`
	CorrectedSQL    string    `json:"corrected_sql,omitempty"`
	Correction      string    `json:"correction,omitempty"`
	CorrectionError string    `json:"correction_error,omitempty"`
	Comment         string    `json:"comment,omitempty"`
	Author          string    `json:"author"`
}

func entryJSON(e feedback.Entry) EntryJSON {
	out := EntryJSON{AnswerID: e.ID, Time: e.Time.UTC(), DB: e.DBID, Question: e.Question, Evidence: e.Evidence, Model: e.Model,
		SQL: e.SQL, Outcome: string(e.Outcome), ErrorClass: e.ErrorClass, ErrorMessage: e.ErrorMessage, Rows: e.Rows,
		LatencyMS: e.Latency.Milliseconds(), Feedback: []FeedbackJSON{}, Confidence: confidenceOf(e.Confidence)}
	for _, f := range e.Feedback {
		if f.Verdict != feedback.VerdictNone {
			out.Verdict = string(f.Verdict)
		}
		out.Feedback = append(out.Feedback, FeedbackJSON{ID: f.ID, Time: f.Time.UTC(), Verdict: string(f.Verdict), CorrectedSQL: f.CorrectedSQL,
			Correction: string(f.Correction), CorrectionError: f.CorrectionError, Comment: f.Comment, Author: f.Author})
	}
	return out
}

// history: GET /api/history?db=&outcome=ok|error&feedback=up|down|corrected|none&q=&before=&limit=
func (s *Server) history(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	f := feedback.Filter{DBID: q.Get("db"), Text: q.Get("q")}
	switch o := q.Get("outcome"); o {
	case "", "ok", "error":
		f.Outcome = feedback.Outcome(o)
	default:
		return nil, httpserve.Errorf(http.StatusBadRequest, "outcome %q: want ok or error", clip(o, 32))
	}
	switch k := q.Get("feedback"); k {
	case "", "up", "down", "corrected", "none":
		f.Kind = feedback.Kind(k)
	default:
		return nil, httpserve.Errorf(http.StatusBadRequest, "feedback %q: want up, down, corrected or none", clip(k, 32))
	}
	var err error
	if v := q.Get("before"); v != "" {
		if f.Before, err = strconv.ParseInt(v, 10, 64); err != nil || f.Before < 1 {
			return nil, httpserve.Errorf(http.StatusBadRequest, "before %q: want an answer id", clip(v, 32))
		}
	}
	f.Limit = s.cfg.Limits.PageSize
	if v := q.Get("limit"); v != "" {
		if f.Limit, err = strconv.Atoi(v); err != nil || f.Limit < 1 || f.Limit > 1000 {
			return nil, httpserve.Errorf(http.StatusBadRequest, "limit %q: want 1 to 1000", clip(v, 32))
		}
	}
	if utf8.RuneCountInString(f.Text) > MaxQuestionChars {
		return nil, httpserve.Errorf(http.StatusBadRequest, "q: at most %d characters", MaxQuestionChars)
	}
	p, err := s.store.History(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := struct {
		Entries []EntryJSON `json:"entries"`
		Next    int64       `json:"next,omitempty"`
	}{Entries: []EntryJSON{}, Next: p.Next}
	for _, e := range p.Entries {
		out.Entries = append(out.Entries, entryJSON(e))
	}
	return out, nil
}

// BucketJSON is one stats bucket.
type BucketJSON struct {
	Start          time.Time `json:"start"`
	Answers        int64     `json:"answers"`
	Accepted       int64     `json:"accepted"`
	Corrected      int64     `json:"corrected"`
	Errors         int64     `json:"errors"`
	ShareAccepted  float64   `json:"share_accepted"`
	ShareCorrected float64   `json:"share_corrected"`
	ShareErrors    float64   `json:"share_errors"`
}

// stats: GET /api/stats?bucket=hour|day
func (s *Server) stats(ctx context.Context, r *http.Request) (any, error) {
	q := feedback.StatsQuery{Bucket: 24 * time.Hour}
	switch b := r.URL.Query().Get("bucket"); b {
	case "", "day":
	case "hour":
		q.Bucket = time.Hour
	default:
		return nil, httpserve.Errorf(http.StatusBadRequest, "bucket %q: want hour or day", clip(b, 32))
	}
	bs, err := s.store.Stats(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	out := struct {
		Bucket  string       `json:"bucket"`
		Buckets []BucketJSON `json:"buckets"`
	}{Bucket: map[time.Duration]string{time.Hour: "hour", 24 * time.Hour: "day"}[q.Bucket], Buckets: []BucketJSON{}}
	for _, b := range bs {
		out.Buckets = append(out.Buckets, BucketJSON{Start: b.Start.UTC(), Answers: b.Answers, Accepted: b.Accepted, Corrected: b.Corrected, Errors: b.Errors,
			ShareAccepted: b.Share(b.Accepted), ShareCorrected: b.Share(b.Corrected), ShareErrors: b.Share(b.Errors)})
	}
	return out, nil
}

// DatabaseJSON is one database as GET /api/databases lists it: its name,
// engine and tables, never its file or DSN.
type DatabaseJSON struct {
	Name        string   `json:"name"`
	Engine      string   `json:"engine"`
	Tables      []string `json:"tables"`
	SchemaError string   `json:"schema_error,omitempty"`
}

func (s *Server) databases(context.Context, *http.Request) (any, error) {
	sc := s.schemas.get()
	out := struct {
		Databases []DatabaseJSON `json:"databases"`
		Model     string         `json:"model"`
	}{Databases: []DatabaseJSON{}, Model: s.gen.Name()}
	for _, name := range s.cfg.DatabaseNames() {
		d := DatabaseJSON{Name: name, Engine: s.dbs.dbs[name].kind, Tables: []string{}}
		if schema := sc.byDB[name]; schema != nil {
			for _, t := range schema.Tables {
				d.Tables = append(d.Tables, t.Name)
			}
		} else {
			d.SchemaError = "the schema could not be read (the server log has the details)"
		}
		out.Databases = append(out.Databases, d)
	}
	return out, nil
}

// reload: POST /api/admin/reload[?db=NAME] reads schemas again.
func (s *Server) reload(ctx context.Context, r *http.Request) (any, error) {
	if _, err := s.authorize(r, RoleAdmin); err != nil {
		return nil, err
	}
	only := r.URL.Query().Get("db")
	if only != "" {
		if _, err := s.db(only); err != nil {
			return nil, err
		}
	}
	sc, err := s.schemas.load(ctx, only)
	if err != nil {
		return nil, fmt.Errorf("reload: %w", err)
	}
	if rl, ok := s.gen.(interface{ Reload() error }); ok {
		if err := rl.Reload(); err != nil {
			return nil, fmt.Errorf("reload generator: %w", err)
		}
	}
	out := struct {
		Reloaded []string          `json:"reloaded"`
		Errors   map[string]string `json:"errors,omitempty"`
	}{Reloaded: []string{}}
	for _, name := range s.cfg.DatabaseNames() {
		if only != "" && name != only {
			continue
		}
		if sc.byDB[name] != nil {
			out.Reloaded = append(out.Reloaded, name)
		} else {
			if out.Errors == nil {
				out.Errors = map[string]string{}
			}
			s.log.Warn("schema not read", "db", name, "err", sc.errs[name])
			out.Errors[name] = "the schema could not be read (the server log has the details)"
		}
	}
	return out, nil
}

// clip cuts s for quoting in a message.
func clip(s string, n int) string { return textclip.Clip(strings.ToValidUTF8(s, "?"), n) }
