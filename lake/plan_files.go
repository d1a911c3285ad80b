package lake

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/parallel"
)

// PlanRequest says what PlanFiles plans.
type PlanRequest struct {
	Snapshot      *table.Snapshot           // nil: the table's current snapshot
	Schema        *iceberg.Schema           // the schema Filter names columns of; nil: the table's
	Filter        iceberg.BooleanExpression // nil: every row
	CaseSensitive bool
	Manifests     *ManifestCache // decoded manifests kept across plans; nil: read each
	// SplitSize > 0 splits a Parquet file larger than it at its row-group
	// offsets into tasks of about that size, so a scan reads one file in
	// parallel (iceberg-go's read.split.target-size).
	SplitSize int64
}

// PlanFiles plans a scan as iceberg-go's Scan.PlanFiles does: the live data
// files of the snapshot that may hold a row of Filter, each with the delete
// files that apply to it, by the rules iceberg-go's reads apply them (so a
// plan here and a read there agree on which rows are live). It differs in
// three ways:
//   - manifests are decoded once per process (ManifestCache), where
//     iceberg-go decodes every manifest of the snapshot at every plan, Avro
//     schema included: under a stream of small statements that was a fifth
//     of a busy server's CPU;
//   - a task has no residual, and is a whole data file unless SplitSize
//     asks for splits;
//   - delete files are not pruned by Filter: an equality delete applies to
//     the rows outside the filter too, which a rewrite keeps.
//
// Pruning keeps every file iceberg-go's would, at the least.
func PlanFiles(ctx context.Context, tbl *table.Table, req PlanRequest) ([]table.FileScanTask, error) {
	snap := req.Snapshot
	if snap == nil {
		snap = tbl.CurrentSnapshot()
	}
	if snap == nil {
		return nil, nil
	}
	sc := req.Schema
	if sc == nil {
		sc = tbl.Schema()
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	manifests, err := req.Manifests.list(fs, *snap)
	if err != nil {
		return nil, fmt.Errorf("read manifest list: %w", err)
	}
	filter := req.Filter
	if filter != nil && refersToPromoted(tbl, filter) {
		filter = nil // see refersToPromoted: partition values and bounds of older files are of the narrower type
	}
	prune := newPlanPruner(tbl.Metadata(), sc, filter, req.CaseSensitive)
	var data, deletes []iceberg.ManifestFile
	for _, mf := range manifests {
		switch {
		case !mf.HasAddedFiles() && !mf.HasExistingFiles():
		case mf.ManifestContent() == iceberg.ManifestContentDeletes:
			deletes = append(deletes, mf)
		case prune.manifestMayMatch(mf):
			data = append(data, mf)
		}
	}
	read, err := req.Manifests.readAll(ctx, fs, slices.Concat(deletes, data))
	if err != nil {
		return nil, err
	}
	idx, err := newDeleteFileIndex(tbl.Metadata(), sc, read[:len(deletes)])
	if err != nil {
		return nil, err
	}
	var tasks []table.FileScanTask
	for k, entries := range read[len(deletes):] {
		var mm *manifestMetrics
		if prune.filter != nil {
			mm = req.Manifests.metricsMemo(data[k], entries)
		}
		for i, e := range entries {
			df := e.DataFile()
			if e.Status() == iceberg.EntryStatusDELETED || df.ContentType() != iceberg.EntryContentData || !prune.fileMayMatch(df, mm, i) {
				continue
			}
			tasks = appendSplits(tasks, idx.task(e), req.SplitSize)
		}
	}
	return tasks, nil
}

// appendSplits appends t, split at its file's row-group offsets into
// tasks of about size bytes when the file is a Parquet file larger than
// size whose offsets are usable (ascending, inside the file).
func appendSplits(tasks []table.FileScanTask, t table.FileScanTask, size int64) []table.FileScanTask {
	df := t.File
	offsets := df.SplitOffsets()
	if size <= 0 || df.FileFormat() != iceberg.ParquetFile || df.FileSizeBytes() <= size || len(offsets) < 2 || offsets[0] < 0 {
		return append(tasks, t)
	}
	for i := 1; i < len(offsets); i++ {
		if offsets[i] <= offsets[i-1] || offsets[i] >= df.FileSizeBytes() {
			return append(tasks, t)
		}
	}
	start := int64(0) // the first split holds the file's header too
	for i := 1; i <= len(offsets); i++ {
		end := df.FileSizeBytes()
		if i < len(offsets) {
			end = offsets[i]
		}
		if i < len(offsets) && end-start < size {
			continue // the next row group still fits
		}
		split := t
		split.Start, split.Length = start, end-start
		tasks = append(tasks, split)
		start = end
	}
	return tasks
}

// readAll decodes the entries of mfs (every status), in order, through the
// cache, several manifests at a time.
func (c *ManifestCache) readAll(ctx context.Context, fs iceio.IO, mfs []iceberg.ManifestFile) ([][]iceberg.ManifestEntry, error) {
	out := make([][]iceberg.ManifestEntry, len(mfs))
	err := parallel.ForEach(ctx, len(mfs), 8, func(_ context.Context, i int) error {
		es, err := c.entries(fs, mfs[i])
		if err != nil {
			return fmt.Errorf("read manifest %s: %w", mfs[i].FilePath(), err)
		}
		out[i] = es
		return nil
	})
	return out, err
}
