// Package loadtest is the machinery the servers' load benches share:
// concurrent clients for a fixed time, one request's figures per route
// (answers, HTTP errors by status, connection errors, latency percentiles),
// an HTTP POST that a run's end does not cut, and the supervision of server
// processes (start, SIGKILL, restart on the same port, drain). What a bench
// asks and checks stays beside its server (askserver, rewardserver).
package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlrl/sqlrl/httpserve"
)

// Route is one route's figures. Latencies are of requests answered 200
// and read by the client, from sending to the whole body read.
type Route struct {
	Requests int64 `json:"requests"`
	OK       int64 `json:"ok"`
	// Errors counts HTTP answers other than 200 by status (and 200 answers
	// the client could not read, under 200): the servers' failures.
	Errors map[int]int64 `json:"errors,omitempty"`
	// ConnErrors counts requests that got no HTTP answer (refused, reset,
	// cut mid-body).
	ConnErrors int64   `json:"conn_errors"`
	PerSecond  float64 `json:"ok_per_second"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	MaxMS      float64 `json:"max_ms"`
	FirstError string  `json:"first_error,omitempty"`
	lat        []time.Duration
}

// Answered records a request answered 200 after el.
func (r *Route) Answered(el time.Duration) {
	r.Requests++
	r.OK++
	r.lat = append(r.lat, el)
}

// Failed records a request answered with HTTP status code (a 200 the
// client could not read counts under 200); msg describes it.
func (r *Route) Failed(code int, msg string) {
	r.Requests++
	if r.Errors == nil {
		r.Errors = map[int]int64{}
	}
	r.Errors[code]++
	if r.FirstError == "" {
		r.FirstError = msg
	}
}

// Unanswered records a request that got no HTTP answer.
func (r *Route) Unanswered(err error) {
	r.Requests++
	r.ConnErrors++
	if r.FirstError == "" {
		r.FirstError = err.Error()
	}
}

// HTTPErrors is the number of answers counted in Errors.
func (r *Route) HTTPErrors() int64 {
	var n int64
	for _, c := range r.Errors {
		n += c
	}
	return n
}

// merge adds o's counts and latencies to r.
func (r *Route) merge(o *Route) {
	r.Requests += o.Requests
	r.OK += o.OK
	r.ConnErrors += o.ConnErrors
	for code, n := range o.Errors {
		if r.Errors == nil {
			r.Errors = map[int]int64{}
		}
		r.Errors[code] += n
	}
	if r.FirstError == "" {
		r.FirstError = o.FirstError
	}
	r.lat = append(r.lat, o.lat...)
}

// finish computes the rates and percentiles of a run of secs seconds.
func (r *Route) finish(secs float64) {
	r.P50MS, r.P99MS, r.MaxMS = httpserve.Percentiles(r.lat)
	r.PerSecond = float64(r.OK) / secs
	r.lat = nil
}

// WriteText prints the route's line for people.
func (r *Route) WriteText(w io.Writer, name string) {
	codes := make([]int, 0, len(r.Errors))
	for code := range r.Errors {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	var errs []string
	for _, code := range codes {
		errs = append(errs, fmt.Sprintf("%d: %d", code, r.Errors[code]))
	}
	es := "none"
	if len(errs) > 0 {
		es = strings.Join(errs, ", ")
	}
	fmt.Fprintf(w, "  %-8s %7d requests, %7d ok (%.1f/s), HTTP errors %s, connection errors %d; latency p50 %.1fms p99 %.1fms max %.1fms\n",
		name, r.Requests, r.OK, r.PerSecond, es, r.ConnErrors, r.P50MS, r.P99MS, r.MaxMS)
	if r.FirstError != "" {
		fmt.Fprintf(w, "           first error: %s\n", r.FirstError)
	}
}

// Routes are a client's figures by route name; a client's own are touched
// by its goroutine only.
type Routes map[string]*Route

// Get returns the route called name, adding it.
func (rs Routes) Get(name string) *Route {
	r := rs[name]
	if r == nil {
		r = &Route{}
		rs[name] = r
	}
	return r
}

// Options configure Run.
type Options struct {
	// Clients run concurrently.
	Clients int
	// Duration of the run; requests in flight at its end finish.
	Duration time.Duration
	// Disrupt, when set, is called once DisruptAfter into the run while the
	// clients go on (a bench SIGKILLs a server there and restarts it).
	Disrupt      func(ctx context.Context) error
	DisruptAfter time.Duration
	// Log gets progress lines; nil discards.
	Log io.Writer
}

// Report is what Run measured.
type Report struct {
	Clients int               `json:"clients"`
	Seconds float64           `json:"seconds"`
	Routes  map[string]*Route `json:"routes"`
	// Disrupted is when Disrupt ran (seconds into the run) and its error.
	Disrupted    float64 `json:"disrupted_at_s,omitempty"`
	DisruptError string  `json:"disrupt_error,omitempty"`
}

// Run calls client(ctx, i, routes) for each of o.Clients clients at once,
// with a context that ends after o.Duration (or with ctx) and the client's
// own routes, and returns their figures merged. A client returns once its
// context ends.
func Run(ctx context.Context, o Options, client func(ctx context.Context, i int, rs Routes)) *Report {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	rep := &Report{Clients: o.Clients, Routes: map[string]*Route{}}
	routes := make([]Routes, o.Clients)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range routes {
		routes[i] = Routes{}
		wg.Go(func() { client(runCtx, i, routes[i]) })
	}
	if o.Disrupt != nil {
		wg.Go(func() {
			select {
			case <-runCtx.Done():
				return
			case <-time.After(o.DisruptAfter):
			}
			rep.Disrupted = time.Since(start).Seconds()
			fmt.Fprintf(logw, "load: disrupting at %.1fs\n", rep.Disrupted)
			if err := o.Disrupt(runCtx); err != nil {
				rep.DisruptError = err.Error()
				fmt.Fprintf(logw, "load: disrupt: %v\n", err)
			}
		})
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	for _, rs := range routes {
		for name, r := range rs {
			Routes(rep.Routes).Get(name).merge(r)
		}
	}
	for _, r := range rep.Routes {
		r.finish(rep.Seconds)
	}
	return rep
}

// Post sends body as JSON to url, with key as X-API-Key when set, and
// returns the status and the whole answer; an error is a transport
// failure. Load clients pass a context that outlives the run: a request
// cut at the run's end would look lost.
func Post(ctx context.Context, hc *http.Client, url, key string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, raw, nil
}
