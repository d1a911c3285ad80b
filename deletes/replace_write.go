package deletes

import (
	"context"
	"errors"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// replacement is what an UPDATE or MERGE wrote: the new rows' data files,
// the delete side's change, and every path written.
type replacement struct {
	added   []iceberg.DataFile
	change  *Change
	written []string
}

// writeReplacement writes the new rows (fresh, taken over) and the delete
// side of plans at once: they are independent files, and on object storage
// each write is a round trip. A failure of either cancels the other; what
// was written is in written either way, for the caller to remove.
func writeReplacement(ctx context.Context, head *table.Table, fresh []arrow.RecordBatch, write dataFileWriter, plans []RowDelete, mode Mode) (replacement, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		r    replacement
		werr error
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		r.added, _, werr = writeRowsWith(ctx, head, batchSource(fresh), write)
		if werr != nil {
			cancel(werr)
		}
	})
	change, perr := Prepare(ctx, head, plans, mode)
	if perr != nil {
		cancel(perr)
	}
	wg.Wait()
	for _, f := range r.added {
		r.written = append(r.written, f.FilePath())
	}
	if perr == nil {
		r.change = change
		r.written = append(r.written, change.Written()...)
	}
	return r, errors.Join(werr, perr)
}
