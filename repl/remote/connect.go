package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Options say how to reach a server.
type Options struct {
	Settings Settings
	// Password is asked for when the server wants a password and neither
	// Settings nor ~/.pgpass holds one; nil makes that a failure
	// (ErrPasswordNeeded).
	Password func(ctx context.Context, user string) (string, error)
}

// ErrPasswordNeeded is why connecting failed when the server asked for a
// password and none was given (libpq's "no password supplied").
var ErrPasswordNeeded = errors.New("the server asks for a password and none was given")

// Connect opens a session as psql does: the settings (and PG* variables
// and ~/.pgpass for what they leave out, which pgconn reads as libpq
// does), sslmode prefer by default, and a password asked for only when
// the server wants one.
func Connect(ctx context.Context, o Options) (*Session, error) {
	cfg, err := pgconn.ParseConfig(o.Settings.String())
	if err != nil {
		return nil, fmt.Errorf("invalid connection settings: %w", err)
	}
	t := targetOf(cfg)
	s, err := dial(ctx, cfg, t)
	if errors.Is(err, ErrPasswordNeeded) && o.Password != nil {
		var perr error
		if cfg.Password, perr = o.Password(ctx, cfg.User); perr != nil {
			return nil, fmt.Errorf("read password: %w", perr)
		}
		s, err = dial(ctx, cfg, t)
	}
	if err != nil {
		return nil, &connectError{target: t, err: err}
	}
	return s, nil
}

func dial(ctx context.Context, cfg *pgconn.Config, t target) (*Session, error) {
	var guard *authGuard
	cfg.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
		guard = &authGuard{Conn: c, armed: cfg.Password == ""}
		return guard, nil
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	guard.armed = false
	return &Session{conn: conn, guard: guard, target: t}, nil
}

// authGuard is the connection under pgconn. While logging in without a
// password it stops a password message ('p': PasswordMessage and the SASL
// and GSS responses), which means the server asked for one: instead of an
// empty password the login fails with ErrPasswordNeeded, and the shell
// can prompt.
type authGuard struct {
	net.Conn
	armed bool
}

func (g *authGuard) Write(p []byte) (int, error) {
	if g.armed && len(p) > 0 && p[0] == 'p' {
		return 0, ErrPasswordNeeded
	}
	return g.Conn.Write(p)
}

// target is where a session connects: the first host of the settings, as
// psql's \conninfo names it.
type target struct {
	host, port, user, database string
}

func targetOf(cfg *pgconn.Config) target {
	db := cfg.Database
	if db == "" {
		db = cfg.User // the server's default, as libpq's
	}
	return target{host: cfg.Host, port: strconv.Itoa(int(cfg.Port)), user: cfg.User, database: db}
}

func (t target) socket() bool { return strings.HasPrefix(t.host, "/") }

// where is libpq's name for the server in connection errors.
func (t target) where() string {
	if t.socket() {
		return fmt.Sprintf("connection to server on socket \"%s/.s.PGSQL.%s\"", t.host, t.port)
	}
	return fmt.Sprintf("connection to server at \"%s\", port %s", t.host, t.port)
}

// ConnInfo is psql's \conninfo, with its SSL line on a TLS connection.
func (s *Session) ConnInfo() string {
	t := s.target
	var b strings.Builder
	if t.socket() {
		fmt.Fprintf(&b, "You are connected to database \"%s\" as user \"%s\" via socket in \"%s\" at port \"%s\".", t.database, t.user, t.host, t.port)
	} else {
		fmt.Fprintf(&b, "You are connected to database \"%s\" as user \"%s\" on host \"%s\" at port \"%s\".", t.database, t.user, t.host, t.port)
	}
	if tc, ok := s.guard.Conn.(*tls.Conn); ok {
		st := tc.ConnectionState()
		fmt.Fprintf(&b, "\nSSL connection (protocol: %s, cipher: %s, compression: off)", tlsVersion(st.Version), tls.CipherSuiteName(st.CipherSuite))
	}
	return b.String()
}

// tlsVersion is OpenSSL's protocol name, which psql prints.
func tlsVersion(v uint16) string {
	switch v {
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return tls.VersionName(v)
}

// connectError is a failed connection as psql reports it:
// `connection to server at "h", port p failed: reason`.
type connectError struct {
	target target
	err    error
}

func (e *connectError) Error() string { return e.target.where() + " failed: " + reason(e.err) }

func (e *connectError) Unwrap() error { return e.err }

// reason is the cause that matters of pgconn's layered error: the server's
// message, or the innermost error of the last attempt.
func reason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Severity + ":  " + pe.Message
	}
	if errors.Is(err, ErrPasswordNeeded) {
		return ErrPasswordNeeded.Error()
	}
	for {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			if errs := j.Unwrap(); len(errs) > 0 {
				err = errs[len(errs)-1]
				continue
			}
		}
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}
