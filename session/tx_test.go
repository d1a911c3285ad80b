package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// txModes are the table layouts every transaction test runs on.
var txModes = []struct{ mode, version string }{
	{"copy-on-write", "2"}, {"merge-on-read", "2"}, {"copy-on-write", "3"}, {"merge-on-read", "3"},
}

// txTable creates public.t with ids 0..n-1 in three inserts (three files).
func txFixture(t *testing.T, s *Session, mode, version string, n int) []int {
	t.Helper()
	mustQuery(t, s, fmt.Sprintf(`CREATE TABLE t (id bigint NOT NULL, v text)
		WITH ('format-version' = '%s', 'write.delete.mode' = '%s', 'write.update.mode' = '%s')`, version, mode, mode))
	var ids []int
	for part := 0; part < 3; part++ {
		var vals []string
		for i := part * n / 3; i < (part+1)*n/3; i++ {
			vals = append(vals, fmt.Sprintf("(%d, 'v%d')", i, i))
			ids = append(ids, i)
		}
		mustQuery(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	return ids
}

// ids reads the sorted ids of public.t through SELECT.
func txIDs(t *testing.T, s *Session) []int {
	t.Helper()
	r := mustQuery(t, s, "SELECT id FROM t ORDER BY id")
	out := make([]int, len(r.rows))
	for i, row := range r.rows {
		out[i], _ = strconv.Atoi(row[0])
	}
	return out
}

// committedIDs reads public.t with iceberg-go's own scan of the committed head.
func committedIDs(t *testing.T, s *Session) []int {
	t.Helper()
	var out []int
	for _, row := range fndIcebergRows(t, s, "public", "t") {
		id, _ := strconv.Atoi(strings.TrimPrefix(row[0], "i:"))
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func without(ids []int, drop func(int) bool) []int {
	var out []int
	for _, id := range ids {
		if !drop(id) {
			out = append(out, id)
		}
	}
	return out
}

func snapshotCount(t *testing.T, s *Session) int {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "t"))
	if err != nil {
		t.Fatal(err)
	}
	return len(tbl.Metadata().Snapshots())
}

// A block reads its own changes, other sessions do not see them, and
// ROLLBACK leaves the table and its directory exactly as they were.
func TestTransactionRollbackLeavesNoTrace(t *testing.T) {
	for _, m := range txModes {
		t.Run(m.mode+"-v"+m.version, func(t *testing.T) {
			s := testSession(t)
			ids := txFixture(t, s, m.mode, m.version, 30)
			other := s.engine.NewSession(stmt.SessionInfo{User: "other"})
			before := fndSnapshotState(t, s, "public", "t")

			mustQuery(t, s, "BEGIN")
			if got := mustQuery(t, s, "DELETE FROM t WHERE id < 5").tag; got != "DELETE 5" {
				t.Fatalf("tag %q", got)
			}
			mustQuery(t, s, "INSERT INTO t VALUES (100, 'new')")
			if got := mustQuery(t, s, "UPDATE t SET v = 'changed' WHERE id = 20").tag; got != "UPDATE 1" {
				t.Fatalf("tag %q", got)
			}
			inBlock := append(without(ids, func(id int) bool { return id < 5 }), 100)
			if got := txIDs(t, s); !slices.Equal(got, inBlock) {
				t.Fatalf("inside the block: %v, want %v", got, inBlock)
			}
			if got := mustQuery(t, s, "SELECT v FROM t WHERE id = 20").text(); got != "changed\n" {
				t.Fatalf("block does not read its own UPDATE: %q", got)
			}
			if got := txIDs(t, other); !slices.Equal(got, ids) {
				t.Fatalf("another session sees uncommitted changes: %v", got)
			}
			if s.TxStatus() != stmt.TxActive {
				t.Fatalf("status %c inside the block", s.TxStatus())
			}
			mustQuery(t, s, "ROLLBACK")
			if s.TxStatus() != stmt.TxIdle {
				t.Fatalf("status %c after ROLLBACK", s.TxStatus())
			}
			after := fndSnapshotState(t, s, "public", "t")
			if after.snapshot != before.snapshot || !slices.Equal(after.files, before.files) {
				t.Fatalf("ROLLBACK left a trace:\nbefore %v %v\nafter  %v %v", before.snapshot, before.files, after.snapshot, after.files)
			}
			if got := committedIDs(t, s); !slices.Equal(got, ids) {
				t.Fatalf("after ROLLBACK: %v", got)
			}
		})
	}
}

// COMMIT publishes the block's DML as exactly one snapshot, equal to the
// model; repeated deletes on one file leave one deletion vector.
func TestTransactionCommitIsOneSnapshot(t *testing.T) {
	for _, m := range txModes {
		t.Run(m.mode+"-v"+m.version, func(t *testing.T) {
			s := testSession(t)
			ids := txFixture(t, s, m.mode, m.version, 30)
			n := snapshotCount(t, s)
			mustQuery(t, s, "BEGIN")
			mustQuery(t, s, "DELETE FROM t WHERE id = 1")
			mustQuery(t, s, "DELETE FROM t WHERE id = 2")
			mustQuery(t, s, "DELETE FROM t WHERE id >= 20") // the whole third file
			mustQuery(t, s, "INSERT INTO t VALUES (200, 'a'), (201, 'b')")
			mustQuery(t, s, "DELETE FROM t WHERE id = 201")
			mustQuery(t, s, "UPDATE t SET id = 300 WHERE id = 3")
			mustQuery(t, s, "COMMIT")
			want := append(without(ids, func(id int) bool { return id == 1 || id == 2 || id == 3 || id >= 20 }), 200, 300)
			slices.Sort(want)
			if got := snapshotCount(t, s) - n; got != 1 {
				t.Fatalf("COMMIT added %d snapshots, want 1", got)
			}
			if got := committedIDs(t, s); !slices.Equal(got, want) {
				t.Fatalf("committed %v, want %v", got, want)
			}
			if got := txIDs(t, s); !slices.Equal(got, want) {
				t.Fatalf("SELECT after COMMIT %v, want %v", got, want)
			}
			assertOneDVPerFile(t, s)
			assertNoStrayFiles(t, s)
		})
	}
}

// assertOneDVPerFile checks no data file carries two live deletion vectors.
func assertOneDVPerFile(t *testing.T, s *Session) {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "t"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if len(task.DeletionVectorFiles) > 1 {
			t.Fatalf("%s has %d deletion vectors", task.File.FilePath(), len(task.DeletionVectorFiles))
		}
	}
}

// assertNoStrayFiles checks every data and delete file in the table
// directory is referenced by some snapshot: what a block superseded or
// abandoned is gone.
func assertNoStrayFiles(t *testing.T, s *Session) {
	t.Helper()
	ctx := t.Context()
	tbl, err := s.engine.wh.LoadTable(ctx, lake.Ident("public", "t"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	referenced := map[string]bool{}
	for _, snap := range tbl.Metadata().Snapshots() {
		mfs, err := snap.Manifests(fs)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for e, err := range mf.Entries(fs, false) {
				if err != nil {
					t.Fatal(err)
				}
				referenced[strings.TrimPrefix(e.DataFile().FilePath(), "file://")] = true
			}
		}
	}
	dir := fndTableDir(t, s, "public", "t")
	for _, f := range fndFiles(t, dir+"/data") {
		if p := dir + "/data/" + f; !referenced[p] {
			t.Errorf("stray file %s", p)
		}
	}
}

// Two sessions change the same rows: the block that commits second gets
// 40001 and the table is as the first left it. Disjoint changes both land.
func TestTransactionConflicts(t *testing.T) {
	for _, m := range txModes {
		t.Run(m.mode+"-v"+m.version, func(t *testing.T) {
			s := testSession(t)
			ids := txFixture(t, s, m.mode, m.version, 30)
			other := s.engine.NewSession(stmt.SessionInfo{User: "other"})

			// Overlapping: both delete id 5.
			mustQuery(t, s, "BEGIN")
			mustQuery(t, s, "DELETE FROM t WHERE id = 5")
			mustQuery(t, other, "DELETE FROM t WHERE id IN (5, 6)")
			mustFail(t, s, pgerr.SerializationFailure, "COMMIT")
			if s.TxStatus() != stmt.TxIdle {
				t.Fatalf("status %c after a failed COMMIT", s.TxStatus())
			}
			want := without(ids, func(id int) bool { return id == 5 || id == 6 })
			if got := committedIDs(t, s); !slices.Equal(got, want) {
				t.Fatalf("after the conflict %v, want %v", got, want)
			}

			// Disjoint: the block deletes from the first file while the
			// other session deletes from the third and appends.
			mustQuery(t, s, "BEGIN")
			mustQuery(t, s, "DELETE FROM t WHERE id = 0")
			mustQuery(t, other, "DELETE FROM t WHERE id = 25")
			mustQuery(t, other, "INSERT INTO t VALUES (500, 'x')")
			mustQuery(t, s, "COMMIT")
			want = append(without(want, func(id int) bool { return id == 0 || id == 25 }), 500)
			if got := committedIDs(t, s); !slices.Equal(got, want) {
				t.Fatalf("after disjoint commits %v, want %v", got, want)
			}
			assertOneDVPerFile(t, s)
		})
	}
}

// After an error a block refuses everything but ROLLBACK, and READ ONLY
// blocks and DDL inside blocks are refused with their SQLSTATEs.
func TestTransactionStates(t *testing.T) {
	s := testSession(t)
	ids := txFixture(t, s, "merge-on-read", "3", 9)
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM t WHERE id = 1")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM missing")
	if s.TxStatus() != stmt.TxFailed {
		t.Fatalf("status %c after an error in the block", s.TxStatus())
	}
	mustFail(t, s, pgerr.InFailedSQLTransaction, "SELECT 1")
	if got := mustQuery(t, s, "COMMIT").tag; got != "ROLLBACK" {
		t.Fatalf("COMMIT of a failed block answered %q", got)
	}
	if got := committedIDs(t, s); !slices.Equal(got, ids) {
		t.Fatalf("failed block changed the table: %v", got)
	}

	mustQuery(t, s, "BEGIN READ ONLY")
	mustFail(t, s, pgerr.ReadOnlySQLTransaction, "DELETE FROM t WHERE id = 1")
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "SET default_transaction_read_only = on")
	mustFail(t, s, pgerr.ReadOnlySQLTransaction, "INSERT INTO t VALUES (1, 'x')")
	mustQuery(t, s, "SET default_transaction_read_only = off")

	mustQuery(t, s, "BEGIN READ ONLY")
	mustFail(t, s, pgerr.ReadOnlySQLTransaction, "CREATE TABLE u (a int)")
	mustQuery(t, s, "ROLLBACK")
	mustFail(t, s, pgerr.NoActiveSQLTransaction, "SAVEPOINT a") // outside a block, as PostgreSQL
}

// A block over two tables commits one snapshot on each.
func TestTransactionTwoTables(t *testing.T) {
	s := testSession(t)
	txFixture(t, s, "merge-on-read", "3", 9)
	mustQuery(t, s, "CREATE TABLE u (id bigint)")
	mustQuery(t, s, "INSERT INTO u VALUES (1), (2)")
	n := snapshotCount(t, s)
	nu := tableSnapshots(t, s, "u")
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM t WHERE id = 1")
	mustQuery(t, s, "INSERT INTO u SELECT id FROM t WHERE id > 6")
	mustQuery(t, s, "DELETE FROM u WHERE id = 1")
	mustQuery(t, s, "COMMIT")
	if snapshotCount(t, s)-n != 1 || tableSnapshots(t, s, "u")-nu != 1 {
		t.Fatalf("want one new snapshot per table")
	}
	if got := mustQuery(t, s, "SELECT id FROM u ORDER BY id").text(); got != "2\n7\n8\n" {
		t.Fatalf("u = %q", got)
	}
}

func tableSnapshots(t *testing.T, s *Session, name string) int {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	return len(tbl.Metadata().Snapshots())
}

// A session that goes away inside a block (the server killed, the client
// gone) leaves the table at its state before the block: nothing was committed.
func TestTransactionAbandonedSession(t *testing.T) {
	s := testSession(t)
	ids := txFixture(t, s, "copy-on-write", "2", 12)
	before := fndSnapshotState(t, s, "public", "t")
	victim := s.engine.NewSession(stmt.SessionInfo{User: "victim"})
	mustQuery(t, victim, "BEGIN")
	mustQuery(t, victim, "DELETE FROM t WHERE id < 6")
	// No COMMIT, no Close: the process died here.
	if got := committedIDs(t, s); !slices.Equal(got, ids) {
		t.Fatalf("uncommitted block visible: %v", got)
	}
	if got := fndSnapshotState(t, s, "public", "t").snapshot; got != before.snapshot {
		t.Fatalf("snapshot moved to %s", got)
	}
	victim.Close()
	if got := fndSnapshotState(t, s, "public", "t"); !slices.Equal(got.files, before.files) {
		t.Fatalf("Close left files: %v", got.files)
	}
}

// A block stages its view of a table when a statement reads it, not when a
// statement changes it: a change that COMMIT follows directly writes no
// staged manifests, and a read after a change sees it.
func TestTransactionStagesViewOnRead(t *testing.T) {
	s := testSession(t)
	ids := txFixture(t, s, "merge-on-read", "3", 30)
	meta := fndTableDir(t, s, "public", "t") + "/metadata"
	before := len(fndFiles(t, meta))
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM t WHERE id = 1")
	if got := len(fndFiles(t, meta)); got != before {
		t.Fatalf("a DELETE in a block wrote %d metadata files before anything read its view", got-before)
	}
	want := without(ids, func(id int) bool { return id == 1 })
	if got := txIDs(t, s); !slices.Equal(got, want) {
		t.Fatalf("SELECT after the DELETE %v, want %v", got, want)
	}
	if got := len(fndFiles(t, meta)); got <= before {
		t.Fatal("reading the block's view staged nothing")
	}
	mustQuery(t, s, "DELETE FROM t WHERE id = 2")
	if got := len(fndFiles(t, meta)); got != before {
		t.Fatalf("the view staged for the first DELETE left %d files behind", got-before)
	}
	mustQuery(t, s, "SAVEPOINT a")
	mustQuery(t, s, "DELETE FROM t WHERE id = 3")
	mustQuery(t, s, "ROLLBACK TO SAVEPOINT a")
	mustQuery(t, s, "COMMIT")
	want = without(want, func(id int) bool { return id == 2 })
	if got := committedIDs(t, s); !slices.Equal(got, want) {
		t.Fatalf("committed %v, want %v", got, want)
	}
	assertNoStrayFiles(t, s)
}
