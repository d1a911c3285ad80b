package e2e

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// idle_in_transaction_session_timeout (issue 11): a session left idle inside
// BEGIN ... longer than it ends with FATAL 25P03 and its block is rolled
// back; idle outside a block it lives on.
func TestIdleInTransactionTimeout(t *testing.T) {
	// The server logs the session's end: the timeout has fired.
	logs := &testenv.LogBuffer{}
	srv := startServerWith(t, wire.AuthTrust, func(c *wire.Config) {
		c.LogDisconnections, c.Logger = true, slog.New(slog.NewTextHandler(logs, nil))
	})
	ctx := context.Background()
	conn := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{
		"CREATE TABLE it (id int)",
		"SET idle_in_transaction_session_timeout = '300ms'",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Idle outside a block, longer than the timeout: no limit. Listening
	// meanwhile hears nothing from the server.
	if err := serverSays(conn, 500*time.Millisecond); err != nil {
		t.Fatalf("idle outside a block: %v", err)
	}
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		t.Fatalf("after idling outside a block: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO it VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the idle block's session ended", func() bool { return strings.Contains(logs.String(), "msg=disconnection") })
	_, err := conn.Exec(ctx, "COMMIT")
	if code := sqlState(err); code != pgerr.IdleInTransactionSessionTimeout {
		t.Fatalf("COMMIT after the timeout: %v (SQLSTATE %q)", err, code)
	}
	other := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	var n int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM it").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the timed-out block's INSERT: %d rows (%v)", n, err)
	}
}

// serverSays listens on idle conn for up to within and returns the error
// the server sent meanwhile (a FATAL ends the connection), nil when it
// sent none.
func serverSays(conn *pgx.Conn, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	err := conn.PgConn().WaitForNotification(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	if err == nil {
		return errors.New("unexpected notification")
	}
	return err
}
