package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// dmlModel is the test's own copy of a table (id → "id|cat|v"), kept without
// the engine.
type dmlModel map[int]string

func (m dmlModel) put(id int, cat string, v any) {
	m[id] = fmt.Sprintf("%d|%s|%v", id, cat, v)
}

func (m dmlModel) text() string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(m[id])
		b.WriteByte('\n')
	}
	return b.String()
}

// dmlCheck compares SELECT with the model.
func dmlCheck(t *testing.T, s *Session, table string, m dmlModel) {
	t.Helper()
	got := mustQuery(t, s, "SELECT id, coalesce(cat, 'NULL'), coalesce(v::text, 'NULL') FROM "+table+" ORDER BY id").text()
	if got != m.text() {
		t.Fatalf("table %s:\n%s\nmodel:\n%s", table, got, m.text())
	}
}

// dmlExec runs q and returns the whole Result (notices included).
func dmlExec(t *testing.T, s *Session, q string) *stmt.Result {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// dmlRemoved is the row count of the "n rows removed" NOTICE.
func dmlRemoved(t *testing.T, res *stmt.Result) int {
	t.Helper()
	for _, n := range res.Notices {
		var k int
		if _, err := fmt.Sscanf(n.Message, "%d rows removed", &k); err == nil {
			return k
		}
	}
	t.Fatalf("no removed-rows notice in %+v", res.Notices)
	return 0
}

// dmlSetup creates t partitioned by cat with rows id 0..n-1.
func dmlSetup(t *testing.T, s *Session, version int, props string, n int) dmlModel {
	t.Helper()
	mustQuery(t, s, fmt.Sprintf("CREATE TABLE t (id int NOT NULL, cat text, v int) PARTITIONED BY (cat) WITH ('format-version' = '%d'%s)", version, props))
	m := dmlModel{}
	var vals []string
	for i := 0; i < n; i++ {
		cat := []string{"a", "b", "c"}[i%3]
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", i, cat, i*10))
		m.put(i, cat, i*10)
	}
	mustQuery(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	return m
}

func dmlSnapshotCount(t *testing.T, s *Session) string {
	t.Helper()
	return mustQuery(t, s, `SELECT count(*) FROM "t$snapshots"`).text()
}

func TestInsertOverwriteStatic(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			s := testSession(t)
			m := dmlSetup(t, s, version, ", 'write.delete.mode' = 'merge-on-read'", 12)
			if version > 1 {
				mustQuery(t, s, "DELETE FROM t WHERE id = 4") // a live delete file the overwrite must honour
				delete(m, 4)
			}
			res := dmlExec(t, s, "INSERT OVERWRITE t VALUES (100, 'a', 1), (101, 'z', NULL)")
			if res.Tag != "INSERT 0 2" || dmlRemoved(t, res) != len(m) {
				t.Fatalf("tag %q, removed %d, model had %d", res.Tag, dmlRemoved(t, res), len(m))
			}
			m = dmlModel{}
			m.put(100, "a", 1)
			m.put(101, "z", "NULL")
			dmlCheck(t, s, "t", m)
			op := mustQuery(t, s, `SELECT operation FROM "t$snapshots" ORDER BY committed_at DESC LIMIT 1`).text()
			if op != "overwrite\n" {
				t.Fatalf("operation %q", op)
			}
			// TABLE keyword and a SELECT source reading the table itself.
			res = dmlExec(t, s, "INSERT OVERWRITE TABLE t SELECT id + 1, cat, v FROM t WHERE id = 100")
			if res.Tag != "INSERT 0 1" || dmlRemoved(t, res) != 2 {
				t.Fatalf("tag %q removed %d", res.Tag, dmlRemoved(t, res))
			}
			m = dmlModel{}
			m.put(101, "a", 1)
			dmlCheck(t, s, "t", m)
		})
	}
}

func TestInsertOverwritePartition(t *testing.T) {
	s := testSession(t)
	m := dmlSetup(t, s, 2, "", 9)
	res := dmlExec(t, s, "INSERT OVERWRITE t PARTITION (cat = 'a') VALUES (50, 500), (51, NULL)")
	removed := 0
	for id, r := range m {
		if strings.Contains(r, "|a|") {
			delete(m, id)
			removed++
		}
	}
	m.put(50, "a", 500)
	m.put(51, "a", "NULL")
	if res.Tag != "INSERT 0 2" || dmlRemoved(t, res) != removed {
		t.Fatalf("tag %q removed %d, want %d", res.Tag, dmlRemoved(t, res), removed)
	}
	dmlCheck(t, s, "t", m)
	// A PARTITION column that is not an identity partition column is
	// refused, as Spark does (it would act as REPLACE WHERE), and the table
	// is left as it was.
	mustFail(t, s, pgerr.InvalidColumnReference, "INSERT OVERWRITE t PARTITION (v = 10) SELECT 70, 'b'")
	dmlCheck(t, s, "t", m)
	mustFail(t, s, pgerr.UndefinedColumn, "INSERT OVERWRITE t PARTITION (nope = 1) VALUES (1, 2)")
	mustFail(t, s, pgerr.SyntaxError, "INSERT OVERWRITE t PARTITION (cat = 'a') VALUES (1, 2, 3)")
	mustFail(t, s, pgerr.FeatureNotSupported, "INSERT OVERWRITE t PARTITION (cat) VALUES (1, 2, 'a')")
}

func TestInsertReplaceWhere(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			s := testSession(t)
			m := dmlSetup(t, s, version, "", 10)
			res := dmlExec(t, s, "INSERT INTO t REPLACE WHERE id < 3 OR v > 80 VALUES (1, 'q', 7), (60, 'c', 99)")
			removed := 0
			for id := range m {
				if id < 3 || id*10 > 80 {
					delete(m, id)
					removed++
				}
			}
			m.put(1, "q", 7)
			m.put(60, "c", 99) // inserted although it satisfies the condition
			if res.Tag != "INSERT 0 2" || dmlRemoved(t, res) != removed {
				t.Fatalf("tag %q removed %d want %d", res.Tag, dmlRemoved(t, res), removed)
			}
			dmlCheck(t, s, "t", m)
			// Nothing matched and nothing inserted: no snapshot.
			before := dmlSnapshotCount(t, s)
			res = dmlExec(t, s, "INSERT INTO t REPLACE WHERE id > 1000 SELECT id, cat, v FROM t WHERE false")
			if res.Tag != "INSERT 0 0" || dmlSnapshotCount(t, s) != before {
				t.Fatalf("empty replace: tag %q, snapshots %s → %s", res.Tag, before, dmlSnapshotCount(t, s))
			}
		})
	}
}

func TestInsertOverwriteDynamic(t *testing.T) {
	s := testSession(t)
	m := dmlSetup(t, s, 2, "", 12)
	mustQuery(t, s, "SET partition_overwrite_mode = 'dynamic'")
	files := func(cat string) string {
		return mustQuery(t, s, fmt.Sprintf(`SELECT file_path FROM "t$files" WHERE file_path LIKE '%%cat=%s%%' ORDER BY file_path`, cat)).text()
	}
	untouched := files("c")
	res := dmlExec(t, s, "INSERT OVERWRITE t VALUES (100, 'a', 1), (101, 'b', 2), (102, 'new', 3)")
	removed := 0
	for id, r := range m {
		if strings.Contains(r, "|a|") || strings.Contains(r, "|b|") {
			delete(m, id)
			removed++
		}
	}
	m.put(100, "a", 1)
	m.put(101, "b", 2)
	m.put(102, "new", 3)
	if res.Tag != "INSERT 0 3" || dmlRemoved(t, res) != removed {
		t.Fatalf("tag %q removed %d want %d", res.Tag, dmlRemoved(t, res), removed)
	}
	dmlCheck(t, s, "t", m)
	if files("c") != untouched || untouched == "" {
		t.Fatalf("partition c changed:\n%s\n%s", untouched, files("c"))
	}
	// PARTITION and REPLACE WHERE stay static under the dynamic setting.
	res = dmlExec(t, s, "INSERT OVERWRITE t PARTITION (cat = 'c') VALUES (200, 5)")
	for id, r := range m {
		if strings.Contains(r, "|c|") {
			delete(m, id)
		}
	}
	m.put(200, "c", 5)
	dmlCheck(t, s, "t", m)

	// An unpartitioned table is one partition: dynamic overwrite replaces
	// all of it (Spark's rule), as static does.
	mustQuery(t, s, "CREATE TABLE u (id int)")
	mustQuery(t, s, "INSERT INTO u VALUES (1), (3)")
	if got := dmlExec(t, s, "INSERT OVERWRITE u VALUES (2)"); dmlRemoved(t, got) != 2 || got.Tag != "INSERT 0 1" {
		t.Fatalf("dynamic overwrite of unpartitioned u: %q, %d removed", got.Tag, dmlRemoved(t, got))
	}
	if got := mustQuery(t, s, "SELECT id FROM u").text(); got != "2\n" {
		t.Fatalf("u holds %q, want 2", got)
	}
	mustQuery(t, s, "RESET partition_overwrite_mode")
	if got := dmlExec(t, s, "INSERT OVERWRITE u VALUES (4)"); dmlRemoved(t, got) != 1 {
		t.Fatal("static overwrite of u")
	}
}

// TestInsertOverwriteBadRow: a bad row in the new data commits nothing.
func TestInsertOverwriteBadRow(t *testing.T) {
	s := testSession(t)
	m := dmlSetup(t, s, 2, "", 6)
	before := dmlSnapshotCount(t, s)
	mustFail(t, s, pgerr.NotNullViolation, "INSERT OVERWRITE t VALUES (1, 'a', 1), (NULL, 'b', 2)")
	mustFail(t, s, pgerr.NotNullViolation, "INSERT OVERWRITE t SELECT CASE WHEN id = 3 THEN NULL ELSE id END, cat, v FROM t")
	mustFail(t, s, pgerr.DatatypeMismatch, "INSERT OVERWRITE t VALUES (1, 'a', true)")
	mustFail(t, s, pgerr.InvalidTextRepresentation, "INSERT INTO t REPLACE WHERE true VALUES (1, 'a', 'x')")
	if got := dmlSnapshotCount(t, s); got != before {
		t.Fatalf("snapshots %s → %s", before, got)
	}
	dmlCheck(t, s, "t", m)
}

// TestReplaceWhereChecksNewRows: every new row of REPLACE WHERE must hold
// its condition, or the statement fails with 23514 and writes nothing,
// also when the failing row comes after batches already written.
func TestReplaceWhereChecksNewRows(t *testing.T) {
	s, dir := copySession(t) // batches of 3 rows
	mustQuery(t, s, "CREATE TABLE r (id int, cat text) PARTITIONED BY (cat)")
	mustQuery(t, s, "INSERT INTO r VALUES (1, 'a'), (2, 'b'), (50, 'c')")
	files := dataFiles(t, dir)
	before := mustQuery(t, s, "SELECT * FROM r ORDER BY id").text()
	snaps := mustQuery(t, s, `SELECT count(*) FROM "r$snapshots"`).text()
	mustFail(t, s, pgerr.CheckViolation, "INSERT INTO r REPLACE WHERE id < 10 VALUES (3, 'a'), (11, 'b')")
	mustFail(t, s, pgerr.CheckViolation, "INSERT INTO r REPLACE WHERE id < 10 SELECT g % 9, 'x' || g FROM generate_series(1, 20) g UNION ALL SELECT NULL, 'n'")
	if got := mustQuery(t, s, "SELECT * FROM r ORDER BY id").text(); got != before {
		t.Fatalf("table changed:\n%s\nwas\n%s", got, before)
	}
	if got := mustQuery(t, s, `SELECT count(*) FROM "r$snapshots"`).text(); got != snaps {
		t.Fatalf("snapshots %s -> %s", snaps, got)
	}
	if got := dataFiles(t, dir); len(got) != len(files) {
		t.Fatalf("data files %d -> %d: the failed statements left files behind", len(files), len(got))
	}
	res := dmlExec(t, s, "INSERT INTO r REPLACE WHERE id < 10 VALUES (3, 'a'), (4, 'd')")
	if res.Tag != "INSERT 0 2" || dmlRemoved(t, res) != 2 {
		t.Fatalf("tag %q removed %d", res.Tag, dmlRemoved(t, res))
	}
	if got := mustQuery(t, s, "SELECT id FROM r ORDER BY id").text(); got != "3\n4\n50\n" {
		t.Fatalf("after replace: %q", got)
	}
}
