package deletes

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
)

// rowBatch builds one table-shaped batch of rows.
func (f *fixture) rowBatch(rows []row) arrow.RecordBatch {
	f.t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "cat", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	return buildRows(sc, rows)
}

func (f *fixture) source(rows []row) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) { yield(f.rowBatch(rows), nil) }
}

// overwriteAndCheck runs Overwrite; the model drops rows gone(r) and gains
// rows, independently of the engine.
func (f *fixture) overwriteAndCheck(pred Predicate, gone func(row) bool, rows []row, opts OverwriteOptions) OverwriteOutcome {
	f.t.Helper()
	want := f.dropFromModel(gone)
	out, err := Overwrite(f.ctx, Autocommit(f.cat), f.ident, pred, f.source(rows), opts)
	if err != nil {
		f.t.Fatalf("overwrite: %v", err)
	}
	for _, r := range rows {
		f.model[r.id] = r
	}
	if out.Deleted != want || out.Added != int64(len(rows)) {
		f.t.Fatalf("overwrite removed %d added %d; model says %d and %d", out.Deleted, out.Added, want, len(rows))
	}
	f.checkReadBack()
	return out
}

func TestOverwriteByFilter(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		for _, mode := range []Mode{ModeCopyOnWrite, ModeMergeOnRead} {
			t.Run(fmt.Sprintf("v%d/%s", version, mode), func(t *testing.T) {
				f := newFixture(t, version, mode, nil)
				f.appendRows(genRows(0, 20))
				f.appendRows(genRows(20, 40))
				// An earlier delete the overwrite's rewrite must keep (#2042).
				f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(3)), true, func(id int64) bool { return id < 3 }),
					func(r row) bool { return r.id < 3 }, Options{})
				tbl := f.table()
				before := summaryInt(t, tbl, "total-records")
				even := idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%2 == 0 && id < 30 })
				out := f.overwriteAndCheck(even, func(r row) bool { return r.id%2 == 0 && r.id < 30 }, genRows(100, 105), OverwriteOptions{})
				tbl = f.table()
				snap := tbl.CurrentSnapshot()
				if snap.SnapshotID != out.SnapshotID || snap.Summary.Operation != "overwrite" {
					t.Fatalf("snapshot %d op %s, outcome says %d", snap.SnapshotID, snap.Summary.Operation, out.SnapshotID)
				}
				if got := summaryInt(t, tbl, "added-records"); got < 5 {
					t.Fatalf("added-records %d", got)
				}
				if total := summaryInt(t, tbl, "total-records"); version < 2 || mode == ModeCopyOnWrite {
					if total != int64(len(f.model)) {
						t.Fatalf("total-records %d, model %d (before %d)", total, len(f.model), before)
					}
				}
				for _, a := range out.Files {
					if a.Action == ActionDV || a.Action == ActionPosDelete {
						t.Fatalf("overwrite used %s; it must be copy-on-write", a.Action)
					}
				}
			})
		}
	}
}

func TestOverwriteWholeTable(t *testing.T) {
	f := newFixture(t, 2, ModeMergeOnRead, &partSpec)
	f.appendRows(genRows(0, 30))
	before := f.filesOnDisk()
	out := f.overwriteAndCheck(Predicate{Filter: iceberg.AlwaysTrue{}, Exact: true}, func(row) bool { return true }, genRows(50, 53), OverwriteOptions{})
	for _, a := range out.Files {
		if a.Action != ActionDropUnread {
			t.Fatalf("whole-table overwrite read %s (%s)", a.Path, a.Action)
		}
	}
	data, dels := f.liveFiles(f.table())
	if len(dels) != 0 {
		t.Fatalf("%d delete files left", len(dels))
	}
	for _, d := range data {
		if before[localPath(d.FilePath())] {
			t.Fatalf("old data file %s still live", d.FilePath())
		}
	}
}

// TestOverwriteBadRowCommitsNothing: an error from the new rows mid-stream
// leaves the table and the disk as they were.
func TestOverwriteBadRowCommitsNothing(t *testing.T) {
	f := newFixture(t, 2, ModeCopyOnWrite, &partSpec)
	f.appendRows(genRows(0, 30))
	snap := f.table().CurrentSnapshot().SnapshotID
	before := f.filesOnDisk()
	bad := errors.New("bad row 7")
	src := func(yield func(arrow.RecordBatch, error) bool) {
		if !yield(f.rowBatch(genRows(100, 110)), nil) {
			return
		}
		yield(nil, bad)
	}
	for _, dynamic := range []bool{false, true} {
		_, err := Overwrite(f.ctx, Autocommit(f.cat), f.ident, Predicate{Filter: iceberg.AlwaysTrue{}, Exact: true}, src, OverwriteOptions{Dynamic: dynamic})
		if !errors.Is(err, bad) {
			t.Fatalf("want the row error, got %v", err)
		}
	}
	if got := f.table().CurrentSnapshot().SnapshotID; got != snap {
		t.Fatalf("snapshot moved to %d", got)
	}
	after := f.filesOnDisk()
	if !maps.Equal(before, after) {
		t.Fatalf("files changed: before %d, after %d", len(before), len(after))
	}
	f.checkReadBack()
}

// tupleOf is a row's partition tuple under partSpec, computed with
// iceberg-go's transforms (not the engine's matcher).
func tupleOf(r row, fields ...string) string {
	var key string
	for _, name := range fields {
		switch name {
		case "cat":
			key += r.cat + "|"
		case "day":
			key += fmt.Sprint(r.day) + "|"
		case "bucket":
			v := iceberg.BucketTransform{NumBuckets: 2}.Apply(iceberg.Optional[iceberg.Literal]{Val: iceberg.NewLiteral(r.id), Valid: true})
			key += fmt.Sprint(v.Val.Any()) + "|"
		}
	}
	return key
}

func TestDynamicOverwrite(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			f := newFixture(t, version, ModeMergeOnRead, &partSpec)
			f.appendRows(genRows(0, 48))
			f.deleteAndCheck(idPred(iceberg.EqualTo(iceberg.Reference("id"), int64(5)), true, func(id int64) bool { return id == 5 }),
				func(r row) bool { return r.id == 5 }, Options{})
			dataBefore, _ := f.liveFiles(f.table())
			newRows := []row{{id: 200, cat: "a", day: 1}, {id: 202, cat: "b", day: 2}, {id: 204, cat: "b", day: 2}}
			hit := map[string]bool{}
			for _, r := range newRows {
				hit[tupleOf(r, "cat", "day", "bucket")] = true
			}
			out := f.overwriteAndCheck(Predicate{}, func(r row) bool { return hit[tupleOf(r, "cat", "day", "bucket")] }, newRows, OverwriteOptions{Dynamic: true})
			for _, a := range out.Files {
				if a.Action != ActionDropUnread || a.BytesRead != 0 {
					t.Fatalf("dynamic overwrite read %s (%s, %d bytes)", a.Path, a.Action, a.BytesRead)
				}
			}
			// Partitions the new rows do not touch keep their very files.
			dataAfter, _ := f.liveFiles(f.table())
			after := map[string]bool{}
			for _, d := range dataAfter {
				after[d.FilePath()] = true
			}
			var kept, dropped int
			for _, d := range dataBefore {
				touched := false
				for _, r := range newRows {
					touched = touched || partitionKey(&partSpec, d.Partition()) == partitionKeyOfRow(t, f, r)
				}
				if touched == after[d.FilePath()] {
					t.Fatalf("file %s (partition %v): touched=%t but live=%t", d.FilePath(), d.Partition(), touched, after[d.FilePath()])
				}
				if touched {
					dropped++
				} else {
					kept++
				}
			}
			if kept == 0 || dropped < 2 {
				t.Fatalf("test data too narrow: %d files kept, %d dropped", kept, dropped)
			}
			if op := f.table().CurrentSnapshot().Summary.Operation; op != "overwrite" {
				t.Fatalf("operation %s", op)
			}
		})
	}
}

// partitionKeyOfRow writes nothing: it asks iceberg-go's transforms for the
// row's tuple in the manifest's value types.
func partitionKeyOfRow(t *testing.T, f *fixture, r row) string {
	t.Helper()
	ts := iceberg.NewLiteral(iceberg.Timestamp(r.ts()))
	part := map[int]any{
		1000: r.cat,
		1001: iceberg.DayTransform{}.Apply(iceberg.Optional[iceberg.Literal]{Val: ts, Valid: true}).Val.Any(),
		1002: iceberg.BucketTransform{NumBuckets: 2}.Apply(iceberg.Optional[iceberg.Literal]{Val: iceberg.NewLiteral(r.id), Valid: true}).Val.Any(),
	}
	return partitionKey(&partSpec, part)
}

func TestDynamicOverwriteUnpartitioned(t *testing.T) {
	f := newFixture(t, 2, ModeCopyOnWrite, nil)
	f.appendRows(genRows(0, 5))
	_, err := Overwrite(f.ctx, Autocommit(f.cat), f.ident, Predicate{}, f.source(genRows(10, 12)), OverwriteOptions{Dynamic: true})
	if !errors.Is(err, ErrDynamicUnpartitioned) {
		t.Fatalf("want ErrDynamicUnpartitioned, got %v", err)
	}
	f.checkReadBack()
}

// TestDynamicOverwriteEvolution: files of the old spec (by cat only) are
// handled row by row against the new spec (cat, day).
func TestDynamicOverwriteEvolution(t *testing.T) {
	catOnly := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1000, Name: "cat", Transform: iceberg.IdentityTransform{}})
	f := newFixture(t, 2, ModeCopyOnWrite, &catOnly)
	f.appendRows(genRows(0, 24))
	tx := f.table().NewTransaction()
	if err := tx.UpdateSpec(true).AddField("ts", iceberg.DayTransform{}, "ts_day").Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(24, 48))
	newRows := []row{{id: 300, cat: "a", day: 1}}
	out := f.overwriteAndCheck(Predicate{}, func(r row) bool { return r.cat == "a" && r.day == 1 }, newRows, OverwriteOptions{Dynamic: true})
	var rewrites, drops int
	for _, a := range out.Files {
		switch a.Action {
		case ActionRewrite:
			rewrites++
		case ActionDropUnread:
			drops++
		}
	}
	if rewrites == 0 || drops == 0 {
		t.Fatalf("want old-spec rewrites and new-spec unread drops, got %+v", out.Files)
	}
}
