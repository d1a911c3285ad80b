package iceberg

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// appendCommitIDProp tags each append's snapshot so that, after an error whose
// outcome is unknown, we can tell whether the commit landed before deleting
// its files.
const appendCommitIDProp = "magmalake.commit-id"

const (
	appendMaxAttempts = 30
	appendMinBackoff  = 5 * time.Millisecond
	appendMaxBackoff  = 500 * time.Millisecond
)

// WriteDataFiles writes batches (in the executor's Arrow types, columns
// matched to the table by name) as Parquet data files of tbl, fanned out by
// partition. Nothing is committed: pass the files to Append, or RemoveFiles
// them. On error, the files written so far are removed.
func WriteDataFiles(ctx context.Context, tbl *table.Table, batches iter.Seq2[arrow.RecordBatch, error]) ([]ice.DataFile, error) {
	what := "write data files for " + identString(tbl.Identifier())
	next, stop := iter.Pull2(batches)
	defer stop()
	first, err, ok := next()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return nil, nil
	}
	target, err := writeSchema(tbl.Schema(), first.Schema())
	if err != nil {
		first.Release()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	input := func(yield func(arrow.RecordBatch, error) bool) {
		rec, err, ok := first, error(nil), true
		for ; ok; rec, err, ok = next() {
			if err == nil {
				rec, err = toWriteBatch(rec, target)
			}
			if err == nil && ctx.Err() != nil {
				rec.Release()
				err = ctx.Err()
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
	writeID := uuid.New()
	var files []ice.DataFile
	var werr error
	// Drain the whole iterator even after an error so the writer goroutines
	// finish before cleanup looks for their files.
	for df, err := range table.WriteRecords(ctx, tbl, target, input, table.WithWriteUUID(writeID)) {
		if err != nil {
			werr = errors.Join(werr, err)
			continue
		}
		files = append(files, df)
	}
	if werr != nil {
		cleanupErr := removeWrite(context.WithoutCancel(ctx), tbl, writeID, files)
		return nil, errors.Join(fmt.Errorf("%s: %w", what, werr), cleanupErr)
	}
	return files, nil
}

// removeWrite removes the files of one failed write: those it returned and
// any other file named with its write id (abandoned mid-write).
func removeWrite(ctx context.Context, tbl *table.Table, writeID uuid.UUID, files []ice.DataFile) error {
	fs, err := FS(ctx, tbl)
	if err != nil {
		return err
	}
	paths := filePaths(files)
	paths = append(paths, filesNamedWith(fs, tbl.Location(), writeID.String())...)
	return RemoveFiles(ctx, fs, paths)
}

func filePaths(files []ice.DataFile) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.FilePath())
	}
	return out
}

// Append commits files to ident as one append snapshot, carrying props in
// its summary. A concurrent commit makes it reload the head and stage again:
// appends never conflict with anything. If it finally fails, the files are
// removed unless the commit is known (or may have been) to have landed.
func Append(ctx context.Context, w *Warehouse, ident table.Identifier, files []ice.DataFile, props map[string]string) (*table.Table, error) {
	commitID := uuid.NewString()
	snapProps := ice.Properties{}
	maps.Copy(snapProps, props)
	snapProps[appendCommitIDProp] = commitID
	out, err := commitAppend(ctx, w, ident, files, snapProps)
	if err == nil {
		return out, nil
	}
	landed, cleanupErr := cleanupFailedAppend(ctx, w, ident, commitID, files)
	if landed != nil {
		return landed, nil
	}
	return nil, errors.Join(fmt.Errorf("append to %s: %w", identString(ident), err), cleanupErr)
}

// commitAppend stages and commits from a fresh head until it wins the race.
func commitAppend(ctx context.Context, w *Warehouse, ident table.Identifier, files []ice.DataFile, props ice.Properties) (*table.Table, error) {
	if err := checkDistinctFiles(files); err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := range appendMaxAttempts {
		if attempt > 0 {
			if err := sleepBackoff(ctx, attempt); err != nil {
				return nil, err
			}
		}
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			return nil, err
		}
		out, err := appendOnce(ctx, tbl, files, props)
		if err == nil {
			return out, nil
		}
		if !isRetryableAppendErr(err) {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("gave up after %d conflicting commits: %w", appendMaxAttempts, lastErr)
}

// checkDistinctFiles rejects a file listed twice, which iceberg-go would
// commit as two entries for one file (its rows read twice).
func checkDistinctFiles(files []ice.DataFile) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if seen[f.FilePath()] {
			return fmt.Errorf("data file %s listed twice", f.FilePath())
		}
		seen[f.FilePath()] = true
	}
	return nil
}

// appendOnce stages files as one RowDelta (AddRows works on v3 tables: the
// manifest list assigns first_row_id, which AddDataFiles would demand on each
// file) and commits it.
func appendOnce(ctx context.Context, tbl *table.Table, files []ice.DataFile, props ice.Properties) (*table.Table, error) {
	tx := tbl.NewTransaction()
	if err := tx.NewRowDelta(props).AddRows(files...).Commit(ctx); err != nil {
		return nil, fmt.Errorf("stage append: %w", err)
	}
	return tx.Commit(ctx)
}

// isRetryableAppendErr reports a lost race with another writer. iceberg-go
// v0.7.0's SQL catalog reports it as a plain "requirement failed" error
// rather than table.ErrCommitFailed; since an append is rebuilt from a fresh
// head, a diverged base is just another lost race.
func isRetryableAppendErr(err error) bool {
	if errors.Is(err, table.ErrCommitFailed) || errors.Is(err, table.ErrCommitDiverged) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "requirement failed") || strings.Contains(msg, "database is locked")
}

func sleepBackoff(ctx context.Context, attempt int) error {
	d := min(appendMinBackoff<<min(attempt, 16), appendMaxBackoff)
	d = d/2 + rand.N(d/2+1) // jitter keeps racing writers from retrying in lockstep
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cleanupFailedAppend removes the files of an append that did not land. The
// table is reloaded first: if a snapshot carries commitID the commit succeeded
// despite the error (the table is returned); if the table cannot be read we
// cannot tell, so the files are kept (orphans are safe, deleting committed
// data is not).
func cleanupFailedAppend(ctx context.Context, w *Warehouse, ident table.Identifier, commitID string, files []ice.DataFile) (*table.Table, error) {
	ctx = context.WithoutCancel(ctx)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return nil, fmt.Errorf("files of the failed append kept (cannot verify it did not commit): %w", err)
	}
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil && s.Summary.Properties[appendCommitIDProp] == commitID {
			return tbl, nil
		}
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	return nil, RemoveFiles(ctx, fs, filePaths(files))
}
