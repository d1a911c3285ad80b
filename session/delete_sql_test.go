package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/stmt"
)

// delSQLModes are the four table layouts every SQL-level test runs on.
var delSQLModes = []struct{ mode, version string }{
	{"copy-on-write", "2"}, {"copy-on-write", "3"}, {"merge-on-read", "2"}, {"merge-on-read", "3"},
}

// forEachDelMode runs body in a subtest per delete mode and format version,
// each on a fresh session whose table t holds inserts commits of per rows,
// mirrored in model.
func forEachDelMode(t *testing.T, inserts, per int, body func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string)) {
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			e := newDelSQLEnv(t)
			body(t, e, e.createModelTable(t, m.mode, m.version, inserts, per), m.mode, m.version)
		})
	}
}

// delSQLRow is one row of the model the SQL tests compare against.
type delSQLRow struct {
	id  int64
	grp int64 // id % 7
	s   string
	bo  bool // partition column
}

// text is the row as SELECT id, grp, s, bo renders it.
func (r delSQLRow) text() string {
	return fmt.Sprintf("%d|%d|%s|%s", r.id, r.grp, r.s, map[bool]string{true: "t", false: "f"}[r.bo])
}

// delSQLEnv is a session on a warehouse whose directory the test knows.
type delSQLEnv struct {
	s   *Session
	eng *Engine
	dir string
}

func newDelSQLEnv(t *testing.T) *delSQLEnv {
	t.Helper()
	dir := t.TempDir()
	eng := testEngine(t, dir)
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	t.Cleanup(s.Close)
	return &delSQLEnv{s: s, eng: eng, dir: dir}
}

// createModelTable creates t partitioned by bo and fills it with inserts
// INSERTs of per rows each (so several data files per partition); it returns
// the model of its rows.
func (e *delSQLEnv) createModelTable(t *testing.T, mode, version string, inserts, per int) []delSQLRow {
	t.Helper()
	mustQuery(t, e.s, fmt.Sprintf("CREATE TABLE t (id bigint, grp bigint, s text, bo boolean) PARTITIONED BY (bo) "+
		"WITH ('format-version' = '%s', 'write.delete.mode' = '%s')", version, mode))
	var model []delSQLRow
	id := int64(1)
	for range inserts {
		var vals []string
		for range per {
			r := delSQLRow{id: id, grp: id % 7, s: fmt.Sprintf("s%d", id%5), bo: id%3 == 0}
			model = append(model, r)
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s', %t)", r.id, r.grp, r.s, r.bo))
			id++
		}
		mustQuery(t, e.s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	return model
}

// delSQLSplit removes the rows del selects from model: (kept, removed).
func delSQLSplit(model []delSQLRow, del func(delSQLRow) bool) (kept, removed []delSQLRow) {
	for _, r := range model {
		if del(r) {
			removed = append(removed, r)
		} else {
			kept = append(kept, r)
		}
	}
	return kept, removed
}

// assertContents compares the whole table to the model.
func (e *delSQLEnv) assertContents(t *testing.T, model []delSQLRow) {
	t.Helper()
	var want []string
	for _, r := range model {
		want = append(want, r.text())
	}
	slices.Sort(want)
	got := strings.Split(strings.TrimSuffix(mustQuery(t, e.s, "SELECT id, grp, s, bo FROM t").text(), "\n"), "\n")
	if len(got) == 1 && got[0] == "" {
		got = nil
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("table has %d rows, model %d\n got: %v\nwant: %v", len(got), len(want), got, want)
	}
}

// table loads t through the catalog, bypassing SQL.
func (e *delSQLEnv) table(t *testing.T) *table.Table {
	t.Helper()
	tbl, err := e.eng.Warehouse().LoadTable(context.Background(), lake.Ident("public", "t"))
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func (e *delSQLEnv) snapshotCount(t *testing.T) int {
	t.Helper()
	return len(e.table(t).Metadata().Snapshots())
}

// files lists every file under the warehouse directory.
func (e *delSQLEnv) files(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(e.dir, "warehouse"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func mustTag(t *testing.T, s *Session, q string, want int) {
	t.Helper()
	if got := mustQuery(t, s, q).tag; got != fmt.Sprintf("DELETE %d", want) {
		t.Fatalf("%s: tag %q, want DELETE %d", q, got, want)
	}
}

func mustCount(t *testing.T, s *Session, q string) int {
	t.Helper()
	n, err := strconv.Atoi(mustQuery(t, s, q).rows[0][0])
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestDeleteCountExactOnEveryPath runs deletes that take each engine path
// (partition drop unread, drop after reading, rewrite, deletion vector,
// position deletes, drops of files with existing deletes) and checks DELETE
// n and the remaining rows against the model.
func TestDeleteCountExactOnEveryPath(t *testing.T) {
	forEachDelMode(t, 3, 20, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		steps := []struct {
			where string
			del   func(delSQLRow) bool
		}{
			{"grp = 1", func(r delSQLRow) bool { return r.grp == 1 }},                           // partial: rewrite / dv / posdelete
			{"grp = 2 AND bo", func(r delSQLRow) bool { return r.grp == 2 && r.bo }},            // again on the same files
			{"bo", func(r delSQLRow) bool { return r.bo }},                                      // partition proof over files with deletes
			{"id <= 20 OR grp = 3", func(r delSQLRow) bool { return r.id <= 20 || r.grp == 3 }}, // a whole file read, others partial
			{"s = 's4'", func(r delSQLRow) bool { return r.s == "s4" }},
			{"grp IS NOT NULL", func(r delSQLRow) bool { return true }}, // read and drop every remaining file
		}
		for _, st := range steps {
			var removed []delSQLRow
			model, removed = delSQLSplit(model, st.del)
			mustTag(t, e.s, "DELETE FROM t WHERE "+st.where, len(removed))
			e.assertContents(t, model)
		}
		if n := len(e.table(t).CurrentSnapshot().Summary.Properties); n == 0 {
			t.Fatal("last snapshot has no summary")
		}
		if got := e.table(t).CurrentSnapshot().Summary.Properties["total-records"]; got != "0" {
			t.Fatalf("total-records after deleting everything: %s", got)
		}
	})
}

// TestDeleteWithoutWhereDropsFilesUnread: every data file goes as a manifest
// deletion, none is read, and the count comes from metadata (minus the rows
// earlier merge-on-read deletes removed).
func TestDeleteWithoutWhereDropsFilesUnread(t *testing.T) {
	forEachDelMode(t, 3, 10, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		model, removed := delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 4 })
		mustTag(t, e.s, "DELETE FROM t WHERE grp = 4", len(removed))
		dataFiles := mustCount(t, e.s, `SELECT count(*) FROM "t$data_files"`)
		plan := mustQuery(t, e.s, "EXPLAIN ANALYZE DELETE FROM t").text()
		if n := strings.Count(plan, ": drop-unread, "); n != dataFiles {
			t.Fatalf("want %d unread drops, plan:\n%s", dataFiles, plan)
		}
		if strings.Count(plan, "read 0 bytes") != dataFiles {
			t.Fatalf("a file was read:\n%s", plan)
		}
		if !strings.Contains(plan, fmt.Sprintf("Actual: %d rows deleted", len(model))) {
			t.Fatalf("want %d rows deleted:\n%s", len(model), plan)
		}
		sum := e.table(t).CurrentSnapshot().Summary
		if sum.Properties["deleted-data-files"] != strconv.Itoa(dataFiles) || sum.Properties["added-data-files"] != "" ||
			sum.Properties["total-data-files"] != "0" || sum.Properties["total-records"] != "0" {
			t.Fatalf("summary %v", sum)
		}
		if n := mustCount(t, e.s, `SELECT count(*) FROM "t$files"`); n != 0 {
			t.Fatalf("%d files left", n)
		}
		e.assertContents(t, nil)
	})
}

// TestDeleteMatchingNothingCommitsNothing: no snapshot, no file written.
func TestDeleteMatchingNothingCommitsNothing(t *testing.T) {
	forEachDelMode(t, 2, 10, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		snaps, files := e.snapshotCount(t), e.files(t)
		for _, where := range []string{"false", "id > 1000", "grp = 1 AND grp = 2", "s = 'zz'", "id IN (NULL)", "NOT bo AND id % 3 = 0", "grp <> grp"} {
			mustTag(t, e.s, "DELETE FROM t WHERE "+where, 0)
			mustTag(t, e.s, "DELETE FROM t WHERE "+where+" RETURNING *", 0)
		}
		if got := e.snapshotCount(t); got != snaps {
			t.Fatalf("%d snapshots, want %d", got, snaps)
		}
		if got := e.files(t); !slices.Equal(got, files) {
			t.Fatalf("files changed:\n%v\n%v", files, got)
		}
		e.assertContents(t, model)
	})
}

// TestDeletePreparedWithParameters executes one prepared DELETE many times.
func TestDeletePreparedWithParameters(t *testing.T) {
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			e := newDelSQLEnv(t)
			ctx := context.Background()
			model := e.createModelTable(t, m.mode, m.version, 2, 15)
			p, err := e.s.Prepare(ctx, "DELETE FROM t WHERE grp = $1 AND s <> $2", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.ParamTypes) != 2 {
				t.Fatalf("param types %v", p.ParamTypes)
			}
			args := [][]stmt.Param{{int64(0), "s0"}, {"1", "s1"}, {int64(2), "zz"}, {int64(3), nil}, {int64(1), "s9"}, {"4", "s4"}, {int64(6), "s2"}, {int64(5), "s0"}}
			for _, a := range args {
				grp, _ := strconv.ParseInt(fmt.Sprint(a[0]), 10, 64)
				var removed []delSQLRow
				model, removed = delSQLSplit(model, func(r delSQLRow) bool { return a[1] != nil && r.grp == grp && r.s != a[1] })
				res, err := e.s.Execute(ctx, p, a)
				if err != nil {
					t.Fatalf("%v: %v", a, err)
				}
				if want := fmt.Sprintf("DELETE %d", len(removed)); res.CommandTag() != want {
					t.Fatalf("%v: tag %q, want %q", a, res.CommandTag(), want)
				}
				e.assertContents(t, model)
			}
			// A parameter in RETURNING and a numeric comparison.
			r := mustQuery(t, e.s, "DELETE FROM t WHERE id < $1 RETURNING id, $2::text || s", int64(12), "x")
			var want []string
			var removed []delSQLRow
			model, removed = delSQLSplit(model, func(r delSQLRow) bool { return r.id < 12 })
			for _, r := range removed {
				want = append(want, fmt.Sprintf("%d|x%s", r.id, r.s))
			}
			got := strings.Split(strings.TrimSuffix(r.text(), "\n"), "\n")
			slices.Sort(got)
			slices.Sort(want)
			if len(want) == 0 || !slices.Equal(got, want) || r.tag != fmt.Sprintf("DELETE %d", len(removed)) {
				t.Fatalf("RETURNING: got %v %s, want %v", got, r.tag, want)
			}
			e.assertContents(t, model)
		})
	}
}

// TestDeleteReturning checks RETURNING * and expressions against the model.
func TestDeleteReturning(t *testing.T) {
	forEachDelMode(t, 2, 12, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		var removed []delSQLRow
		model, removed = delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 2 || r.bo })
		r := mustQuery(t, e.s, "DELETE FROM t WHERE grp = 2 OR bo RETURNING *")
		if strings.Join(r.cols, ",") != "id,grp,s,bo" {
			t.Fatalf("columns %v", r.cols)
		}
		var want []string
		for _, x := range removed {
			want = append(want, x.text())
		}
		assertSameLines(t, r.text(), want)
		model, removed = delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 3 })
		r = mustQuery(t, e.s, "DELETE FROM t AS x WHERE x.grp = 3 RETURNING id * 2 AS twice, upper(s), x.bo, NOT bo IS NULL")
		if strings.Join(r.cols, ",") != "twice,upper,bo,?column?" {
			t.Fatalf("columns %v", r.cols)
		}
		want = nil
		for _, x := range removed {
			want = append(want, fmt.Sprintf("%d|%s|%s|t", x.id*2, strings.ToUpper(x.s), map[bool]string{true: "t", false: "f"}[x.bo]))
		}
		assertSameLines(t, r.text(), want)
		if r.tag != fmt.Sprintf("DELETE %d", len(removed)) {
			t.Fatalf("tag %s", r.tag)
		}
		e.assertContents(t, model)
	})
}

func assertSameLines(t *testing.T, text string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		got = nil
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// TestExplainDelete: EXPLAIN changes nothing and lists each affected file
// with its action; EXPLAIN ANALYZE deletes and names the new snapshot.
func TestExplainDelete(t *testing.T) {
	actions := map[string]string{"copy-on-write/v2": "rewrite", "copy-on-write/v3": "rewrite", "merge-on-read/v2": "posdelete", "merge-on-read/v3": "dv"}
	forEachDelMode(t, 2, 12, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		snaps, files := e.snapshotCount(t), e.files(t)
		plan := mustQuery(t, e.s, "EXPLAIN DELETE FROM t WHERE grp = 1 OR (bo AND id <= 12)").text()
		if e.snapshotCount(t) != snaps || !slices.Equal(e.files(t), files) {
			t.Fatal("EXPLAIN DELETE changed the table")
		}
		e.assertContents(t, model)
		// Files: ids 1..12 in the first INSERT, 13..24 in the second; bo
		// (id % 3 = 0) splits each in two. grp = 1 hits ids 1, 8, 15, 22,
		// one in each file but the first INSERT's bo file, which
		// bo AND id <= 12 matches whole.
		wantFiles := map[string]int{actions[mode+"/v"+version]: 3, "drop": 1}
		for action, n := range wantFiles {
			if got := strings.Count(plan, ": "+action+", "); got != n {
				t.Fatalf("want %d %q files:\n%s", n, action, plan)
			}
		}
		if !strings.Contains(plan, "Total: 4 data files, 8 rows matched") {
			t.Fatalf("plan:\n%s", plan)
		}
		model, removed := delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 1 || (r.bo && r.id <= 12) })
		plan = mustQuery(t, e.s, "EXPLAIN ANALYZE DELETE FROM t WHERE grp = 1 OR (bo AND id <= 12)").text()
		cur := e.table(t).CurrentSnapshot()
		if want := fmt.Sprintf("Actual: %d rows deleted, snapshot %d,", len(removed), cur.SnapshotID); !strings.Contains(plan, want) {
			t.Fatalf("want %q in\n%s", want, plan)
		}
		e.assertContents(t, model)
		plan = mustQuery(t, e.s, "EXPLAIN ANALYZE DELETE FROM t WHERE id < 0").text()
		if !strings.Contains(plan, "Actual: 0 rows deleted, snapshot none") || e.table(t).CurrentSnapshot().SnapshotID != cur.SnapshotID {
			t.Fatalf("plan:\n%s", plan)
		}
	})
}

// TestDeleteMetadataTables queries the metadata tables after deletes.
func TestDeleteMetadataTables(t *testing.T) {
	forEachDelMode(t, 2, 12, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		model, removed := delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 5 })
		mustTag(t, e.s, "DELETE FROM t WHERE grp = 5", len(removed))
		deleteFiles1 := mustCount(t, e.s, `SELECT count(*) FROM "t$delete_files"`)
		model, removed2 := delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 6 })
		mustTag(t, e.s, "DELETE FROM t WHERE grp = 6", len(removed2))
		deleteFiles2 := mustCount(t, e.s, `SELECT count(*) FROM "t$delete_files"`)
		switch {
		case mode == "copy-on-write" && (deleteFiles1 != 0 || deleteFiles2 != 0):
			t.Fatalf("copy-on-write wrote delete files: %d, %d", deleteFiles1, deleteFiles2)
		case mode == "merge-on-read" && version == "2" && !(deleteFiles1 > 0 && deleteFiles2 > deleteFiles1):
			t.Fatalf("position delete files did not grow: %d then %d", deleteFiles1, deleteFiles2)
		case mode == "merge-on-read" && version == "3" && deleteFiles1 == 0:
			t.Fatal("no deletion vectors")
		}
		snaps := mustQuery(t, e.s, `SELECT snapshot_id, operation, summary FROM "t$snapshots"`)
		if len(snaps.rows) != 4 {
			t.Fatalf("%d snapshots: %v", len(snaps.rows), snaps.rows)
		}
		wantOp := map[string]string{"copy-on-write": "overwrite", "merge-on-read": "delete"}[mode]
		var ops, deleted []string
		for _, row := range snaps.rows {
			ops = append(ops, row[1])
			var sum map[string]string
			if err := json.Unmarshal([]byte(row[2]), &sum); err != nil {
				t.Fatalf("summary %q: %v", row[2], err)
			}
			if row[1] == "append" {
				continue
			}
			// Net rows removed: a rewrite adds back the survivors, a
			// deletion vector replaces the file's previous one.
			minus := func(a, b string) string {
				x, _ := strconv.Atoi(sum[a])
				y, _ := strconv.Atoi(sum[b])
				return strconv.Itoa(x - y)
			}
			if mode == "merge-on-read" {
				deleted = append(deleted, minus("added-position-deletes", "removed-position-deletes"))
			} else {
				deleted = append(deleted, minus("deleted-records", "added-records"))
			}
		}
		slices.Sort(ops)
		slices.Sort(deleted)
		wantDeleted := []string{strconv.Itoa(len(removed)), strconv.Itoa(len(removed2))}
		slices.Sort(wantDeleted)
		if !slices.Equal(ops, []string{"append", "append", wantOp, wantOp}) || !slices.Equal(deleted, wantDeleted) {
			t.Fatalf("operations %v, deleted %v (want %v): %v", ops, deleted, wantDeleted, snaps.rows)
		}
		current := strconv.FormatInt(e.table(t).CurrentSnapshot().SnapshotID, 10)
		hist := mustQuery(t, e.s, `SELECT snapshot_id FROM "t$history"`)
		if len(hist.rows) != 4 || !slices.ContainsFunc(hist.rows, func(r []string) bool { return r[0] == current }) {
			t.Fatalf("history %v, current %s", hist.rows, current)
		}
		var live int
		for _, row := range mustQuery(t, e.s, `SELECT record_count FROM "t$data_files"`).rows {
			n, _ := strconv.Atoi(row[0])
			live += n
		}
		if mode == "copy-on-write" && live != len(model) {
			t.Fatalf("data files hold %d rows, model %d", live, len(model))
		}
		e.assertContents(t, model)
	})
}

// A DML predicate is evaluated on live rows only: a row an earlier
// merge-on-read DELETE removed (still in its data file, masked by a DV or a
// position delete) cannot make 10 / d fail, as it could not in PostgreSQL,
// and RETURNING returns the live matches only.
func TestDMLPredicateSkipsDeletedRows(t *testing.T) {
	for _, v := range []string{"2", "3"} {
		t.Run("v"+v, func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, fmt.Sprintf(`CREATE TABLE t (id int, d int) WITH ('format-version' = '%s', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')`, v))
			mustQuery(t, s, "INSERT INTO t VALUES (1, 0), (2, 1), (3, 2), (4, 20)")
			mustQuery(t, s, "DELETE FROM t WHERE id = 1")
			got := mustQuery(t, s, "UPDATE t SET id = id * 10 WHERE 10 / d > 4 RETURNING id")
			if want := []string{"20", "30"}; !slices.Equal(sortedRows(got.rows), want) {
				t.Fatalf("UPDATE ... RETURNING %v, want %v", got.rows, want)
			}
			got = mustQuery(t, s, "DELETE FROM t WHERE 10 / d < 4 RETURNING id, d")
			if want := [][]string{{"4", "20"}}; !slices.EqualFunc(got.rows, want, slices.Equal) {
				t.Fatalf("DELETE ... RETURNING %v, want %v", got.rows, want)
			}
			if got := mustQuery(t, s, "SELECT id FROM t ORDER BY id").rows; !slices.EqualFunc(got, [][]string{{"20"}, {"30"}}, slices.Equal) {
				t.Fatalf("left %v", got)
			}
		})
	}
}
