package rewardserver

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

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/reward"
)

// metrics are written in Prometheus' text exposition format (version
// 0.0.4) by hand: the format is a few lines of text, and a client library
// would be the module's only non-SQLite dependency.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]int64 // endpoint, code
	latency  map[string]*histogram
	rewards  *histogram
	outcomes map[string]int64 // class
	inFlight atomic.Int64
}

// Bucket bounds: latency in seconds (a cached batch takes well under a
// millisecond, an LLM-judged one seconds), rewards over every scheme's
// range.
var (
	latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 150}
	rewardBuckets  = []float64{-1, -0.5, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1}
)

func newMetrics() *metrics {
	return &metrics{
		requests: map[[2]string]int64{},
		latency:  map[string]*histogram{},
		rewards:  newHistogram(rewardBuckets),
		outcomes: map[string]int64{},
	}
}

// count records an answered request.
func (m *metrics) count(endpoint string, code int) {
	m.mu.Lock()
	m.requests[[2]string{endpoint, strconv.Itoa(code)}]++
	m.mu.Unlock()
}

// observe records a request's latency.
func (m *metrics) observe(endpoint string, d time.Duration) {
	m.mu.Lock()
	h := m.latency[endpoint]
	if h == nil {
		h = newHistogram(latencyBuckets)
		m.latency[endpoint] = h
	}
	m.mu.Unlock()
	h.observe(d.Seconds())
}

func (m *metrics) request(endpoint string, code int, d time.Duration) {
	m.count(endpoint, code)
	m.observe(endpoint, d)
}

// completion records one scored completion.
func (m *metrics) completion(s reward.Score) {
	m.rewards.observe(s.Value)
	class := s.Class
	if class == "" {
		class = "not_executed"
	}
	m.mu.Lock()
	m.outcomes[class]++
	m.mu.Unlock()
}

// histogram is a Prometheus histogram: cumulative buckets on output.
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
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

func (h *histogram) write(w io.Writer, name, labels string) {
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
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", name, labels, sep, formatFloat(b), cum)
	}
	cum += counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	braces := ""
	if labels != "" {
		braces = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, braces, formatFloat(sum))
	fmt.Fprintf(w, "%s_count%s %d\n", name, braces, n)
}

func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// label renders name="value" with the format's escaping.
func label(name, value string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return name + `="` + r.Replace(value) + `"`
}

func header(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// write renders every metric; cs and counters come from the scorer and the
// reward function (nil when unavailable).
func (m *metrics) write(out io.Writer, cs *eval.CacheStats, counters map[string]int64) {
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
	hists := make([]*histogram, len(endpoints))
	for i, e := range endpoints {
		hists[i] = m.latency[e]
	}
	classes := make([]string, 0, len(m.outcomes))
	for c := range m.outcomes {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	outcomes := make([]int64, len(classes))
	for i, c := range classes {
		outcomes[i] = m.outcomes[c]
	}
	m.mu.Unlock()

	header(w, "sqlrl_reward_requests_total", "counter", "Reward requests answered, by endpoint and HTTP status (499: the client went away).")
	for i, k := range reqKeys {
		fmt.Fprintf(w, "sqlrl_reward_requests_total{%s,%s} %d\n", label("endpoint", k[0]), label("code", k[1]), reqs[i])
	}
	header(w, "sqlrl_reward_request_duration_seconds", "histogram", "Time to answer a reward request.")
	for i, e := range endpoints {
		hists[i].write(w, "sqlrl_reward_request_duration_seconds", label("endpoint", e))
	}
	header(w, "sqlrl_reward_requests_in_flight", "gauge", "Reward requests being answered now.")
	fmt.Fprintf(w, "sqlrl_reward_requests_in_flight %d\n", m.inFlight.Load())
	header(w, "sqlrl_reward_value", "histogram", "Rewards given, one observation per completion.")
	m.rewards.write(w, "sqlrl_reward_value", "")
	header(w, "sqlrl_reward_completions_total", "counter", "Completions scored, by verdict class (correct, wrong_result, no_sql, syntax_error, timeout, ...).")
	for i, c := range classes {
		fmt.Fprintf(w, "sqlrl_reward_completions_total{%s} %d\n", label("class", c), outcomes[i])
	}
	if cs != nil {
		header(w, "sqlrl_reward_result_cache_lookups_total", "counter", "Lookups in the query result cache (gold and predictions): a hit costs no execution.")
		fmt.Fprintf(w, "sqlrl_reward_result_cache_lookups_total{%s} %d\n", label("result", "hit"), cs.Hits)
		fmt.Fprintf(w, "sqlrl_reward_result_cache_lookups_total{%s} %d\n", label("result", "miss"), cs.Misses)
		header(w, "sqlrl_reward_result_cache_entries", "gauge", "Query results held in the cache.")
		fmt.Fprintf(w, "sqlrl_reward_result_cache_entries %d\n", cs.Entries)
	}
	if h, ok := counters["memo_hits"]; ok {
		header(w, "sqlrl_reward_score_cache_lookups_total", "counter", "Lookups in the score cache: a hit is a repeated completion answered without executing or judging.")
		fmt.Fprintf(w, "sqlrl_reward_score_cache_lookups_total{%s} %d\n", label("result", "hit"), h)
		fmt.Fprintf(w, "sqlrl_reward_score_cache_lookups_total{%s} %d\n", label("result", "miss"), counters["memo_misses"])
	}
	var events []string
	for k := range counters {
		if !strings.HasPrefix(k, "memo_") {
			events = append(events, k)
		}
	}
	if len(events) > 0 {
		sort.Strings(events)
		header(w, "sqlrl_reward_judge_events_total", "counter", "LLM judge events: requests, retries, failures, fallbacks, cache hits.")
		for _, e := range events {
			fmt.Fprintf(w, "sqlrl_reward_judge_events_total{%s} %d\n", label("event", strings.TrimPrefix(e, "judge_")), counters[e])
		}
	}
}
