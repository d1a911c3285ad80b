package wire

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// testServer starts a Server with the fake session on 127.0.0.1:0; edit
// adjusts the config. The server is shut down when the test ends.
func testServer(t testing.TB, edit func(*Config)) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := serveOn(t, l, edit)
	return srv, l.Addr().String()
}

// serveOn serves on l as testServer does; served reports what Serve returned.
func serveOn(t testing.TB, l net.Listener, edit func(*Config)) (srv *Server, served <-chan error) {
	t.Helper()
	cfg := Config{NewSession: newFakeSession}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := NewServer(cfg)
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv, done
}

// rawClient is a pgproto3 frontend on a plain TCP connection.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// startup logs in with trust and reads up to the first ReadyForQuery.
func (c *rawClient) startup(params map[string]string) []pgproto3.BackendMessage {
	c.t.Helper()
	if params == nil {
		params = map[string]string{"user": "postgres", "database": "tracedb"}
	}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: params})
	return c.untilReady()
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) receive() pgproto3.BackendMessage {
	c.t.Helper()
	m, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	return m
}

// untilReady collects messages up to and including ReadyForQuery, each
// copied (pgproto3 reuses them).
func (c *rawClient) untilReady() []pgproto3.BackendMessage {
	c.t.Helper()
	var out []pgproto3.BackendMessage
	for {
		m := c.receive()
		out = append(out, copyMsg(c.t, m))
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return out
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok && e.Severity == "FATAL" {
			return out
		}
	}
}

// copyMsg deep-copies a received message through its JSON form.
func copyMsg(t testing.TB, m pgproto3.BackendMessage) pgproto3.BackendMessage {
	t.Helper()
	buf, err := m.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(&byteReader{b: buf}, nil)
	cp, err := fe.Receive()
	if err != nil {
		t.Fatalf("re-decode %T: %v", m, err)
	}
	return cp
}

type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, net.ErrClosed
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
