package wire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/pgerr"
)

// conn is one client connection: the protocol state machine around a Session.
type conn struct {
	srv *Server
	raw net.Conn // the accepted socket, for other goroutines: nc may become TLS
	// started is when the client connected, for the disconnection log.
	started time.Time
	nc      net.Conn
	be      *pgproto3.Backend
	rd      *readAhead
	out     []byte // pending output, flushed at Sync/Flush/ReadyForQuery or when large
	outErr  error
	// wmu orders writes to nc: progress NOTICEs come from another goroutine
	// while a statement runs.
	wmu    sync.Mutex
	sess   Session
	pid    uint32
	secret [4]byte
	info   exec.SessionInfo

	// ctx ends when the client disconnects or the server stops hard.
	ctx       context.Context
	ctxCancel context.CancelFunc
	// authTimer aborts the connection when startup and authentication take
	// longer than AuthenticationTimeout.
	authTimer *time.Timer

	mu         sync.Mutex
	stmtCancel context.CancelFunc // the running statement's, for CancelRequest

	idle           bool // ReadyForQuery sent and nothing received since
	idleInTx       bool // the idle limit in force is idle_in_transaction_session_timeout
	ignoreTillSync bool // an extended-protocol error discards messages until Sync
	// held is an Execute outside a block waiting for the next message (see
	// pipeline.go).
	held     *pgproto3.Execute
	implicit bool // BeginImplicit was called since the last EndImplicit
	stmts    map[string]*statement
	portals  map[string]*portal
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.hardCtx)
	return &conn{
		srv: s, raw: nc, nc: nc, ctx: ctx, ctxCancel: cancel, started: time.Now(),
		stmts:   map[string]*statement{},
		portals: map[string]*portal{},
	}
}

// serve runs the connection to its end. Nothing that happens in it, including
// a panic in the session, may take the server down.
func (c *conn) serve() {
	defer c.nc.Close()
	defer c.ctxCancel()
	defer func() {
		if c.rd != nil {
			c.rd.close()
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("panic in connection", "panic", p, "stack", string(debug.Stack()))
			c.sendFatal(pgerr.InternalError, fmt.Sprintf("internal error: %v", p))
		}
	}()
	if !c.srv.beginStartup(c) {
		c.refuseStartup()
		return
	}
	c.logReceived()
	ok, err := c.timedStartup()
	if err != nil {
		c.logStartupFailure(err)
	}
	if !ok {
		return
	}
	c.logAuthorized()
	defer c.logDisconnection()
	defer c.srv.unregister(c)
	defer c.closeSession()
	if err := c.loop(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		c.srv.log.Debug("connection ended", "pid", c.pid, "err", err)
	}
}

func (c *conn) closeSession() {
	for _, p := range c.portals {
		p.close()
	}
	if c.sess != nil {
		c.sess.Close()
	}
}

// attachBackend switches reading to the read-ahead goroutine once the
// (possibly TLS) stream is final.
func (c *conn) attachBackend(r io.Reader) {
	c.be = pgproto3.NewBackend(r, io.Discard)
	c.be.SetMaxBodyLen(c.srv.cfg.MaxMessageSize)
}

func (c *conn) startReadAhead() {
	c.rd = newReadAhead(c.nc, c.ctxCancel, c.ctx.Done(), c.waitPolicy)
	c.attachBackend(c.rd)
}

// waitPolicy applies the idle timeout and the drain signal only between
// statements, never while a client is mid-way through a batch.
func (c *conn) waitPolicy() (time.Duration, <-chan struct{}) {
	if !c.idle {
		return 0, nil
	}
	limit := c.srv.cfg.IdleTimeout
	c.idleInTx = false
	if inTx := c.idleInTxTimeout(); inTx > 0 && (limit == 0 || inTx < limit) {
		limit, c.idleInTx = inTx, true
	}
	return limit, c.srv.draining
}

// idleInTxTimer is a session that ends blocks left idle (its
// idle_in_transaction_session_timeout).
type idleInTxTimer interface{ IdleInTransactionTimeout() time.Duration }

// idleInTxTimeout is the session's limit while idle inside a block, 0 when
// it is not in one or sets none.
func (c *conn) idleInTxTimeout() time.Duration {
	t, ok := c.sess.(idleInTxTimer)
	if !ok || c.sess.TxStatus() == exec.TxIdle {
		return 0
	}
	return t.IdleInTransactionTimeout()
}

// loop reads and dispatches messages until Terminate, EOF or a fatal error.
func (c *conn) loop() error {
	for {
		// Output waits for ReadyForQuery (or Flush, or a full buffer), as in
		// PostgreSQL: a pipelined Parse/Bind/Execute/Sync is one write.
		if c.idle || len(c.out) >= flushThreshold {
			if err := c.flush(); err != nil {
				return err
			}
		}
		msg, err := c.be.Receive()
		if err != nil {
			return c.receiveFailed(err)
		}
		c.idle = false
		if c.held != nil {
			c.runHeld(msg)
		}
		if c.ignoreTillSync {
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate:
			default:
				continue
			}
		}
		stop, err := c.dispatch(msg)
		if err != nil || stop {
			c.flush()
			return err
		}
	}
}

func (c *conn) receiveFailed(err error) error {
	switch {
	case errors.Is(err, errIdleTimeout) && c.idleInTx:
		c.sendFatal(pgerr.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout")
	case errors.Is(err, errIdleTimeout):
		c.sendFatal(pgerr.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	case errors.Is(err, errDraining):
		c.sendFatal(pgerr.AdminShutdown, "terminating connection due to administrator command")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), c.ctx.Err() != nil:
		return io.EOF
	default:
		var tooBig *pgproto3.ExceededMaxBodyLenErr
		if errors.As(err, &tooBig) {
			c.sendFatal(pgerr.ProtocolViolation, fmt.Sprintf("invalid message length %d (limit %d)", tooBig.ActualBodyLen, tooBig.MaxExpectedBodyLen))
		} else {
			c.sendFatal(pgerr.ProtocolViolation, "invalid frontend message: "+err.Error())
		}
	}
	return err
}

// dispatch handles one message; stop ends the connection.
func (c *conn) dispatch(msg pgproto3.FrontendMessage) (stop bool, err error) {
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.handleQuery(m.String)
	case *pgproto3.Parse:
		c.extended(c.handleParse(m))
	case *pgproto3.Bind:
		c.extended(c.handleBind(m))
	case *pgproto3.Describe:
		c.extended(c.handleDescribe(m))
	case *pgproto3.Execute:
		if c.holds(m) {
			c.held = m
			break
		}
		c.extended(c.handleExecute(m))
	case *pgproto3.Close:
		c.extended(c.handleClose(m))
	case *pgproto3.Sync:
		c.handleSync()
	case *pgproto3.Flush:
		return false, c.flush()
	case *pgproto3.Terminate:
		return true, nil
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Stray COPY messages after a COPY ended in error are ignored, as in PostgreSQL.
	default:
		c.sendFatal(pgerr.ProtocolViolation, fmt.Sprintf("unexpected message type %T", msg))
		return true, nil
	}
	return false, c.outErr
}

// extended reports an extended-protocol error and starts discarding until Sync.
func (c *conn) extended(err error) {
	if err != nil {
		c.sendError(err)
		c.ignoreTillSync = true
	}
}

func (c *conn) readyForQuery() {
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	c.idle = true
}

// statementContext starts a statement: its context is cancelled by a
// CancelRequest, by the client disconnecting or by a hard shutdown.
func (c *conn) statementContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.stmtCancel = cancel
	c.mu.Unlock()
	c.rd.watchAfter(watchDelay)
	return ctx, func() {
		c.rd.unwatch()
		c.mu.Lock()
		c.stmtCancel = nil
		c.mu.Unlock()
		cancel()
	}
}

func (c *conn) cancelStatement() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stmtCancel != nil {
		c.stmtCancel()
	}
}

// abort is the hard stop: cancel everything and unblock the socket.
func (c *conn) abort() {
	c.ctxCancel()
	c.raw.SetDeadline(time.Now())
}

func (c *conn) secretMatches(secret []byte) bool {
	return len(secret) == len(c.secret) && subtle.ConstantTimeCompare(secret, c.secret[:]) == 1
}

func newSecret() ([4]byte, error) {
	var s [4]byte
	_, err := rand.Read(s[:])
	return s, err
}
