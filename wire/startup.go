package wire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/pgerr"
)

// Startup packet codes (the first int32 after the length).
const (
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	codeCancelRequest = 80877102
	maxStartupPacket  = 10_000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
)

var (
	errCancelHandled = errors.New("cancel request handled")
	errAuthTimeout   = errors.New("canceling authentication due to timeout")
)

// timedStartup runs startup under the authentication timeout, in one of the
// server's startup slots.
func (c *conn) timedStartup() (ok bool, err error) {
	defer c.srv.endStartup(c)
	c.authTimer = time.AfterFunc(c.srv.cfg.AuthenticationTimeout, func() {
		// Like PostgreSQL, send nothing: the client may be mid-message, or not
		// reading at all.
		c.srv.log.Info("canceling authentication due to timeout", "remote", c.raw.RemoteAddr())
		c.abort()
	})
	defer c.authTimer.Stop()
	return c.startup()
}

// refuseStartup answers a connection beyond MaxStartups without reading it.
func (c *conn) refuseStartup() {
	c.srv.log.Warn("too many connections in startup; refusing one", "remote", c.nc.RemoteAddr(), "max_startups", c.srv.cfg.MaxStartups)
	c.nc.SetDeadline(time.Now().Add(time.Second))
	c.sendFatal(pgerr.TooManyConnections, "sorry, too many clients already")
}

// startup runs the connection start: SSL/GSS negotiation, the startup
// packet, authentication and the ParameterStatus set. ok is false when the
// connection must close (a CancelRequest, a refusal, a failed login).
func (c *conn) startup() (ok bool, err error) {
	params, err := c.readStartup()
	if err != nil {
		return false, err
	}
	c.startReadAhead()
	if err := c.checkEncryption(); err != nil {
		c.sendFatalErr(err)
		return false, err
	}
	info, err := sessionInfo(params)
	if err != nil {
		c.sendFatalErr(err)
		return false, err
	}
	c.info = info
	if err := c.authenticate(); err != nil {
		c.sendFatalErr(err)
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
		c.sendFatal(pgerr.TooManyConnections, "sorry, too many clients already")
		return false, errors.New("too many clients")
	}
	c.info.PID, c.info.Remote = c.pid, c.raw.RemoteAddr().String()
	// As PostgreSQL does, AuthenticationOk comes before the startup
	// parameters are applied: a refused one is then not taken by libpq as
	// a failed login worth retrying without TLS.
	c.send(&pgproto3.AuthenticationOk{})
	sess, err := c.newSession()
	if err != nil {
		c.srv.unregister(c)
		c.sendFatalErr(err)
		return false, err
	}
	c.sess = sess
	c.watchProgress()
	c.sendParameterStatus()
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.readyForQuery()
	return true, c.flush()
}

// checkEncryption refuses a plaintext client when TLS is required, before
// any password crosses the network.
func (c *conn) checkEncryption() error {
	if _, isTLS := c.nc.(*tls.Conn); isTLS || !c.srv.cfg.TLSRequired {
		return nil
	}
	return &pgerr.Error{Code: pgerr.InvalidAuthorizationSpecification, Severity: "FATAL",
		Message: "no encryption: this server requires TLS", Hint: "Connect with sslmode=require (or verify-ca, verify-full)."}
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

func (c *conn) sendFatalErr(err error) {
	e := errorResponse(err)
	e.Severity, e.SeverityUnlocalized = "FATAL", "FATAL"
	c.send(e)
	c.flush()
}

// readStartup reads packets until a StartupMessage, answering SSLRequest and
// GSSENCRequest on the way, and handling a CancelRequest completely.
func (c *conn) readStartup() (map[string]string, error) {
	for {
		body, err := readPacket(c.nc)
		if err != nil {
			return nil, err
		}
		code := binary.BigEndian.Uint32(body)
		switch {
		case code == codeSSLRequest && len(body) == 4:
			if err := c.answerSSL(); err != nil {
				return nil, err
			}
		case code == codeGSSENCRequest && len(body) == 4:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return nil, fmt.Errorf("answer GSSENCRequest: %w", err)
			}
		case code == codeCancelRequest && len(body) >= 12:
			c.srv.cancel(binary.BigEndian.Uint32(body[4:]), body[8:])
			return nil, errCancelHandled
		case code>>16 == 3:
			return c.startupParams(code, body[4:])
		default:
			err := pgerr.Errorf(pgerr.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", code>>16, code&0xffff)
			c.sendFatalErr(err)
			return nil, err
		}
	}
}

// readPacket reads one length-prefixed startup-phase packet.
func readPacket(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("read startup packet: %w", err)
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < 8 || n > maxStartupPacket {
		return nil, fmt.Errorf("invalid startup packet length %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read startup packet: %w", err)
	}
	return body, nil
}

func (c *conn) answerSSL() error {
	_, isTLS := c.nc.(*tls.Conn)
	if c.srv.cfg.TLS == nil || isTLS {
		_, err := c.nc.Write([]byte{'N'})
		return err
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return fmt.Errorf("answer SSLRequest: %w", err)
	}
	tc := tls.Server(c.nc, c.srv.cfg.TLS)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		return fmt.Errorf("TLS handshake: %w", err)
	}
	c.nc = tc
	return nil
}

// startupParams decodes name/value pairs and negotiates the protocol version:
// a newer 3.x minor or unknown _pq_ options get NegotiateProtocolVersion.
func (c *conn) startupParams(version uint32, b []byte) (map[string]string, error) {
	params := map[string]string{}
	var unknown []string
	for len(b) > 0 && b[0] != 0 {
		k, rest, ok1 := bytes.Cut(b, []byte{0})
		v, rest2, ok2 := bytes.Cut(rest, []byte{0})
		if !ok1 || !ok2 {
			err := pgerr.Errorf(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
			c.sendFatalErr(err)
			return nil, err
		}
		if strings.HasPrefix(string(k), "_pq_.") {
			unknown = append(unknown, string(k))
		} else {
			params[string(k)] = string(v)
		}
		b = rest2
	}
	if version&0xffff != 0 || len(unknown) > 0 {
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknown})
	}
	return params, nil
}

func sessionInfo(params map[string]string) (exec.SessionInfo, error) {
	user := params["user"]
	if user == "" {
		return exec.SessionInfo{}, pgerr.Errorf(pgerr.InvalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet")
	}
	info := exec.SessionInfo{User: user, Database: params["database"], ApplicationName: params["application_name"], Options: map[string]string{}}
	if info.Database == "" {
		info.Database = user
	}
	for k, v := range params {
		if k != "user" && k != "database" && k != "application_name" {
			info.Options[k] = v
		}
	}
	return info, nil
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
	for k, v := range c.sess.ParameterStatus() {
		ps[k] = v
	}
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, k := range keys {
		c.send(&pgproto3.ParameterStatus{Name: k, Value: ps[k]})
	}
}
