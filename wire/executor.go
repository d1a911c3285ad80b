package wire

import (
	"context"
	"sync"
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
