package session

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestSelectRowLineage: on a v3 table _row_id and
// _last_updated_sequence_number are system columns: SELECT names them
// (also qualified, in joins and in WHERE, which is not pushed into the
// scan), * and t.* leave them out, NATURAL JOIN does not join on them, and
// a v2 table has none (42703). After each statement the values equal the
// lineage read from the data files (the model) for every live key.
func TestSelectRowLineage(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rl (k int NOT NULL, g int, v text) PARTITIONED BY (g) WITH ('format-version' = '3')")
	for _, q := range []string{
		"INSERT INTO rl SELECT i, i % 3, 'x' || i FROM generate_series(1, 300) AS i",
		"INSERT INTO rl SELECT i, i % 3, 'y' || i FROM generate_series(301, 400) AS i",
		"UPDATE rl SET v = 'u' WHERE k % 5 = 0",
		"DELETE FROM rl WHERE k % 7 = 0",
		"ALTER TABLE rl EXECUTE optimize",
	} {
		mustQuery(t, s, q)
		model := lineageFromFiles(t, s, "rl")
		got := mustQuery(t, s, "SELECT k, _row_id, rl._last_updated_sequence_number FROM rl")
		if len(got.rows) != len(model) {
			t.Fatalf("after %q: %d rows, model %d", q, len(got.rows), len(model))
		}
		for _, r := range got.rows {
			k, _ := strconv.ParseInt(r[0], 10, 64)
			if want := model[k]; r[1] != fmt.Sprint(want.rowID) || r[2] != fmt.Sprint(want.seq) {
				t.Fatalf("after %q: key %d reads _row_id %s, seq %s; the files say %d, %d", q, k, r[1], r[2], want.rowID, want.seq)
			}
		}
	}
	model := lineageFromFiles(t, s, "rl")
	want := model[42+1]
	if got := mustQuery(t, s, fmt.Sprintf("SELECT k FROM rl WHERE _row_id = %d", want.rowID)).text(); got != "43\n" {
		t.Errorf("WHERE _row_id = %d: %q", want.rowID, got)
	}
	if got := mustQuery(t, s, "SELECT * FROM rl WHERE k = 1"); len(got.cols) != 3 {
		t.Errorf("* has columns %v", got.cols)
	}
	if got := mustQuery(t, s, "SELECT rl.* FROM rl WHERE k = 1"); len(got.cols) != 3 {
		t.Errorf("rl.* has columns %v", got.cols)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM rl a NATURAL JOIN rl b").text(); got != mustQuery(t, s, "SELECT count(*) FROM rl").text() {
		t.Errorf("NATURAL JOIN of the table with itself: %q", got)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM rl a JOIN rl b ON a._row_id = b._row_id").text(); got != mustQuery(t, s, "SELECT count(*) FROM rl").text() {
		t.Errorf("join on _row_id: %q (row ids must be unique)", got)
	}
	mustQuery(t, s, "CREATE TABLE v2 (k int)")
	mustFail(t, s, pgerr.UndefinedColumn, "SELECT _row_id FROM v2")
}
