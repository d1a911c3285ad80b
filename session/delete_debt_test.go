package session

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestDeleteDebt writes a partitioned table (one data file per partition),
// deletes known rows with position deletes (v2), deletion vectors (v3) and
// equality deletes, and holds "t$delete_debt" and its summary to what the
// test wrote: per file the rows deleted, live rows, ratio, delete files and
// bounds; the totals; and the table's own count.
func TestDeleteDebt(t *testing.T) {
	cases := []struct {
		name, with string
		equality   bool
	}{
		{"v2-position", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')", false},
		{"v3-dv", "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')", false},
		{"v2-equality", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')", true},
		{"copy-on-write", "WITH ('format-version' = '2')", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE dd (id int, g int) PARTITIONED BY (g) "+c.with)
			mustQuery(t, s, "INSERT INTO dd SELECT i, i % 3 FROM generate_series(1, 300) i")
			if c.equality {
				mustQuery(t, s, "SET magmalake.equality_deletes = on")
			}
			// Partition 0 loses ids 3..30 step 3 (10 rows), partition 1 ids 1 and 4,
			// partition 2 nothing.
			mustQuery(t, s, "DELETE FROM dd WHERE id IN (3, 6, 9, 12, 15)")
			mustQuery(t, s, "DELETE FROM dd WHERE id IN (18, 21, 24, 27, 30, 1, 4)")
			want := map[string]int64{"0": 10, "1": 2, "2": 0}
			got := mustQuery(t, s, `SELECT partition, record_count, deleted_rows, live_rows, dead_ratio, delete_files, bounds, dead_bytes <= file_size_in_bytes
				FROM "dd$delete_debt" ORDER BY partition`).rows
			if len(got) != 3 {
				t.Fatalf("%d files, want 3: %v", len(got), got)
			}
			cow := c.name == "copy-on-write"
			var dead int64
			for _, r := range got {
				part := strings.TrimSuffix(strings.TrimPrefix(r[0], `{"g":`), "}")
				d, records, bounds, ratio := want[part], int64(100), "tight", 0.0
				if cow {
					records, d = 100-d, 0 // rewritten files hold the survivors, no delete
				}
				if d > 0 {
					bounds, ratio = "wide", float64(d)/100
				}
				n, _ := strconv.ParseInt(r[5], 10, 64)
				if (n > 0) != (d > 0) {
					t.Fatalf("partition %s: %s delete files for %d deleted rows", part, r[5], d)
				}
				wantRow := []string{r[0], fmt.Sprint(records), fmt.Sprint(d), fmt.Sprint(records - d), fmt.Sprint(ratio), r[5], bounds, "t"}
				if fmt.Sprint(r) != fmt.Sprint(wantRow) {
					t.Fatalf("partition %s:\n got  %v\n want %v", part, r, wantRow)
				}
				dead += d
			}
			sum := mustQuery(t, s, `SELECT data_files, live_rows, deleted_rows, small_files, snapshots, old_snapshot_files > 0 FROM "dd$delete_debt_summary"`).rows[0]
			count := mustQuery(t, s, "SELECT count(*) FROM dd").rows[0][0]
			// Only old snapshots keep a file once one replaced it: a rewrite
			// (copy-on-write) or a deletion vector absorbing the previous
			// one; v2 position delete files and equality deletes accumulate.
			oldOnly := map[bool]string{true: "t", false: "f"}[cow || c.name == "v3-dv"]
			if w := []string{"3", count, fmt.Sprint(dead), "3", "3", oldOnly}; fmt.Sprint(sum) != fmt.Sprint(w) {
				t.Fatalf("summary %v, want %v", sum, w)
			}
			if count != "288" {
				t.Fatalf("count(*) %s, want 288", count)
			}
			if distinct := mustQuery(t, s, `SELECT delete_files FROM "dd$delete_debt_summary"`).rows[0][0]; (distinct == "0") != cow {
				t.Fatalf("summary counts %s delete files", distinct)
			}
		})
	}
}

// TestShowCreateTable: SHOW CREATE TABLE's statement makes a table that
// describes and shows the same, and SHOW TBLPROPERTIES lists what
// "t$properties" does, the format version among them.
func TestShowCreateTable(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, `CREATE TABLE sc (id bigint NOT NULL, n varchar(5), ts timestamp, sm smallint, "Odd name" text)
		PARTITIONED BY (bucket(4, id), day(ts), truncate(2, n)) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'x.y' = 'it''s')`)
	text := mustQuery(t, s, "SHOW CREATE TABLE sc").rows[0][0]
	for _, want := range []string{"id bigint NOT NULL", "character varying(5)", `"Odd name" text`,
		"PARTITIONED BY (bucket(4, id), day(ts), truncate(2, n))", "'x.y' = 'it''s'", "'format-version' = '2'", "-- location: "} {
		if !strings.Contains(text, want) {
			t.Fatalf("SHOW CREATE TABLE lacks %q:\n%s", want, text)
		}
	}
	mustQuery(t, s, strings.Replace(text, "public.sc", "public.sc2", 1))
	again := mustQuery(t, s, "SHOW CREATE TABLE sc2").rows[0][0]
	strip := func(x string) string { return x[:strings.Index(x, "-- location")] }
	if strip(strings.Replace(again, "sc2", "sc", 1)) != strip(text) {
		t.Fatalf("the statement does not make the same table:\n%s\n---\n%s", text, again)
	}
	if a, b := mustQuery(t, s, "DESCRIBE sc").text(), mustQuery(t, s, "DESCRIBE sc2").text(); a != b {
		t.Fatalf("DESCRIBE differs:\n%s\n%s", a, b)
	}
	props := mustQuery(t, s, "SHOW TBLPROPERTIES sc").text()
	if meta := mustQuery(t, s, `SELECT key, value FROM "sc$properties" ORDER BY key`).text(); props != meta || !strings.Contains(props, "format-version") {
		t.Fatalf("SHOW TBLPROPERTIES:\n%s\nt$properties:\n%s", props, meta)
	}
	mustFail(t, s, pgerr.UndefinedTable, "SHOW CREATE TABLE nosuch")
}
