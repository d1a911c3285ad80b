package deletes

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/compute"
)

// TestForEachParallel: every item runs exactly once, with compute kernels
// single-threaded; the first error is returned, and nothing is still
// running or starts once it has returned; a cancelled context runs nothing.
func TestForEachParallel(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 7, 300} {
		for _, workers := range []int{1, 3, 16} {
			t.Run(fmt.Sprintf("n%d-w%d", n, workers), func(t *testing.T) {
				runs := make([]atomic.Int32, n)
				var serial atomic.Bool
				serial.Store(true)
				err := forEachParallel(ctx, n, workers, func(ctx context.Context, i int) error {
					runs[i].Add(1)
					if compute.GetExecCtx(ctx).NumParallel != 1 {
						serial.Store(false)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				for i := range runs {
					if c := runs[i].Load(); c != 1 {
						t.Fatalf("item %d ran %d times", i, c)
					}
				}
				if !serial.Load() {
					t.Fatal("compute kernels were left parallel")
				}
			})
		}
	}

	boom := errors.New("boom")
	var running, after atomic.Int32
	var done atomic.Bool
	err := forEachParallel(ctx, 500, 4, func(ctx context.Context, i int) error {
		running.Add(1)
		defer running.Add(-1)
		if done.Load() {
			after.Add(1)
		}
		if i == 20 {
			return boom
		}
		return nil
	})
	done.Store(true)
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if r := running.Load(); r != 0 {
		t.Fatalf("%d items still running after return", r)
	}

	// An item still running when the others are done is waited for: item 0
	// waits for all the others, then takes a while.
	for round := range 20 {
		const n = 40
		var finished, running atomic.Int32
		release := make(chan struct{})
		err := forEachParallel(ctx, n, 4, func(ctx context.Context, i int) error {
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

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	var ran atomic.Int32
	err = forEachParallel(cctx, 50, 4, func(context.Context, int) error { ran.Add(1); return nil })
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Fatalf("cancelled: err %v, %d items ran", err, ran.Load())
	}
	if a := after.Load(); a != 0 {
		t.Fatalf("%d items started after return", a)
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
