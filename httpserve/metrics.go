package httpserve

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics are written in Prometheus' text exposition format (version
// 0.0.4) by hand: the format is a few lines of text, and a client library
// would be the module's only non-SQLite dependency. The helpers below
// (Histogram, Header, Label, FormatFloat) let a server write its own
// series in the same format.

// LatencyBuckets are the request-duration bucket bounds in seconds: a
// cached reward batch takes well under a millisecond, an LLM-judged one or
// a long decode seconds to minutes.
var LatencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 150}

// metrics are the request series every server has.
type metrics struct {
	ns       string
	mu       sync.Mutex
	requests map[[2]string]int64 // endpoint, code
	latency  map[string]*Histogram
	inFlight atomic.Int64
}

func newMetrics(ns string) *metrics {
	return &metrics{ns: ns, requests: map[[2]string]int64{}, latency: map[string]*Histogram{}}
}

// request counts an answered request and records its latency.
func (m *metrics) request(endpoint string, code int, d time.Duration) {
	m.mu.Lock()
	m.requests[[2]string{endpoint, strconv.Itoa(code)}]++
	h := m.latency[endpoint]
	if h == nil {
		h = NewHistogram(LatencyBuckets)
		m.latency[endpoint] = h
	}
	m.mu.Unlock()
	h.Observe(d.Seconds())
}

func (m *metrics) count(endpoint string, code int) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[[2]string{endpoint, strconv.Itoa(code)}]
}

// write renders the request series, then extra's.
func (m *metrics) write(out io.Writer, extra func(io.Writer)) {
	w := bufio.NewWriter(out)
	defer w.Flush()

	m.mu.Lock()
	reqKeys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		reqKeys = append(reqKeys, k)
	}
	sort.Slice(reqKeys, func(i, j int) bool {
		return reqKeys[i][0] < reqKeys[j][0] || reqKeys[i][0] == reqKeys[j][0] && reqKeys[i][1] < reqKeys[j][1]
	})
	reqs := make([]int64, len(reqKeys))
	for i, k := range reqKeys {
		reqs[i] = m.requests[k]
	}
	endpoints := make([]string, 0, len(m.latency))
	for e := range m.latency {
		endpoints = append(endpoints, e)
	}
	sort.Strings(endpoints)
	hists := make([]*Histogram, len(endpoints))
	for i, e := range endpoints {
		hists[i] = m.latency[e]
	}
	m.mu.Unlock()

	name := m.ns + "_requests_total"
	Header(w, name, "counter", "Requests answered, by endpoint and HTTP status (499: the client went away).")
	for i, k := range reqKeys {
		fmt.Fprintf(w, "%s{%s,%s} %d\n", name, Label("endpoint", k[0]), Label("code", k[1]), reqs[i])
	}
	name = m.ns + "_request_duration_seconds"
	Header(w, name, "histogram", "Time to answer a request.")
	for i, e := range endpoints {
		hists[i].Write(w, name, Label("endpoint", e))
	}
	name = m.ns + "_requests_in_flight"
	Header(w, name, "gauge", "Requests being answered now.")
	fmt.Fprintf(w, "%s %d\n", name, m.inFlight.Load())
	if extra != nil {
		extra(w)
	}
}

// Histogram is a Prometheus histogram (cumulative buckets on output),
// safe for concurrent use.
type Histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	n      uint64
}

// NewHistogram returns a histogram with the given ascending upper bounds
// (+Inf is added).
func NewHistogram(bounds []float64) *Histogram {
	return &Histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

// Observe records v; NaN is ignored (it has no bucket).
func (h *Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

// Write renders the histogram's _bucket, _sum and _count lines under
// name, with labels (rendered by Label, comma-separated; "" for none).
func (h *Histogram) Write(w io.Writer, name, labels string) {
	h.mu.Lock()
	counts := append([]uint64(nil), h.counts...)
	sum, n := h.sum, h.n
	h.mu.Unlock()
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, b := range h.bounds {
		cum += counts[i]
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", name, labels, sep, FormatFloat(b), cum)
	}
	cum += counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	braces := ""
	if labels != "" {
		braces = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, braces, FormatFloat(sum))
	fmt.Fprintf(w, "%s_count%s %d\n", name, braces, n)
}

// FormatFloat writes a sample value or bound as the format expects.
func FormatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// labelEscaper applies the format's escaping to label values.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// Label renders name="value" with the format's escaping.
func Label(name, value string) string {
	return name + `="` + labelEscaper.Replace(value) + `"`
}

// Header writes a metric's HELP and TYPE lines.
func Header(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}
