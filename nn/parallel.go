package nn

import "sync"

// workers is the parallelism of the engine's own (non-gemm) kernels.
var workers = 2

// numChunks is how many chunks parallelFor splits n items into.
func numChunks(n int) int {
	return max(1, min(workers, n))
}

// parallelFor runs fn over [0,n) split into numChunks(n) contiguous chunks,
// chunk c on its own goroutine. The split depends only on n and the worker
// count, never on scheduling, so per-chunk partial sums added in chunk order
// are bitwise reproducible.
func parallelFor(n int, fn func(c, lo, hi int)) {
	w := numChunks(n)
	if w <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	c := 0
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(c int) { defer wg.Done(); fn(c, lo, hi) }(c)
		c++
	}
	wg.Wait()
}

// parallelTasks runs fn(i) for i in [0,n) on workers goroutines, each
// taking tasks i ≡ w (mod workers). Tasks must write disjoint outputs.
func parallelTasks(n int, fn func(w, i int)) {
	nw := numChunks(n)
	if nw <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += nw {
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}
