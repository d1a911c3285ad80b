package lake

import (
	"context"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// WriteDataFiles writes batches (in the executor's Arrow types, columns
// matched to the table by name) as Parquet data files of tbl, fanned out by
// partition. Nothing is committed: pass the files to Append, or RemoveFiles
// them. On error, the files written so far are removed.
func WriteDataFiles(ctx context.Context, tbl *table.Table, batches iter.Seq2[arrow.RecordBatch, error]) ([]iceberg.DataFile, error) {
	return writeDataFiles(ctx, tbl, tbl.Schema(), batches)
}

// WriteDataFilesWithLineage is WriteDataFiles for rows of a v3 table that
// carry their row lineage: the batches end with the _row_id and
// _last_updated_sequence_number columns (int64, NULL to inherit), and the
// files hold them under their reserved field ids. The table's schema does
// not gain them.
func WriteDataFilesWithLineage(ctx context.Context, tbl *table.Table, batches iter.Seq2[arrow.RecordBatch, error]) ([]iceberg.DataFile, error) {
	sc := iceberg.SchemaWithRowLineageColumns(tbl.Schema(), true, true)
	return writeDataFiles(ctx, tbl, sc, batches, table.WithPreserveRowLineage(sc))
}

// writeDataFiles writes batches whose columns are fields of sc.
func writeDataFiles(ctx context.Context, tbl *table.Table, sc *iceberg.Schema, batches iter.Seq2[arrow.RecordBatch, error], opts ...table.WriteRecordOption) ([]iceberg.DataFile, error) {
	what := "write data files for " + IdentKey(tbl.Identifier())
	next, stop := iter.Pull2(batches)
	defer stop()
	first, err, ok := next()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return nil, nil
	}
	target, err := writeSchema(sc, first.Schema())
	if err != nil {
		first.Release()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	writeID := uuid.New()
	dw, ok, err := newDataWriter(ctx, tbl, sc, target, writeID)
	if err != nil {
		first.Release()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var rows int64
	exhausted := false
	// The partition splitter is for iceberg-go's writer only (see
	// partitionSplitter); magmalake's takes each partition's rows itself
	// and makes them safe for the Parquet writer.
	var splitter *partitionSplitter
	if !ok {
		splitter = newPartitionSplitter(sc, tbl.Spec(), target)
	}
	input := func(yield func(arrow.RecordBatch, error) bool) {
		rec, err, ok := first, error(nil), true
		defer func() { exhausted = !ok }()
		for ; ok; rec, err, ok = next() {
			if err == nil {
				rec, err = toWriteBatch(rec, target)
			}
			if err == nil && ctx.Err() != nil {
				rec.Release()
				err = ctx.Err()
			}
			if err != nil {
				yield(nil, err)
				return
			}
			parts, err := splitter.split(ctx, rec)
			if err != nil {
				yield(nil, err)
				return
			}
			for i, part := range parts {
				rows += part.NumRows()
				if !yield(part, nil) {
					for _, rest := range parts[i+1:] {
						rest.Release()
					}
					return
				}
			}
		}
	}
	var files []iceberg.DataFile
	var werr error
	watch := &writeWatch{prog: progress.Of(ctx)}
	if dw != nil {
		werr = dw.writeAll(ctx, input)
		files = dw.files
	} else {
		// Drain the whole iterator even after an error so the writer
		// goroutines finish before cleanup looks for their files.
		for df, err := range table.WriteRecords(ctx, watchedTable(tbl, watch), target, input, append(opts, table.WithWriteUUID(writeID))...) {
			if err != nil {
				werr = errors.Join(werr, err)
				continue
			}
			files = append(files, df)
		}
	}
	werr = checkWritten(werr, files, rows, exhausted, watch)
	if werr != nil {
		var created []string
		if dw != nil {
			created = dw.created
		}
		cleanupErr := removeWrite(context.WithoutCancel(ctx), tbl, writeID, files, created...)
		return nil, errors.Join(fmt.Errorf("%s: %w", what, werr), cleanupErr)
	}
	return files, nil
}

// removeWrite removes the files of one failed write: those it returned and
// any other file named with its write id (abandoned mid-write).
func removeWrite(ctx context.Context, tbl *table.Table, writeID uuid.UUID, files []iceberg.DataFile, created ...string) error {
	fs, err := FS(ctx, tbl)
	if err != nil {
		return err
	}
	paths := append(filePaths(files), created...)
	paths = append(paths, filesNamedWith(fs, tbl.Location(), writeID.String())...)
	return RemoveFiles(ctx, fs, paths)
}

func filePaths(files []iceberg.DataFile) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.FilePath())
	}
	return out
}

// Append commits files to ident as one append snapshot, carrying props in
// its summary. A concurrent commit makes it stage again on the new head:
// appends never conflict with anything. If it finally fails, the files are
// removed unless the commit may have landed.
func Append(ctx context.Context, w *Warehouse, ident table.Identifier, files []iceberg.DataFile, props map[string]string) (*table.Table, error) {
	err := checkDistinctFiles(files)
	var out *table.Table
	if err == nil {
		out, err = w.Commits().CommitLoop(RetryPolicy{}).Commit(ctx, ident, func(context.Context, *table.Table) (FileChange, []string, error) {
			return FileChange{AddData: files, Props: props}, nil, nil
		})
	}
	if err != nil {
		if !errors.Is(err, ErrCommitUnknown) {
			removeAppendFiles(ctx, w, ident, files)
		}
		return nil, fmt.Errorf("append to %s: %w", IdentKey(ident), err)
	}
	return out, nil
}

// removeAppendFiles deletes the files of an append that did not land.
func removeAppendFiles(ctx context.Context, w *Warehouse, ident table.Identifier, files []iceberg.DataFile) {
	ctx = context.WithoutCancel(ctx)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return
	}
	if fs, err := FS(ctx, tbl); err == nil {
		RemoveWrittenFiles(fs, filePaths(files))
	}
}

// checkDistinctFiles rejects a file listed twice, which iceberg-go would
// commit as two entries for one file (its rows read twice).
func checkDistinctFiles(files []iceberg.DataFile) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if seen[f.FilePath()] {
			return fmt.Errorf("data file %s listed twice", f.FilePath())
		}
		seen[f.FilePath()] = true
	}
	return nil
}
