package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// cursorTable creates t(id, v) over three data files and returns the model
// of its rows in id order, rendered as query results render them.
func cursorTable(t *testing.T, s *Session) [][]string {
	t.Helper()
	mustQuery(t, s, "CREATE TABLE t (id bigint NOT NULL, v text)")
	var model [][]string
	id := 0
	for file := 0; file < 3; file++ {
		var vals []string
		for k := 0; k < 5+file; k++ {
			id++
			v := fmt.Sprintf("'v%d'", id)
			cell := fmt.Sprintf("v%d", id)
			if id%4 == 0 {
				v, cell = "NULL", "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s)", id, v))
			model = append(model, []string{fmt.Sprint(id), cell})
		}
		mustQuery(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	return model
}

func joinRows(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "|"))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCursorFetchInSteps(t *testing.T) {
	s := testSession(t)
	model := cursorTable(t, s)
	if got := mustQuery(t, s, "SELECT id, v FROM t ORDER BY id").text(); got != joinRows(model) {
		t.Fatalf("full select differs from model:\n%s", got)
	}
	for _, step := range []int{1, 2, 4, 7, 100} {
		mustQuery(t, s, "BEGIN")
		if r := mustQuery(t, s, "DECLARE c CURSOR FOR SELECT id, v FROM t ORDER BY id"); r.tag != "DECLARE CURSOR" || r.cols != nil {
			t.Fatalf("declare: %+v", r)
		}
		var got [][]string
		for {
			r := mustQuery(t, s, fmt.Sprintf("FETCH FORWARD %d FROM c", step))
			if strings.Join(r.cols, ",") != "id,v" {
				t.Fatalf("fetch columns %v", r.cols)
			}
			if want := fmt.Sprintf("FETCH %d", len(r.rows)); r.tag != want {
				t.Fatalf("tag %q, want %q", r.tag, want)
			}
			if len(r.rows) > step {
				t.Fatalf("step %d fetched %d rows", step, len(r.rows))
			}
			got = append(got, r.rows...)
			if len(r.rows) < step {
				break
			}
		}
		if joinRows(got) != joinRows(model) {
			t.Fatalf("step %d: got\n%s", step, joinRows(got))
		}
		if r := mustQuery(t, s, "FETCH c"); len(r.rows) != 0 || r.tag != "FETCH 0" {
			t.Fatalf("fetch after end: %+v", r)
		}
		mustQuery(t, s, "CLOSE c")
		mustQuery(t, s, "COMMIT")
	}
}

// A streaming (unordered) query is read across its files' batches.
func TestCursorUnorderedFetchAllAndMove(t *testing.T) {
	s := testSession(t)
	model := cursorTable(t, s)
	full := mustQuery(t, s, "SELECT id, v FROM t").rows
	if len(full) != len(model) {
		t.Fatalf("full select has %d rows, model %d", len(full), len(model))
	}
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DECLARE c NO SCROLL CURSOR FOR SELECT id, v FROM t")
	first := mustQuery(t, s, "FETCH 3 FROM c")
	if r := mustQuery(t, s, "MOVE FORWARD 4 IN c"); r.tag != "MOVE 4" || r.rows != nil {
		t.Fatalf("move: %+v", r)
	}
	next := mustQuery(t, s, "FETCH NEXT FROM c")
	rest := mustQuery(t, s, "FETCH ALL FROM c")
	if rest.tag != fmt.Sprintf("FETCH %d", len(full)-8) {
		t.Fatalf("fetch all tag %q", rest.tag)
	}
	want := joinRows(full[:3]) + joinRows(full[7:8]) + joinRows(full[8:])
	if got := first.text() + next.text() + rest.text(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if r := mustQuery(t, s, "MOVE ALL IN c"); r.tag != "MOVE 0" {
		t.Fatalf("move at end: %q", r.tag)
	}
	mustQuery(t, s, "DECLARE d CURSOR FOR SELECT id FROM t WHERE id > 10 ORDER BY id")
	if r := mustQuery(t, s, "MOVE ALL FROM d"); r.tag != fmt.Sprintf("MOVE %d", len(model)-10) {
		t.Fatalf("move all: %q", r.tag)
	}
	mustQuery(t, s, "COMMIT")
}

func TestCursorErrors(t *testing.T) {
	s := testSession(t)
	cursorTable(t, s)
	mustFail(t, s, pgerr.NoActiveSQLTransaction, "DECLARE c CURSOR FOR SELECT id FROM t")
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH 1 FROM nosuch")
	mustFail(t, s, pgerr.InvalidCursorName, "MOVE 1 FROM nosuch")
	mustFail(t, s, pgerr.InvalidCursorName, "CLOSE nosuch")
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DECLARE c CURSOR FOR SELECT id FROM t")
	mustFail(t, s, pgerr.DuplicateCursor, "DECLARE c CURSOR FOR SELECT 1")
	// The failed block answers everything but its end with 25P02.
	mustFail(t, s, pgerr.InFailedSQLTransaction, "FETCH 1 FROM c")
	mustQuery(t, s, "ROLLBACK")
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH 1 FROM c")

	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.FeatureNotSupported, "FETCH BACKWARD 1 FROM c")
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.FeatureNotSupported, "DECLARE b BINARY CURSOR FOR SELECT 1")
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.UndefinedTable, "DECLARE c CURSOR FOR SELECT * FROM missing")
	mustQuery(t, s, "ROLLBACK")
}

func TestCursorTransactionLifetime(t *testing.T) {
	s := testSession(t)
	model := cursorTable(t, s)

	// COMMIT closes cursors without HOLD and keeps the held ones.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DECLARE plain CURSOR FOR SELECT id FROM t ORDER BY id")
	mustQuery(t, s, "DECLARE held CURSOR WITH HOLD FOR SELECT id, v FROM t ORDER BY id")
	a := mustQuery(t, s, "FETCH 5 FROM held")
	mustQuery(t, s, "COMMIT")
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH 1 FROM plain")
	// The held cursor read the snapshot of its DECLARE.
	mustQuery(t, s, "INSERT INTO t VALUES (1000, 'late')")
	b := mustQuery(t, s, "FETCH ALL FROM held")
	if got := a.text() + b.text(); got != joinRows(model) {
		t.Fatalf("held cursor across COMMIT: got\n%s", got)
	}
	// A later block's ROLLBACK leaves a cursor held from before it.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DECLARE inner2 CURSOR WITH HOLD FOR SELECT 1")
	mustQuery(t, s, "ROLLBACK")
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH 1 FROM inner2")
	if r := mustQuery(t, s, "FETCH 1 FROM held"); r.tag != "FETCH 0" {
		t.Fatalf("held cursor after a later rollback: %+v", r)
	}
	if r := mustQuery(t, s, "CLOSE held"); r.tag != "CLOSE CURSOR" {
		t.Fatalf("close tag %q", r.tag)
	}
	mustFail(t, s, pgerr.InvalidCursorName, "CLOSE held")

	// WITH HOLD outside a block is its own committed transaction.
	mustQuery(t, s, "DECLARE x CURSOR WITH HOLD FOR SELECT id FROM t WHERE id = 1000")
	mustQuery(t, s, "DECLARE y CURSOR WITH HOLD FOR SELECT 1")
	if r := mustQuery(t, s, "FETCH x"); r.text() != "1000\n" {
		t.Fatalf("fetch x: %q", r.text())
	}
	if r := mustQuery(t, s, "CLOSE ALL"); r.tag != "CLOSE CURSOR ALL" {
		t.Fatalf("close all tag %q", r.tag)
	}
	mustFail(t, s, pgerr.InvalidCursorName, "FETCH y")
}

// Session end closes held cursors (and their scans) without error.
func TestCursorSessionClose(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	cursorTable(t, s)
	mustQuery(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t")
	mustQuery(t, s, "FETCH 1 FROM h")
	s.Close()
	if _, err := s.tx.cursors.get("h"); err == nil {
		t.Fatal("held cursor survived session close")
	}
}
