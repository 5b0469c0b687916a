// Package parallel runs indexed work on a bounded number of goroutines:
// the one worker pool that scoring, benchmark generation and statistics
// share, so cancellation, error choice and result order are decided once.
package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// For calls f(ctx, i) for every i in [0, n), at most workers at a time
// (workers <= 0: GOMAXPROCS), in order of i as workers free up. The ctx f
// receives ends at the first error, so running calls can stop and calls
// not yet started are skipped.
//
// The error returned is a cause, not a consequence: of the calls that
// failed before any stop, the lowest index's error (other than a
// cancellation); failing that, the lowest index's cancellation; else, when
// ctx ended before For returned, the lowest index's error that wraps ctx's
// (it says where the work stopped), or ctx's own. Errors returned after
// the stop (a query interrupted by it) never hide the one that caused it.
func For(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	cause := make([]bool, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				if err := f(ctx, i); err != nil {
					// An error after the stop may be its consequence (a
					// query interrupted): it never hides the cause.
					errs[i], cause[i] = err, ctx.Err() == nil
					cancel()
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i, err := range errs {
		if cause[i] && !isCancel(err) {
			return err
		}
	}
	for i, err := range errs {
		if cause[i] {
			return err
		}
	}
	if perr := parent.Err(); perr != nil {
		// No call failed on its own: the errors are the stop's. A call's
		// error that wraps ctx's says where it stopped; one that does not
		// (a query's own "interrupted") would read as a failure.
		for _, err := range errs {
			if errors.Is(err, perr) {
				return err
			}
		}
		return perr
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Map is For collecting each call's result at its index.
func Map[T any](ctx context.Context, n, workers int, f func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	err := For(ctx, n, workers, func(ctx context.Context, i int) error {
		v, err := f(ctx, i)
		out[i] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
