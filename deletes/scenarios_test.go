package deletes

import (
	"context"
	"errors"
	"iter"
	"os"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

// TestEqualityDeletesFromAnotherWriter: rows an equality delete already
// removed are neither matched nor counted again.
func TestEqualityDeletesFromAnotherWriter(t *testing.T) {
	for _, mode := range []Mode{ModeCopyOnWrite, ModeMergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, 2, mode, nil)
			f.appendRows(genRows(0, 30))
			tbl := f.table()
			sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
			b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
			for _, id := range []int64{1, 2, 3, 20} {
				b.Field(0).(*array.Int64Builder).Append(id)
				delete(f.model, id)
			}
			rec := b.NewRecordBatch()
			b.Release()
			tx := tbl.NewTransaction()
			var recs iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
			if err := tx.CommitEqualityDeletes(f.ctx, []int{1}, recs, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Commit(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.checkReadBack()
			f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(10)), true, func(id int64) bool { return id < 10 }),
				func(r row) bool { return r.id < 10 }, Options{})
			// Now everything: the count must exclude the equality-deleted row 20.
			f.deleteAndCheck(Predicate{Filter: iceberg.AlwaysTrue{}, Exact: true}, func(row) bool { return true }, Options{})
		})
	}
}

var partSpec = iceberg.NewPartitionSpec(
	iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1000, Name: "cat", Transform: iceberg.IdentityTransform{}},
	iceberg.PartitionField{SourceIDs: []int{3}, FieldID: 1001, Name: "ts_day", Transform: iceberg.DayTransform{}},
	iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1002, Name: "id_bucket", Transform: iceberg.BucketTransform{NumBuckets: 2}},
)

// TestPartitionedMetadataOnlyDrop: a filter the partition tuple proves drops
// files without opening them (their bytes are removed from disk first, so any
// read fails), while a non-provable filter on the same table reads.
func TestPartitionedMetadataOnlyDrop(t *testing.T) {
	forEachVariant(t, &partSpec, func(t *testing.T, f *fixture, version int, mode Mode) {
		f.appendRows(genRows(0, 48))
		// Partial delete in partition b first so drops must also count existing deletes.
		f.deleteAndCheck(idPred(iceberg.EqualTo(iceberg.Reference("id"), int64(1)), true, func(id int64) bool { return id == 1 }),
			func(r row) bool { return r.id == 1 }, Options{})
		data, _ := f.liveFiles(f.table())
		for _, d := range data {
			if d.Partition()[1000] == "b" {
				if err := os.Remove(localPath(d.FilePath())); err != nil {
					t.Fatal(err)
				}
			}
		}
		out := f.deleteAndCheck(Predicate{Filter: iceberg.EqualTo(iceberg.Reference("cat"), "b"), Exact: true, Columns: []string{"cat"},
			Match: func(context.Context, arrow.RecordBatch) ([]bool, error) { return nil, errors.New("must not be called") }},
			func(r row) bool { return r.cat == "b" }, Options{})
		for _, fa := range out.Files {
			if fa.Action != ActionDropUnread {
				t.Fatalf("want drop-unread, got %+v", fa)
			}
		}
		// Time transform: a whole day is provable too.
		day2 := baseDay.AddDate(0, 0, 2).UnixMicro()
		out = f.deleteAndCheck(Predicate{Filter: iceberg.NewAnd(
			iceberg.GreaterThanEqual(iceberg.Reference("ts"), iceberg.Timestamp(day2)),
			iceberg.LessThan(iceberg.Reference("ts"), iceberg.Timestamp(day2+86400_000_000))), Exact: true},
			func(r row) bool { return r.day == 2 }, Options{})
		if len(out.Files) == 0 {
			t.Fatal("day delete touched no file")
		}
		for _, fa := range out.Files {
			if fa.Action != ActionDropUnread {
				t.Fatalf("want drop-unread, got %+v", fa)
			}
		}
		// Not provable from partitions (bucket): rows are read.
		out = f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(12)), true, func(id int64) bool { return id < 12 }),
			func(r row) bool { return r.id < 12 }, Options{})
		for _, fa := range out.Files {
			if fa.Action == ActionDropUnread {
				t.Fatalf("id < 12 cannot be proven by partitions: %+v", fa)
			}
		}
		f.checkDiskInvariants(version, mode)
	})
}

// TestPartitionEvolution deletes across files written under two specs.
func TestPartitionEvolution(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 20))
	tx := f.table().NewTransaction()
	if err := tx.UpdateSpec(true).AddIdentity("cat").Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(20, 40))
	out := f.deleteAndCheck(Predicate{Filter: iceberg.EqualTo(iceberg.Reference("cat"), "a"), Exact: true, Columns: []string{"cat"},
		Match: func(_ context.Context, b arrow.RecordBatch) ([]bool, error) {
			c := b.Column(0).(*array.String)
			m := make([]bool, c.Len())
			for i := range m {
				m[i] = c.IsValid(i) && c.Value(i) == "a"
			}
			return m, nil
		}}, func(r row) bool { return r.cat == "a" }, Options{})
	actions := map[string]int{}
	for _, fa := range out.Files {
		actions[fa.Action]++
	}
	if actions[ActionDropUnread] != 1 || actions[ActionDV] != 1 {
		t.Fatalf("want the new-spec file dropped unread and the old one marked, got %v", actions)
	}
	f.checkDiskInvariants(3, ModeMergeOnRead)
}

// TestConcurrentDeletes: two writers from the same base, overlapping and
// disjoint rows of the same files; both succeed, counts add up exactly.
func TestConcurrentDeletes(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		f.appendRows(genRows(0, 40))
		f.appendRows(genRows(40, 80))
		fnA := func(id int64) bool { return id%2 == 0 && id < 60 }
		fnB := func(id int64) bool { return id%3 == 0 }
		var wg sync.WaitGroup
		outs := make([]Outcome, 2)
		errs := make([]error, 2)
		for i, fn := range []func(int64) bool{fnA, fnB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], errs[i] = Delete(f.ctx, Autocommit(f.cat), f.ident, idPred(iceberg.AlwaysTrue{}, false, fn), Options{})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		want := f.dropFromModel(func(r row) bool { return fnA(r.id) || fnB(r.id) })
		if outs[0].Deleted+outs[1].Deleted != want {
			t.Fatalf("counts %d + %d, want %d", outs[0].Deleted, outs[1].Deleted, want)
		}
		f.checkReadBack()
		f.checkDiskInvariants(version, mode)
	})
}

// flakyCtx is cancelled after a number of Err checks, to cancel a delete at
// every point it looks at its context.
type flakyCtx struct {
	context.Context
	mu    sync.Mutex
	left  int
	fired bool
}

func (c *flakyCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left <= 0 {
		c.fired = true
		return context.Canceled
	}
	c.left--
	return nil
}

// TestCancelledDeleteLeavesNothing cancels at every successive check point
// until the delete gets through: each cancelled run leaves no new file in the
// table directory and no new snapshot.
func TestCancelledDeleteLeavesNothing(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		f.appendRows(genRows(0, 40))
		f.appendRows(genRows(40, 60))
		filesBefore := f.filesOnDisk()
		snapBefore := f.table().CurrentSnapshot().SnapshotID
		pred := idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%4 == 1 || id >= 40 })
		for n := 0; n < 200; n++ {
			ctx := &flakyCtx{Context: context.Background(), left: n}
			out, err := Delete(ctx, Autocommit(f.cat), f.ident, pred, Options{})
			if err == nil {
				if out.Deleted == 0 {
					t.Fatal("nothing deleted")
				}
				return
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: %v", n, err)
			}
			if id := f.table().CurrentSnapshot().SnapshotID; id != snapBefore {
				t.Fatalf("run %d: cancelled delete committed snapshot %d", n, id)
			}
			for p := range f.filesOnDisk() {
				if !filesBefore[p] {
					t.Fatalf("run %d: cancelled delete left %s", n, p)
				}
			}
		}
		t.Fatal("delete never completed")
	})
}
