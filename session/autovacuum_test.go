package session

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
)

// avTables makes, on s, the optTable fixture (per partition one big file
// a quarter dead and three one-row files) as ot, the same as opt with
// magmalake.autovacuum.enabled = 'false', and a clean one-file table.
func avTables(t *testing.T, s *Session, with, setup string) []int {
	t.Helper()
	want := optTable(t, s, with, setup)
	mustQuery(t, s, "CREATE TABLE opt (id int) WITH ('magmalake.autovacuum.enabled' = 'false')")
	mustQuery(t, s, "INSERT INTO opt VALUES (1)")
	mustQuery(t, s, "INSERT INTO opt VALUES (2)")
	mustQuery(t, s, "CREATE TABLE clean (id int)")
	mustQuery(t, s, "INSERT INTO clean SELECT i FROM generate_series(1, 10) i")
	return want
}

func snapshotCounts(t *testing.T, s *Session, tables ...string) []string {
	t.Helper()
	out := make([]string, len(tables))
	for i, n := range tables {
		out[i] = mustQuery(t, s, fmt.Sprintf(`SELECT count(*) FROM "%s$snapshots"`, n)).rows[0][0]
	}
	return out
}

func reportOf(t *testing.T, reps []maintenance.TableReport, name string) maintenance.TableReport {
	t.Helper()
	for _, r := range reps {
		if r.Table == name {
			if r.Err != nil {
				t.Fatalf("%s: %v", name, r.Err)
			}
			return r
		}
	}
	t.Fatalf("no report for %s in %+v", name, reps)
	return maintenance.TableReport{}
}

// TestAutoVacuumPass: in every delete mode a pass rewrites the table whose
// debt passes the thresholds (rows the model's, read by magmalake and
// iceberg-go; no dead row left), leaves alone the table that opted out
// and the clean one (no snapshot added), and a second pass finds nothing.
// With the table's history.expire.max-snapshot-age-ms at 0, a pass expires
// every old snapshot but the one its own rewrite replaces: that goes in the
// next pass.
func TestAutoVacuumPass(t *testing.T) {
	for _, m := range optimizeModes {
		t.Run(m.name, func(t *testing.T) {
			eng := testEngine(t, t.TempDir())
			s := testSessionOn(t, eng)
			want := avTables(t, s, m.with, m.setup)
			mustQuery(t, s, "ALTER TABLE ot SET ('history.expire.max-snapshot-age-ms' = '0')")
			before := snapshotCounts(t, s, "ot", "opt", "clean")
			n := func(s string) int { var i int; fmt.Sscan(s, &i); return i }
			av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{})
			reps := av.Pass(t.Context())
			// Expiry comes first: every snapshot but the current one goes,
			// the one the rewrite then replaces stays for this pass.
			if r := reportOf(t, reps, "public.ot"); r.Optimize.RewrittenFiles != 8 || r.Optimize.AddedFiles != 2 || r.Expire.ExpiredSnapshots != n(before[0])-1 {
				t.Fatalf("first pass on ot: %+v, want 8 files rewritten into 2 and %d snapshots expired", r, n(before[0])-1)
			}
			if r := reportOf(t, reps, "public.opt"); r.Skipped == "" {
				t.Fatalf("the table that opted out was not skipped: %+v", r)
			}
			after := snapshotCounts(t, s, "ot", "opt", "clean")
			if after[0] != "2" || after[1] != before[1] || after[2] != before[2] {
				t.Fatalf("snapshots %v after the pass, from %v: want 2 on ot, the others unchanged", after, before)
			}
			checkRows(t, s, "ot", want)
			debt := mustQuery(t, s, `SELECT deleted_rows FROM "ot$delete_debt_summary"`).rows[0][0]
			if debt != "0" {
				t.Fatalf("%s dead rows after the pass", debt)
			}
			reps = av.Pass(t.Context())
			if r := reportOf(t, reps, "public.ot"); r.Optimize.RewrittenFiles != 0 || r.Expire.ExpiredSnapshots != 1 {
				t.Fatalf("second pass on ot: %+v, want no rewrite and the replaced snapshot expired", r)
			}
			if got := snapshotCounts(t, s, "ot", "opt"); got[0] != "1" || got[1] != before[1] {
				t.Fatalf("snapshots after the second pass %v, want ot 1 and opt %s", got, before[1])
			}
			checkRows(t, s, "ot", want)
			if r := reportOf(t, av.Pass(t.Context()), "public.ot"); r.DidWork() {
				t.Fatalf("third pass did %+v", r)
			}
		})
	}
}

func checkRows(t *testing.T, s *Session, name string, want []int) {
	t.Helper()
	if got := optIDs(t, mustQuery(t, s, "SELECT id FROM "+name).rows, 0); !slices.Equal(got, want) {
		t.Fatalf("%s reads %d ids, want %d", name, len(got), len(want))
	}
	if got := optIDs(t, fndIcebergRows(t, s, "public", name), 0); !slices.Equal(got, want) {
		t.Fatalf("iceberg-go reads %d ids of %s, want %d", len(got), name, len(want))
	}
}

// TestAutoVacuumBudget: a pass rewrites files until its byte budget is
// spent (at least what makes progress: two small files), the next passes
// go on from there until one file per partition is left, and the rows
// stay the model's throughout, equality deletes included.
func TestAutoVacuumBudget(t *testing.T) {
	for _, m := range optimizeModes[1:3] {
		t.Run(m.name, func(t *testing.T) {
			eng := testEngine(t, t.TempDir())
			s := testSessionOn(t, eng)
			want := optTable(t, s, m.with, m.setup)
			av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{MaxBytes: 1})
			worked, done := 0, false
			for pass := 1; pass <= 10 && !done; pass++ {
				r := reportOf(t, av.Pass(t.Context()), "public.ot")
				if r.Optimize.RewrittenFiles > 2 {
					t.Fatalf("pass %d rewrote %d files on a 1-byte budget, want at most 2", pass, r.Optimize.RewrittenFiles)
				}
				checkRows(t, s, "ot", want)
				done = r.Optimize.RewrittenFiles == 0
				if !done {
					worked++
				}
			}
			// 8 files to rewrite, at most 2 a pass.
			if !done || worked < 4 {
				t.Fatalf("%d passes rewrote files (finished: %v), want 4 or more, then none", worked, done)
			}
			if n := mustQuery(t, s, `SELECT count(*) FROM "ot$data_files"`).rows[0][0]; n != "2" {
				t.Fatalf("%s data files after the passes, want one per partition", n)
			}
			if debt := mustQuery(t, s, `SELECT deleted_rows FROM "ot$delete_debt_summary"`).rows[0][0]; debt != "0" {
				t.Fatalf("%s dead rows after the passes", debt)
			}
		})
	}
}

// TestAutoVacuumAmongWriters: maintenance never makes a user's statement
// fail, and users' writes do not keep it from compacting.
//   - A block open when the rewrite is ready is waited for: it commits
//     first, and the rewrite lands after it with the block's delete
//     carried over to the new files.
//   - An autocommit DELETE that commits between the rewrite's plan and its
//     commit is carried over too.
//   - A block that stays open past the wait makes the rewrite give way,
//     leaving no file behind, and commits afterwards.
//
// Every time the rows are the model's.
func TestAutoVacuumAmongWriters(t *testing.T) {
	for _, m := range optimizeModes[:2] {
		t.Run(m.name, func(t *testing.T) {
			eng := testEngine(t, t.TempDir())
			s, u := testSessionOn(t, eng), testSessionOn(t, eng)
			want := optTable(t, s, m.with, m.setup)
			drop := func(ids ...int) {
				want = slices.DeleteFunc(want, func(v int) bool { return slices.Contains(ids, v) })
			}
			more := func(ids ...int) {
				for _, id := range ids {
					mustQuery(t, s, fmt.Sprintf("INSERT INTO ot VALUES (%d, %d, 'late')", id, id%2))
				}
				want = append(want, ids...)
			}
			av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{})

			mustQuery(t, u, "BEGIN")
			mustQuery(t, u, "DELETE FROM ot WHERE id = 2")
			committed := make(chan error, 1)
			av.BlockWait = time.Minute
			av.Planned = func(table.Identifier) {
				go func() {
					waitForTurnHeld(eng, "public.ot")
					_, err := u.query(context.Background(), "COMMIT")
					committed <- err
				}()
			}
			r := reportOf(t, av.Pass(t.Context()), "public.ot")
			if err := <-committed; err != nil {
				t.Fatalf("COMMIT of the block the rewrite waited for: %v", err)
			}
			if r.GaveWay != "" || r.Optimize.RewrittenFiles != 8 {
				t.Fatalf("a block open when the rewrite was ready: %+v, want it waited for and 8 files rewritten", r)
			}
			drop(2)
			checkRows(t, s, "ot", want)

			more(2001, 2002, 2003, 2004)
			av.Planned = func(table.Identifier) { mustQuery(t, u, "DELETE FROM ot WHERE id IN (5, 2001)") }
			r = reportOf(t, av.Pass(t.Context()), "public.ot")
			if r.GaveWay != "" || r.Optimize.RewrittenFiles == 0 {
				t.Fatalf("an autocommit DELETE during the rewrite: %+v, want it carried over", r)
			}
			drop(5, 2001)
			checkRows(t, s, "ot", want)

			more(2005, 2006, 2007, 2008)
			av.BlockWait = 0
			av.Planned = func(table.Identifier) {
				mustQuery(t, u, "BEGIN")
				mustQuery(t, u, "DELETE FROM ot WHERE id = 3")
			}
			r = reportOf(t, av.Pass(t.Context()), "public.ot")
			if r.GaveWay == "" || r.DidWork() {
				t.Fatalf("a block open past the wait: %+v, want the rewrite to give way", r)
			}
			mustQuery(t, u, "COMMIT")
			drop(3)
			checkRows(t, s, "ot", want)
			mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
			if out := mustQuery(t, s, "ALTER TABLE ot EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0]; out[0] != "0" {
				t.Fatalf("the rewrite that gave way left %s files behind", out[0])
			}

			av.Planned = nil
			if r := reportOf(t, av.Pass(t.Context()), "public.ot"); r.Optimize.RewrittenFiles == 0 {
				t.Fatalf("with nobody in the way: %+v, want files rewritten", r)
			}
			checkRows(t, s, "ot", want)
		})
	}
}

// waitForTurnHeld returns once maintenance holds key's turn (it is waiting
// for the open blocks to end).
func waitForTurnHeld(eng *Engine, key string) {
	e := eng.uses.entry(key)
	for len(e.turn) == 0 {
		runtime.Gosched()
	}
}

// TestAutoVacuumSeesNewThresholds: a table left alone under its threshold
// is looked at again once the threshold is lowered, though no snapshot
// was added since.
func TestAutoVacuumSeesNewThresholds(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s := testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE d (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'magmalake.vacuum.delete-ratio-threshold' = '0.5')")
	mustQuery(t, s, "INSERT INTO d SELECT i FROM generate_series(1, 100) i")
	mustQuery(t, s, "DELETE FROM d WHERE id <= 20")
	av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{})
	for range 2 {
		if r := reportOf(t, av.Pass(t.Context()), "public.d"); r.Optimize.RewrittenFiles != 0 {
			t.Fatalf("a 20%% dead file under a 0.5 threshold was rewritten: %+v", r)
		}
	}
	mustQuery(t, s, "ALTER TABLE d SET ('magmalake.vacuum.delete-ratio-threshold' = '0.2')")
	if r := reportOf(t, av.Pass(t.Context()), "public.d"); r.Optimize.RewrittenFiles != 1 || r.Optimize.PurgedRows != 20 {
		t.Fatalf("after lowering the threshold: %+v, want the file rewritten without its 20 dead rows", r)
	}
}

// TestBlockWaitingForMaintenanceCancels: a block that waits to enter a
// table while maintenance commits a rewrite of it is still bound by
// statement_timeout (57014), and the session goes on afterwards.
func TestBlockWaitingForMaintenanceCancels(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s := testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE w (id int)")
	mustQuery(t, s, "INSERT INTO w VALUES (1), (2)")
	e := eng.uses.entry("public.w")
	e.turn <- struct{}{} // maintenance holds the table's turn
	mustQuery(t, s, "SET statement_timeout = '50ms'")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.QueryCanceled, "DELETE FROM w WHERE id = 1")
	<-e.turn
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "RESET statement_timeout")
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM w WHERE id = 1")
	mustQuery(t, s, "COMMIT")
	checkRows(t, s, "w", []int{2})
}

// blockPinningTable makes table k (retention 0, copy-on-write) with two
// snapshots, opens a block on u that reads the second, then deletes on s
// the row only that snapshot's file held: expiring the block's snapshot
// would delete the file it reads. It returns the two snapshots' ids.
func blockPinningTable(t *testing.T, s, u *Session) (first, pinned string) {
	t.Helper()
	mustQuery(t, s, "CREATE TABLE k (id int) WITH ('history.expire.max-snapshot-age-ms' = '0', 'write.delete.mode' = 'copy-on-write')")
	mustQuery(t, s, "INSERT INTO k VALUES (1), (2), (3)")
	// Snapshot times are milliseconds: the block's snapshot must come in a
	// later one than the first, for committed_at to order them and for an
	// expiry by age 0 to find the first older than it.
	tbl, err := s.engine.wh.LoadTable(t.Context(), table.Identifier{"public", "k"})
	if err != nil {
		t.Fatal(err)
	}
	firstMs := tbl.CurrentSnapshot().TimestampMs
	testenv.WaitFor(t, 5*time.Second, "the clock past the first snapshot's millisecond", func() bool { return time.Now().UnixMilli() > firstMs })
	mustQuery(t, s, "INSERT INTO k VALUES (4)")
	snaps := mustQuery(t, s, `SELECT snapshot_id FROM "k$snapshots" ORDER BY committed_at`).rows
	mustQuery(t, u, "BEGIN")
	checkBlockReads(t, u)
	mustQuery(t, s, "DELETE FROM k WHERE id = 4")
	return snaps[0][0], snaps[1][0]
}

// checkBlockReads: the block on u still reads its snapshot's 4 rows.
func checkBlockReads(t *testing.T, u *Session) {
	t.Helper()
	if n := mustQuery(t, u, "SELECT count(*) FROM k").rows[0][0]; n != "4" {
		t.Fatalf("block read %s rows, want the 4 of its snapshot", n)
	}
}

// TestAutoVacuumKeepsBlocksSnapshots: with a retention of 0, a pass while
// a block that read the table is open expires the snapshots older than the
// one the block pinned and keeps that one, so the block still reads it
// after a copy-on-write DELETE replaced its file; the next pass, the block
// ended, expires it.
func TestAutoVacuumKeepsBlocksSnapshots(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, u := testSessionOn(t, eng), testSessionOn(t, eng)
	blockPinningTable(t, s, u)
	av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{})
	av.BlockWait = 0
	if r := reportOf(t, av.Pass(t.Context()), "public.k"); r.Expire.ExpiredSnapshots != 1 {
		t.Fatalf("a pass with a block open: %+v, want the snapshot before the block's expired, and only it", r)
	}
	checkBlockReads(t, u)
	mustQuery(t, u, "COMMIT")
	if r := reportOf(t, av.Pass(t.Context()), "public.k"); r.Expire.ExpiredSnapshots == 0 {
		t.Fatalf("a pass with no block open: %+v, want the block's snapshot expired", r)
	}
	checkRows(t, s, "k", []int{1, 2, 3})
}

// TestAutoVacuumRewritesWhenExpiryFails: a pass whose expiry and orphan
// sweep fail (an old snapshot's manifest list is corrupt; one that is gone
// is passed over, as another pass of maintenance took it) still rewrites
// the table, and reports the failure.
func TestAutoVacuumRewritesWhenExpiryFails(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s := testSessionOn(t, eng)
	m := optimizeModes[0]
	want := avTables(t, s, m.with, m.setup)
	mustQuery(t, s, "ALTER TABLE ot SET ('history.expire.max-snapshot-age-ms' = '0')")
	tbl, err := eng.wh.LoadTable(t.Context(), table.Identifier{"public", "ot"})
	if err != nil {
		t.Fatal(err)
	}
	oldest := tbl.Metadata().Snapshots()[0]
	if oldest.SnapshotID == tbl.CurrentSnapshot().SnapshotID {
		t.Fatal("ot has one snapshot: the test checks nothing")
	}
	if err := os.WriteFile(strings.TrimPrefix(oldest.ManifestList, "file://"), []byte("not avro"), 0o644); err != nil {
		t.Fatal(err)
	}
	var r maintenance.TableReport
	for _, rep := range eng.NewAutoVacuum(maintenance.AutoVacuumOptions{}).Pass(t.Context()) {
		if rep.Table == "public.ot" {
			r = rep
		}
	}
	if r.Err == nil || r.Optimize.RewrittenFiles != 8 {
		t.Fatalf("pass on ot: %+v, want the failed expiry reported and 8 files rewritten", r)
	}
	checkRows(t, s, "ot", want)
}
