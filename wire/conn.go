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
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// conn is one client connection: the protocol state machine around a
// Session. It reads each message and hands it to the part that holds its
// job: the transport moves messages, the executor runs statements, the
// extended protocol keeps statements and portals; the connection keeps the
// login, the idle limits and the cancel key.
type conn struct {
	srv *Server
	t   *transport
	log connLog
	ex  *executor
	ext *extendedProtocol

	pid    uint32
	secret [4]byte
	info   stmt.SessionInfo

	// ctx ends when the client disconnects or the server stops hard.
	ctx       context.Context
	ctxCancel context.CancelFunc
	// authTimer aborts the connection when startup and authentication take
	// longer than AuthenticationTimeout.
	authTimer *time.Timer

	idle     bool // ReadyForQuery sent and nothing received since
	idleInTx bool // the idle limit in force is idle_in_transaction_session_timeout
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.hardCtx)
	t := &transport{raw: nc, nc: nc}
	ex := &executor{ctx: ctx, t: t}
	return &conn{
		srv: s, t: t, log: newConnLog(s, nc.RemoteAddr()), ctx: ctx, ctxCancel: cancel,
		ex:  ex,
		ext: newExtendedProtocol(ex),
	}
}

// serve runs the connection to its end. Nothing that happens in it, including
// a panic in the session, may take the server down.
func (c *conn) serve() {
	defer c.t.nc.Close()
	defer c.ctxCancel()
	defer func() {
		if c.t.rd != nil {
			c.t.rd.close()
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("panic in connection", "panic", p, "stack", string(debug.Stack()))
			c.t.sendFatal(pgerr.InternalError, fmt.Sprintf("internal error: %v", p))
		}
	}()
	if !c.srv.beginStartup(c) {
		c.refuseStartup()
		return
	}
	c.log.received()
	ok, err := c.timedStartup()
	if err != nil {
		c.log.startupFailure(c.info.User, err)
	}
	if !ok {
		return
	}
	c.log.authorized(c.pid, c.info, c.t.isTLS())
	defer func() { c.log.disconnection(c.pid, c.info) }()
	defer c.srv.unregister(c)
	defer c.closeSession()
	if err := c.loop(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		c.srv.log.Debug("connection ended", "pid", c.pid, "err", err)
	}
}

func (c *conn) closeSession() {
	for _, p := range c.ext.portals {
		p.close()
	}
	if c.ex.sess != nil {
		c.ex.sess.Close()
	}
}

func (c *conn) startReadAhead() {
	c.t.startReadAhead(c.srv.cfg.MaxMessageSize, c.ctxCancel, c.ctx.Done(), c.waitPolicy)
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
	t, ok := c.ex.sess.(idleInTxTimer)
	if !ok || c.ex.sess.TxStatus() == stmt.TxIdle {
		return 0
	}
	return t.IdleInTransactionTimeout()
}

// loop reads and dispatches messages until Terminate, EOF or a fatal error.
func (c *conn) loop() error {
	for {
		// Output waits for ReadyForQuery (or Flush, or a full buffer), as in
		// PostgreSQL: a pipelined Parse/Bind/Execute/Sync is one write.
		if c.idle || len(c.t.out) >= flushThreshold {
			if err := c.t.flush(); err != nil {
				return err
			}
		}
		msg, err := c.t.be.Receive()
		if err != nil {
			return c.receiveFailed(err)
		}
		c.idle = false
		if c.ext.held != nil {
			c.ext.runHeld(msg)
		}
		if c.ext.skips(msg) {
			continue
		}
		stop, err := c.dispatch(msg)
		if err != nil || stop {
			c.t.flush()
			return err
		}
	}
}

func (c *conn) receiveFailed(err error) error {
	switch {
	case errors.Is(err, errIdleTimeout) && c.idleInTx:
		c.t.sendFatal(pgerr.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout")
	case errors.Is(err, errIdleTimeout):
		c.t.sendFatal(pgerr.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	case errors.Is(err, errDraining):
		c.t.sendFatal(pgerr.AdminShutdown, "terminating connection due to administrator command")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), c.ctx.Err() != nil:
		return io.EOF
	default:
		var tooBig *pgproto3.ExceededMaxBodyLenErr
		if errors.As(err, &tooBig) {
			c.t.sendFatal(pgerr.ProtocolViolation, fmt.Sprintf("invalid message length %d (limit %d)", tooBig.ActualBodyLen, tooBig.MaxExpectedBodyLen))
		} else {
			c.t.sendFatal(pgerr.ProtocolViolation, "invalid frontend message: "+err.Error())
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
		c.ext.report(c.ext.parse(m))
	case *pgproto3.Bind:
		c.ext.report(c.ext.bind(m))
	case *pgproto3.Describe:
		c.ext.report(c.ext.describe(m))
	case *pgproto3.Execute:
		if c.ext.holds(m) {
			c.ext.held = m
			break
		}
		c.ext.report(c.ext.execute(m))
	case *pgproto3.Close:
		c.ext.report(c.ext.close(m))
	case *pgproto3.Sync:
		c.ext.sync()
		c.readyForQuery()
	case *pgproto3.Flush:
		return false, c.t.flush()
	case *pgproto3.Terminate:
		return true, nil
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Stray COPY messages after a COPY ended in error are ignored, as in PostgreSQL.
	default:
		c.t.sendFatal(pgerr.ProtocolViolation, fmt.Sprintf("unexpected message type %T", msg))
		return true, nil
	}
	return false, c.t.err
}

func (c *conn) readyForQuery() {
	c.t.send(&pgproto3.ReadyForQuery{TxStatus: c.ex.sess.TxStatus()})
	c.idle = true
}

// abort is the hard stop: cancel everything and unblock the socket.
func (c *conn) abort() {
	c.ctxCancel()
	c.t.raw.SetDeadline(time.Now())
}

func (c *conn) secretMatches(secret []byte) bool {
	return len(secret) == len(c.secret) && subtle.ConstantTimeCompare(secret, c.secret[:]) == 1
}

func newSecret() ([4]byte, error) {
	var s [4]byte
	_, err := rand.Read(s[:])
	return s, err
}
