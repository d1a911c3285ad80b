package wire

import (
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
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

// connLog is where one connection's log lines go.
type connLog struct {
	log            *slog.Logger
	connections    bool // log_connections
	disconnections bool // log_disconnections
	remote         net.Addr
	started        time.Time // when the client connected, for the session's length
}

func newConnLog(s *Server, remote net.Addr) connLog {
	return connLog{log: s.log, connections: s.cfg.LogConnections, disconnections: s.cfg.LogDisconnections,
		remote: remote, started: time.Now()}
}

func (l connLog) received() {
	if !l.connections {
		return
	}
	h, p := remoteHostPort(l.remote)
	l.log.Info("connection received", "host", h, "port", p)
}

func (l connLog) authorized(pid uint32, info stmt.SessionInfo, isTLS bool) {
	if !l.connections {
		return
	}
	l.log.Info("connection authorized", "pid", pid, "user", info.User, "database", info.Database,
		"application_name", info.ApplicationName, "ssl", isTLS)
}

func (l connLog) disconnection(pid uint32, info stmt.SessionInfo) {
	if !l.disconnections {
		return
	}
	h, p := remoteHostPort(l.remote)
	l.log.Info("disconnection", "pid", pid, "session_time", time.Since(l.started).Round(time.Millisecond).String(),
		"user", info.User, "database", info.Database, "host", h, "port", p)
}

// startupFailure logs a refused login as PostgreSQL does (FATAL
// "password authentication failed for user ..."); other startup failures
// (a client that hung up, a CancelRequest) only at debug level.
func (l connLog) startupFailure(user string, err error) {
	h, p := remoteHostPort(l.remote)
	var se *pgerr.Error
	if errors.As(err, &se) && se.Code.Class() == pgerr.InvalidAuthorizationSpecification {
		l.log.Warn("authentication failed", "host", h, "port", p, "user", user, "sqlstate", se.Code, "error", se.Message)
		return
	}
	l.log.Debug("startup failed", "host", h, "port", p, "err", err)
}
