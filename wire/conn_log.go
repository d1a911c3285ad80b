package wire

import (
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// Connection logging, PostgreSQL's log_connections and log_disconnections:
// "connection received" when a client connects, "connection authorized"
// once it logged in, "disconnection" with the session's length when it
// ends. Failed logins are logged whichever is set.

// remoteHostPort splits a remote address as PostgreSQL's host= port= show it.
func remoteHostPort(a net.Addr) (string, string) {
	if a == nil {
		return "", ""
	}
	h, p, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), ""
	}
	return h, p
}

func (c *conn) logReceived() {
	if !c.srv.cfg.LogConnections {
		return
	}
	h, p := remoteHostPort(c.raw.RemoteAddr())
	c.srv.log.Info("connection received", "host", h, "port", p)
}

func (c *conn) logAuthorized() {
	if !c.srv.cfg.LogConnections {
		return
	}
	_, isTLS := c.nc.(*tls.Conn)
	c.srv.log.Info("connection authorized", "pid", c.pid, "user", c.info.User, "database", c.info.Database,
		"application_name", c.info.ApplicationName, "ssl", isTLS)
}

func (c *conn) logDisconnection() {
	if !c.srv.cfg.LogDisconnections {
		return
	}
	h, p := remoteHostPort(c.raw.RemoteAddr())
	c.srv.log.Info("disconnection", "pid", c.pid, "session_time", time.Since(c.started).Round(time.Millisecond).String(),
		"user", c.info.User, "database", c.info.Database, "host", h, "port", p)
}

// logStartupFailure logs a refused login as PostgreSQL does (FATAL
// "password authentication failed for user ..."); other startup failures
// (a client that hung up, a CancelRequest) only at debug level.
func (c *conn) logStartupFailure(err error) {
	h, p := remoteHostPort(c.raw.RemoteAddr())
	var se *pgerr.Error
	if errors.As(err, &se) && se.Code.Class() == pgerr.InvalidAuthorizationSpecification {
		c.srv.log.Warn("authentication failed", "host", h, "port", p, "user", c.info.User, "sqlstate", se.Code, "error", se.Message)
		return
	}
	c.srv.log.Debug("startup failed", "host", h, "port", p, "err", err)
}
