package session

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/stmt"
)

// statementHolds are what a statement holds from its start until its rows
// are closed or its COPY data is loaded: the snapshots it reads, which
// expiry keeps (lake.Readers), its place among this process's
// writers, whose files orphan removal leaves alone (lake.Writes), and its
// share of the server's memory (engine.MemAccount), given back whole
// whatever its operators let go of.
type statementHolds struct {
	reads  *lake.ReadSet
	unhold func()
	mem    *engine.MemAccount
	// leave ends Execute's call on mem: rows fetched later run under
	// their fetch's context.
	leave func()
	once  sync.Once
}

// holdStatement takes a statement of owner's (its session) holds from
// start; ctx carries them to every table it loads, to the maintenance it
// runs and to the operators that draw on the server's memory.
func (e *Engine) holdStatement(ctx context.Context, start time.Time, owner any) (context.Context, *statementHolds) {
	wh := e.wh
	h := &statementHolds{reads: wh.Commits().Readers().NewReadSet(), mem: e.mem.Open(owner)}
	id, unhold := wh.Commits().Writes().Hold(nil, start)
	h.unhold = unhold
	leave, left := h.mem.Enter(ctx), sync.Once{}
	h.leave = func() { left.Do(leave) }
	ctx = lake.WithWriteStart(lake.WithReadSet(ctx, h.reads), start)
	return engine.WithMemAccount(lake.WithWriteHold(ctx, id), h.mem), h
}

func (h *statementHolds) release() {
	h.leave()
	h.once.Do(func() {
		h.reads.Release()
		h.unhold()
		h.mem.Close()
	})
}

// follow keeps the holds while the statement's rows or COPY data flow,
// and releases them otherwise.
func (h *statementHolds) follow(res *stmt.Result) *stmt.Result {
	h.leave()
	switch {
	case res.Rows != nil:
		res.Rows = &heldRows{Rows: res.Rows, h: h}
	case res.CopyIn != nil:
		load := res.CopyIn.Load
		res.CopyIn.Load = func(ctx context.Context, in io.Reader) (int64, error) {
			defer h.release()
			defer h.mem.Enter(ctx)()
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

func (r *heldRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	defer r.h.mem.Enter(ctx)()
	return r.Rows.Next(ctx)
}

func (r *heldRows) Close() error {
	defer r.h.release()
	return r.Rows.Close()
}
