package parallel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	tests := []struct {
		name    string
		n       int
		workers int
		fail    map[int]error // index -> its error
		want    error
	}{
		{name: "none", n: 0, workers: 4},
		{name: "all succeed", n: 50, workers: 3},
		{name: "default workers", n: 10, workers: 0},
		{name: "one fails", n: 20, workers: 4, fail: map[int]error{7: errA}, want: errA},
		{name: "lowest index wins", n: 20, workers: 1, fail: map[int]error{3: errA, 2: errB}, want: errB},
		{name: "a cancellation is returned", n: 20, workers: 1, fail: map[int]error{1: context.Canceled}, want: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			got, err := Map(context.Background(), tc.n, tc.workers, func(_ context.Context, i int) (int, error) {
				calls.Add(1)
				return i * i, tc.fail[i]
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				if got != nil {
					t.Errorf("results %v with an error", got)
				}
				return
			}
			if calls.Load() != int64(tc.n) || len(got) != tc.n {
				t.Fatalf("%d calls, %d results; want %d", calls.Load(), len(got), tc.n)
			}
			for i, v := range got {
				if v != i*i {
					t.Errorf("result %d = %d, want %d (index order)", i, v, i*i)
				}
			}
		})
	}
}

func TestForStopsAfterError(t *testing.T) {
	var calls atomic.Int64
	err := For(context.Background(), 1000, 1, func(ctx context.Context, i int) error {
		calls.Add(1)
		if i == 2 {
			return fmt.Errorf("item %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "item 2" {
		t.Fatalf("err = %v, want item 2", err)
	}
	// One worker: the calls after the failure see the cancelled ctx.
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3 (the rest skipped)", calls.Load())
	}
}

func TestForCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	err := For(ctx, 10, 2, func(context.Context, int) error { calls.Add(1); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 0 {
		t.Errorf("%d calls on a cancelled context, want 0", calls.Load())
	}
}

// TestForKeepsTheCause checks that an error returned because of the stop
// (an interrupted query, worded as its own failure) does not hide the
// failure that caused the stop, even at a lower index.
func TestForKeepsTheCause(t *testing.T) {
	errCause := errors.New("the gold is broken")
	started := make(chan struct{})
	err := For(context.Background(), 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			close(started)
			<-ctx.Done()
			return errors.New("query interrupted") // not wrapping ctx.Err()
		}
		<-started
		return errCause
	})
	if !errors.Is(err, errCause) {
		t.Errorf("err = %v, want the cause %v", err, errCause)
	}
}

// TestForParentEndIsTheCause checks that when ctx itself ends, For returns
// ctx's error, not a call's error worded as its own failure.
func TestForParentEndIsTheCause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := For(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 1 {
			cancel()
		}
		<-ctx.Done()
		return errors.New("query interrupted") // not wrapping ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestForParentEndKeepsWhere: when ctx itself ends, a call's error that
// wraps ctx's is returned, so the caller learns where the work stopped.
func TestForParentEndKeepsWhere(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := For(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 1 {
			cancel()
		}
		<-ctx.Done()
		return fmt.Errorf("prompt %d: %w", i, ctx.Err())
	})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "prompt 0: ") {
		t.Errorf("err = %v, want prompt 0's, wrapping context.Canceled", err)
	}
}
