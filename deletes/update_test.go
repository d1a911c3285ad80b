package deletes

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// toRows reads a batch of (id, cat, ts, v) back into the test model's rows.
func toRows(t *testing.T, b arrow.RecordBatch) []row {
	t.Helper()
	idx := func(name string) int { return b.Schema().FieldIndices(name)[0] }
	ids := b.Column(idx("id")).(*array.Int64)
	cats := b.Column(idx("cat"))
	ts := b.Column(idx("ts")).(*array.Timestamp)
	vs := b.Column(idx("v")).(*array.Int32)
	out := make([]row, b.NumRows())
	for i := range out {
		r := row{id: ids.Value(i), cat: cats.ValueStr(i)}
		r.day = int((int64(ts.Value(i)) - r.id - baseDay.UnixMicro()) / 86400e6)
		if vs.IsValid(i) {
			v := vs.Value(i)
			r.v = &v
		}
		out[i] = r
	}
	return out
}

// scanModel reads the whole table through iceberg-go, optionally filtered.
func (f *fixture) scanModel(filter iceberg.BooleanExpression) map[int64]row {
	f.t.Helper()
	at, err := f.table().Scan(table.WithRowFilter(filter)).ToArrowTable(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	defer at.Release()
	out := map[int64]row{}
	tr := array.NewTableReader(at, 1000)
	defer tr.Release()
	for tr.Next() {
		for _, r := range toRows(f.t, tr.RecordBatch()) {
			out[r.id] = r
		}
	}
	return out
}

func sameRows(a, b map[int64]row) bool {
	return maps.EqualFunc(a, b, func(x, y row) bool {
		return x.id == y.id && x.cat == y.cat && x.day == y.day && ((x.v == nil) == (y.v == nil)) && (x.v == nil || *x.v == *y.v)
	})
}

// updateFn sets v = v + 100 (NULL stays NULL) and cat = newCat when set.
func updateFn(t *testing.T, f *fixture, newCat string) UpdateFunc {
	return func(_ context.Context, old arrow.RecordBatch) (arrow.RecordBatch, error) {
		rows := toRows(t, old)
		for i := range rows {
			if rows[i].v != nil {
				v := *rows[i].v + 100
				rows[i].v = &v
			}
			if newCat != "" {
				rows[i].cat = newCat
			}
		}
		return f.rowBatch(rows), nil
	}
}

func TestUpdate(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		for _, mode := range []Mode{ModeCopyOnWrite, ModeMergeOnRead} {
			t.Run(fmt.Sprintf("v%d/%s", version, mode), func(t *testing.T) {
				f := newFixture(t, version, ModeCopyOnWrite, &partSpec)
				setProps(t, f, iceberg.Properties{PropUpdateMode: string(mode)})
				f.appendRows(genRows(0, 40))
				f.appendRows(genRows(40, 60))
				match := func(id int64) bool { return id%5 == 0 }
				var want int64
				for id, r := range f.model {
					if match(id) {
						want++
						if r.v != nil {
							v := *r.v + 100
							r.v = &v
						}
						f.model[id] = r
					}
				}
				out, err := Update(f.ctx, Autocommit(f.cat), f.ident, idPred(iceberg.AlwaysTrue{}, false, match), updateFn(t, f, ""), UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if out.Deleted != want {
					t.Fatalf("updated %d rows, model says %d", out.Deleted, want)
				}
				if got := f.scanModel(iceberg.AlwaysTrue{}); !sameRows(got, f.model) {
					t.Fatalf("read back differs from model:\n%v\n%v", got, f.model)
				}
				snap := f.table().CurrentSnapshot()
				if snap.SnapshotID != out.SnapshotID || snap.Summary.Operation != "overwrite" {
					t.Fatalf("snapshot %d op %s; outcome %d", snap.SnapshotID, snap.Summary.Operation, out.SnapshotID)
				}
				if got := summaryInt(t, f.table(), "added-records"); got != want && (mode == ModeMergeOnRead && version >= 2) {
					t.Fatalf("added-records %d, want %d", got, want)
				}
				effective := mode
				if version == 1 {
					effective = ModeCopyOnWrite
				}
				partial := 0
				for _, a := range out.Files {
					mor := a.Action == ActionDV || a.Action == ActionPosDelete
					if a.Action != ActionDrop {
						partial++
						if mor != (effective == ModeMergeOnRead) {
							t.Fatalf("mode %s used %s", effective, a.Action)
						}
					}
				}
				if partial == 0 {
					t.Fatal("no partially updated file: the test does not exercise the strategy")
				}
			})
		}
	}
}

// TestUpdatePartitionColumn: the updated rows move to their new partition,
// where a partition-pruned scan finds them.
func TestUpdatePartitionColumn(t *testing.T) {
	for _, mode := range []Mode{ModeCopyOnWrite, ModeMergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, 2, mode, &partSpec)
			setProps(t, f, iceberg.Properties{PropUpdateMode: string(mode)})
			f.appendRows(genRows(0, 30))
			match := func(id int64) bool { return id < 10 }
			moved := map[int64]row{}
			for id, r := range f.model {
				if match(id) {
					if r.v != nil {
						v := *r.v + 100
						r.v = &v
					}
					r.cat = "z"
					f.model[id] = r
					moved[id] = r
				}
			}
			if _, err := Update(f.ctx, Autocommit(f.cat), f.ident, idPred(iceberg.AlwaysTrue{}, false, match), updateFn(t, f, "z"), UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := f.scanModel(iceberg.AlwaysTrue{}); !sameRows(got, f.model) {
				t.Fatalf("read back differs from model")
			}
			if got := f.scanModel(iceberg.EqualTo(iceberg.Reference("cat"), "z")); !sameRows(got, moved) {
				t.Fatalf("partition z holds %d rows, want %d", len(got), len(moved))
			}
			data, _ := f.liveFiles(f.table())
			for _, d := range data {
				if d.Partition()[1000] == "z" {
					return
				}
			}
			t.Fatal("no data file in partition cat=z")
		})
	}
}

// TestUpdateFailureLeavesNothing: an error from fn commits nothing and
// leaves no files behind.
func TestUpdateFailureLeavesNothing(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	setProps(t, f, iceberg.Properties{PropUpdateMode: string(ModeMergeOnRead)})
	f.appendRows(genRows(0, 30))
	before := f.filesOnDisk()
	snap := f.table().CurrentSnapshot().SnapshotID
	fail := func(context.Context, arrow.RecordBatch) (arrow.RecordBatch, error) {
		return nil, fmt.Errorf("null value in column v")
	}
	if _, err := Update(f.ctx, Autocommit(f.cat), f.ident, idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id > 3 }), fail, UpdateOptions{}); err == nil {
		t.Fatal("update succeeded")
	}
	if f.table().CurrentSnapshot().SnapshotID != snap || !maps.Equal(before, f.filesOnDisk()) {
		t.Fatal("failed update changed the table or the disk")
	}
}
