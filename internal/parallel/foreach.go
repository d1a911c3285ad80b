// Package parallel runs a loop's items on a few goroutines.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// ForEach runs fn for 0..n-1 on at most workers goroutines, the caller's
// among them, and returns the first error fn returned (cancelling the
// items not started yet) or the cause of ctx's cancellation.
//
// Items are claimed from a counter, not handed over a channel: on a busy
// server every hand-over waited for the scheduler, and a statement planning
// 200 small files spent most of its time queued (2 ms a file against 30 µs
// alone). The caller claims items too, so it never waits on a worker that
// has not been scheduled yet, only for the items workers are running.
func ForEach(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next    atomic.Int64
		pending sync.WaitGroup
	)
	pending.Add(n)
	run := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if ctx.Err() == nil {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
			pending.Done()
		}
	}
	for w := 1; w < min(workers, n); w++ {
		go run()
	}
	run()
	pending.Wait()
	return context.Cause(ctx)
}
