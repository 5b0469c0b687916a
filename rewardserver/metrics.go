package rewardserver

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/reward"
)

// metrics are the reward server's own series, written after httpserve's
// request series (sqlrl_reward_requests_total, _request_duration_seconds,
// _requests_in_flight) in Prometheus' text format.
type metrics struct {
	mu       sync.Mutex
	rewards  *httpserve.Histogram
	outcomes map[string]int64 // class
}

// rewardBuckets cover every scheme's range.
var rewardBuckets = []float64{-1, -0.5, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1}

func newMetrics() *metrics {
	return &metrics{
		rewards:  httpserve.NewHistogram(rewardBuckets),
		outcomes: map[string]int64{},
	}
}

// completion records one scored completion.
func (m *metrics) completion(s reward.Score) {
	m.rewards.Observe(s.Value)
	class := s.Class
	if class == "" {
		class = "not_executed"
	}
	m.mu.Lock()
	m.outcomes[class]++
	m.mu.Unlock()
}

// writeMetrics writes the reward series: rewards, verdict classes, and the
// scorer's and reward function's counters where they have them.
func (s *Server) writeMetrics(w io.Writer) {
	var counters map[string]int64
	if c, ok := s.cfg.Reward.(reward.Counter); ok {
		counters = c.Counters()
	}
	var cs *eval.CacheStats
	if s.cfg.CacheStats != nil {
		st := s.cfg.CacheStats()
		cs = &st
	}
	s.metrics.write(w, cs, counters)
}

// write renders the reward series; cs and counters come from the scorer
// and the reward function (nil when unavailable).
func (m *metrics) write(w io.Writer, cs *eval.CacheStats, counters map[string]int64) {
	m.mu.Lock()
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

	httpserve.Header(w, "sqlrl_reward_value", "histogram", "Rewards given, one observation per completion.")
	m.rewards.Write(w, "sqlrl_reward_value", "")
	httpserve.Header(w, "sqlrl_reward_completions_total", "counter", "Completions scored, by verdict class (correct, wrong_result, no_sql, syntax_error, timeout, ...).")
	for i, c := range classes {
		fmt.Fprintf(w, "sqlrl_reward_completions_total{%s} %d\n", httpserve.Label("class", c), outcomes[i])
	}
	if cs != nil {
		httpserve.Header(w, "sqlrl_reward_result_cache_lookups_total", "counter", "Lookups in the query result cache (gold and predictions): a hit costs no execution.")
		fmt.Fprintf(w, "sqlrl_reward_result_cache_lookups_total{%s} %d\n", httpserve.Label("result", "hit"), cs.Hits)
		fmt.Fprintf(w, "sqlrl_reward_result_cache_lookups_total{%s} %d\n", httpserve.Label("result", "miss"), cs.Misses)
		httpserve.Header(w, "sqlrl_reward_result_cache_entries", "gauge", "Query results held in the cache.")
		fmt.Fprintf(w, "sqlrl_reward_result_cache_entries %d\n", cs.Entries)
	}
	if h, ok := counters["memo_hits"]; ok {
		httpserve.Header(w, "sqlrl_reward_score_cache_lookups_total", "counter", "Lookups in the score cache: a hit is a repeated completion answered without executing or judging.")
		fmt.Fprintf(w, "sqlrl_reward_score_cache_lookups_total{%s} %d\n", httpserve.Label("result", "hit"), h)
		fmt.Fprintf(w, "sqlrl_reward_score_cache_lookups_total{%s} %d\n", httpserve.Label("result", "miss"), counters["memo_misses"])
	}
	var events []string
	for k := range counters {
		if !strings.HasPrefix(k, "memo_") {
			events = append(events, k)
		}
	}
	if len(events) > 0 {
		sort.Strings(events)
		httpserve.Header(w, "sqlrl_reward_judge_events_total", "counter", "LLM judge events: requests, retries, failures, fallbacks, cache hits.")
		for _, e := range events {
			fmt.Fprintf(w, "sqlrl_reward_judge_events_total{%s} %d\n", httpserve.Label("event", strings.TrimPrefix(e, "judge_")), counters[e])
		}
	}
}
