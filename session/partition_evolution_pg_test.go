package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// partitionSteps evolve a table's partitioning between DML statements.
// Each step runs on magmalake as mm and on PostgreSQL 15 (an unpartitioned
// table) as pg; an empty side does nothing there.
var partitionSteps = []struct{ mm, pg string }{
	{"CREATE TABLE pe (id int, cat text, ts timestamp, v int) PARTITIONED BY (cat) %s", "CREATE TABLE pe (id int, cat text, ts timestamp, v int)"},
	{"", "CREATE TABLE src (id int, cat text, ts timestamp, v int)"},
	{"CREATE TABLE src (id int, cat text, ts timestamp, v int)", ""},
	{insertRange("src", 100, 130), insertRange("src", 100, 130)},
	{insertRange("pe", 1, 120), insertRange("pe", 1, 120)},
	{"ALTER TABLE pe ADD PARTITION FIELD bucket(4, id) AS shard", ""},
	{insertRange("pe", 121, 240), insertRange("pe", 121, 240)},
	{"DELETE FROM pe WHERE id % 10 = 0", "DELETE FROM pe WHERE id % 10 = 0"},
	{"ALTER TABLE pe REPLACE PARTITION FIELD shard WITH day(ts)", ""},
	{insertRange("pe", 241, 360), insertRange("pe", 241, 360)},
	// Dynamic overwrite replaces the rows in the (cat, day(ts)) partitions
	// of the new rows, whatever spec their files have.
	{"SET partition_overwrite_mode = 'dynamic'; INSERT OVERWRITE pe SELECT id + 2000, cat, ts, v FROM src WHERE id % 4 = 1; RESET partition_overwrite_mode",
		"DELETE FROM pe WHERE (cat, date_trunc('day', ts)) IN (SELECT cat, date_trunc('day', ts) FROM src WHERE id % 4 = 1); INSERT INTO pe SELECT id + 2000, cat, ts, v FROM src WHERE id % 4 = 1"},
	{"UPDATE pe SET v = v + 1000, cat = 'moved' WHERE id % 7 = 0", "UPDATE pe SET v = v + 1000, cat = 'moved' WHERE id % 7 = 0"},
	{"ALTER TABLE pe DROP PARTITION FIELD cat", ""},
	{"MERGE INTO pe t USING src s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = -s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.cat, s.ts, s.v)",
		"MERGE INTO pe t USING src s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = -s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.cat, s.ts, s.v)"},
	{"INSERT INTO pe REPLACE WHERE cat = 'c1' SELECT id + 1000, cat, ts, v FROM src WHERE cat = 'c1'",
		"DELETE FROM pe WHERE cat = 'c1'; INSERT INTO pe SELECT id + 1000, cat, ts, v FROM src WHERE cat = 'c1'"},
	{"ALTER TABLE pe EXECUTE optimize", ""},
	{"DELETE FROM pe WHERE ts < timestamp '2024-01-03' AND id % 3 = 0", "DELETE FROM pe WHERE ts < timestamp '2024-01-03' AND id % 3 = 0"},
}

// insertRange inserts rows lo..hi: three categories, an hour apart.
func insertRange(tbl string, lo, hi int) string {
	return fmt.Sprintf("INSERT INTO %s SELECT g, 'c' || (g %% 3), timestamp '2024-01-01' + g * interval '1 hour', g * 10 FROM generate_series(%d, %d) g", tbl, lo, hi)
}

// TestPartitionEvolutionLikePostgres: DELETE, UPDATE, MERGE, dynamic
// overwrite, REPLACE WHERE and OPTIMIZE on a table whose files are of four partition specs
// (identity, + bucket, bucket replaced by day, identity dropped) leave the
// rows PostgreSQL 15 has in the same table unpartitioned, in every table
// mode; the files keep their specs, and iceberg-go reads the same rows.
func TestPartitionEvolutionLikePostgres(t *testing.T) {
	modes := map[string]string{
		"v2-cow": "WITH ('format-version' = '2')",
		"v2-mor": "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')",
		"v3-mor": "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')",
	}
	for name, with := range modes {
		t.Run(name, func(t *testing.T) {
			conn := connectTestPostgres(t)
			s := testSession(t)
			for _, step := range partitionSteps {
				if step.pg != "" {
					for _, q := range strings.Split(step.pg, "; ") {
						mustPG(t, conn, q)
					}
				}
				if step.mm != "" {
					for _, q := range strings.Split(strings.Replace(step.mm, "%s", with, 1), "; ") {
						mustQuery(t, s, q)
					}
				}
				want := mustPG(t, conn, "SELECT * FROM pe ORDER BY id")
				if got := mustQuery(t, s, "SELECT * FROM pe ORDER BY id"); fmt.Sprint(got.rows) != fmt.Sprint(want.rows) {
					t.Fatalf("after %q:\n magmalake  %v\n PostgreSQL %v", step.mm+step.pg, got.rows, want.rows)
				}
			}
			specs := mustQuery(t, s, `SELECT count(DISTINCT spec_id) FROM "pe$files"`).text()
			if specs == "1\n" {
				t.Errorf("every file has one spec: the evolution was not exercised")
			}
			checkIcebergGoReads(t, s, "public", "pe")
		})
	}
}

// TestPartitionEvolutionErrors: misuses answer with PostgreSQL-style codes
// and leave the spec as it was.
func TestPartitionEvolutionErrors(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE pz (id int, ts timestamp, s text) PARTITIONED BY (s)")
	for q, code := range map[string]pgerr.Code{
		"ALTER TABLE pz ADD PARTITION FIELD year(id)":                  pgerr.DatatypeMismatch,
		"ALTER TABLE pz ADD PARTITION FIELD nope":                      pgerr.UndefinedColumn,
		"ALTER TABLE pz ADD PARTITION FIELD s":                         pgerr.DuplicateObject,
		"ALTER TABLE pz DROP PARTITION FIELD missing":                  pgerr.UndefinedObject,
		"ALTER TABLE pz DROP PARTITION FIELD bucket(2, id)":            pgerr.UndefinedObject,
		"ALTER TABLE pz REPLACE PARTITION FIELD s WITH hour(id)":       pgerr.DatatypeMismatch,
		"ALTER TABLE pz ADD PARTITION FIELD day(ts), ADD COLUMN x int": pgerr.FeatureNotSupported,
		"ALTER TABLE pz ADD PARTITION FIELD bucket(0, id)":             pgerr.InvalidParameterValue,
	} {
		mustFail(t, s, code, q)
	}
	if got := mustQuery(t, s, "SHOW CREATE TABLE pz").text(); !strings.Contains(got, "PARTITIONED BY (s)") {
		t.Errorf("the spec changed:\n%s", got)
	}
}
