package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// optimizeModes are the delete strategies OPTIMIZE pays back.
var optimizeModes = []struct{ name, with, setup string }{
	{"v2-position", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')", ""},
	{"v3-dv", "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')", ""},
	{"v2-equality", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')", "SET magmalake.equality_deletes = on"},
	{"copy-on-write", "WITH ('format-version' = '2')", ""},
}

// optTable makes a table partitioned by g with, per partition, one big
// file and three one-row files, then deletes ids 1..300 step 3 in two
// statements; it returns the ids that must remain.
func optTable(t *testing.T, s *Session, with, setup string) []int {
	t.Helper()
	mustQuery(t, s, "CREATE TABLE ot (id int, g int, s text) PARTITIONED BY (g) "+with)
	mustQuery(t, s, "INSERT INTO ot SELECT i, i % 2, 'v' || i FROM generate_series(1, 400) i")
	for _, id := range []int{1001, 1002, 1003, 1004, 1005, 1006} {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO ot VALUES (%d, %d, 'small')", id, id%2))
	}
	if setup != "" {
		mustQuery(t, s, setup)
	}
	mustQuery(t, s, "DELETE FROM ot WHERE id IN ("+idList(1, 150, 3)+")")
	mustQuery(t, s, "DELETE FROM ot WHERE id IN ("+idList(151, 300, 3)+")")
	var want []int
	for id := 1; id <= 400; id++ {
		if id > 300 || (id-1)%3 != 0 {
			want = append(want, id)
		}
	}
	return append(want, 1001, 1002, 1003, 1004, 1005, 1006)
}

func idList(from, to, step int) string {
	var out []byte
	for i := from; i <= to; i += step {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendInt(out, int64(i), 10)
	}
	return string(out)
}

func optIDs(t *testing.T, rows [][]string, col int) []int {
	t.Helper()
	out := make([]int, 0, len(rows))
	for _, r := range rows {
		n, err := strconv.Atoi(strings.TrimPrefix(r[col], "i:")) // iceberg-go's cells are canonical
		if err != nil {
			t.Fatalf("id %q: %v", r[col], err)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestOptimize: OPTIMIZE bin-packs the small files and rewrites the files
// whose dead ratio passes the threshold, in every delete mode: the rows
// (read by magmalake and by iceberg-go's scan) are the model's, every file
// afterwards carries no delete, the delete files are gone (equality
// deletes stay, no longer applying), it is one replace snapshot, and a
// second OPTIMIZE finds nothing to do.
func TestOptimize(t *testing.T) {
	for _, m := range optimizeModes {
		t.Run(m.name, func(t *testing.T) {
			s := testSession(t)
			want := optTable(t, s, m.with, m.setup)
			snaps := mustQuery(t, s, `SELECT count(*) FROM "ot$snapshots"`).rows[0][0]
			out := mustQuery(t, s, "ALTER TABLE ot EXECUTE optimize(delete_ratio_threshold => 0.1)").rows[0]
			if out[0] != "8" || out[1] != "2" || out[3] != fmt.Sprint(len(want)) {
				t.Fatalf("optimize reported %v: want 8 files rewritten into 2, %d rows", out, len(want))
			}
			if m.name != "copy-on-write" && out[2] == "0" {
				t.Fatalf("optimize removed no delete file: %v", out)
			}
			if got := optIDs(t, mustQuery(t, s, "SELECT id FROM ot").rows, 0); !slices.Equal(got, want) {
				t.Fatalf("rows after OPTIMIZE: %d ids, want %d", len(got), len(want))
			}
			if got := optIDs(t, fndIcebergRows(t, s, "public", "ot"), 0); !slices.Equal(got, want) {
				t.Fatalf("iceberg-go reads %d ids after OPTIMIZE, want %d", len(got), len(want))
			}
			debt := mustQuery(t, s, `SELECT data_files, deleted_rows, live_rows FROM "ot$delete_debt_summary"`).rows[0]
			if w := []string{"2", "0", fmt.Sprint(len(want))}; !slices.Equal(debt, w) {
				t.Fatalf("debt after OPTIMIZE %v, want %v", debt, w)
			}
			n, _ := strconv.Atoi(snaps)
			last := mustQuery(t, s, `SELECT count(*), max(operation) FILTER (WHERE committed_at = (SELECT max(committed_at) FROM "ot$snapshots")) FROM "ot$snapshots"`).rows[0]
			if last[0] != fmt.Sprint(n+1) || last[1] != "replace" {
				t.Fatalf("snapshots %v, want %d with a replace last", last, n+1)
			}
			if again := mustQuery(t, s, "ALTER TABLE ot EXECUTE optimize").rows[0]; again[0] != "0" {
				t.Fatalf("a second OPTIMIZE rewrote %v", again)
			}
		})
	}
}

// TestOptimizeScope: WHERE limits OPTIMIZE to the partitions it names, a
// high threshold leaves dead files alone, and it cannot run inside a
// transaction block or take a condition Iceberg cannot evaluate per file.
func TestOptimizeScope(t *testing.T) {
	s := testSession(t)
	optTable(t, s, optimizeModes[1].with, "")
	// No file is under 100 bytes (a one-row file has some 500: its footer
	// does not carry the Arrow schema, which iceberg-go's writer added).
	out := mustQuery(t, s, "ALTER TABLE ot EXECUTE optimize(file_size_threshold => '100B', delete_ratio_threshold => 0.9)").rows[0]
	if out[0] != "0" {
		t.Fatalf("thresholds nothing passes rewrote %v", out)
	}
	out = mustQuery(t, s, "ALTER TABLE ot EXECUTE optimize WHERE g = 1").rows[0]
	if out[0] != "4" {
		t.Fatalf("WHERE g = 1 rewrote %v, want the 4 files of partition 1", out)
	}
	left := mustQuery(t, s, `SELECT count(*) FROM "ot$delete_debt" WHERE partition = '{"g":0}'`).rows[0][0]
	if left != "4" {
		t.Fatalf("partition 0 has %s files, want its 4 untouched", left)
	}
	mustFail(t, s, pgerr.FeatureNotSupported, "ALTER TABLE ot EXECUTE optimize WHERE s LIKE '%x'")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE ot EXECUTE optimize(delete_ratio_threshold => 2)")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE ot EXECUTE optimize(nosuch => 1)")
	mustFail(t, s, pgerr.FeatureNotSupported, "ALTER TABLE ot EXECUTE rewrite_position_delete_files")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.ActiveSQLTransaction, "ALTER TABLE ot EXECUTE optimize")
	mustQuery(t, s, "ROLLBACK")
}

// TestOptimizeConcurrentDelete runs OPTIMIZE and DELETEs on the same files
// at once from two sessions, in the merge-on-read modes: whichever commits
// first, the other plans again against it, so no delete is lost and no
// row comes back.
func TestOptimizeConcurrentDelete(t *testing.T) {
	for _, m := range optimizeModes[:2] {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			eng := testEngine(t, dir)
			a, b := testSessionOn(t, eng), testSessionOn(t, eng)
			want := optTable(t, a, m.with, "")
			var wg sync.WaitGroup
			var errA, errB error
			var deleted int
			wg.Go(func() {
				for range 3 {
					if errA = autocommit(a, "ALTER TABLE ot EXECUTE optimize(delete_ratio_threshold => 0.01)"); errA != nil {
						return
					}
				}
			})
			wg.Go(func() {
				for k := 0; k < 6; k++ {
					var n int
					n, errB = autocommitTag(b, fmt.Sprintf("DELETE FROM ot WHERE id %% 7 = %d AND id < 1000", k))
					deleted += n
					if errB != nil {
						return
					}
				}
			})
			wg.Wait()
			if errA != nil || errB != nil {
				t.Fatalf("optimize: %v; delete: %v", errA, errB)
			}
			var kept []int
			for _, id := range want {
				if id > 1000 || id%7 == 6 {
					kept = append(kept, id)
				}
			}
			if deleted != len(want)-len(kept) {
				t.Fatalf("DELETEs counted %d rows, %d matched", deleted, len(want)-len(kept))
			}
			if got := optIDs(t, mustQuery(t, a, "SELECT id FROM ot").rows, 0); !slices.Equal(got, kept) {
				t.Fatalf("after the race: %d ids, want %d", len(got), len(kept))
			}
			if got := optIDs(t, fndIcebergRows(t, a, "public", "ot"), 0); !slices.Equal(got, kept) {
				t.Fatalf("iceberg-go reads %d ids, want %d", len(got), len(kept))
			}
		})
	}
}

// TestOptimizeCancelled cancels OPTIMIZE at each check of its context in
// turn until it completes: each cancelled run reports 57014 and leaves the
// table, its snapshots and its directory as they were.
func TestOptimizeCancelled(t *testing.T) {
	s, dir := copySession(t)
	want := optTable(t, s, optimizeModes[1].with, "")
	files := dataFiles(t, dir)
	snaps := mustQuery(t, s, `SELECT count(*) FROM "ot$snapshots"`).text()
	for n := 1; ; n += 1 + n/8 {
		if n > 5000 {
			t.Fatal("OPTIMIZE never completed")
		}
		_, err := s.query(newCountdownCtx(n), "ALTER TABLE ot EXECUTE optimize")
		if err == nil {
			if n == 1 {
				t.Fatal("OPTIMIZE never looked at its context")
			}
			break
		}
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
			t.Fatalf("cancelled at check %d: %v", n, err)
		}
		if got := dataFiles(t, dir); !slices.Equal(got, files) {
			t.Fatalf("cancelled at check %d: files changed\nbefore %v\nafter  %v", n, files, got)
		}
		if got := mustQuery(t, s, `SELECT count(*) FROM "ot$snapshots"`).text(); got != snaps {
			t.Fatalf("cancelled at check %d: snapshots %s, before %s", n, got, snaps)
		}
	}
	if got := optIDs(t, mustQuery(t, s, "SELECT id FROM ot").rows, 0); !slices.Equal(got, want) {
		t.Fatalf("after OPTIMIZE: %d ids, want %d", len(got), len(want))
	}
}

// autocommit runs q; a serialization failure is an error, never retried.
func autocommit(s *Session, q string) error {
	_, err := s.query(context.Background(), q)
	return err
}

// TestAdaptiveRewriteRatio: with magmalake.delete.rewrite-ratio on a
// merge-on-read table, a DELETE rewrites the file whose dead share after it
// reaches the ratio and writes a deletion vector for the other; EXPLAIN
// says which went which way and why; the rows are the model's.
func TestAdaptiveRewriteRatio(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE ar (id int, g int) PARTITIONED BY (g) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'magmalake.delete.rewrite-ratio' = '0.2')")
	mustQuery(t, s, "INSERT INTO ar SELECT i, i % 2 FROM generate_series(1, 200) i")
	// Partition 0 loses 30 of its 100 rows, partition 1 loses 5.
	del := "DELETE FROM ar WHERE (g = 0 AND id <= 60) OR (g = 1 AND id <= 10)"
	plan := mustQuery(t, s, "EXPLAIN "+del).text()
	if !strings.Contains(plan, "rewrite (dead ratio after 0.3 >= magmalake.delete.rewrite-ratio 0.2)") || !strings.Contains(plan, ": dv, matched 5 of 100") {
		t.Fatalf("EXPLAIN does not show one rewrite and one DV:\n%s", plan)
	}
	mustQuery(t, s, del)
	got := mustQuery(t, s, `SELECT partition, record_count, deleted_rows, delete_files FROM "ar$delete_debt" ORDER BY partition`).rows
	if fmt.Sprint(got) != `[[{"g":0} 70 0 0] [{"g":1} 100 5 1]]` {
		t.Fatalf("files after DELETE: %v", got)
	}
	var want []int
	for i := 1; i <= 200; i++ {
		if !(i%2 == 0 && i <= 60) && !(i%2 == 1 && i <= 10) {
			want = append(want, i)
		}
	}
	if ids := optIDs(t, fndIcebergRows(t, s, "public", "ar"), 0); !slices.Equal(ids, want) {
		t.Fatalf("iceberg-go reads %d rows, want %d", len(ids), len(want))
	}
	if ids := optIDs(t, mustQuery(t, s, "SELECT id FROM ar").rows, 0); !slices.Equal(ids, want) {
		t.Fatalf("magmalake reads %d rows, want %d", len(ids), len(want))
	}
}

// TestOptimizeTargetSize: OPTIMIZE writes files of the table's target size,
// each ending at the first batch after a row group passes it, and the rows (read by
// magmalake and by iceberg-go) are the model's, each once.
func TestOptimizeTargetSize(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, `CREATE TABLE ts (id int, s text) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read',
		'write.parquet.row-group-limit' = '500', 'write.target-file-size-bytes' = '40000')`)
	var want []int
	for f := range 8 {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO ts SELECT i, md5(i::text) FROM generate_series(%d, %d) i", f*1000+1, f*1000+1000))
	}
	mustQuery(t, s, "DELETE FROM ts WHERE id % 4 = 0")
	for id := 1; id <= 8000; id++ {
		if id%4 != 0 {
			want = append(want, id)
		}
	}
	out := mustQuery(t, s, "ALTER TABLE ts EXECUTE optimize(file_size_threshold => '1MB')").rows[0]
	if out[0] != "8" || out[3] != fmt.Sprint(len(want)) {
		t.Fatalf("optimize reported %v: want 8 files rewritten, %d rows", out, len(want))
	}
	files := mustQuery(t, s, `SELECT file_size_in_bytes, record_count FROM "ts$files" ORDER BY file_size_in_bytes DESC`).rows
	if len(files) < 3 || fmt.Sprint(len(files)) != out[1] {
		t.Fatalf("optimize wrote %v files (%v): want several of 40000 bytes", out[1], files)
	}
	for i, f := range files {
		size, _ := strconv.Atoi(f[0])
		// All but the smallest (the rest) reach the target; none passes it
		// by more than a row group and a batch (500 and 750 rows of 32-byte
		// text, under 20 kB together).
		if (i < len(files)-1 && size < 40000) || size > 60000 {
			t.Errorf("file %d: %d bytes, %s rows", i, size, f[1])
		}
	}
	if got := optIDs(t, mustQuery(t, s, "SELECT id FROM ts").rows, 0); !slices.Equal(got, want) {
		t.Fatalf("rows after OPTIMIZE: %d ids, want %d", len(got), len(want))
	}
	if got := optIDs(t, fndIcebergRows(t, s, "public", "ts"), 0); !slices.Equal(got, want) {
		t.Fatalf("iceberg-go reads %d ids after OPTIMIZE, want %d", len(got), len(want))
	}
	if n := mustQuery(t, s, "SELECT count(*) FROM ts WHERE s = md5(id::text)").rows[0][0]; n != fmt.Sprint(len(want)) {
		t.Fatalf("%s rows keep their text, want %d", n, len(want))
	}
}
