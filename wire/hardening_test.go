package wire

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
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

// syncBuffer is a log destination tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Running out of file descriptors is logged and waited out: the session
// already open keeps working and the next client is accepted.
func TestAcceptSurvivesEMFILE(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &emfileListener{Listener: inner, fails: 3}
	var logs syncBuffer
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
