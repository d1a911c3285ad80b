package bench

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// mergedName marks every row the MERGE writes (updated or inserted), so a
// read-back can count them apart from the rows left alone (generated names
// are "name-NNNNN").
const mergedName = "merged"

// mergeSpec fixes one case's source: which existing ids it updates and
// which new ids it inserts, every row a pure function of its index, so the
// bench can predict the outcome without reading anything.
type mergeSpec struct {
	shape   shape
	name    string // case name
	updates int64  // source rows whose id exists in the target
	inserts int64  // source rows with a new id
	// onePart is the partition every source row falls in (caseOnePartition),
	// -1 when the keys are scattered over the whole table.
	onePart int32
}

// newMergeSpec splits n source rows into half updates, half inserts.
func newMergeSpec(sh shape, name string, n int64) mergeSpec {
	ms := mergeSpec{shape: sh, name: name, updates: n / 2, inserts: n - n/2, onePart: -1}
	if name == caseOnePartition {
		ms.onePart = int32(sh.parts / 2) // in the middle: no manifest entry is special
	}
	return ms
}

// rows is the source's row count.
func (ms mergeSpec) rows() int64 { return ms.updates + ms.inserts }

// updateRange is the row (= id) range the updated ids are drawn from: the
// whole table, or the one partition's file (one file per partition).
func (ms mergeSpec) updateRange() (lo, hi int64) {
	if ms.onePart < 0 {
		return 0, ms.shape.rows
	}
	return ms.shape.chunk(int(ms.onePart))
}

// updateID is the j-th updated id: one random id out of each of updates
// equal strata of the range, so the ids are distinct, ascending in j and
// spread over every file (or every page of the one partition's file).
func (ms mergeSpec) updateID(j int64) int64 {
	lo, hi := ms.updateRange()
	stride := (hi - lo) / ms.updates
	return lo + j*stride + int64(splitmix64(uint64(j)^0x5eed)%uint64(stride))
}

// insertID is the j-th new id: past the table's last.
func (ms mergeSpec) insertID(j int64) int64 { return ms.shape.rows + j }

// sourceRow is source row i: updates and inserts alternate, so neither kind
// is clustered in the source (inserts, one more for an odd count, end it).
func (ms mergeSpec) sourceRow(i int64) row {
	if i < 2*ms.updates && i%2 == 0 {
		id := ms.updateID(i / 2)
		return ms.newRow(id, ms.shape.rowAt(id).grp)
	}
	j := i / 2
	if i >= 2*ms.updates {
		j = i - ms.updates
	}
	return ms.newRow(ms.insertID(j), ms.insertGrp(j))
}

// insertGrp spreads inserted rows over every partition, or pins them to
// the one.
func (ms mergeSpec) insertGrp(j int64) int32 {
	if ms.onePart >= 0 {
		return ms.onePart
	}
	return int32(j % int64(ms.shape.parts))
}

// newRow is the value the MERGE writes for id: the generated row's other
// values changed, name set to mergedName, in partition grp (an updated
// row keeps its own, so no row moves between partitions).
func (ms mergeSpec) newRow(id int64, grp int32) row {
	r := ms.shape.rowAt(id)
	a := float64(id%1000) / 4
	n := mergedName
	r.grp, r.amount, r.name, r.price = grp, &a, &n, r.price+1
	return r
}

// sourceBatches yields the source's rows in batches of the executor's types.
func (ms mergeSpec) sourceBatches() iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for lo := int64(0); lo < ms.rows(); lo += genBatchRows {
			b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema())
			for i := lo; i < min(lo+genBatchRows, ms.rows()); i++ {
				appendRow(b, ms.sourceRow(i))
			}
			rec := b.NewRecordBatch()
			b.Release()
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// appendRow appends r to a builder of arrowSchema's columns.
func appendRow(b *array.RecordBuilder, r row) {
	b.Field(0).(*array.Int64Builder).Append(r.id)
	b.Field(1).(*array.Int32Builder).Append(r.k)
	b.Field(2).(*array.Int32Builder).Append(r.grp)
	if r.amount != nil {
		b.Field(3).(*array.Float64Builder).Append(*r.amount)
	} else {
		b.Field(3).AppendNull()
	}
	b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(r.price))
	if r.name != nil {
		b.Field(5).(*array.StringBuilder).Append(*r.name)
	} else {
		b.Field(5).AppendNull()
	}
	b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts))
	b.Field(7).(*array.BooleanBuilder).Append(r.flag)
}

// writeMergeSource writes the case's source as an unpartitioned table and
// returns its identifier and data files.
func writeMergeSource(ctx context.Context, wh *lake.Warehouse, name string, ms mergeSpec) (table.Identifier, []iceberg.DataFile, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	tbl, err := wh.Tables().CreateTable(ctx, ident, sc, Unpartitioned.spec(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("merge source %s: %w", name, err)
	}
	dfs, err := lake.WriteDataFiles(ctx, tbl, ms.sourceBatches())
	if err != nil {
		return nil, nil, fmt.Errorf("merge source %s: %w", name, err)
	}
	if _, err := lake.Append(ctx, wh, ident, dfs, nil); err != nil {
		return nil, nil, fmt.Errorf("merge source %s: %w", name, err)
	}
	return ident, dfs, nil
}

// mergeProps are the table properties of a MERGE mode.
func mergeProps(m Mode) map[string]string {
	switch m {
	case MergeOnReadV2:
		return map[string]string{"format-version": "2", "write.merge.mode": "merge-on-read"}
	case MergeOnReadV3:
		return map[string]string{"format-version": "3", "write.merge.mode": "merge-on-read"}
	}
	return map[string]string{"format-version": "2", "write.merge.mode": "copy-on-write"}
}

// mergeOn is the ON condition: the id, and for the one-partition case the
// partition column too, so the source's keys prune the target's partitions.
func (ms mergeSpec) mergeOn() string {
	if ms.onePart >= 0 {
		return "t.id = s.id AND t.grp = s.grp"
	}
	return "t.id = s.id"
}

// mergeSQL is the statement measured: an upsert of every source row, the
// row's identity (id) and partition (grp) kept.
func (ms mergeSpec) mergeSQL(target, src table.Identifier) string {
	return fmt.Sprintf("MERGE INTO %s AS t USING %s AS s ON %s "+
		"WHEN MATCHED THEN UPDATE SET k = s.k, amount = s.amount, price = s.price, name = s.name, ts = s.ts, flag = s.flag "+
		"WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.k, s.grp, s.amount, s.price, s.name, s.ts, s.flag)",
		owQualified(target), owQualified(src), ms.mergeOn())
}

// dropClone forgets a clone and removes the files it wrote, which live
// under its own location; the source's data files it shared live under the
// source table's and stay.
func dropClone(ctx context.Context, wh *lake.Warehouse, ident table.Identifier, root string) error {
	tbl, err := wh.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	loc := strings.TrimPrefix(tbl.Location(), "file://")
	if err := wh.Tables().DropTable(ctx, ident, false); err != nil {
		return fmt.Errorf("drop %s: %w", owQualified(ident), err)
	}
	if rel, err := filepath.Rel(root, loc); err != nil || strings.HasPrefix(rel, "..") {
		return nil // not ours to remove
	}
	return os.RemoveAll(loc)
}
