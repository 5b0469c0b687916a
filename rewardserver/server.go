// Package rewardserver serves sqlrl's rewards over HTTP to distributed RLHF
// trainers: OpenRLHF's remote reward protocol, a batch JSON API of sqlrl's
// own, health and Prometheus metrics. docs/reward-server.md documents the
// protocol.
//
// The server is a thin, defensive shell around a reward.Func: every
// request body is capped, every label checked before anything runs, every
// request has a deadline and is canceled (queries included) when its client
// goes away, and scoring is bounded server-wide, so that one trainer's bad
// batch costs that trainer a clear 4xx and nobody else anything. The
// limits, deadlines, error mapping, request metrics and graceful shutdown
// are httpserve's, shared with the model server. The databases are opened
// read-only by sqlexec; nothing a client sends can change them.
//
// Client is the batch API's other side, what `sqlrl train` scores its
// samples with when its reward is remote; Bench (`sqlrl reward bench`)
// measures a server against SQLite alone and under load.
package rewardserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/parallel"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/textclip"
)

// Config configures a Server.
type Config struct {
	// Reward scores each completion.
	Reward reward.Func
	// Name describes the reward in /healthz (e.g. "gate+analytic").
	Name string
	// DBExists reports whether the server has a database; labels naming
	// another get a 422 before anything runs. Nil accepts every valid name.
	DBExists func(db string) bool
	// Questions maps BIRD question_id to its question, for labels that
	// carry only a question_id (servers started with a benchmark).
	Questions map[int]dataset.Example
	// MaxBodyBytes caps a request body; default 32 MiB. Larger: 413.
	MaxBodyBytes int64
	// MaxItems caps completions per request; default 65,536.
	MaxItems int
	// RequestTimeout bounds one request end to end; default 150s (under
	// OpenRLHF's 180 s client timeout, so the client sees our 504 rather
	// than its own timeout and retries). An LLM judge gets the request's
	// deadline through the context and gives up in time for its fallback
	// to answer (reward.LLMJudge.FallbackReserve), so a hung judge costs
	// fallback rewards, not a 504.
	RequestTimeout time.Duration
	// MaxInFlight bounds completions being scored at once, server-wide;
	// default 32 x GOMAXPROCS. SQLite work is further bounded per database
	// by the engine's connection pool.
	MaxInFlight int
	// MaxRequests bounds requests being answered at once; more get a 503
	// with Retry-After (default httpserve.DefaultMaxConcurrent, far above
	// what trainers send, so that it only stops a runaway client).
	MaxRequests int
	// CacheStats, when set, exports eval's result-cache counters.
	CacheStats func() eval.CacheStats
	// Log receives one line per failed request; nil discards.
	Log *slog.Logger
}

// Server answers reward requests. Create it with New.
type Server struct {
	cfg     Config
	sem     chan struct{}
	metrics *metrics
	http    *httpserve.Server
}

// Defaults.
const (
	DefaultMaxBodyBytes   = httpserve.DefaultMaxBodyBytes
	DefaultMaxItems       = 65536
	DefaultRequestTimeout = httpserve.DefaultRequestTimeout
)

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Reward == nil {
		return nil, errors.New("rewardserver: no reward function")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxItems <= 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 32 * runtime.GOMAXPROCS(0)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.MaxInFlight), metrics: newMetrics()}
	s.http = httpserve.New(httpserve.Config{
		Name:           "reward server",
		Namespace:      "sqlrl_reward",
		MaxBodyBytes:   cfg.MaxBodyBytes,
		MaxConcurrent:  cfg.MaxRequests,
		RequestTimeout: cfg.RequestTimeout,
		TimeoutHint:    "retry, or send smaller batches",
		Health:         map[string]string{"reward": cfg.Name},
		Metrics:        s.writeMetrics,
		Log:            cfg.Log,
	})
	s.http.Handle(http.MethodPost, "/{$}", "openrlhf", s.handleOpenRLHF)
	s.http.Handle(http.MethodPost, "/get_reward", "openrlhf", s.handleOpenRLHF)
	s.http.Handle(http.MethodPost, "/v1/reward", "v1", s.handleBatch)
	return s, nil
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.http.Handler() }

// Serve answers requests on ln until ctx ends, then shuts down gracefully
// (requests in flight get up to 10 s to finish; httpserve.Server.Serve).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return s.http.Serve(ctx, ln)
}

// Label is what a trainer attaches to a prompt so the server knows what the
// completion should return: the database and gold SQL, or a question_id of
// the benchmark the server was started with. "SQL" is accepted for gold_sql
// so a BIRD record works as a label unchanged. Empty fields but the first
// two are not sent (Client).
type Label struct {
	DBID       string `json:"db_id"`
	GoldSQL    string `json:"gold_sql"`
	SQL        string `json:"SQL,omitempty"`
	QuestionID *int   `json:"question_id,omitempty"`
	Question   string `json:"question,omitempty"`
	Evidence   string `json:"evidence,omitempty"`
}

func badRequest(format string, args ...any) error {
	return httpserve.Errorf(http.StatusBadRequest, format, args...)
}

func unprocessable(format string, args ...any) error {
	return httpserve.Errorf(http.StatusUnprocessableEntity, format, args...)
}

// dbName is what a database id may look like. sqlexec opens a name with a
// path separator or a .sqlite suffix as a file path; a client must not be
// able to point the server at arbitrary files.
var dbName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$`)

// parseLabel decodes a label: a JSON string holding a JSON object (what
// OpenRLHF sends for a string dataset column), or the object itself.
func parseLabel(raw json.RawMessage) (Label, error) {
	var l Label
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return l, err
		}
		raw = json.RawMessage(s)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return l, errors.New(`want a JSON object {"db_id": ..., "gold_sql": ...} or {"question_id": ...}, or that object as a JSON string`)
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, err
	}
	return l, nil
}

// sample resolves a label to a reward.Sample (without the completion).
func (s *Server) sample(l Label) (reward.Sample, error) {
	gold := l.GoldSQL
	if gold == "" {
		gold = l.SQL
	}
	smp := reward.Sample{DBID: l.DBID, GoldSQL: gold, Question: l.Question, Evidence: l.Evidence}
	if l.QuestionID != nil {
		ex, ok := s.cfg.Questions[*l.QuestionID]
		switch {
		case !ok && s.cfg.Questions == nil:
			if gold == "" {
				return smp, unprocessable("question_id %d: the server was started without a benchmark (--data); send db_id and gold_sql", *l.QuestionID)
			}
		case !ok:
			return smp, unprocessable("question_id %d is not in the server's benchmark", *l.QuestionID)
		default:
			if smp.DBID == "" {
				smp.DBID = ex.DBID
			}
			if smp.GoldSQL == "" {
				smp.GoldSQL = ex.SQL
			}
			if smp.Question == "" {
				smp.Question = ex.Question
			}
			if smp.Evidence == "" {
				smp.Evidence = ex.Evidence
			}
		}
	}
	switch {
	case smp.DBID == "":
		return smp, badRequest("missing db_id")
	case strings.TrimSpace(smp.GoldSQL) == "":
		return smp, badRequest("missing gold_sql")
	case !dbName.MatchString(smp.DBID):
		return smp, badRequest("db_id %q: want letters, digits, '_' or '-'", textclip.Clip(smp.DBID, 80))
	case s.cfg.DBExists != nil && !s.cfg.DBExists(smp.DBID):
		return smp, unprocessable("unknown database %q", smp.DBID)
	}
	return smp, nil
}

// item is one completion's result.
type item struct {
	score reward.Score
	norm  float64
	sql   string
}

// scoreAll scores samples concurrently under the server-wide bound. The
// first error (a broken gold, the request's end) cancels the rest.
func (s *Server) scoreAll(ctx context.Context, samples []reward.Sample) ([]item, error) {
	// One goroutine an item, each waiting for a place in the server's bound.
	out, err := parallel.Map(ctx, len(samples), len(samples), func(ctx context.Context, i int) (it item, err error) {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return item{}, ctx.Err()
		}
		defer func() { <-s.sem }()
		// A bug met on some model output must cost this request a 500,
		// not every trainer the server (net/http recovers only the
		// handler's own goroutine). The client learns which item; the
		// log has the panic and its stack.
		defer func() {
			if p := recover(); p != nil {
				s.cfg.Log.Error("panic scoring a completion", "item", i, "panic", p, "stack", string(debug.Stack()))
				err = httpserve.Errorf(http.StatusInternalServerError, "internal error scoring item %d", i)
			}
		}()
		smp := samples[i]
		smp.SQL = smp.Query()
		sc, err := s.cfg.Reward.Reward(ctx, smp)
		if err != nil {
			return item{}, itemError(i, err)
		}
		return item{score: sc, norm: reward.Normalize(s.cfg.Reward, sc.Value), sql: smp.SQL}, nil
	})
	if err != nil {
		return nil, err
	}
	for _, it := range out {
		s.metrics.completion(it.score)
	}
	return out, nil
}

// itemError gives a reward's failure on item i its HTTP status.
func itemError(i int, err error) error {
	switch {
	case errors.Is(err, reward.ErrTransient):
		// The gold timed out on a busy machine (or its file could not be
		// opened): the label may be fine, and a retry may succeed, since
		// nothing cached the failure.
		return httpserve.Errorf(http.StatusServiceUnavailable, "item %d: %v", i, err)
	case errors.Is(err, reward.ErrGold):
		return unprocessable("item %d: %v", i, err)
	case errors.Is(err, reward.ErrJudge):
		return httpserve.Errorf(http.StatusBadGateway, "item %d: %v", i, err)
	}
	return err
}

// OpenRLHFRequest is OpenRLHF's remote reward request (POST /get_reward)
// (openrlhf/utils/remote_rm_utils.py): query = prompt + response, decoded
// with special tokens kept.
type OpenRLHFRequest struct {
	Query   []string          `json:"query"`
	Prompts []string          `json:"prompts"`
	Labels  []json.RawMessage `json:"labels"`
}

// OpenRLHFResponse is what OpenRLHF reads back: "rewards" for training,
// "scores" in [0, 1] for dynamic filtering, "extra_logs" for its logger
// (each a list aligned with the batch).
type OpenRLHFResponse struct {
	Rewards   []float64            `json:"rewards"`
	Scores    []float64            `json:"scores"`
	ExtraLogs map[string][]float64 `json:"extra_logs"`
}

func (s *Server) handleOpenRLHF(ctx context.Context, r *http.Request) (any, error) {
	var req OpenRLHFRequest
	if err := httpserve.DecodeJSON(r.Body, &req); err != nil {
		return nil, err
	}
	n := len(req.Query)
	switch {
	case n == 0:
		return nil, badRequest(`"query" is missing or empty`)
	case n > s.cfg.MaxItems:
		return nil, httpserve.Errorf(http.StatusRequestEntityTooLarge, "%d items; at most %d per request", n, s.cfg.MaxItems)
	case len(req.Labels) != n:
		return nil, badRequest(`"labels" has %d items for %d queries; every query needs a label {"db_id", "gold_sql"} (OpenRLHF: --label_key)`, len(req.Labels), n)
	case req.Prompts != nil && len(req.Prompts) != n:
		return nil, badRequest(`"prompts" has %d items for %d queries`, len(req.Prompts), n)
	}
	samples := make([]reward.Sample, n)
	mismatch := make([]float64, n)
	for i := range n {
		l, err := parseLabel(req.Labels[i])
		if err != nil {
			return nil, badRequest("labels[%d]: %v", i, err)
		}
		smp, err := s.sample(l)
		if err != nil {
			return nil, httpserve.Prefix(fmt.Sprintf("labels[%d]: ", i), err)
		}
		var prompt string
		if req.Prompts != nil {
			prompt = req.Prompts[i]
		}
		resp, ok := ResponseOf(req.Query[i], prompt)
		if !ok {
			mismatch[i] = 1
		}
		smp.Completion = resp
		samples[i] = smp
	}
	items, err := s.scoreAll(ctx, samples)
	if err != nil {
		return nil, err
	}
	out := OpenRLHFResponse{Rewards: make([]float64, n), Scores: make([]float64, n), ExtraLogs: map[string][]float64{}}
	for i, it := range items {
		out.Rewards[i], out.Scores[i] = it.score.Value, it.norm
		for k := range it.score.Components {
			if out.ExtraLogs[k] == nil {
				out.ExtraLogs[k] = make([]float64, n)
			}
		}
	}
	for i, it := range items {
		for k, v := range it.score.Components {
			out.ExtraLogs[k][i] = v
		}
	}
	out.ExtraLogs["prompt_mismatch"] = mismatch
	return out, nil
}

// BatchRequest is sqlrl's own API (POST /v1/reward; Client): K
// completions of one question.
type BatchRequest struct {
	Label
	Completions []string `json:"completions"`
}

// BatchResult is one completion's score: the reward, it normalized to
// [0, 1] (Score), its class, the SQL taken out of it, and the reward's
// components.
type BatchResult struct {
	Reward     float64            `json:"reward"`
	Score      float64            `json:"score"`
	Class      string             `json:"class"`
	SQL        string             `json:"sql"`
	Error      string             `json:"error,omitempty"`
	Components map[string]float64 `json:"components"`
}

// BatchResponse is the batch API's answer: a result per completion, in
// order.
type BatchResponse struct {
	Results   []BatchResult `json:"results"`
	ElapsedMS float64       `json:"elapsed_ms"`
}

func (s *Server) handleBatch(ctx context.Context, r *http.Request) (any, error) {
	start := time.Now()
	var req BatchRequest
	if err := httpserve.DecodeJSON(r.Body, &req); err != nil {
		return nil, err
	}
	switch n := len(req.Completions); {
	case req.Completions == nil:
		return nil, badRequest(`"completions" is missing`)
	case n > s.cfg.MaxItems:
		return nil, httpserve.Errorf(http.StatusRequestEntityTooLarge, "%d completions; at most %d per request", n, s.cfg.MaxItems)
	}
	smp, err := s.sample(req.Label)
	if err != nil {
		return nil, err
	}
	samples := make([]reward.Sample, len(req.Completions))
	for i, c := range req.Completions {
		samples[i] = smp
		samples[i].Completion = c
	}
	items, err := s.scoreAll(ctx, samples)
	if err != nil {
		return nil, err
	}
	out := BatchResponse{Results: make([]BatchResult, len(items))}
	for i, it := range items {
		out.Results[i] = BatchResult{Reward: it.score.Value, Score: it.norm, Class: it.score.Class, SQL: it.sql,
			Error: it.score.Error, Components: it.score.Components}
	}
	out.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}
