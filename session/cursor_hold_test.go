package session

import (
	"fmt"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// A held cursor over the block's own uncommitted change reads that change
// after COMMIT published it, and a FETCH across files stays in order.
func TestCursorHoldOverBlockChange(t *testing.T) {
	for _, before := range []int{0, 2} {
		t.Run(fmt.Sprintf("fetch-%d-before-commit", before), func(t *testing.T) { testHoldOverChange(t, before) })
	}
}

func testHoldOverChange(t *testing.T, before int) {
	s := testSession(t)
	model := cursorTable(t, s)
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM t WHERE id % 3 = 0")
	mustQuery(t, s, "INSERT INTO t VALUES (100, 'new')")
	mustQuery(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT id, v FROM t")
	first := &result{}
	if before > 0 {
		first = mustQuery(t, s, fmt.Sprintf("FETCH %d FROM h", before))
	}
	mustQuery(t, s, "COMMIT")
	rest := mustQuery(t, s, "FETCH ALL FROM h")
	var want [][]string
	for _, r := range model {
		var id int
		fmt.Sscan(r[0], &id)
		if id%3 != 0 {
			want = append(want, r)
		}
	}
	want = append(want, []string{"100", "new"})
	got := append(first.rows, rest.rows...)
	if joinRows(fndSorted(got)) != joinRows(fndSorted(want)) {
		t.Fatalf("got\n%s\nwant\n%s", joinRows(got), joinRows(want))
	}
}

// A held cursor declared in a block whose COMMIT fails goes with the block:
// it could otherwise read files the failed block wrote and abandoned.
func TestHeldCursorClosedByFailedCommit(t *testing.T) {
	s := testSession(t)
	txFixture(t, s, "merge-on-read", "3", 9)
	other := s.engine.NewSession(stmt.SessionInfo{User: "other"})
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM t WHERE id = 1")
	mustQuery(t, s, "DECLARE c CURSOR WITH HOLD FOR SELECT id FROM t")
	mustQuery(t, other, "DELETE FROM t WHERE id = 1")
	mustFail(t, s, pgerr.SerializationFailure, "COMMIT")
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH 1 FROM c")
}
