package deletes

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// prefetchDepth is how many batches a prefetched source reads ahead.
const prefetchDepth = 4

// prefetched runs src on its own goroutine, up to depth batches ahead of
// the consumer: a rewrite then decodes and filters the old files while the
// writer encodes and compresses the new one, on two cores instead of one
// after the other. Stopping early or ctx ending stops src and releases
// the batches read ahead.
func prefetched(ctx context.Context, src RowSource, depth int) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		type item struct {
			b   arrow.RecordBatch
			err error
		}
		parent := ctx
		ctx, cancel := context.WithCancel(ctx)
		items := make(chan item, depth)
		done := make(chan struct{})
		finished := false // src ran to its end; read after items closes
		go func() {
			defer close(done)
			defer close(items)
			for b, err := range src {
				select {
				case items <- item{b, err}:
				case <-ctx.Done():
					if b != nil {
						b.Release()
					}
					return
				}
				if err != nil {
					return
				}
			}
			finished = true
		}()
		defer func() {
			cancel()
			for it := range items { // what was read ahead and not taken
				if it.b != nil {
					it.b.Release()
				}
			}
			<-done
		}()
		for it := range items {
			if !yield(it.b, it.err) || it.err != nil {
				return
			}
		}
		if !finished && parent.Err() != nil {
			yield(nil, parent.Err()) // cut short: not the end of the rows
		}
	}
}
