package lake

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
)

// cancellable is seq run on a goroutine of its own, so that its consumer
// returns as soon as ctx ends: a stopped iceberg-go reader waits for its
// workers to finish the batch each is decoding (a row group's columns:
// tens of milliseconds, hundreds on a busy machine), and a cancelled
// statement must answer within 100 ms. That wait, and cleanup (run once
// seq has ended), then happen in the background; so when the consumer
// stops once ctx has ended. A consumer that stops for its own reasons (a
// LIMIT reached, an error) still waits for both.
func cancellable(ctx context.Context, seq iter.Seq2[arrow.RecordBatch, error], cleanup func()) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		ch := make(chan pageResult)
		stop, finished := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(finished)
			defer cleanup()
			for rec, err := range seq {
				select {
				case ch <- pageResult{rec, err}:
				case <-stop:
					if rec != nil {
						rec.Release()
					}
					return
				}
				if err != nil {
					return
				}
			}
			close(ch)
		}()
		for {
			select {
			case r, ok := <-ch:
				if !ok {
					<-finished
					return
				}
				if !yield(r.rec, r.err) || r.err != nil {
					close(stop)
					if ctx.Err() == nil {
						<-finished
					}
					return
				}
			case <-ctx.Done():
				close(stop)
				yield(nil, context.Cause(ctx))
				return
			}
		}
	}
}
