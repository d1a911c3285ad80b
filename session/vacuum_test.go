package session

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// filesHolding lists the files under dir whose bytes contain needle.
func filesHolding(t *testing.T, dir string, needle []byte) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, needle) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVacuumPurge: after DELETE, an erased value's bytes are still in the
// table's files (its data file under a deletion vector, position or
// equality delete, or an older snapshot's file after a copy-on-write
// rewrite); VACUUM (PURGE) rewrites the files, expires every other
// snapshot and deletes what only they kept: no file under the table's
// location holds the value, the rows are the model's (magmalake and
// iceberg-go), and the NOTICE counts the rows physically removed.
func TestVacuumPurge(t *testing.T) {
	const secret = "SECRET-ERASE-ME-42"
	for _, m := range optimizeModes {
		t.Run(m.name, func(t *testing.T) {
			s, dir := copySession(t)
			mustQuery(t, s, "CREATE TABLE vp (id int, s text) "+strings.Replace(m.with, "WITH (", "WITH ('write.parquet.compression-codec' = 'uncompressed', ", 1))
			mustQuery(t, s, "INSERT INTO vp SELECT i, CASE WHEN i = 50 THEN '"+secret+"' ELSE 'row' || i END FROM generate_series(1, 100) i")
			if m.setup != "" {
				mustQuery(t, s, m.setup)
			}
			mustQuery(t, s, "DELETE FROM vp WHERE id IN (50, 7)")
			mustQuery(t, s, "DELETE FROM vp WHERE id IN (8)")
			if len(filesHolding(t, dir, []byte(secret))) == 0 {
				t.Fatal("the erased value is in no file before VACUUM: the test would prove nothing")
			}
			p, err := s.Prepare(t.Context(), "VACUUM (PURGE) vp", nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Execute(t.Context(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := filesHolding(t, dir, []byte(secret)); len(got) > 0 {
				t.Fatalf("after VACUUM (PURGE) the erased value is still in %v", got)
			}
			purged := map[bool]string{true: "0", false: "3"}[m.name == "copy-on-write"] // copy-on-write removed them at DELETE
			if len(res.Notices) != 1 || !strings.HasPrefix(res.Notices[0].Message, purged+" deleted rows physically removed") {
				t.Fatalf("notices %+v, want %s rows physically removed", res.Notices, purged)
			}
			var want []int
			for i := 1; i <= 100; i++ {
				if i != 50 && i != 7 && i != 8 {
					want = append(want, i)
				}
			}
			if got := optIDs(t, mustQuery(t, s, "SELECT id FROM vp").rows, 0); !slices.Equal(got, want) {
				t.Fatalf("rows after PURGE: %d, want %d", len(got), len(want))
			}
			if got := optIDs(t, fndIcebergRows(t, s, "public", "vp"), 0); !slices.Equal(got, want) {
				t.Fatalf("iceberg-go reads %d rows after PURGE, want %d", len(got), len(want))
			}
			if n := mustQuery(t, s, `SELECT count(*) FROM "vp$snapshots"`).rows[0][0]; n != "1" {
				t.Fatalf("%s snapshots after PURGE, want 1", n)
			}
		})
	}
}

// TestExpireSnapshots: expiring deletes exactly the files only expired
// snapshots referenced (a data file a DELETE dropped whole), keeps every
// file the remaining snapshots read (time travel to them still works), and
// expires nothing younger than the retention threshold.
func TestExpireSnapshots(t *testing.T) {
	s, dir := copySession(t)
	mustQuery(t, s, "CREATE TABLE ex (id int)")
	mustQuery(t, s, "INSERT INTO ex VALUES (1), (2)")
	dropped := parquetFiles(t, dir)
	mustQuery(t, s, "INSERT INTO ex VALUES (3)")
	mustQuery(t, s, "DELETE FROM ex WHERE id <= 2") // drops the first file whole
	mustQuery(t, s, "INSERT INTO ex VALUES (4)")
	before := parquetFiles(t, dir)
	if out := mustQuery(t, s, "ALTER TABLE ex EXECUTE expire_snapshots").rows[0]; out[0] != "0" {
		t.Fatalf("the default 7 days expired %v", out)
	}
	snaps := mustQuery(t, s, `SELECT snapshot_id FROM "ex$snapshots" ORDER BY committed_at`).rows
	out := mustQuery(t, s, "ALTER TABLE ex EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 2)").rows[0]
	if out[0] != "2" {
		t.Fatalf("expire reported %v, want 2 snapshots expired", out)
	}
	var want []string
	for _, f := range before {
		if !slices.Contains(dropped, f) {
			want = append(want, f)
		}
	}
	if got := parquetFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("data files after expire:\n got  %v\n want %v", got, want)
	}
	// The kept snapshots read as they did: after the DELETE {3}, then {3, 4}.
	for i, want := range map[int]string{2: "1", 3: "2"} {
		if n := mustQuery(t, s, "SELECT count(*) FROM ex FOR VERSION AS OF "+snaps[i][0]).rows[0][0]; n != want {
			t.Fatalf("snapshot %d reads %s rows, want %s", i, n, want)
		}
	}
	if got := optIDs(t, mustQuery(t, s, "SELECT id FROM ex").rows, 0); fmt.Sprint(got) != "[3 4]" {
		t.Fatalf("rows %v, want [3 4]", got)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE ex EXECUTE expire_snapshots(retain_last => 0)")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE ex EXECUTE expire_snapshots(retention_threshold => 'soon')")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.ActiveSQLTransaction, "VACUUM ex")
	mustQuery(t, s, "ROLLBACK")
	// VACUUM bin-packs the two one-row files; its snapshots are young, so
	// the table's 5-day retention expires none.
	mustQuery(t, s, "VACUUM ex")
	got := mustQuery(t, s, `SELECT (SELECT count(*) FROM "ex$snapshots"), (SELECT count(*) FROM "ex$data_files")`).rows[0]
	if fmt.Sprint(got) != "[3 1]" {
		t.Fatalf("after VACUUM: %v snapshots and data files, want 3 and 1", got)
	}
}

// parquetFiles lists the Parquet files under dir, sorted.
func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range dataFiles(t, dir) {
		if strings.HasSuffix(f, ".parquet") {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// TestRemoveOrphanFiles: files under the table's location no metadata
// references (a crashed statement's leftovers) are deleted once older than
// the threshold; every file the table references stays and the table
// reads the same.
func TestRemoveOrphanFiles(t *testing.T) {
	s, dir := copySession(t)
	mustQuery(t, s, "CREATE TABLE orph (id int)")
	mustQuery(t, s, "INSERT INTO orph VALUES (1), (2)")
	mustQuery(t, s, "DELETE FROM orph WHERE id = 1")
	files := parquetFiles(t, dir)
	orphan := filepath.Join(filepath.Dir(files[0]), "00099-crashed.parquet")
	if err := os.WriteFile(orphan, []byte("PAR1 left by a statement that never committed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustQuery(t, s, "ALTER TABLE orph EXECUTE remove_orphan_files").rows[0]; out[0] != "0" {
		t.Fatalf("a fresh orphan went under the 7-day threshold: %v", out)
	}
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	out := mustQuery(t, s, "ALTER TABLE orph EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0]
	if out[0] != "1" {
		t.Fatalf("removed %v, want the one orphan", out)
	}
	if got := parquetFiles(t, dir); !slices.Equal(got, files) {
		t.Fatalf("files after orphan removal:\n got  %v\n want %v", got, files)
	}
	if got := mustQuery(t, s, "SELECT id FROM orph").text(); got != "2\n" {
		t.Fatalf("table reads %q after orphan removal", got)
	}
	for _, snap := range mustQuery(t, s, `SELECT snapshot_id FROM "orph$snapshots"`).rows {
		mustQuery(t, s, "SELECT count(*) FROM orph FOR VERSION AS OF "+snap[0])
	}
}

// TestRollbackToSnapshot: an ancestor becomes current again (the table
// reads as it did then, later snapshots stay for time travel); a snapshot
// that is not an ancestor is refused (22023) and changes nothing.
func TestRollbackToSnapshot(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rb (id int)")
	mustQuery(t, s, "INSERT INTO rb VALUES (1)")
	mustQuery(t, s, "INSERT INTO rb VALUES (2)")
	mustQuery(t, s, "DELETE FROM rb WHERE id = 1")
	snaps := mustQuery(t, s, `SELECT snapshot_id FROM "rb$snapshots" ORDER BY committed_at`).rows
	out := mustQuery(t, s, "ALTER TABLE rb EXECUTE rollback_to_snapshot(snapshot_id => "+snaps[1][0]+")").rows[0]
	if out[0] != snaps[2][0] || out[1] != snaps[1][0] {
		t.Fatalf("rollback reported %v, want %s -> %s", out, snaps[2][0], snaps[1][0])
	}
	if got := mustQuery(t, s, "SELECT id FROM rb ORDER BY id").text(); got != "1\n2\n" {
		t.Fatalf("after rollback the table reads %q", got)
	}
	if got := mustQuery(t, s, "SELECT id FROM rb FOR VERSION AS OF "+snaps[2][0]).text(); got != "2\n" {
		t.Fatalf("the later snapshot reads %q", got)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE rb EXECUTE rollback_to_snapshot(snapshot_id => "+snaps[2][0]+")")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE rb EXECUTE rollback_to_snapshot(snapshot_id => 'x')")
	if got := mustQuery(t, s, "SELECT count(*) FROM rb").text(); got != "2\n" {
		t.Fatalf("a refused rollback changed the table: %q", got)
	}
}

// TestVacuumEveryTable: VACUUM names one table or several, and without a
// table vacuums every table of every schema; VERBOSE reports each table;
// the table's magmalake.vacuum.* thresholds decide what is rewritten, and
// values that do not parse are refused when set.
func TestVacuumEveryTable(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE SCHEMA s2")
	for _, n := range []string{"public.a", "s2.b", "public.c"} {
		mustQuery(t, s, "CREATE TABLE "+n+" (id int)")
		mustQuery(t, s, "INSERT INTO "+n+" VALUES (1)")
		mustQuery(t, s, "INSERT INTO "+n+" VALUES (2)")
	}
	files := func() string {
		return mustQuery(t, s, `SELECT (SELECT count(*) FROM "a$data_files"), (SELECT count(*) FROM s2."b$data_files"), (SELECT count(*) FROM "c$data_files")`).text()
	}
	mustQuery(t, s, "VACUUM a, s2.b")
	if got := files(); got != "1|1|2\n" {
		t.Fatalf("data files after VACUUM a, s2.b: %q, want 1|1|2", got)
	}
	mustQuery(t, s, "VACUUM")
	if got := files(); got != "1|1|1\n" {
		t.Fatalf("data files after VACUUM: %q, want 1|1|1", got)
	}
	p, err := s.Prepare(t.Context(), "VACUUM VERBOSE", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(t.Context(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, n := range res.Notices {
		if n.Severity == "INFO" && strings.Contains(n.Message, "rewrote 0 data files") {
			named = append(named, strings.SplitN(n.Message, ":", 2)[0])
		}
	}
	if w := []string{`"public.a"`, `"public.c"`, `"s2.b"`}; !slices.Equal(named, w) {
		t.Fatalf("VACUUM VERBOSE reported %v, want %v", named, w)
	}
	mustFail(t, s, pgerr.UndefinedTable, "VACUUM a, nosuch")

	mustQuery(t, s, "CREATE TABLE d (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'magmalake.vacuum.delete-ratio-threshold' = '0.5')")
	mustQuery(t, s, "INSERT INTO d SELECT i FROM generate_series(1, 100) i")
	mustQuery(t, s, "DELETE FROM d WHERE id <= 20")
	dead := func() string { return mustQuery(t, s, `SELECT deleted_rows FROM "d$delete_debt_summary"`).text() }
	mustQuery(t, s, "VACUUM d")
	if got := dead(); got != "20\n" {
		t.Fatalf("a 20%% dead file under a 0.5 threshold: %q dead rows after VACUUM, want 20", got)
	}
	mustQuery(t, s, "ALTER TABLE d SET ('magmalake.vacuum.delete-ratio-threshold' = '0.2')")
	mustQuery(t, s, "VACUUM d")
	if got := dead(); got != "0\n" {
		t.Fatalf("under a 0.2 threshold: %q dead rows after VACUUM, want 0", got)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE d SET ('magmalake.vacuum.delete-ratio-threshold' = '2')")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE d SET ('magmalake.vacuum.file-size-threshold' = 'big')")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE d SET ('magmalake.autovacuum.enabled' = 'no')")
	mustFail(t, s, pgerr.InvalidParameterValue, "CREATE TABLE e (id int) WITH ('magmalake.delete.rewrite-ratio' = '-1')")
}

// TestVacuumKeepsBlocksSnapshots: VACUUM, like PostgreSQL's, leaves other
// sessions' open transactions alone: with a retention of 0 it expires the
// snapshot older than the one an open block reads, keeps that one (the
// block still reads it after a copy-on-write DELETE replaced its file),
// and expires it once the block has ended.
func TestVacuumKeepsBlocksSnapshots(t *testing.T) {
	s, _ := copySession(t)
	u := testSessionOn(t, s.engine)
	first, pinned := blockPinningTable(t, s, u)
	mustQuery(t, s, "VACUUM k")
	kept := map[string]bool{}
	for _, r := range mustQuery(t, s, `SELECT snapshot_id FROM "k$snapshots"`).rows {
		kept[r[0]] = true
	}
	if kept[first] || !kept[pinned] {
		t.Fatalf("after VACUUM with a block open: snapshots %v, want the first (%s) gone and the block's (%s) kept", kept, first, pinned)
	}
	checkBlockReads(t, u)
	mustQuery(t, u, "COMMIT")
	mustQuery(t, s, "VACUUM k")
	if n := mustQuery(t, s, `SELECT count(*) FROM "k$snapshots"`).rows[0][0]; n != "1" {
		t.Fatalf("%s snapshots after VACUUM with no block open, want 1", n)
	}
	checkRows(t, s, "k", []int{1, 2, 3})
}
