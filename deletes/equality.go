package deletes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	lake "github.com/magmalake/magmalake/iceberg"
)

// ActionEqualityDelete: the file's matching rows are covered by the
// statement's one equality delete file.
const ActionEqualityDelete = "eqdelete"

// ErrEqualityNotApplicable: the table cannot take an equality delete
// (format version other than 2, or no unpartitioned spec to write it under);
// the caller falls back to a positional delete.
var ErrEqualityNotApplicable = errors.New("equality delete not applicable")

// EqualityDelete deletes the rows whose cols equal one row of keys (NULL
// matching NULL, as the spec says) by writing one equality delete file: only
// those columns, under the table's field ids, with the unpartitioned spec so
// it applies table-wide. pred must select exactly the same rows; it is used
// to count them, reading only its columns. keys are in the executor's Arrow
// types, one column per name in cols, in that order. Nothing is committed
// when no live row matches.
func EqualityDelete(ctx context.Context, cat CommitTarget, ident table.Identifier, pred Predicate, cols []string, keys arrow.RecordBatch, opts Options) (Outcome, error) {
	var out Outcome
	committed, err := opts.commit(ctx, cat, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
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
	_, ok := unpartitionedSpec(tbl)
	return ok && tbl.Metadata().Version() == 2
}

// PrepareEqualityDelete counts the rows pred matches in head and writes the
// equality delete file; the change adds just that file.
func PrepareEqualityDelete(ctx context.Context, head *table.Table, pred Predicate, cols []string, keys arrow.RecordBatch, opts Options, out *Outcome) (lake.FileChange, []string, error) {
	spec, ok := unpartitionedSpec(head)
	if !ok || head.Metadata().Version() != 2 {
		return lake.FileChange{}, nil, ErrEqualityNotApplicable
	}
	planOpts := opts.Plan
	planOpts.ReturnColumns = nil
	plans, err := PlanRowDeletes(ctx, head, pred, planOpts)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
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
	df, err := writeEqualityDeletes(ctx, head, sink, spec, cols, keys)
	if err != nil {
		return lake.FileChange{}, sink.written, err
	}
	return lake.FileChange{AddDeletes: []iceberg.DataFile{df}, Props: opts.SnapshotProps}, sink.written, nil
}

// writeEqualityDeletes writes keys as one equality delete file.
func writeEqualityDeletes(ctx context.Context, tbl *table.Table, sink *fileSink, spec iceberg.PartitionSpec, cols []string, keys arrow.RecordBatch) (iceberg.DataFile, error) {
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
