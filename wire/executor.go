package wire

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// executor runs the connection's statements in its Session: each under a
// context that a CancelRequest, the client leaving or a hard shutdown
// cancels, inside the implicit transaction a pipeline or a multi-statement
// Query opens, its results streamed through the transport (portal.go,
// copy.go).
type executor struct {
	ctx  context.Context // the connection's
	t    *transport
	sess Session

	mu         sync.Mutex
	stmtCancel context.CancelFunc // the running statement's, for CancelRequest

	implicit bool // BeginImplicit was called since the last EndImplicit
}

// statementContext starts a statement: its context is cancelled by a
// CancelRequest, by the client disconnecting or by a hard shutdown.
func (e *executor) statementContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(e.ctx)
	e.mu.Lock()
	e.stmtCancel = cancel
	e.mu.Unlock()
	e.t.rd.watchAfter(watchDelay)
	return ctx, func() {
		e.t.rd.unwatch()
		e.mu.Lock()
		e.stmtCancel = nil
		e.mu.Unlock()
		cancel()
	}
}

// cancel cancels the running statement, if any (a CancelRequest).
func (e *executor) cancel() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stmtCancel != nil {
		e.stmtCancel()
	}
}

func (e *executor) beginImplicit() {
	e.sess.BeginImplicit()
	e.implicit = true
}

// endImplicit commits the implicit transaction of a pipeline or a
// multi-statement Query; a failed commit is the batch's error.
func (e *executor) endImplicit() {
	if !e.implicit {
		return
	}
	e.implicit = false
	ctx, done := e.statementContext()
	defer done()
	if err := guard(func() error { return e.sess.EndImplicit(ctx) }); err != nil {
		e.t.sendError(err)
	}
}

// guard runs a session call, turning a panic into an XX000 error so that a
// bug in one statement does not end the connection.
func guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = pgerr.Errorf(pgerr.InternalError, "internal error: %v", p)
		}
	}()
	return f()
}

// run executes the portal (the first time) and streams up to maxRows rows
// (0: all). describe sends RowDescription first, as the simple protocol does.
func (e *executor) run(ctx context.Context, p *portal, maxRows int, describe bool) error {
	if p.stmt.empty {
		e.t.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.done {
		e.t.send(&pgproto3.CommandComplete{CommandTag: []byte(p.doneTag)})
		return nil
	}
	if p.res == nil {
		if err := e.start(ctx, p, describe); err != nil || p.done {
			if err != nil {
				p.close()
			}
			return err
		}
	}
	err := p.stream(ctx, e.t, maxRows)
	if err != nil {
		p.close()
	}
	return err
}

// start executes the statement and handles results that are not row streams.
func (e *executor) start(ctx context.Context, p *portal, describe bool) error {
	var res *stmt.Result
	err := guard(func() (err error) {
		res, err = e.sess.Execute(ctx, p.stmt.prep, p.params)
		return err
	})
	if err != nil {
		return err
	}
	if res == nil {
		return pgerr.Errorf(pgerr.InternalError, "session returned no result")
	}
	p.res = res
	e.t.sendNotices(res.Notices)
	switch {
	case res.CopyIn != nil:
		return p.finish(e.t, "", copyIn(ctx, e.t, res))
	case res.CopyOut:
		return p.finish(e.t, "", copyOut(ctx, e.t, res))
	case res.Rows == nil:
		return p.finish(e.t, res.Tag, nil)
	}
	p.cols = res.Columns
	formats, err := columnFormats(p.formatCodes, len(p.cols))
	if err != nil {
		return err
	}
	if len(p.formatCodes) > 0 {
		p.formats = formats
	}
	if describe {
		e.t.sendRowDescription(p.cols, p.formats)
	}
	return nil
}
