// Package httpserve is the one way sqlrl serves HTTP: the reward server
// and the model server are handlers on it, and everything that keeps a
// server alive and honest under hostile or unlucky clients lives here
// once. Every request body is capped and read whole, within a short
// deadline, before the request counts as in flight (a client that sends
// half a body holds no slot); requests being answered at once are bounded
// (more get a 503 to retry, not a queue that grows until memory runs out); every request has a deadline, passed to the handler's context,
// and a request past it gets a 504 JSON error; a client that goes away
// cancels its request's context; a handler's error becomes a status and a
// JSON message without internals (an error that is not an *Error is a 500
// "internal error", logged in full); a panic costs its request a 500, not
// the process; every request is counted and timed in Prometheus' text
// format on /metrics; /healthz answers while the server runs; and Serve
// shuts down gracefully when its context ends, draining requests in
// flight. Slowloris-safe timeouts (read header, read, write, idle) are set
// on the underlying http.Server.
package httpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"
)

// Defaults, chosen for the reward server's trainers (OpenRLHF waits 180 s
// for an answer, so a 150 s deadline lets it see our 504 rather than its
// own timeout).
const (
	DefaultMaxBodyBytes      = 32 << 20
	DefaultMaxConcurrent     = 1024
	DefaultRequestTimeout    = 150 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 2 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultShutdownTimeout   = 10 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultBodyTimeout       = 30 * time.Second
)

// Config configures a Server. The zero value of every limit means its
// default.
type Config struct {
	// Name names the server in Serve's errors ("reward server").
	Name string
	// Namespace prefixes the metric names: "sqlrl_reward" gives
	// sqlrl_reward_requests_total. Default "sqlrl_http".
	Namespace string
	// MaxBodyBytes caps a request body; larger: 413.
	MaxBodyBytes int64
	// MaxConcurrent bounds requests being answered at once (health and
	// metrics excluded, so that a saturated server can still be
	// watched); more get a 503 with Retry-After.
	MaxConcurrent int
	// BodyTimeout bounds how long a request's body may take to arrive; past
	// it the client gets a 408. A body is read whole before its request
	// takes one of the MaxConcurrent slots, so clients that send headers
	// and part of a body wait outside them. MaxBodyReads (default 4 x
	// MaxConcurrent) bounds the bodies arriving at once; more get a 503.
	BodyTimeout  time.Duration
	MaxBodyReads int
	// RequestTimeout bounds one request end to end; past it the handler's
	// context ends and the client gets a 504.
	RequestTimeout time.Duration
	// TimeoutHint ends the 504's message, telling the client what to do
	// ("retry, or send smaller batches").
	TimeoutHint string
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout (default RequestTimeout
	// + 30 s) and IdleTimeout are the http.Server's: a client that trickles
	// its headers or body (slowloris) holds a connection only this long.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxHeaderBytes caps request headers.
	MaxHeaderBytes int
	// ShutdownTimeout is how long requests in flight get to finish when
	// Serve's context ends; then their contexts are canceled.
	ShutdownTimeout time.Duration
	// ErrorBody shapes the JSON of an error response; default
	// {"error": msg}. (OpenAI clients want {"error": {"message": ...}}.)
	ErrorBody func(status int, msg string) any
	// Health adds fields to /healthz's {"status": "ok"}.
	Health map[string]string
	// Metrics, when set, writes the server's own series on /metrics after
	// the request series.
	Metrics func(w io.Writer)
	// OnRequest, when set, is told of every answered request after it is
	// counted (the endpoint, its status), for a server that keeps tallies
	// of its own.
	OnRequest func(endpoint string, code int)
	// Log receives one line per failed request; nil discards.
	Log *slog.Logger
}

// Server is an http.Handler with a Serve loop. Create it with New,
// register handlers with Handle and HandleRaw, then Serve.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	sem     chan struct{}
	reads   chan struct{} // bodies arriving (MaxBodyReads)
	metrics *metrics
}

// New returns a server with cfg's limits (defaults filled in) answering
// GET /healthz and /metrics, and a JSON 404 for every path no handler
// claims.
func New(cfg Config) *Server {
	if cfg.Name == "" {
		cfg.Name = "http server"
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "sqlrl_http"
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.MaxBodyReads <= 0 {
		cfg.MaxBodyReads = 4 * cfg.MaxConcurrent
	}
	if cfg.TimeoutHint == "" {
		cfg.TimeoutHint = "retry later"
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = cfg.RequestTimeout + 30*time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.ErrorBody == nil {
		cfg.ErrorBody = func(_ int, msg string) any { return map[string]string{"error": msg} }
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), sem: make(chan struct{}, cfg.MaxConcurrent), reads: make(chan struct{}, cfg.MaxBodyReads), metrics: newMetrics(cfg.Namespace)}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.fail(w, r, "other", Errorf(http.StatusNotFound, "no such endpoint %s", r.URL.Path))
		s.record("other", http.StatusNotFound, time.Since(start))
	})
	s.mux.HandleFunc("/healthz", s.health)
	s.mux.HandleFunc("/metrics", s.serveMetrics)
	return s
}

// Func answers one request. ctx carries the request's deadline and ends
// when the client goes away; r.Body holds the whole body, read under the
// cap before the request took its slot (DecodeJSON decodes it). The
// value returned is written as JSON with status 200, unless it is a
// Responder, which writes itself; an error is written as a JSON error
// (see Error).
type Func func(ctx context.Context, r *http.Request) (any, error)

// A Responder writes its own response (server-sent events, plain text):
// for what is not one JSON value.
type Responder interface {
	Respond(w http.ResponseWriter)
}

// RespondFunc is a function as a Responder.
type RespondFunc func(w http.ResponseWriter)

// Respond calls f.
func (f RespondFunc) Respond(w http.ResponseWriter) { f(w) }

// Handler returns the server's handler, for tests and for servers run
// elsewhere (Serve adds the timeouts and the graceful shutdown).
func (s *Server) Handler() http.Handler { return s.mux }

// Handle serves pattern (an http.ServeMux pattern without a method) with
// fn under every limit, counting requests under endpoint. A method other
// than method ("" for any) gets a JSON 405.
func (s *Server) Handle(method, pattern, endpoint string, fn Func) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, method, endpoint, fn) })
}

// HandleRaw serves pattern with h, counted under endpoint but outside the
// concurrency bound and the deadline: for cheap answers that must come
// even when the server is saturated (a plain-text health check).
func (s *Server) HandleRaw(pattern, endpoint string, h http.Handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		s.record(endpoint, sw.status(), time.Since(start))
	})
}

// Serve answers requests on ln until ctx ends, then shuts down
// gracefully: the listener closes, requests in flight get
// ShutdownTimeout to finish, and then their contexts are canceled. It
// returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("%s: %w", s.cfg.Name, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still running are told to stop; their connections
		// are closed under them.
		cancelBase()
		srv.Close()
		return fmt.Errorf("%s shutdown: %w", s.cfg.Name, err)
	}
	<-errc // http.ErrServerClosed
	return nil
}

// serve runs one request of a Handle route: bound, method, body cap,
// deadline, panic, error mapping, metrics.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, method, endpoint string, fn Func) {
	start := time.Now()
	s.metrics.inFlight.Add(1)
	defer s.metrics.inFlight.Add(-1)
	sw := &statusWriter{ResponseWriter: w}
	code := 0
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			// A bug met on some input costs this request a 500 and a
			// log line with the stack; the body says nothing more.
			s.cfg.Log.Error("panic answering a request", "endpoint", endpoint, "panic", p, "stack", string(debug.Stack()))
			code = http.StatusInternalServerError
			if !sw.wrote {
				s.fail(sw, r, endpoint, Errorf(code, "internal error"))
			}
		}
		if code != 0 {
			s.record(endpoint, code, time.Since(start))
		}
	}()
	if method != "" && r.Method != method {
		w.Header().Set("Allow", method)
		code = s.fail(sw, r, endpoint, Errorf(http.StatusMethodNotAllowed, "use %s", method))
		return
	}
	r, err := s.readBody(w, r)
	if err != nil {
		code = s.fail(sw, r, endpoint, err)
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		code = s.fail(sw, r, endpoint, Errorf(http.StatusServiceUnavailable, "server busy: %d requests in flight; retry shortly", s.cfg.MaxConcurrent))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	out, err := fn(ctx, r)
	switch {
	case err == nil:
	case r.Context().Err() != nil:
		// The client went away (or a forced shutdown canceled it):
		// nobody reads an answer.
		code = StatusClientClosed
		s.cfg.Log.Info("client gone", "endpoint", endpoint, "remote", r.RemoteAddr)
		return
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		err = Errorf(http.StatusGatewayTimeout, "request took longer than %v; %s", s.cfg.RequestTimeout, s.cfg.TimeoutHint)
	}
	if err != nil {
		code = s.fail(sw, r, endpoint, err)
		return
	}
	if rs, ok := out.(Responder); ok {
		rs.Respond(sw)
		code = sw.status()
		return
	}
	sw.Header().Set("Content-Type", "application/json")
	sw.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	enc := json.NewEncoder(sw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		s.cfg.Log.Info("writing response", "endpoint", endpoint, "err", err)
	}
	code = sw.status()
}

// readBody reads r's body whole, under the body cap and BodyTimeout, and
// returns a copy of r whose body is the bytes read (r itself keeps the
// connection's body, which net/http inspects to decide whether the
// connection can serve another request), before the request takes a
// slot: a body
// that has not arrived holds a goroutine and what it sent so far, never
// the place of a request that could be answered. A body over the cap is
// a 413 (the same message as DecodeJSON's), one that does not arrive in
// time a 408.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return r, nil
	}
	select {
	case s.reads <- struct{}{}:
		defer func() { <-s.reads }()
	default:
		return r, Errorf(http.StatusServiceUnavailable, "server busy: %d request bodies arriving; retry shortly", s.cfg.MaxBodyReads)
	}
	// The deadline ends with the body: net/http clears it once the body
	// is read to its end, when it starts watching for a client that goes
	// away.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	// The buffer grows with the bytes that arrive, not with the length the
	// client declares: a Content-Length at the cap and no body reserves
	// nothing.
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err == nil {
		rr := *r
		rr.Body = io.NopCloser(&buf)
		return &rr, nil
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return r, Errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", mbe.Limit)
	case errors.As(err, &ne) && ne.Timeout():
		return r, Errorf(http.StatusRequestTimeout, "request body did not arrive within %v", s.cfg.BodyTimeout)
	}
	return r, Errorf(http.StatusBadRequest, "reading body: %v", err)
}

// StatusClientClosed is what a request whose client went away is counted
// as (nginx's 499); nothing is written to it.
const StatusClientClosed = 499

// record counts an answered request and times it.
func (s *Server) record(endpoint string, code int, d time.Duration) {
	s.metrics.request(endpoint, code, d)
	if s.cfg.OnRequest != nil {
		s.cfg.OnRequest(endpoint, code)
	}
}

// fail writes err as a JSON error and returns its status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, endpoint string, err error) int {
	status, msg := StatusOf(err), "internal error"
	var e *Error
	if errors.As(err, &e) {
		msg = e.Msg
	}
	s.cfg.Log.Info("request failed", "endpoint", endpoint, "status", status, "remote", r.RemoteAddr, "err", err)
	WriteJSON(w, status, s.cfg.ErrorBody(status, msg))
	return status
}

// WriteJSON writes v as JSON with status code; a 503 tells the client to
// retry in a second.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	h := map[string]string{"status": "ok"}
	for k, v := range s.cfg.Health {
		h[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	json.NewEncoder(w).Encode(h)
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.metrics.write(w, s.cfg.Metrics)
}

// Requests returns how many requests to endpoint were answered with code:
// what /metrics reports, for tests and benchmarks that check nothing was
// lost.
func (s *Server) Requests(endpoint string, code int) int64 {
	return s.metrics.count(endpoint, code)
}

// statusWriter remembers the status written, so that a Responder's
// answer is counted as what it sent.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.code, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a Responder stream (server-sent events).
func (w *statusWriter) Flush() {
	if !w.wrote {
		w.code, w.wrote = http.StatusOK, true
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.code
}
