package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// idle_in_transaction_session_timeout (issue 11): a session left idle inside
// BEGIN ... longer than it ends with FATAL 25P03 and its block is rolled
// back; idle outside a block it lives on.
func TestIdleInTransactionTimeout(t *testing.T) {
	srv := startServer(t, wire.AuthTrust)
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
	time.Sleep(500 * time.Millisecond) // idle outside a block: no limit
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		t.Fatalf("after idling outside a block: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO it VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
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
