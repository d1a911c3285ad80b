package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/internal/testserver"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/session"
)

// The server's memory limit (engine.MemPool): statements whose work
// together exceeds it wait for each other instead of growing the process,
// a wait ends with a CancelRequest, a statement that alone exceeds it
// fails with 53200, and every statement's end gives back all it held.

// holdingCursor is a sort whose rows a cursor holds in memory once its
// first row was fetched (about 2MB, which with concat(400000)'s 2.7MB
// is more than the server's 4MB).
const holdingCursor = "DECLARE c CURSOR FOR SELECT g, 'v' || CAST((g * 31) % 97 AS text) AS s FROM generate_series(1, 150000) AS x(g) ORDER BY s, g DESC"

// concat is a string_agg of n numbers: its text (about 7n bytes) is held
// until the end and never spilled.
func concat(n int) string {
	return fmt.Sprintf("SELECT length(string_agg(CAST(g AS text), ',')) FROM generate_series(1, %d) AS x(g)", n)
}

// concatLength is concat(n)'s answer.
func concatLength(n int) int64 {
	total := int64(n - 1)
	for g := 1; g <= n; g++ {
		total += int64(len(fmt.Sprint(g)))
	}
	return total
}

func TestServerMemoryLimit(t *testing.T) {
	const limit, waiterRows = 4 << 20, 400000
	eng := testserver.EngineWith(t, t.TempDir(), session.EngineOptions{MemoryLimit: limit})
	srv := &server{eng: eng, addr: testserver.ServeEngine(t, eng)}
	pool := eng.MemPool()
	ctx := context.Background()
	holder := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	waiter := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	exec := func(t *testing.T, conn *pgx.Conn, q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	wantEmpty := func(t *testing.T, after string) {
		t.Helper()
		if used := pool.Used(); used != 0 {
			t.Fatalf("after %s the server's memory holds %d bytes", after, used)
		}
	}
	hold := func(t *testing.T) {
		t.Helper()
		exec(t, holder, "BEGIN")
		exec(t, holder, holdingCursor)
		exec(t, holder, "FETCH 1 FROM c")
		if used := pool.Used(); used < 1<<20 || used > limit {
			t.Fatalf("the cursor holds %d bytes of the server's %d", used, limit)
		}
	}
	waiting := func(t *testing.T) <-chan error {
		done := make(chan error, 1)
		go func() {
			var n int64
			err := waiter.QueryRow(ctx, concat(waiterRows)).Scan(&n)
			if err == nil && n != concatLength(waiterRows) {
				err = fmt.Errorf("length %d, want %d", n, concatLength(waiterRows))
			}
			done <- err
		}()
		testenv.WaitFor(t, time.Minute, "string_agg waiting for the cursor's memory", func() bool { return pool.Waiting() == 1 })
		return done
	}

	t.Run("cancelled while waiting", func(t *testing.T) {
		hold(t)
		done := waiting(t)
		if err := waiter.PgConn().CancelRequest(ctx); err != nil {
			t.Fatal(err)
		}
		var pe *pgconn.PgError
		if err := <-done; !errors.As(err, &pe) || pgerr.Code(pe.Code) != pgerr.QueryCanceled || pe.Message != cancelMessage {
			t.Fatalf("cancelled while waiting for memory: %v, want 57014 %q", err, cancelMessage)
		}
		exec(t, holder, "COMMIT")
		wantEmpty(t, "a cancelled wait and the cursor's end")
	})

	t.Run("both complete", func(t *testing.T) {
		hold(t)
		done := waiting(t)
		exec(t, holder, "CLOSE c")
		if err := <-done; err != nil {
			t.Fatalf("string_agg after the cursor closed: %v", err)
		}
		exec(t, holder, "COMMIT")
		wantEmpty(t, "both statements")
	})

	t.Run("alone past the limit", func(t *testing.T) {
		for _, q := range []string{concat(1000000), "SELECT count(*) FROM (" + concat(1000000) + ") AS s"} {
			_, err := waiter.Exec(ctx, q)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pgerr.Code(pe.Code) != pgerr.OutOfMemory || !strings.Contains(pe.Detail, "--memory-limit 4MB") {
				t.Fatalf("%s: %v, want 53200 naming --memory-limit 4MB", q, err)
			}
			wantEmpty(t, "a failed statement")
		}
		var n int64
		if err := waiter.QueryRow(ctx, concat(1000)).Scan(&n); err != nil || n != concatLength(1000) {
			t.Fatalf("the connection after 53200: %d, %v", n, err)
		}
		wantEmpty(t, "a statement within the limit")
	})
}
