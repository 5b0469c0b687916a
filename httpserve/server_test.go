package httpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testRoutes registers the handlers the tests call.
func testRoutes(s *Server, started chan<- struct{}, release <-chan struct{}) {
	s.Handle(http.MethodPost, "/echo", "echo", func(ctx context.Context, r *http.Request) (any, error) {
		var v map[string]any
		if err := DecodeJSON(r.Body, &v); err != nil {
			return nil, err
		}
		return v, nil
	})
	s.Handle(http.MethodPost, "/slow", "slow", func(ctx context.Context, r *http.Request) (any, error) {
		<-ctx.Done()
		return nil, fmt.Errorf("waiting: %w", ctx.Err())
	})
	s.Handle(http.MethodPost, "/panic", "panic", func(ctx context.Context, r *http.Request) (any, error) {
		var m map[string]int
		m["secret-panic"]++ // a nil-map write, as a real bug would do
		return nil, nil
	})
	s.Handle(http.MethodPost, "/internal", "internal", func(ctx context.Context, r *http.Request) (any, error) {
		return nil, errors.New("open /srv/secret/tenant.sqlite: permission denied")
	})
	s.Handle("", "/teapot", "teapot", func(ctx context.Context, r *http.Request) (any, error) {
		return nil, Prefix("item 3: ", Errorf(http.StatusUnprocessableEntity, "unknown database %q", "x"))
	})
	s.Handle(http.MethodGet, "/stream", "stream", func(ctx context.Context, r *http.Request) (any, error) {
		return RespondFunc(func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for i := range 3 {
				fmt.Fprintf(w, "data: %d\n\n", i)
				w.(http.Flusher).Flush()
			}
		}), nil
	})
	s.Handle(http.MethodPost, "/block", "block", func(ctx context.Context, r *http.Request) (any, error) {
		var v any
		if err := DecodeJSON(r.Body, &v); err != nil { // read to EOF: only then is a client that leaves noticed
			return nil, err
		}
		started <- struct{}{}
		select {
		case <-release:
			return map[string]string{"done": "yes"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

type reply struct {
	code   int
	header http.Header
	body   string
}

func do(t *testing.T, method, url, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// TestLimits: each way a request can go wrong gets its status and a JSON
// message that says what went wrong and nothing internal; the metrics
// count every answer.
func TestLimits(t *testing.T) {
	s := New(Config{Namespace: "t", MaxBodyBytes: 64, RequestTimeout: 20 * time.Millisecond, TimeoutHint: "ask for less",
		Health: map[string]string{"model": "m"}})
	testRoutes(s, nil, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	tests := []struct {
		name, method, path, body string
		want                     int
		msg                      string // in the JSON error's message
		not                      string // nowhere in the body
	}{
		{"ok", "POST", "/echo", `{"a": "<b>"}`, 200, "", ""},
		{"oversize body", "POST", "/echo", `{"a": "` + strings.Repeat("x", 100) + `"}`, 413, "larger than 64 bytes", ""},
		{"malformed", "POST", "/echo", `{"a":`, 400, "malformed JSON", ""},
		{"two values", "POST", "/echo", `{} {}`, 400, "more than one value", ""},
		{"deadline", "POST", "/slow", `{}`, 504, "longer than 20ms; ask for less", "waiting"},
		{"panic", "POST", "/panic", `{}`, 500, "internal error", "secret-panic"},
		{"panic has no stack", "POST", "/panic", `{}`, 500, "internal error", "goroutine"},
		{"internal error", "POST", "/internal", `{}`, 500, "internal error", "/srv/secret"},
		{"client error", "PUT", "/teapot", `{}`, 422, `item 3: unknown database "x"`, ""},
		{"wrong method", "GET", "/echo", ``, 405, "use POST", ""},
		{"unknown path", "GET", "/nope", ``, 404, "no such endpoint /nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, hs.URL+tt.path, tt.body)
			if r.code != tt.want {
				t.Fatalf("status %d, want %d: %s", r.code, tt.want, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.not != "" && strings.Contains(r.body, tt.not) {
				t.Errorf("body leaks %q: %s", tt.not, r.body)
			}
			if tt.want == 200 {
				if r.body != "{\"a\":\"<b>\"}\n" {
					t.Errorf("body %q", r.body)
				}
				return
			}
			var e map[string]string
			if err := json.Unmarshal([]byte(r.body), &e); err != nil || !strings.Contains(e["error"], tt.msg) {
				t.Errorf("error body %s, want a message with %q", r.body, tt.msg)
			}
			if tt.want == 405 && r.header.Get("Allow") != "POST" {
				t.Errorf("Allow %q", r.header.Get("Allow"))
			}
		})
	}
	r := do(t, "GET", hs.URL+"/stream", "")
	if r.code != 200 || r.body != "data: 0\n\ndata: 1\n\ndata: 2\n\n" {
		t.Errorf("stream: %d %q", r.code, r.body)
	}
	r = do(t, "GET", hs.URL+"/healthz", "")
	if r.code != 200 || r.body != `{"model":"m","status":"ok"}`+"\n" {
		t.Errorf("healthz: %d %s", r.code, r.body)
	}

	r = do(t, "GET", hs.URL+"/metrics", "")
	for _, want := range []string{
		`t_requests_total{endpoint="echo",code="200"} 1`,
		`t_requests_total{endpoint="echo",code="400"} 2`,
		`t_requests_total{endpoint="echo",code="405"} 1`,
		`t_requests_total{endpoint="echo",code="413"} 1`,
		`t_requests_total{endpoint="slow",code="504"} 1`,
		`t_requests_total{endpoint="panic",code="500"} 2`,
		`t_requests_total{endpoint="internal",code="500"} 1`,
		`t_requests_total{endpoint="teapot",code="422"} 1`,
		`t_requests_total{endpoint="stream",code="200"} 1`,
		`t_requests_total{endpoint="other",code="404"} 1`,
		`t_request_duration_seconds_count{endpoint="echo"} 5`,
		`t_request_duration_seconds_bucket{endpoint="panic",le="+Inf"} 2`,
		`t_requests_in_flight 0`,
		`# TYPE t_request_duration_seconds histogram`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if s.Requests("echo", 400) != 2 {
		t.Errorf("Requests(echo, 400) = %d", s.Requests("echo", 400))
	}
	if t.Failed() {
		t.Log(r.body)
	}
}

// TestBusyAndGone: past MaxConcurrent a request gets a 503 to retry; a
// client that goes away cancels its handler's context and is counted as
// 499; the slot is free again afterwards.
func TestBusyAndGone(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	var tally atomic.Int64
	s := New(Config{MaxConcurrent: 1, OnRequest: func(endpoint string, code int) {
		if endpoint == "block" && code == StatusClientClosed {
			tally.Add(1)
		}
	}})
	testRoutes(s, started, release)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/block", strings.NewReader(`{}`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	r := do(t, "POST", hs.URL+"/echo", `{}`)
	if r.code != 503 || r.header.Get("Retry-After") != "1" || !strings.Contains(r.body, "busy") {
		t.Errorf("over the bound: %d %v %s", r.code, r.header, r.body)
	}
	if r := do(t, "GET", hs.URL+"/healthz", ""); r.code != 200 {
		t.Errorf("healthz while saturated: %d", r.code)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the abandoned request returned")
	}
	for s.Requests("block", StatusClientClosed) != 1 {
		time.Sleep(5 * time.Millisecond) // until the handler saw its context end (or go test's -timeout)
	}
	if tally.Load() != 1 {
		t.Errorf("OnRequest saw %d 499s", tally.Load())
	}
	if r := do(t, "POST", hs.URL+"/echo", `{}`); r.code != 200 {
		t.Errorf("after the client left: %d %s", r.code, r.body)
	}
}

// TestShutdownDrains: when Serve's context ends, the listener closes but a
// request in flight is answered before Serve returns; a request that
// outlives ShutdownTimeout has its context canceled and Serve says so.
func TestShutdownDrains(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprint("force=", force), func(t *testing.T) {
			started, release := make(chan struct{}, 1), make(chan struct{})
			cfg := Config{Name: "test server"}
			if force {
				cfg.ShutdownTimeout = time.Millisecond
			}
			s := New(cfg)
			testRoutes(s, started, release)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ctx, stop := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- s.Serve(ctx, ln) }()

			type answer struct {
				code int
				body string
				err  error
			}
			answered := make(chan answer, 1)
			go func() {
				resp, err := http.Post("http://"+addr+"/block", "application/json", bytes.NewReader([]byte(`{}`)))
				if err != nil {
					answered <- answer{err: err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				answered <- answer{resp.StatusCode, string(b), err}
			}()
			<-started
			stop()
			// Until the listener is closed: shutdown has begun.
			for {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					break
				}
				c.Close()
				time.Sleep(2 * time.Millisecond)
			}
			if force {
				err := <-served
				if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "test server shutdown") {
					t.Errorf("Serve: %v", err)
				}
				if a := <-answered; a.err == nil && a.code == 200 {
					t.Errorf("a canceled request was answered: %d %s", a.code, a.body)
				}
				for s.Requests("block", StatusClientClosed) != 1 {
					time.Sleep(5 * time.Millisecond) // the handler saw its context canceled
				}
				return
			}
			select {
			case err := <-served:
				t.Fatalf("Serve returned with a request in flight: %v", err)
			default:
			}
			close(release)
			a := <-answered
			if a.err != nil || a.code != 200 || a.body != `{"done":"yes"}`+"\n" {
				t.Errorf("in-flight request: %+v", a)
			}
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if s.Requests("block", 200) != 1 {
				t.Errorf("answered request not counted")
			}
		})
	}
}

// TestHalfSentBodiesHoldNoSlot replays issue 39's flood: clients that send
// headers and part of a body must not hold the slots of requests being
// answered. Past MaxConcurrent such bodies a whole request is still
// answered 200, every half-sent one is answered once its body arrives, and
// one that stalls past BodyTimeout gets a 408.
func TestHalfSentBodiesHoldNoSlot(t *testing.T) {
	const slots, waiting = 4, 12
	s := New(Config{MaxConcurrent: slots, BodyTimeout: time.Minute})
	testRoutes(s, nil, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	body := `{"a": "` + strings.Repeat("x", 50) + `"}`
	conns := make([]net.Conn, waiting)
	for i := range conns {
		c, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
		conns[i] = c
	}
	for s.metrics.inFlight.Load() < slots {
		time.Sleep(5 * time.Millisecond) // until the handlers run (or go test's -timeout)
	}
	if r := do(t, "POST", hs.URL+"/echo", `{"a": "<b>"}`); r.code != 200 {
		t.Fatalf("a whole request beside %d half-sent bodies: %d %s", waiting, r.code, r.body)
	}
	for i, c := range conns {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(c, body[10:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("half-sent body %d, completed: %v", i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(got), "xxxx") {
			t.Errorf("half-sent body %d, completed: %d %s", i, resp.StatusCode, got)
		}
	}

	t.Run("stalled", func(t *testing.T) {
		s := New(Config{MaxConcurrent: slots, BodyTimeout: 100 * time.Millisecond})
		testRoutes(s, nil, nil)
		hs := httptest.NewServer(s.Handler())
		defer hs.Close()
		c, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
		c.SetDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Errorf("stalled body: %d, want 408", resp.StatusCode)
		}
	})
}

// TestDeclaredBodiesReserveNothing: bodies declared at the cap that do not
// arrive cost memory for the bytes sent, not for the length declared, and
// past MaxBodyReads such bodies a request gets a 503.
func TestDeclaredBodiesReserveNothing(t *testing.T) {
	const reads, capBytes = 8, 16 << 20
	s := New(Config{MaxConcurrent: 2, MaxBodyReads: reads, MaxBodyBytes: capBytes, BodyTimeout: time.Minute})
	testRoutes(s, nil, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range reads {
		c, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n{", capBytes)
	}
	for len(s.reads) < reads {
		time.Sleep(5 * time.Millisecond) // until every body is being read (or go test's -timeout)
	}
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > capBytes {
		t.Errorf("%d bodies declared at %d bytes, 1 byte sent: heap grew %d bytes", reads, capBytes, grew)
	}
	if r := do(t, "POST", hs.URL+"/echo", `{"a": "b"}`); r.code != http.StatusServiceUnavailable {
		t.Errorf("request past %d bodies arriving: %d %s, want 503", reads, r.code, r.body)
	}
}

// TestDecodeStrictJSON: the strict decoder refuses a field the value does
// not have, naming it; the lenient one ignores it.
func TestDecodeStrictJSON(t *testing.T) {
	type req struct {
		DB string `json:"db"`
	}
	for _, tt := range []struct {
		body   string
		strict bool
		want   string // "" : decoded
	}{
		{`{"db": "a"}`, true, ""},
		{`{"db": "a", "qestion": "typo"}`, true, `unknown field "qestion"`},
		{`{"db": "a", "qestion": "typo"}`, false, ""},
		{`{"db": "a"} {}`, true, "more than one value"},
	} {
		var v req
		decode := DecodeJSON
		if tt.strict {
			decode = DecodeStrictJSON
		}
		err := decode(strings.NewReader(tt.body), &v)
		switch {
		case tt.want == "" && (err != nil || v.DB != "a"):
			t.Errorf("%s (strict %v): %v, %+v", tt.body, tt.strict, err, v)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s (strict %v): %v, want %q", tt.body, tt.strict, err, tt.want)
		}
	}
}
