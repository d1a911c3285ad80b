package session

import (
	"context"
	"runtime"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// lock_timeout bounds the wait for a table's commit turn: with the turn
// held, an autocommit DELETE, an INSERT and a block's COMMIT give up with
// 55P03, leave the table as it was and remove what they wrote; lock_timeout
// 0 (the default) waits.
func TestLockTimeoutOnCommitTurn(t *testing.T) {
	dir := t.TempDir()
	eng := testEngine(t, dir)
	s := testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE lt (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO lt VALUES (1), (2), (3)")
	mustFail(t, s, pgerr.InvalidParameterValue, "SET lock_timeout = 'soon'")
	mustQuery(t, s, "SET lock_timeout = '20ms'")
	if got := mustQuery(t, s, "SHOW lock_timeout").text(); got != "20ms\n" {
		t.Fatalf("SHOW lock_timeout = %q", got)
	}
	before := listFiles(t, dir)
	ctx := context.Background()
	release, err := eng.Warehouse().Commits().HoldCommits(ctx, lake.Ident(lake.DefaultNamespace, "lt"))
	if err != nil {
		t.Fatal(err)
	}
	mustFail(t, s, pgerr.LockNotAvailable, "DELETE FROM lt WHERE id = 1")
	mustFail(t, s, pgerr.LockNotAvailable, "INSERT INTO lt VALUES (4)")
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM lt WHERE id = 2")
	mustFail(t, s, pgerr.LockNotAvailable, "COMMIT")
	if st := s.TxStatus(); st != stmt.TxIdle {
		t.Fatalf("after the failed COMMIT the session is %c, want I", st)
	}
	if after := listFiles(t, dir); len(after) != len(before) {
		t.Fatalf("timed-out statements left files: %v", newFiles(before, after))
	}
	release()
	if got := mustQuery(t, s, "SELECT id FROM lt ORDER BY id").text(); got != "1\n2\n3\n" {
		t.Fatalf("table after timed-out statements: %q", got)
	}
	if n := snapshotsOf(t, s, "lt"); n != 1 {
		t.Fatalf("%d snapshots, want 1", n)
	}
	// Without the limit a statement waits for the turn and commits.
	mustQuery(t, s, "RESET lock_timeout")
	release, err = eng.Warehouse().Commits().HoldCommits(ctx, lake.Ident(lake.DefaultNamespace, "lt"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.query(ctx, "DELETE FROM lt WHERE id = 1")
		done <- err
	}()
	for eng.Warehouse().Commits().CommitsWaiting(lake.Ident(lake.DefaultNamespace, "lt")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("DELETE finished while the turn was held: %v", err)
		default:
			runtime.Gosched()
		}
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := mustQuery(t, s, "SELECT id FROM lt ORDER BY id").text(); got != "2\n3\n" {
		t.Fatalf("table after the waiting DELETE: %q", got)
	}
}
