package reward

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sqlrl/sqlrl/eval"
)

// genCache is a bounded map: when the current generation holds max/2
// entries it becomes the old one and the oldest is dropped. Lookups promote
// from the old generation, so hot keys survive. No per-entry bookkeeping:
// a reward server sees millions of distinct completions over a training run
// and must not grow without bound.
type genCache[V any] struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]V
}

// defaultCacheEntries bounds a genCache with no explicit size.
const defaultCacheEntries = 100_000

func (c *genCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[key]; ok {
		return v, true
	}
	if v, ok := c.old[key]; ok {
		c.putLocked(key, v)
		return v, true
	}
	var zero V
	return zero, false
}

func (c *genCache[V]) put(key string, v V) {
	c.mu.Lock()
	c.putLocked(key, v)
	c.mu.Unlock()
}

func (c *genCache[V]) putLocked(key string, v V) {
	limit := c.max
	if limit <= 0 {
		limit = defaultCacheEntries
	}
	if c.cur == nil {
		c.cur = map[string]V{}
	}
	if len(c.cur) >= max(1, limit/2) {
		c.old, c.cur = c.cur, make(map[string]V, len(c.cur))
	}
	c.cur[key] = v
}

// Memo remembers scores so that a repeated completion (same database, gold,
// question and SQL) costs a lookup. Concurrent identical samples wait for
// the first. Scores that say nothing stable about the SQL are not kept: an
// outcome eval.Transient says the machine decided (a timeout or
// cancellation from whichever limit, however much time the caller had left;
// a busy or missing database file), a judge fallback (the judge may be
// back), and SQL whose result can change between runs (random(), 'now',
// current_*). Errors are never kept either.
type Memo struct {
	F Func
	// Max bounds the entries kept; default 100,000.
	Max int

	once     sync.Once
	cache    genCache[Score]
	mu       sync.Mutex
	inflight map[string]*memoCall
	hits     atomic.Int64
	misses   atomic.Int64
}

type memoCall struct {
	done  chan struct{}
	score Score
	err   error
}

// Reward implements Func.
func (m *Memo) Reward(ctx context.Context, s Sample) (Score, error) {
	s.SQL = s.Query()
	if nondeterministic(s.SQL) {
		return m.F.Reward(ctx, s)
	}
	key := strings.Join([]string{s.DBID, s.GoldSQL, s.Question, s.Evidence, strings.TrimSpace(s.SQL)}, "\x00")
	m.once.Do(func() { m.cache.max = m.Max })
	for {
		if sc, ok := m.cache.get(key); ok {
			m.hits.Add(1)
			return cloneScore(sc), nil
		}
		m.mu.Lock()
		if c, ok := m.inflight[key]; ok {
			m.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return Score{}, ctx.Err()
			}
			if c.err == nil {
				m.hits.Add(1)
				return cloneScore(c.score), nil
			}
			if ctx.Err() != nil {
				return Score{}, c.err
			}
			continue // the first caller gave up; try ourselves
		}
		// the first caller may have stored its score and left between
		// the lookup above and this lock: look again before running
		if sc, ok := m.cache.get(key); ok {
			m.mu.Unlock()
			m.hits.Add(1)
			return cloneScore(sc), nil
		}
		if m.inflight == nil {
			m.inflight = map[string]*memoCall{}
		}
		c := &memoCall{done: make(chan struct{})}
		m.inflight[key] = c
		m.mu.Unlock()
		m.misses.Add(1)
		c.score, c.err = m.F.Reward(ctx, s)
		if c.err == nil && stable(c.score) {
			m.cache.put(key, c.score)
		}
		m.mu.Lock()
		delete(m.inflight, key)
		m.mu.Unlock()
		close(c.done)
		return cloneScore(c.score), c.err
	}
}

// Bounds forwards the wrapped Func's bounds.
func (m *Memo) Bounds() (lo, hi float64) {
	if b, ok := m.F.(Bounded); ok {
		return b.Bounds()
	}
	return 0, 1
}

// Counters reports memo hits and misses, and the wrapped Func's counters.
func (m *Memo) Counters() map[string]int64 {
	out := map[string]int64{"memo_hits": m.hits.Load(), "memo_misses": m.misses.Load()}
	if c, ok := m.F.(Counter); ok {
		for k, v := range c.Counters() {
			out[k] = v
		}
	}
	return out
}

// Counter is implemented by Funcs and judges that count events worth
// exporting as metrics.
type Counter interface {
	Counters() map[string]int64
}

// stable reports whether a score may be reused for the same SQL later.
func stable(s Score) bool {
	if eval.Transient(s.Class, s.Error) {
		return false
	}
	return s.Components["judge_fallback"] == 0
}

// nondeterministic mirrors eval's rule: SQL that may return different rows
// on each run is never cached.
func nondeterministic(sql string) bool {
	l := strings.ToLower(sql)
	return strings.Contains(l, "random") || strings.Contains(l, "'now'") ||
		strings.Contains(l, "current_") || strings.Contains(l, "changes(")
}

func cloneScore(s Score) Score {
	c := make(map[string]float64, len(s.Components))
	for k, v := range s.Components {
		c[k] = v
	}
	s.Components = c
	return s
}
