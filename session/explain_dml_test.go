package session

import (
	"fmt"
	"strings"
	"testing"
)

func TestExplainDML(t *testing.T) {
	s := testSession(t)
	m := dmlSetup(t, s, 2, ", 'write.update.mode' = 'merge-on-read'", 9)
	snaps := dmlSnapshotCount(t, s)
	dataFiles := mustQuery(t, s, `SELECT count(*) FROM "t$files"`).text()
	unchanged := func(what string) {
		t.Helper()
		if dmlSnapshotCount(t, s) != snaps {
			t.Fatalf("%s committed a snapshot", what)
		}
		dmlCheck(t, s, "t", m)
	}
	plan := func(q string, want ...string) string {
		t.Helper()
		text := mustQuery(t, s, q).text()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Fatalf("%s: plan lacks %q:\n%s", q, w, text)
			}
		}
		return text
	}

	plan("EXPLAIN UPDATE t SET v = 0 WHERE id < 3", "Update on public.t (mode merge-on-read, format v2)", "posdelete", "3 rows matched")
	unchanged("EXPLAIN UPDATE")
	plan("EXPLAIN INSERT OVERWRITE t PARTITION (cat = 'a') VALUES (1, 2)", "Overwrite on public.t (static", "drop-unread", "3 rows matched")
	unchanged("EXPLAIN INSERT OVERWRITE")
	plan("EXPLAIN INSERT INTO t REPLACE WHERE v > 40 VALUES (1, 'a', 2)", "replace where", "4 rows matched")
	unchanged("EXPLAIN REPLACE WHERE")
	plan("EXPLAIN TRUNCATE t", fmt.Sprintf("Remove: %s data files, 0 delete files", strings.TrimSpace(dataFiles)))
	unchanged("EXPLAIN TRUNCATE")
	mustQuery(t, s, "SET partition_overwrite_mode = 'dynamic'")
	plan("EXPLAIN INSERT OVERWRITE t VALUES (1, 'a', 2)", "(dynamic, copy-on-write")
	unchanged("EXPLAIN dynamic overwrite")

	plan("EXPLAIN ANALYZE UPDATE t SET v = 0 WHERE id < 3", "Actual: 3 rows updated, snapshot ")
	for id := 0; id < 3; id++ {
		m.put(id, []string{"a", "b", "c"}[id%3], 0)
	}
	dmlCheck(t, s, "t", m)
	plan("EXPLAIN ANALYZE INSERT OVERWRITE t VALUES (100, 'b', 1)", "Actual: 3 rows removed, 1 rows inserted")
	for id, r := range m {
		if strings.Contains(r, "|b|") {
			delete(m, id)
		}
	}
	m.put(100, "b", 1)
	dmlCheck(t, s, "t", m)
	plan("EXPLAIN ANALYZE TRUNCATE t", "Actual: snapshot ")
	dmlCheck(t, s, "t", dmlModel{})
}
