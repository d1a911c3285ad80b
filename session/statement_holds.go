package session

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/stmt"
)

// statementHolds are what a statement holds from its start until its rows
// are closed or its COPY data is loaded: the snapshots it reads, which
// expiry keeps (lake.Readers), and its place among this process's
// writers, whose files orphan removal leaves alone (lake.Writes).
type statementHolds struct {
	reads  *lake.ReadSet
	unhold func()
	once   sync.Once
}

// holdStatement takes a statement's holds from start; ctx carries them to
// every table it loads and to the maintenance it runs.
func (e *Engine) holdStatement(ctx context.Context, start time.Time) (context.Context, *statementHolds) {
	wh := e.wh
	h := &statementHolds{reads: wh.Commits().Readers().NewReadSet()}
	id, unhold := wh.Commits().Writes().Hold(nil, start)
	h.unhold = unhold
	ctx = lake.WithWriteStart(lake.WithReadSet(ctx, h.reads), start)
	return lake.WithWriteHold(ctx, id), h
}

func (h *statementHolds) release() {
	h.once.Do(func() {
		h.reads.Release()
		h.unhold()
	})
}

// follow keeps the holds while the statement's rows or COPY data flow,
// and releases them otherwise.
func (h *statementHolds) follow(res *stmt.Result) *stmt.Result {
	switch {
	case res.Rows != nil:
		res.Rows = &heldRows{Rows: res.Rows, h: h}
	case res.CopyIn != nil:
		load := res.CopyIn.Load
		res.CopyIn.Load = func(ctx context.Context, in io.Reader) (int64, error) {
			defer h.release()
			return load(ctx, in)
		}
	default:
		h.release()
	}
	return res
}

// heldRows releases a statement's holds when its rows are closed.
type heldRows struct {
	stmt.Rows
	h *statementHolds
}

func (r *heldRows) Close() error {
	defer r.h.release()
	return r.Rows.Close()
}
