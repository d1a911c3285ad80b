package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestForEach: every item runs exactly once; the first error is returned
// and nothing is still running once ForEach has returned, also when an
// item outlasts all the others; a cancelled context runs nothing and
// returns its cause.
func TestForEach(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 7, 300} {
		for _, workers := range []int{1, 3, 16} {
			t.Run(fmt.Sprintf("n%d-w%d", n, workers), func(t *testing.T) {
				runs := make([]atomic.Int32, n)
				if err := ForEach(ctx, n, workers, func(_ context.Context, i int) error {
					runs[i].Add(1)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				for i := range runs {
					if c := runs[i].Load(); c != 1 {
						t.Fatalf("item %d ran %d times", i, c)
					}
				}
			})
		}
	}

	boom := errors.New("boom")
	var running atomic.Int32
	err := ForEach(ctx, 500, 4, func(_ context.Context, i int) error {
		running.Add(1)
		defer running.Add(-1)
		if i == 20 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || running.Load() != 0 {
		t.Fatalf("error %v (want boom), %d items still running after return", err, running.Load())
	}

	// Item 0 waits for all the others, then takes a while: it must be
	// waited for whoever runs it.
	for round := range 20 {
		const n = 40
		var finished, running atomic.Int32
		release := make(chan struct{})
		err := ForEach(ctx, n, 4, func(_ context.Context, i int) error {
			running.Add(1)
			defer running.Add(-1)
			if i == 0 {
				<-release
				spin(2_000_000)
			} else if finished.Add(1) == n-1 {
				close(release)
			}
			return nil
		})
		if err != nil || running.Load() != 0 {
			t.Fatalf("round %d: err %v, %d items still running after return", round, err, running.Load())
		}
	}

	why := errors.New("statement cancelled")
	cctx, cancel := context.WithCancelCause(ctx)
	cancel(why)
	var ran atomic.Int32
	err = ForEach(cctx, 50, 4, func(context.Context, int) error { ran.Add(1); return nil })
	if !errors.Is(err, why) || ran.Load() != 0 {
		t.Fatalf("cancelled: err %v, %d items ran", err, ran.Load())
	}
}

// spin keeps the goroutine busy for about n steps.
func spin(n int) int {
	x := 0
	for i := range n {
		x ^= i * 31
	}
	return x
}
