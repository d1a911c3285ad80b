package deletes

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// prefetchDepth is how many batches a prefetched source reads ahead.
const prefetchDepth = 4

// prefetchedAll yields the batches of srcs in order, all of one before the
// next, while up to workers of them are read at once, each up to depth
// batches ahead, on goroutines of their own: a rewrite then decodes and
// filters the old files while the writer encodes the new one, and a
// rewrite of many small files opens them and reads their footers on more
// than one core. The first error ends the rows; stopping early or ctx ending
// stops every source and releases what was read ahead.
func prefetchedAll(ctx context.Context, srcs []RowSource, workers, depth int) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		parent := ctx
		ctx, cancel := context.WithCancel(ctx)
		slots := make([]chan prefetchItem, len(srcs))
		for i := range slots {
			slots[i] = make(chan prefetchItem, depth)
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		finished := make([]bool, len(srcs)) // src i ran to its end; read after slots[i] closes
		for range min(max(workers, 1), len(srcs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(srcs) {
						return
					}
					feed(ctx, srcs[i], slots[i], &finished[i])
				}
			}()
		}
		defer func() {
			cancel()
			for _, slot := range slots { // what was read ahead and not taken
				for it := range slot {
					if it.b != nil {
						it.b.Release()
					}
				}
			}
			wg.Wait()
		}()
		for i, slot := range slots {
			for it := range slot {
				if !yield(it.b, it.err) || it.err != nil {
					return
				}
			}
			if !finished[i] && parent.Err() != nil {
				yield(nil, parent.Err()) // cut short: not the end of the rows
				return
			}
		}
	}
}

type prefetchItem struct {
	b   arrow.RecordBatch
	err error
}

// feed sends src's batches to slot and closes it, setting *finished first
// when src ran to its end. Every slot is fed even after a cancel (closed
// at once) so the consumer and the cleanup can range over all of them.
func feed(ctx context.Context, src RowSource, slot chan<- prefetchItem, finished *bool) {
	defer close(slot)
	if ctx.Err() != nil {
		return
	}
	for b, err := range src {
		select {
		case slot <- prefetchItem{b, err}:
		case <-ctx.Done():
			if b != nil {
				b.Release()
			}
			return
		}
		if err != nil {
			break
		}
	}
	*finished = true
}
