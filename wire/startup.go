package wire

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
)

var errAuthTimeout = errors.New("canceling authentication due to timeout")

// timedStartup runs startup under the authentication timeout, in one of the
// server's startup slots.
func (c *conn) timedStartup() (ok bool, err error) {
	defer c.srv.endStartup(c)
	c.authTimer = time.AfterFunc(c.srv.cfg.AuthenticationTimeout, func() {
		// Like PostgreSQL, send nothing: the client may be mid-message, or not
		// reading at all.
		c.srv.log.Info("canceling authentication due to timeout", "remote", c.t.raw.RemoteAddr())
		c.abort()
	})
	defer c.authTimer.Stop()
	return c.startup()
}

// refuseStartup answers a connection beyond MaxStartups without reading it.
func (c *conn) refuseStartup() {
	c.srv.log.Warn("too many connections in startup; refusing one", "remote", c.t.nc.RemoteAddr(), "max_startups", c.srv.cfg.MaxStartups)
	c.t.nc.SetDeadline(time.Now().Add(time.Second))
	c.t.sendFatal(pgerr.TooManyConnections, "sorry, too many clients already")
}

// startup runs the connection start: SSL/GSS negotiation, the startup
// packet, authentication and the ParameterStatus set. ok is false when the
// connection must close (a CancelRequest, a refusal, a failed login).
func (c *conn) startup() (ok bool, err error) {
	h := &handshake{srv: c.srv, t: c.t, ctx: c.ctx}
	params, err := h.readStartup()
	if err != nil {
		return false, err
	}
	c.startReadAhead()
	err = h.login(params)
	c.info = h.info
	if err != nil {
		c.t.sendFatalErr(err)
		return false, err
	}
	if !c.authTimer.Stop() {
		return false, errAuthTimeout // the timer fired: the connection is being aborted
	}
	// The cancel secret is set before register publishes the connection.
	if c.secret, err = newSecret(); err != nil {
		return false, fmt.Errorf("cancel secret: %w", err)
	}
	if !c.srv.register(c) {
		c.t.sendFatal(pgerr.TooManyConnections, "sorry, too many clients already")
		return false, errors.New("too many clients")
	}
	c.info.PID, c.info.Remote = c.pid, c.t.raw.RemoteAddr().String()
	// As PostgreSQL does, AuthenticationOk comes before the startup
	// parameters are applied: a refused one is then not taken by libpq as
	// a failed login worth retrying without TLS.
	c.t.send(&pgproto3.AuthenticationOk{})
	sess, err := c.newSession()
	if err != nil {
		c.srv.unregister(c)
		c.t.sendFatalErr(err)
		return false, err
	}
	c.ex.sess = sess
	c.watchProgress()
	c.sendParameterStatus()
	c.t.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.readyForQuery()
	return true, c.t.flush()
}

// newSession calls the factory, turning a panic into an error.
func (c *conn) newSession() (s Session, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = pgerr.Errorf(pgerr.InternalError, "session start failed: %v", p)
		}
	}()
	return c.srv.cfg.NewSession(c.info)
}

// sendParameterStatus sends PostgreSQL 15's set, overridden by the session's.
func (c *conn) sendParameterStatus() {
	ps := map[string]string{
		"application_name":              c.info.ApplicationName,
		"client_encoding":               "UTF8",
		"DateStyle":                     "ISO, MDY",
		"default_transaction_read_only": "off",
		"in_hot_standby":                "off",
		"integer_datetimes":             "on",
		"IntervalStyle":                 "postgres",
		"is_superuser":                  "on",
		"server_encoding":               "UTF8",
		"server_version":                "15.18",
		"session_authorization":         c.info.User,
		"standard_conforming_strings":   "on",
		"TimeZone":                      "UTC",
	}
	for k, v := range c.ex.sess.ParameterStatus() {
		ps[k] = v
	}
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, k := range keys {
		c.t.send(&pgproto3.ParameterStatus{Name: k, Value: ps[k]})
	}
}
