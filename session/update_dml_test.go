package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestUpdateStatement(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		for _, mode := range []string{"copy-on-write", "merge-on-read"} {
			t.Run(fmt.Sprintf("v%d/%s", version, mode), func(t *testing.T) {
				s := testSession(t)
				m := dmlSetup(t, s, version, fmt.Sprintf(", 'write.update.mode' = '%s', 'write.delete.mode' = '%s'", mode, mode), 24)
				if version > 1 {
					mustQuery(t, s, "DELETE FROM t WHERE id = 5")
					delete(m, 5)
				}
				before := dmlSnapshotCount(t, s)
				res := mustQuery(t, s, "UPDATE t SET v = v + 1000, cat = upper(cat) WHERE id % 4 = 1")
				n := 0
				for id := range m {
					if id%4 == 1 {
						n++
						m.put(id, strings.ToUpper([]string{"a", "b", "c"}[id%3]), id*10+1000)
					}
				}
				if res.tag != fmt.Sprintf("UPDATE %d", n) {
					t.Fatalf("tag %q, model updated %d", res.tag, n)
				}
				dmlCheck(t, s, "t", m)
				// Moved rows are found through their new partition.
				got := mustQuery(t, s, "SELECT count(*) FROM t WHERE cat = 'B'").text()
				want := 0
				for id := range m {
					if id%4 == 1 && id%3 == 1 {
						want++
					}
				}
				if got != fmt.Sprintf("%d\n", want) {
					t.Fatalf("partition B holds %s, want %d", got, want)
				}
				if after := dmlSnapshotCount(t, s); after == before {
					t.Fatal("no snapshot")
				}
				deleteFiles := mustQuery(t, s, `SELECT count(*) FROM "t$delete_files"`).text()
				if (mode == "merge-on-read" && version > 1) != (deleteFiles != "0\n") {
					t.Fatalf("%s v%d left %s delete files", mode, version, deleteFiles)
				}
			})
		}
	}
}

func TestUpdateReturningAndErrors(t *testing.T) {
	s := testSession(t)
	m := dmlSetup(t, s, 2, ", 'write.update.mode' = 'merge-on-read'", 6)
	r := mustQuery(t, s, "UPDATE t AS x SET v = x.v * 2, cat = NULL WHERE id IN (2, 3) RETURNING id, v, cat IS NULL AS gone")
	if r.tag != "UPDATE 2" || r.text() != "2|40|t\n3|60|t\n" && r.text() != "3|60|t\n2|40|t\n" {
		t.Fatalf("RETURNING: tag %q rows %q", r.tag, r.text())
	}
	m.put(2, "NULL", 40)
	m.put(3, "NULL", 60)
	dmlCheck(t, s, "t", m)

	before := dmlSnapshotCount(t, s)
	if r := mustQuery(t, s, "UPDATE t SET v = 1 WHERE id > 100"); r.tag != "UPDATE 0" {
		t.Fatalf("tag %q", r.tag)
	}
	mustFail(t, s, pgerr.NotNullViolation, "UPDATE t SET id = NULL WHERE id = 1")
	mustFail(t, s, pgerr.NotNullViolation, "UPDATE t SET id = CASE WHEN id = 4 THEN NULL ELSE id END")
	mustFail(t, s, pgerr.DatatypeMismatch, "UPDATE t SET v = true")
	mustFail(t, s, pgerr.UndefinedColumn, "UPDATE t SET nope = 1")
	mustFail(t, s, pgerr.SyntaxError, "UPDATE t SET v = 1, v = 2")
	mustFail(t, s, pgerr.InvalidTextRepresentation, "UPDATE t SET v = 'x'")
	mustFail(t, s, pgerr.GroupingError, "UPDATE t SET v = count(*)")
	if after := dmlSnapshotCount(t, s); after != before {
		t.Fatalf("failed updates committed: %s → %s", before, after)
	}
	dmlCheck(t, s, "t", m)
	// SET without WHERE updates every row; a typed parameter works too.
	r = mustQuery(t, s, "UPDATE t SET v = $1", int64(7))
	if r.tag != fmt.Sprintf("UPDATE %d", len(m)) {
		t.Fatalf("tag %q", r.tag)
	}
	for id, row := range m {
		parts := strings.Split(row, "|")
		m.put(id, parts[1], 7)
	}
	dmlCheck(t, s, "t", m)
}

func TestTruncate(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			s := testSession(t)
			dmlSetup(t, s, version, ", 'write.delete.mode' = 'merge-on-read'", 9)
			mustQuery(t, s, "DELETE FROM t WHERE id = 1")
			before := dmlSnapshotCount(t, s)
			if r := mustQuery(t, s, "TRUNCATE TABLE t"); r.tag != "TRUNCATE TABLE" {
				t.Fatalf("tag %q", r.tag)
			}
			dmlCheck(t, s, "t", dmlModel{})
			for _, meta := range []string{"t$files", "t$delete_files"} {
				if got := mustQuery(t, s, fmt.Sprintf(`SELECT count(*) FROM "%s"`, meta)).text(); got != "0\n" {
					t.Fatalf("%s has %s entries", meta, got)
				}
			}
			after := dmlSnapshotCount(t, s)
			if after == before {
				t.Fatal("no snapshot")
			}
			mustQuery(t, s, "TRUNCATE t")
			if dmlSnapshotCount(t, s) != after {
				t.Fatal("truncating an empty table committed a snapshot")
			}
			mustQuery(t, s, "INSERT INTO t VALUES (1, 'a', 1)")
			m := dmlModel{}
			m.put(1, "a", 1)
			dmlCheck(t, s, "t", m)
			mustFail(t, s, pgerr.UndefinedTable, "TRUNCATE nope")
		})
	}
}
