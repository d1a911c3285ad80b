package wire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
)

// emfileListener fails Accept calls 2 to 1+fails with EMFILE, as a process at
// its file descriptor limit sees them, and passes the others through.
type emfileListener struct {
	net.Listener
	fails int64
	calls atomic.Int64
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if n := l.calls.Add(1); n >= 2 && n < 2+l.fails {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Running out of file descriptors is logged and waited out: the session
// already open keeps working and the next client is accepted.
func TestAcceptSurvivesEMFILE(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &emfileListener{Listener: inner, fails: 3}
	var logs testenv.LogBuffer
	_, served := serveOn(t, l, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	first := dialRaw(t, inner.Addr().String())
	first.startup(nil)
	first.send(&pgproto3.Query{String: "SELECT 1"})
	expectShape(t, "session during the failures", first.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
	second := dialRaw(t, inner.Addr().String())
	expectShape(t, "client after the failures", second.startup(nil)[:1], "AuthenticationOk")
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v", err)
	default:
	}
	if got := strings.Count(logs.String(), "too many open files"); got != 3 {
		t.Errorf("%d accept failures logged, want 3:\n%s", got, logs.String())
	}
}

// closedWithin reads nc until the server closes it, failing after limit.
func closedWithin(t *testing.T, nc net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	nc.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", limit)
	}
	return time.Since(start)
}

// A socket that never sends a startup packet, and one that stops at the
// password request, are closed after AuthenticationTimeout.
func TestAuthenticationTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	_, addr := testServer(t, func(c *Config) {
		c.AuthenticationTimeout = timeout
		c.Auth, c.Users = AuthPassword, map[string]string{"postgres": "secret"}
	})
	silent := dialRaw(t, addr)
	if d := closedWithin(t, silent.nc, 5*time.Second); d < timeout/2 {
		t.Errorf("silent socket closed after %v, before the timeout", d)
	}
	stalled := dialRaw(t, addr)
	stalled.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
	if _, ok := stalled.receive().(*pgproto3.AuthenticationCleartextPassword); !ok {
		t.Fatal("no password request")
	}
	closedWithin(t, stalled.nc, 5*time.Second)
	// A client that logs in in time is not affected, however long it stays.
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
	c.receive()
	c.send(&pgproto3.PasswordMessage{Password: "secret"})
	c.untilReady()
	// A socket opened after c's is closed by its own timeout: by then c's
	// would have fired too.
	closedWithin(t, dialRaw(t, addr).nc, 5*time.Second)
	c.send(&pgproto3.Query{String: "SELECT 1"})
	expectShape(t, "after the timeout", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
}

// stallAtPassword opens a connection that sends its startup packet and
// never answers the password request.
func stallAtPassword(t *testing.T, addr string) *rawClient {
	t.Helper()
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
	if _, ok := c.receive().(*pgproto3.AuthenticationCleartextPassword); !ok {
		t.Fatal("no password request")
	}
	return c
}

// Connections that have not logged in do not count against MaxConnections:
// five that never send a startup packet and five that stop at the password
// request leave --max-connections 5 free for clients that log in.
func TestUnauthenticatedConnectionsHoldNoSlots(t *testing.T) {
	_, addr := testServer(t, func(c *Config) {
		c.MaxConnections = 5
		c.Auth, c.Users = AuthPassword, map[string]string{"postgres": "secret"}
	})
	for range 5 {
		dialRaw(t, addr)
		stallAtPassword(t, addr)
	}
	for range 5 {
		testenv.PgxConnect(t, dsn(addr, ""), nil)
	}
	cfg, _ := pgx.ParseConfig(dsn(addr, ""))
	if _, err := pgx.ConnectConfig(context.Background(), cfg); sqlState(err) != pgerr.TooManyConnections {
		t.Fatalf("sixth login: want 53300, got %v", err)
	}
}

// Connections in startup are bounded by MaxStartups: beyond it a client is
// refused with 53300 until a slot frees.
func TestMaxStartups(t *testing.T) {
	srv, addr := testServer(t, func(c *Config) {
		c.MaxStartups = 2
		c.Auth, c.Users = AuthPassword, map[string]string{"postgres": "secret"}
	})
	first, _ := stallAtPassword(t, addr), stallAtPassword(t, addr)
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
	if e, ok := c.receive().(*pgproto3.ErrorResponse); !ok || pgerr.Code(e.Code) != pgerr.TooManyConnections || e.Severity != "FATAL" {
		t.Fatalf("third connection in startup: got %#v, want FATAL 53300", e)
	}
	first.nc.Close()
	testenv.WaitFor(t, 5*time.Second, "the closed connection out of startup", func() bool { return startingCount(srv) <= 1 })
	testenv.PgxConnect(t, dsn(addr, ""), nil)
}

func startingCount(srv *Server) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return len(srv.starting)
}

// Shutdown ends connections still in startup at once rather than waiting for
// their authentication timeout.
func TestShutdownEndsConnectionsInStartup(t *testing.T) {
	srv, addr := testServer(t, nil)
	silent := dialRaw(t, addr)
	testenv.WaitFor(t, 5*time.Second, "the connection accepted", func() bool { return startingCount(srv) >= 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	closedWithin(t, silent.nc, time.Second)
}

func TestLoadUsersRefusesEmptySecrets(t *testing.T) {
	for name, line := range map[string]string{
		"empty":          "bob:",
		"blank":          "bob:   ",
		"empty verifier": "bob:" + ScramVerifier(""),
	} {
		path := filepath.Join(t.TempDir(), "users")
		os.WriteFile(path, []byte("# users\nalice:wonderland\n"+line+"\n"), 0o600)
		_, err := LoadUsers(path)
		if err == nil || !strings.HasPrefix(err.Error(), "users file line 3: empty secret") {
			t.Errorf("%s: got %v, want users file line 3: empty secret", name, err)
		}
	}
}

// A user whose secret an empty password satisfies cannot log in under any
// method, with the empty password or any other.
func TestEmptyPasswordNeverLogsIn(t *testing.T) {
	users := map[string]string{"postgres": "secret", "empty": "", "emptyv": ScramVerifier("")}
	for _, method := range []AuthMethod{AuthPassword, AuthMD5, AuthSCRAM} {
		_, addr := testServer(t, func(c *Config) { c.Auth, c.Users = method, users })
		for _, user := range []string{"empty", "emptyv", "postgres"} {
			cfg, _ := pgx.ParseConfig("postgres://" + user + "@" + addr + "/db?sslmode=disable")
			cfg.Password = ""
			if _, err := pgx.ConnectConfig(context.Background(), cfg); sqlState(err) != pgerr.InvalidPassword {
				t.Errorf("method %d, user %s, empty password: want 28P01, got %v", method, user, err)
			}
		}
		testenv.PgxConnect(t, dsn(addr, ""), nil)
	}
}

// Authentication messages that do not decode are protocol violations: FATAL
// 08P01, then the connection closes.
func TestMalformedAuthMessages(t *testing.T) {
	garbage := []byte{'p', 0, 0, 0, 11, 'g', 'a', 'r', 'b', 'a', 'g', 'e'}
	for name, tc := range map[string]struct {
		method AuthMethod
		before []pgproto3.FrontendMessage // sent after startup, each answered once
		raw    []byte
	}{
		"SASLInitialResponse": {method: AuthSCRAM, raw: garbage},
		"SASLResponse": {method: AuthSCRAM, raw: []byte{'p', 0, 0, 0, 7, 'z', 'z', 'z'},
			before: []pgproto3.FrontendMessage{&pgproto3.SASLInitialResponse{AuthMechanism: scramMechanism, Data: []byte("n,,n=,r=abcdef")}}},
		"SASL first message": {method: AuthSCRAM, raw: func() []byte {
			b, _ := (&pgproto3.SASLInitialResponse{AuthMechanism: scramMechanism, Data: []byte("\xff\x00garbage")}).Encode(nil)
			return b
		}()},
		"PasswordMessage": {method: AuthPassword, raw: garbage},
	} {
		t.Run(name, func(t *testing.T) {
			_, addr := testServer(t, func(c *Config) { c.Auth, c.Users = tc.method, map[string]string{"postgres": "secret"} })
			c := dialRaw(t, addr)
			c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
			c.receive()
			for _, m := range tc.before {
				c.send(m)
				c.receive()
			}
			c.nc.Write(tc.raw)
			e, ok := c.receive().(*pgproto3.ErrorResponse)
			if !ok || e.Severity != "FATAL" || pgerr.Code(e.Code) != pgerr.ProtocolViolation {
				t.Fatalf("got %#v, want FATAL 08P01", e)
			}
			closedWithin(t, c.nc, 5*time.Second)
		})
	}
}

// With TLSRequired a plaintext client is refused before any password is
// asked; a TLS client logs in.
func TestTLSRequired(t *testing.T) {
	if _, err := NewServer(Config{NewSession: newFakeSession, TLSRequired: true}); err == nil {
		t.Error("TLSRequired without TLS: no error")
	}
	tlsCfg, err := SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	_, addr := testServer(t, func(c *Config) {
		c.TLS, c.TLSRequired = tlsCfg, true
		c.Auth, c.Users = AuthPassword, map[string]string{"postgres": "secret"}
	})
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}})
	e, ok := c.receive().(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || pgerr.Code(e.Code) != pgerr.InvalidAuthorizationSpecification || e.Message != "no encryption: this server requires TLS" {
		t.Fatalf("plaintext client got %#v, want FATAL 28000 before the password request", e)
	}
	closedWithin(t, c.nc, 5*time.Second)
	cfg, _ := pgx.ParseConfig(dsn(addr, ""))
	if _, err := pgx.ConnectConfig(context.Background(), cfg); sqlState(err) != pgerr.InvalidAuthorizationSpecification {
		t.Fatalf("sslmode=disable: want 28000, got %v", err)
	}
	conn := testenv.PgxConnect(t, "postgres://postgres:secret@"+addr+"/db?sslmode=require", nil)
	var one int32
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("TLS client: %v", err)
	}
}
