package wire

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/pgerr"
)

// recordHandler hands every log record to a channel as its message and
// attributes, so a test can wait for a line the server writes after the
// client left.
type recordHandler struct{ out chan map[string]string }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	h.out <- m
	return nil
}

// next returns the next record with message msg, skipping others.
func (h recordHandler) next(t *testing.T, msg string) map[string]string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-h.out:
			if m["msg"] == msg {
				return m
			}
		case <-timeout:
			t.Fatalf("no %q log record", msg)
		}
	}
}

// TestConnectionLog: log_connections and log_disconnections write
// PostgreSQL's three lines per session with its pid, user, database and
// application; a refused password is logged whatever they are set to.
func TestConnectionLog(t *testing.T) {
	h := recordHandler{out: make(chan map[string]string, 64)}
	_, addr := testServer(t, func(c *Config) {
		c.LogConnections, c.LogDisconnections = true, true
		c.Auth, c.Users = AuthPassword, map[string]string{"alice": "secret"}
		c.Logger = slog.New(h)
	})
	ctx := context.Background()
	dsn := fmt.Sprintf("postgres://alice:secret@%s/shop?sslmode=disable&application_name=reports", addr)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.FormatUint(uint64(conn.PgConn().PID()), 10)
	received := h.next(t, "connection received")
	if received["host"] != "127.0.0.1" || received["port"] == "" {
		t.Errorf("connection received: %v", received)
	}
	auth := h.next(t, "connection authorized")
	want := map[string]string{"pid": pid, "user": "alice", "database": "shop", "application_name": "reports", "ssl": "false"}
	for k, v := range want {
		if auth[k] != v {
			t.Errorf("connection authorized: %s = %q, want %q (%v)", k, auth[k], v, auth)
		}
	}
	conn.Close(ctx)
	disc := h.next(t, "disconnection")
	if disc["pid"] != pid || disc["user"] != "alice" || disc["database"] != "shop" || disc["session_time"] == "" {
		t.Errorf("disconnection: %v", disc)
	}

	bad := fmt.Sprintf("postgres://alice:wrong@%s/shop?sslmode=disable", addr)
	if c, err := pgx.Connect(ctx, bad); err == nil {
		c.Close(ctx)
		t.Fatal("wrong password accepted")
	}
	failed := h.next(t, "authentication failed")
	if failed["user"] != "alice" || failed["sqlstate"] != string(pgerr.InvalidPassword) || failed["level"] != "WARN" {
		t.Errorf("authentication failed: %v", failed)
	}
}
