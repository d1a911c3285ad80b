package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// mergeTableModes are the four table modes with MERGE's own property set:
// copy-on-write and merge-on-read (deletion vectors on v3, position
// deletes on v2).
var mergeTableModes = []string{
	"WITH ('format-version' = '2')",
	"WITH ('format-version' = '2', 'write.merge.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')",
	"WITH ('format-version' = '3', 'write.merge.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')",
	"WITH ('format-version' = '3')",
}

// mergeScript is PostgreSQL 15's MERGE: every clause kind, conditions tried
// in order, DO NOTHING, INSERT with and without a column list and DEFAULT
// VALUES, table, subquery, VALUES, join and WITH sources, NULL keys, a
// non-equality ON, and the errors (21000 leaving the table as it was).
var mergeScript = []string{
	"INSERT INTO mt VALUES (1,1,10,'a'),(2,1,20,'b'),(3,2,30,'c'),(4,2,NULL,'d'),(5,NULL,50,NULL),(6,3,60,'f'),(7,3,70,'g'),(8,4,80,'h')",
	"INSERT INTO ms VALUES (2,'B',1),(3,'C',2),(9,'Z',9),(NULL,'N',0),(7,'G',5),(10,'T',1)",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED THEN UPDATE SET s = ms.nv, v = mt.v + ms.w",
	"SELECT * FROM mt ORDER BY id",
	"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED AND s.w > 3 THEN DELETE WHEN MATCHED THEN UPDATE SET s = t.s || '!' WHEN NOT MATCHED AND s.id IS NOT NULL THEN INSERT VALUES (s.id, s.w, s.w * 100, s.nv)",
	"SELECT * FROM mt ORDER BY id",
	"MERGE INTO mt USING (SELECT id + 100 AS id, nv FROM ms WHERE id IS NOT NULL) AS x ON mt.id = x.id WHEN NOT MATCHED THEN INSERT (id, s) VALUES (x.id, x.nv)",
	"SELECT * FROM mt ORDER BY id",
	"MERGE INTO mt USING (VALUES (1, 'one'), (4, 'four'), (42, 'new')) AS v(k, name) ON mt.id = v.k WHEN MATCHED AND mt.v IS NULL THEN UPDATE SET v = 0 WHEN MATCHED THEN DO NOTHING WHEN NOT MATCHED THEN INSERT DEFAULT VALUES",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"WITH src AS (SELECT id, w FROM ms WHERE w < 5) MERGE INTO mt USING src ON mt.g = src.w AND mt.id > 100 WHEN MATCHED THEN DELETE",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"MERGE INTO mt USING ms a JOIN ms b ON a.id = b.w ON mt.id = a.id WHEN MATCHED THEN UPDATE SET s = a.nv || b.nv",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"MERGE INTO mt USING ms ON mt.v > ms.w * 20 AND ms.id = 9 WHEN MATCHED THEN UPDATE SET g = -1",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	// A target row joined by two source rows that both act: 21000, nothing changes.
	"INSERT INTO ms VALUES (2, 'B2', 1)",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED THEN UPDATE SET s = ms.nv",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	// ... unless all but one of them do nothing.
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED AND ms.nv = 'B2' THEN DO NOTHING WHEN MATCHED THEN UPDATE SET s = ms.nv",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED AND ms.nv = 'nothing' THEN DELETE",
	"MERGE INTO mt USING ms ON mt.nosuch = ms.id WHEN MATCHED THEN DELETE",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED THEN UPDATE SET nosuch = 1",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN NOT MATCHED THEN INSERT VALUES (mt.id)",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN NOT MATCHED THEN INSERT (id, id) VALUES (1, 2)",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN MATCHED THEN UPDATE SET v = 'text'",
	"MERGE INTO mt USING mt ON mt.id = mt.id WHEN MATCHED THEN DELETE",
	"MERGE INTO mt USING ms ON count(*) > 0 WHEN MATCHED THEN DELETE",
	"MERGE INTO mt USING ms ON mt.id = ms.id WHEN NOT MATCHED THEN UPDATE SET v = 1",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"MERGE INTO mt USING ms ON true WHEN MATCHED AND mt.id > 50 THEN DELETE",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	// Inside a transaction block: each MERGE sees the block's changes,
	// ROLLBACK TO undoes one, COMMIT publishes the rest.
	"BEGIN",
	"MERGE INTO mt USING (VALUES (1, 'x'), (200, 'y')) AS v(k, s) ON mt.id = v.k WHEN MATCHED THEN UPDATE SET s = v.s WHEN NOT MATCHED THEN INSERT (id, s) VALUES (v.k, v.s)",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
	"SAVEPOINT a",
	"MERGE INTO mt USING (VALUES (200)) AS v(k) ON mt.id = v.k WHEN MATCHED THEN DELETE",
	"SELECT count(*) FROM mt",
	"ROLLBACK TO a",
	"MERGE INTO mt USING (VALUES (200, 'z')) AS v(k, s) ON mt.id = v.k WHEN MATCHED THEN UPDATE SET s = mt.s || v.s",
	"COMMIT",
	"SELECT * FROM mt ORDER BY id NULLS FIRST",
}

// TestMergeMatchesPostgres runs the script in each table mode, comparing
// every tag, error and table state with PostgreSQL 15 (issue 13).
func TestMergeMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	for mi, mode := range mergeTableModes {
		for _, part := range []string{"", "PARTITIONED BY (g)"} {
			t.Run(fmt.Sprintf("mode%d%s", mi, strings.Fields(part + " unpartitioned")[0]), func(t *testing.T) {
				s := testSession(t)
				mustPG(t, conn, "DROP TABLE IF EXISTS mt, ms")
				mustPG(t, conn, "CREATE TABLE mt (id int, g int, v int, s text)")
				mustQuery(t, s, "CREATE TABLE mt (id int, g int, v int, s text) "+part+" "+mode)
				mustPG(t, conn, "CREATE TABLE ms (id int, nv text, w int)")
				mustQuery(t, s, "CREATE TABLE ms (id int, nv text, w int) "+mode)
				for _, q := range mergeScript {
					compareStatement(t, s, conn, q)
				}
			})
		}
	}
}

// TestMergeBySourceAndReturning holds PostgreSQL 17's additions to
// independent expectations computed on PostgreSQL 15: WHEN NOT MATCHED BY
// SOURCE equals a DELETE/UPDATE of the target rows no source row joins,
// run before the rest of the MERGE; RETURNING merge_action() lists per
// action the rows a join computed beforehand.
func TestMergeBySourceAndReturning(t *testing.T) {
	conn := connectTestPostgres(t)
	setup := []string{
		"INSERT INTO mt VALUES (1,1,10,'a'),(2,1,20,'b'),(3,2,30,'c'),(4,2,NULL,'d'),(5,NULL,50,NULL),(6,3,60,'f')",
		"INSERT INTO ms VALUES (2,'B',1),(3,'C',7),(9,'Z',9),(NULL,'N',0)",
	}
	for mi, mode := range mergeTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustPG(t, conn, "DROP TABLE IF EXISTS mt, ms")
			mustPG(t, conn, "CREATE TABLE mt (id int, g int, v int, s text)")
			mustPG(t, conn, "CREATE TABLE ms (id int, nv text, w int)")
			mustQuery(t, s, "CREATE TABLE mt (id int, g int, v int, s text) "+mode)
			mustQuery(t, s, "CREATE TABLE ms (id int, nv text, w int) "+mode)
			for _, q := range setup {
				mustPG(t, conn, q)
				mustQuery(t, s, q)
			}
			// The expected RETURNING rows, from the tables before the MERGE.
			want := pgExec(t, conn, `SELECT 'UPDATE', mt.id, ms.nv, ms.id FROM mt JOIN ms ON mt.id = ms.id WHERE ms.w < 5
				UNION ALL SELECT 'DELETE', mt.id, mt.s, ms.id FROM mt JOIN ms ON mt.id = ms.id WHERE NOT ms.w < 5
				UNION ALL SELECT 'INSERT', ms.id, ms.nv, ms.id FROM ms WHERE NOT EXISTS (SELECT 1 FROM mt WHERE mt.id = ms.id)
				UNION ALL SELECT 'DELETE', mt.id, mt.s, NULL FROM mt WHERE NOT EXISTS (SELECT 1 FROM ms WHERE mt.id = ms.id) AND mt.g = 1
				UNION ALL SELECT 'UPDATE', mt.id, 'orphan', NULL FROM mt WHERE NOT EXISTS (SELECT 1 FROM ms WHERE mt.id = ms.id) AND mt.g IS DISTINCT FROM 1`)
			bySource := pgExec(t, conn, `DELETE FROM mt WHERE NOT EXISTS (SELECT 1 FROM ms WHERE mt.id = ms.id) AND mt.g = 1`)
			orphans := pgExec(t, conn, `UPDATE mt SET s = 'orphan' WHERE NOT EXISTS (SELECT 1 FROM ms WHERE mt.id = ms.id)`)
			rest := pgExec(t, conn, `MERGE INTO mt USING ms ON mt.id = ms.id
				WHEN MATCHED AND ms.w < 5 THEN UPDATE SET s = ms.nv WHEN MATCHED THEN DELETE
				WHEN NOT MATCHED THEN INSERT (id, s) VALUES (ms.id, ms.nv)`)
			got := mustQuery(t, s, `MERGE INTO mt USING ms ON mt.id = ms.id
				WHEN MATCHED AND ms.w < 5 THEN UPDATE SET s = ms.nv WHEN MATCHED THEN DELETE
				WHEN NOT MATCHED BY SOURCE AND mt.g = 1 THEN DELETE
				WHEN NOT MATCHED THEN INSERT (id, s) VALUES (ms.id, ms.nv)
				WHEN NOT MATCHED BY SOURCE THEN UPDATE SET s = 'orphan'
				RETURNING merge_action(), mt.id, mt.s, ms.id`)
			n := tagCount(t, bySource.tag) + tagCount(t, orphans.tag) + tagCount(t, rest.tag)
			if got.tag != fmt.Sprintf("MERGE %d", n) {
				t.Fatalf("tag %q, want MERGE %d", got.tag, n)
			}
			if g, w := sortedRows(got.rows), sortedRows(want.rows); !slices.Equal(g, w) {
				t.Fatalf("RETURNING\n got  %v\n want %v", g, w)
			}
			compareStatement(t, s, conn, "SELECT * FROM mt ORDER BY id NULLS FIRST")
			mustFail(t, s, pgerr.UndefinedTable, "MERGE INTO mt USING ms ON mt.id = ms.id WHEN NOT MATCHED BY SOURCE AND ms.w > 1 THEN DELETE")
		})
	}
}

func tagCount(t *testing.T, tag string) int {
	t.Helper()
	f := strings.Fields(tag)
	var n int
	if _, err := fmt.Sscan(f[len(f)-1], &n); err != nil {
		t.Fatalf("tag %q: %v", tag, err)
	}
	return n
}

func sortedRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	slices.Sort(out)
	return out
}

// TestMergePrunesByTheSourceKeys: the source's keys become a filter on the
// target, so a MERGE whose keys fall in one partition reads only that
// partition's files, and a failed MERGE leaves table and files as they were.
func TestMergePrunesByTheSourceKeys(t *testing.T) {
	s, dir := copySession(t)
	mustQuery(t, s, "CREATE TABLE pt (id int, g int, v text NOT NULL) PARTITIONED BY (g) WITH ('format-version' = '3', 'write.merge.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO pt SELECT i, i % 10, 'v' FROM generate_series(1, 1000) i")
	mustQuery(t, s, "CREATE TABLE src (id int, g int)")
	mustQuery(t, s, "INSERT INTO src VALUES (13, 3), (23, 3), (2003, 3)")
	// EXPLAIN plans the merge whole without writing: the files it would
	// touch and the rows of each action.
	plan := mustQuery(t, s, "EXPLAIN MERGE INTO pt USING src ON pt.id = src.id AND pt.g = src.g WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.g, 'new')").text()
	var planned []string
	for _, line := range strings.Split(plan, "\n") {
		if strings.HasPrefix(line, "  File ") {
			planned = append(planned, line)
		}
	}
	if len(planned) != 1 || !strings.Contains(planned[0], "/g=3/") {
		t.Fatalf("planned files %q, want the one file of partition g=3:\n%s", planned, plan)
	}
	if !strings.Contains(plan, "Rows: 0 to be updated, 2 to be deleted, 1 to be inserted") {
		t.Fatalf("want 2 rows deleted and 1 inserted planned:\n%s", plan)
	}
	before := mustQuery(t, s, "SELECT count(*), sum(id) FROM pt").text()
	mustQuery(t, s, "INSERT INTO src VALUES (13, 3)")
	files := dataFiles(t, dir)
	mustFail(t, s, pgerr.CardinalityViolation, "MERGE INTO pt USING src ON pt.id = src.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.g, 'new')")
	mustFail(t, s, pgerr.NotNullViolation, "MERGE INTO pt USING (SELECT id, g FROM src UNION ALL SELECT 1, 1) AS x ON pt.id = x.id + 1000"+
		" WHEN NOT MATCHED AND x.id = 1 THEN INSERT VALUES (x.id, 1, NULL) WHEN NOT MATCHED THEN INSERT VALUES (x.id, x.g, 'n')")
	if got := mustQuery(t, s, "SELECT count(*), sum(id) FROM pt").text(); got != before {
		t.Fatalf("after failed MERGEs: %q, before %q", got, before)
	}
	if got := dataFiles(t, dir); !slices.Equal(got, files) {
		t.Fatalf("a failed MERGE left files behind:\n before %v\n after  %v", files, got)
	}
}
