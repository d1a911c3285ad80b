package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// A CancelRequest lands inside expression evaluation (issue 19): the
// evaluator checks for cancellation at every operator of every batch, so a
// statement busy with a long predicate stops at once with 57014, not after
// its scan.
func TestCancelDuringLongPredicate(t *testing.T) {
	srv := startServer(t, wire.AuthTrust)
	ctx := context.Background()
	// The first progress NOTICE says the statement is running and has been
	// for a second: the cancel lands inside it, not before it starts.
	progress := make(chan struct{}, 1)
	conn := testenv.PgxConnect(t, srv.url(""), func(c *pgx.ConnConfig) {
		c.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		c.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			if strings.HasPrefix(n.Message, "progress: ") {
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}
	})
	loadBig(t, conn, 100000)
	if _, err := conn.Exec(ctx, "SET magmalake.progress = on"); err != nil {
		t.Fatal(err)
	}
	// 3,000 terms over two columns: no hash set, no folding; minutes of work.
	terms := make([]string, 3000)
	for k := range terms {
		terms[k] = "(id = " + strconv.Itoa(k) + " AND v || 'x' = 'v" + strconv.Itoa(k) + "y')"
	}
	q := "SELECT count(*) FROM big WHERE " + strings.Join(terms, " OR ")
	done := make(chan error, 1)
	go func() {
		var n int64
		done <- conn.QueryRow(ctx, q).Scan(&n)
	}()
	select {
	case <-progress:
	case err := <-done:
		t.Fatalf("the statement ended before its first progress report: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no progress report from the statement in a minute")
	}
	start := time.Now()
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10 s after the CancelRequest")
	}
	took := time.Since(start)
	t.Logf("answered %v after the CancelRequest: %v", took.Round(time.Millisecond), err)
	if sqlState(err) != pgerr.QueryCanceled {
		t.Fatalf("got %v, want 57014 (did it finish before the cancel? make it longer)", err)
	}
	if took > 2*time.Second {
		t.Fatalf("the cancel took %v", took)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the connection after the cancel: %v", err)
	}
}
