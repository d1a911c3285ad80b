package session

import (
	"testing"
)

// emptyStringScript: a MERGE whose inserted rows and updated rows land in
// one partition file, the empty string coming in one of the two batches. A
// regression from TestDMLDiff (MAGMALAKE_DMLDIFF_SEED=777123): the file's
// statistics ignored the empty string (arrow-go skips the empty values of
// a take that selected only empty strings), its lower bound for s said 'c',
// and every later filter on the empty string (SELECT, UPDATE ... FROM) pruned
// the file.
var emptyStringScript = []string{
	"CREATE TABLE t (id int, g int, v int, s text) %s",
	"CREATE TABLE s1 (id int, g int, v int, s text)",
	"INSERT INTO t VALUES (9, NULL, 23, 'c'), (31, NULL, 28, 'a')",
	"INSERT INTO s1 VALUES (6, 3, 22, ''), (12, 0, -1, 'Z'), (9, NULL, NULL, 'q'), (31, NULL, NULL, 'r')",
	// The updated rows (9 moves to g = 3, 31 to g = 0) and the inserted
	// ones (6 into g = 3, 12 into g = 0) are two batches of one write.
	"MERGE INTO t AS a USING s1 ON a.id = s1.id WHEN MATCHED THEN UPDATE SET g = a.v % 4 WHEN NOT MATCHED THEN INSERT VALUES (s1.id, s1.g, s1.v, s1.s)",
	"SELECT id, g, v, s FROM t WHERE s = ''",
	"SELECT id FROM t WHERE s < 'b' ORDER BY id",
	"SELECT id FROM t WHERE s IN ('', 'Z') ORDER BY id",
	"UPDATE t SET v = coalesce(t.v, 0) * 2, s = 'u' FROM s1 AS x WHERE t.s = x.s",
	"SELECT id, g, v, s FROM t ORDER BY id",
	"DELETE FROM t WHERE s = 'u'",
	"SELECT id, g, v, s FROM t ORDER BY id",
}

// TestEmptyStringInPartitionedWritesLikePostgres runs the script on
// PostgreSQL 15 and on partitioned tables in both write modes.
func TestEmptyStringInPartitionedWritesLikePostgres(t *testing.T) {
	for name, with := range map[string]string{
		"v2-cow": "PARTITIONED BY (g, bucket(2, id))",
		"v3-mor": "PARTITIONED BY (g, bucket(2, id)) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')",
	} {
		t.Run(name, func(t *testing.T) {
			conn := connectTestPostgres(t)
			runScriptLikePostgres(t, testSession(t), conn, emptyStringScript, with)
		})
	}
}
