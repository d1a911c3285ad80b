package deletes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// ActionEqualityDelete: the file's matching rows are covered by the
// statement's one equality delete file.
const ActionEqualityDelete = "eqdelete"

// ErrEqualityNotApplicable: the table cannot take an equality delete
// (format version other than 2); the caller falls back to a positional
// delete.
var ErrEqualityNotApplicable = errors.New("equality delete not applicable")

// EqualityDelete deletes the rows whose cols equal one row of keys (NULL
// matching NULL, as the spec says) by writing equality delete files: only
// those columns, under the table's field ids. A table with an
// unpartitioned spec takes one file under it, which applies table-wide;
// a partitioned one takes a file per partition (spec and tuple) of the
// matched rows, holding the keys found there, as the spec scopes an
// equality delete to the data files of its partition. pred must select
// exactly the same rows; it is used to count them, reading only its
// columns (and, partitioned, the keys of the rows it matches). keys are in
// the executor's Arrow types, one column per name in cols, in that order.
// Nothing is committed when no live row matches.
func EqualityDelete(ctx context.Context, to CommitTarget, ident table.Identifier, pred Predicate, cols []string, keys arrow.RecordBatch, opts Options) (Outcome, error) {
	var out Outcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out = Outcome{Attempts: out.Attempts + 1}
		return PrepareEqualityDelete(ctx, head, pred, cols, keys, opts, &out)
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("delete from %s: %w", strings.Join(ident, "."), err)
	}
	if out.Deleted > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

// unpartitionedSpec is a registered spec with no fields, if the table has one.
func unpartitionedSpec(tbl *table.Table) (iceberg.PartitionSpec, bool) {
	if s := tbl.Spec(); s.IsUnpartitioned() {
		return s, true
	}
	for _, s := range tbl.Metadata().PartitionSpecs() {
		if s.IsUnpartitioned() {
			return s, true
		}
	}
	return iceberg.PartitionSpec{}, false
}

// EqualityApplicable reports whether tbl can take an equality delete.
func EqualityApplicable(tbl *table.Table) bool {
	return tbl.Metadata().Version() == 2
}

// EqualityScope says how an equality delete on tbl is written: one file
// for the whole table under its unpartitioned spec, or one per partition.
func EqualityScope(tbl *table.Table) string {
	if s, ok := unpartitionedSpec(tbl); ok {
		return fmt.Sprintf("one equality delete file for the whole table (unpartitioned spec %d)", s.ID())
	}
	return "one equality delete file per partition of the matched rows (the table has no unpartitioned spec, and an equality delete applies to the data files of its own partition)"
}

// PrepareEqualityDelete counts the rows pred matches in head and writes the
// equality delete files; the change adds just those files.
func PrepareEqualityDelete(ctx context.Context, head *table.Table, pred Predicate, cols []string, keys arrow.RecordBatch, opts Options, out *Outcome) (lake.FileChange, []string, error) {
	if !EqualityApplicable(head) {
		return lake.FileChange{}, nil, ErrEqualityNotApplicable
	}
	global, isGlobal := unpartitionedSpec(head)
	planOpts := opts.Plan
	planOpts.ReturnColumns = nil
	if !isGlobal {
		planOpts.ReturnColumns = cols // the keys each partition holds
	}
	plans, err := PlanRowDeletes(ctx, head, pred, planOpts)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	defer func() {
		for i := range plans {
			releaseAll(plans[i].Returned)
		}
	}()
	for i := range plans {
		out.Deleted += plans[i].Deleted()
		out.Files = append(out.Files, FileAction{Path: plans[i].File.FilePath(), Action: ActionEqualityDelete,
			Matched: plans[i].Deleted(), Live: plans[i].LiveRows, BytesRead: plans[i].BytesRead})
	}
	if out.Deleted == 0 || opts.DryRun {
		return lake.FileChange{}, nil, nil
	}
	sink, err := newFileSink(ctx, head)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	var files []iceberg.DataFile
	if isGlobal {
		df, err := writeEqualityDeletes(ctx, head, sink, global, nil, cols, keys)
		if err != nil {
			return lake.FileChange{}, sink.written, err
		}
		files = append(files, df)
	} else if files, err = writePartitionEqualityDeletes(ctx, head, sink, cols, plans); err != nil {
		return lake.FileChange{}, sink.written, err
	}
	return lake.FileChange{AddDeletes: files, Props: opts.SnapshotProps, Rebase: Rebase}, sink.written, nil
}

// writePartitionEqualityDeletes writes, per partition (spec and tuple) of
// the planned files, one equality delete file of the distinct keys its
// matched rows hold.
func writePartitionEqualityDeletes(ctx context.Context, head *table.Table, sink *fileSink, cols []string, plans []RowDelete) ([]iceberg.DataFile, error) {
	groups := map[string][]*RowDelete{}
	var order []string
	for i := range plans {
		if plans[i].Deleted() == 0 {
			continue
		}
		k := fmt.Sprintf("%d/%v", plans[i].File.SpecID(), sortedPartition(plans[i].File.Partition()))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], &plans[i])
	}
	var files []iceberg.DataFile
	for _, k := range order {
		g := groups[k]
		keys, err := distinctKeys(ctx, g)
		if err != nil {
			return nil, err
		}
		df, err := writeEqualityDeletes(ctx, head, sink, specOf(head, g[0].File), g[0].File.Partition(), cols, keys)
		keys.Release()
		if err != nil {
			return nil, err
		}
		files = append(files, df)
	}
	return files, nil
}

// distinctKeys is the key rows the plans returned, each once, as one
// batch the caller releases.
func distinctKeys(ctx context.Context, plans []*RowDelete) (arrow.RecordBatch, error) {
	var batches []arrow.RecordBatch
	for _, p := range plans {
		batches = append(batches, p.Returned...)
	}
	if len(batches) == 0 {
		return nil, errors.New("equality delete: the plan returned no keys")
	}
	sc := batches[0].Schema()
	cols := make([][]arrow.Array, sc.NumFields()) // per column, the distinct rows of each batch
	defer func() {
		for _, cs := range cols {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	seen := map[string]bool{}
	for _, b := range batches {
		var take []int64
		for i := range int(b.NumRows()) {
			if k := rowKey(b.Columns(), i); !seen[k] {
				seen[k] = true
				take = append(take, int64(i))
			}
		}
		if len(take) == 0 {
			continue
		}
		idx := array.NewInt64Builder(memory.DefaultAllocator)
		idx.AppendValues(take, nil)
		ia := idx.NewArray()
		idx.Release()
		for c := range cols {
			picked, err := compute.TakeArray(ctx, b.Column(c), ia)
			if err != nil {
				ia.Release()
				return nil, fmt.Errorf("equality keys: %w", err)
			}
			cols[c] = append(cols[c], picked)
		}
		ia.Release()
	}
	out := make([]arrow.Array, len(cols))
	for c, parts := range cols {
		joined, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			releaseArrays(out[:c])
			return nil, fmt.Errorf("equality keys: %w", err)
		}
		out[c] = joined
	}
	defer releaseArrays(out)
	return array.NewRecordBatch(sc, out, int64(len(seen))), nil
}

// writeEqualityDeletes writes keys as one equality delete file of spec and
// partition (nil: unpartitioned).
func writeEqualityDeletes(ctx context.Context, tbl *table.Table, sink *fileSink, spec iceberg.PartitionSpec, partition map[int]any, cols []string, keys arrow.RecordBatch) (iceberg.DataFile, error) {
	sub, err := requestedSchema(tbl.Schema(), cols, true)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(cols))
	for _, f := range sub.Fields() {
		ids = append(ids, f.ID)
	}
	asc, err := table.SchemaToArrowSchema(sub, nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("equality delete schema: %w", err)
	}
	rec, err := castBatch(ctx, keys, asc)
	if err != nil {
		return nil, err
	}
	path := sink.newPath("eqdeletes.parquet")
	md, size, err := sink.parquetFile(ctx, path, asc, func() (arrow.RecordBatch, error) {
		b := rec
		rec = nil
		return b, nil
	})
	if rec != nil {
		rec.Release()
	}
	if err != nil {
		return nil, err
	}
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema: sub, Spec: spec, Format: iceberg.ParquetFile, Metadata: md, FilePath: path, FileSize: size,
		Content: iceberg.EntryContentEqDeletes, EqualityFieldIDs: ids, FormatVersion: tbl.Metadata().Version(),
		PartitionValues: partition,
	})
	if err != nil {
		return nil, fmt.Errorf("describe equality deletes %s: %w", path, err)
	}
	return df, nil
}

// castBatch converts b's columns, positionally, to the types of sc.
func castBatch(ctx context.Context, b arrow.RecordBatch, sc *arrow.Schema) (arrow.RecordBatch, error) {
	if int(b.NumCols()) != sc.NumFields() {
		return nil, fmt.Errorf("equality keys have %d columns, want %d", b.NumCols(), sc.NumFields())
	}
	cols := make([]arrow.Array, sc.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range sc.Fields() {
		c := b.Column(i)
		if arrow.TypeEqual(c.DataType(), f.Type) {
			c.Retain()
			cols[i] = c
			continue
		}
		conv, err := compute.CastArray(ctx, c, compute.SafeCastOptions(f.Type))
		if err != nil {
			return nil, fmt.Errorf("equality key %s: %w", f.Name, err)
		}
		cols[i] = conv
	}
	return array.NewRecordBatch(sc, cols, b.NumRows()), nil
}
