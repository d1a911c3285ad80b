package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// FS is the file IO of tbl.
func FS(ctx context.Context, tbl *table.Table) (iceio.IO, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("file system of %s: %w", IdentKey(tbl.Identifier()), err)
	}
	return fs, nil
}

// CurrentSnapshotID is the id of tbl's current snapshot, or nil for a table
// that has none yet.
func CurrentSnapshotID(tbl *table.Table) *int64 {
	s := tbl.CurrentSnapshot()
	if s == nil {
		return nil
	}
	id := s.SnapshotID
	return &id
}

// RemoveFiles removes written-but-uncommitted files. Files already gone are
// not an error; every path is attempted and the failures are joined.
func RemoveFiles(ctx context.Context, fs iceio.IO, paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if err := fs.Remove(p); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// filesNamedWith lists the files under root whose name contains marker, when
// fs can list; iceberg-go names data files with the write's UUID.
func filesNamedWith(fs iceio.IO, root, marker string) []string {
	lfs, ok := fs.(iceio.ListableIO)
	if !ok {
		return nil
	}
	var out []string
	_ = lfs.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return nil // best effort: a vanished directory is not our problem
		}
		if !d.IsDir() && strings.Contains(path.Base(p), marker) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// writeSchema maps the executor's batch schema in onto the table's Arrow
// schema (with field ids), column by column by name.
func writeSchema(sc *iceberg.Schema, in *arrow.Schema) (*arrow.Schema, error) {
	full, err := table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("arrow schema: %w", err)
	}
	fields := make([]arrow.Field, 0, in.NumFields())
	for _, f := range in.Fields() {
		idx := full.FieldIndices(f.Name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("%w: %q", ErrNoSuchColumn, f.Name)
		}
		tf := full.Field(idx[0])
		if !arrow.TypeEqual(contractType(tf.Type), tf.Type) {
			return nil, fmt.Errorf("writing column %q of type %s is not supported", f.Name, tf.Type)
		}
		if !arrow.TypeEqual(f.Type, tf.Type) {
			return nil, fmt.Errorf("column %q: batch has %s, table needs %s", f.Name, f.Type, tf.Type)
		}
		fields = append(fields, tf)
	}
	return arrow.NewSchema(fields, nil), nil
}

// toWriteBatch relabels rec with the target schema; it consumes rec.
func toWriteBatch(rec arrow.RecordBatch, target *arrow.Schema) (arrow.RecordBatch, error) {
	defer rec.Release()
	if int(rec.NumCols()) != target.NumFields() {
		return nil, fmt.Errorf("batch has %d columns, first batch had %d", rec.NumCols(), target.NumFields())
	}
	for i, f := range target.Fields() {
		if rec.Schema().Field(i).Name != f.Name || !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
			return nil, fmt.Errorf("batch column %d is %s %s, first batch had %s %s", i,
				rec.Schema().Field(i).Name, rec.Column(i).DataType(), f.Name, f.Type)
		}
	}
	return ParquetSafeBatch(array.NewRecordBatch(target, rec.Columns(), rec.NumRows())), nil
}
