package eval

import "sync/atomic"

// CacheStats describes a Scorer's result cache, for servers that export it
// as metrics: a reward server is only fast when K samples of a question cost
// one execution, and hits/misses show whether they do.
type CacheStats struct {
	// Hits counts lookups that found a result (or a run of the same query
	// already under way); gold lookups count too, so a question scored K
	// times adds K-1 gold hits.
	Hits int64
	// Misses counts lookups that executed the query.
	Misses int64
	// Entries is the number of results held now.
	Entries int
}

// cacheCounters are bumped by cache.get; atomics keep the hot path free of
// any lock beyond the one the cache already takes.
type cacheCounters struct {
	hits, misses atomic.Int64
}

// CacheStats returns the cache's counters so far. Predictions that bypass the
// cache (CachePredictions off, nondeterministic SQL) are not counted.
func (s *Scorer) CacheStats() CacheStats {
	c := &s.results
	c.mu.Lock()
	n := len(c.m)
	c.mu.Unlock()
	return CacheStats{Hits: c.counts.hits.Load(), Misses: c.counts.misses.Load(), Entries: n}
}
