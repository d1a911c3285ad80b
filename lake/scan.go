package lake

import (
	"context"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"iter"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrNoSuchColumn is returned when ScanOptions.Columns names a missing column.
var ErrNoSuchColumn = errors.New("column does not exist")

// ScanOptions selects what Scan reads.
type ScanOptions struct {
	// Columns to return, in this order (repeats allowed). nil means every
	// column in table order; an empty non-nil slice returns batches with no
	// columns but the right row counts (count(*)).
	Columns []string
	// Filter lets the scan skip data files and Parquet row groups in which
	// it is certainly false; the rows of those it keeps are all returned
	// (unless Limit is set), so callers must check every row.
	Filter iceberg.BooleanExpression
	// SnapshotID reads that snapshot (FOR VERSION AS OF) with its schema.
	SnapshotID *int64
	// AsOfTimestampMs reads the snapshot current at that time (FOR TIMESTAMP AS OF).
	AsOfTimestampMs *int64
	// Limit > 0 stops after that many rows (counted after Filter, so pass it
	// only when Filter is exact or nil).
	Limit int64
	// BatchSize caps rows per batch; 0 uses the table's read.parquet.batch-size.
	BatchSize int
	// Stats, when set, receives what the scan planned to read; it is filled
	// before Scan returns.
	Stats *ScanStats
	// Tasks, when set, are read instead of planning (LiveFiles' tasks of
	// some data files); Filter and Limit must then be unset.
	Tasks []table.FileScanTask
	// Manifests keeps decoded manifests across scans (the warehouse's);
	// nil: the scan reads the snapshot's manifests.
	Manifests *ManifestCache
	// Dynamic, when set, is a filter whose value narrows as the scan runs
	// (nil: none yet): each row group without delete files is judged by
	// its value when read (scan_dynamic.go). Like Filter it only skips
	// data, so callers check every row. Limit and Tasks must be unset.
	Dynamic func() iceberg.BooleanExpression
}

// Scan streams the rows of tbl. Batches use the executor's Arrow types (see
// contractType) and hold the requested columns in the requested order. The
// iterator stops with ctx's error when ctx is cancelled; callers release
// every batch they receive.
func Scan(ctx context.Context, tbl *table.Table, opts ScanOptions) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], error) {
	what := "scan " + IdentKey(tbl.Identifier())
	tbl = scanTable(tbl, nil)
	snapID, err := resolveSnapshot(tbl, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if snapID != nil {
		// Time travel: expiry keeps the snapshot while the statement reads.
		pinSnapshot(ctx, tbl, tbl.Metadata().SnapshotByID(*snapID))
	}
	sc := schemaForSnapshot(tbl, snapID)
	if tbl.Metadata().Version() >= 3 && wantsLineage(opts.Columns) {
		// iceberg-go reads the row lineage fields by name: explicit
		// values, else first_row_id + position and the file's sequence.
		sc = iceberg.SchemaWithRowLineageColumns(sc, true, true)
	}
	read, err := readColumns(sc, opts.Columns)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	readSchema, err := sc.Select(true, read...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	full, err := contractSchemaFor(readSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	out, picks := outputSchema(full, opts.Columns)
	prog := progress.Of(ctx)
	var expect *fileSet
	if prog != nil {
		expect = &fileSet{}
		tbl = progressTable(tbl, expect)
	}
	read, perFile := anchorColumns(tbl.Metadata(), sc, read)
	scan, batches, err := startScan(ctx, tbl, opts, sc, snapID, scanRead{names: read, perFile: perFile}, expect)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range cancellable(ctx, batches, func() { scan.Close(); expect.end() }) {
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				if rec != nil {
					rec.Release()
				}
				yield(nil, fmt.Errorf("%s: %w", what, err))
				return
			}
			conv, err := projectBatch(rec, out, picks)
			rec.Release()
			if err != nil {
				yield(nil, fmt.Errorf("%s: %w", what, err))
				return
			}
			prog.AddRows(conv.NumRows())
			if !yield(conv, nil) {
				return
			}
		}
	}
	return out, seq, nil
}

// startScan prunes files and Parquet row groups with opts.Filter but reads
// what is left unfiltered: iceberg-go filters rows with Arrow compute, which
// drops rows where a predicate is NULL (x <> 5 for a NULL x, which Filter's
// two-valued semantics keep), panics on is_null over decimals and lacks
// starts_with. Callers re-check every row anyway. With a Limit the filter
// must apply before the limit, so that case keeps iceberg-go's row
// filtering (and its own row-group pruning). sc is the schema of the
// snapshot read.
//
// Tasks are decoded in parallel by iceberg-go: ReadTasks runs
// WithMaxConcurrency workers, GOMAXPROCS unless set, and returns batches in
// task order, each worker holding the batches of at most one task.
func startScan(ctx context.Context, tbl *table.Table, opts ScanOptions, sc *iceberg.Schema, snapID *int64, sr scanRead, expect *fileSet) (*table.Scan, iter.Seq2[arrow.RecordBatch, error], error) {
	read := sr.names
	anchor := func(tasks []table.FileScanTask) error {
		if !sr.perFile {
			return nil
		}
		var err error
		tbl, sc, read, err = anchorFiles(ctx, tbl, sc, read, tasks)
		return err
	}
	stats := opts.Stats
	if stats == nil {
		stats = &ScanStats{}
	}
	*stats = ScanStats{}
	prog := progress.Of(ctx)
	if opts.Dynamic != nil && (opts.Tasks != nil || opts.Limit > 0) {
		return nil, nil, errors.New("a scan with a dynamic filter takes no tasks or limit")
	}
	if opts.Tasks != nil {
		if opts.Filter != nil || opts.Limit > 0 {
			return nil, nil, errors.New("a scan of given tasks takes no filter or limit")
		}
		if err := anchor(opts.Tasks); err != nil {
			return nil, nil, err
		}
		scan := sizedScan(ctx, tbl, opts.Tasks).Scan(scanOptions(opts, snapID, read)...)
		_, batches, err := scan.ReadTasks(ctx, opts.Tasks)
		if err != nil {
			scan.Close()
			return nil, nil, err
		}
		return scan, batches, nil
	}
	if opts.Filter == nil && opts.Limit == 0 && opts.Dynamic == nil {
		tasks, err := planFiles(ctx, tbl, opts, sc, snapID, nil)
		if err != nil {
			return nil, nil, err
		}
		if prog != nil {
			expect.plan(prog, tasks)
		}
		if err := anchor(tasks); err != nil {
			return nil, nil, err
		}
		scan := sizedScan(ctx, tbl, tasks).Scan(scanOptions(opts, snapID, read)...)
		_, batches, err := scan.ReadTasks(ctx, tasks)
		if err != nil {
			scan.Close()
			return nil, nil, err
		}
		return scan, batches, nil
	}
	if opts.Limit > 0 {
		// iceberg-go plans a limit's scan (it stops reading manifests once
		// enough rows are planned) and filters before limiting. Anchors
		// per file need the files first.
		if sr.perFile {
			tasks, err := planFiles(ctx, tbl, opts, sc, snapID, opts.Filter)
			if err != nil {
				return nil, nil, err
			}
			if err := anchor(tasks); err != nil {
				return nil, nil, err
			}
		}
		scan := tbl.Scan(scanOptions(opts, snapID, read)...)
		_, batches, err := scan.ToArrowRecords(ctx)
		if err != nil {
			scan.Close()
			return nil, nil, err
		}
		return scan, batches, nil
	}
	tasks, err := planFiles(ctx, tbl, opts, sc, snapID, opts.Filter)
	if err != nil {
		return nil, nil, err
	}
	if err := anchor(tasks); err != nil {
		return nil, nil, err
	}
	readSchema, err := sc.Select(true, read...)
	if err != nil {
		return nil, nil, err
	}
	parts, err := planTasks(ctx, tbl, opts, sc, readSchema, tasks, stats)
	if err != nil {
		return nil, nil, err
	}
	tasks = make([]table.FileScanTask, len(parts))
	paged := false
	for i, p := range parts {
		if p.page != nil {
			tasks[i], paged = p.page.task, true
		} else {
			tasks[i] = p.task
		}
	}
	if prog != nil {
		expect.plan(prog, tasks)
	}
	unfiltered := opts
	unfiltered.Filter = nil
	scan := sizedScan(ctx, tbl, tasks).Scan(scanOptions(unfiltered, snapID, read)...)
	if paged {
		pr, err := newPageReader(ctx, tbl, readSchema, opts.BatchSize)
		if err != nil {
			scan.Close()
			return nil, nil, err
		}
		pr.dynamic = opts.Dynamic
		return scan, readParts(ctx, scan, parts, pr), nil
	}
	_, batches, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		scan.Close()
		return nil, nil, err
	}
	return scan, batches, nil
}

// planTasks narrows the tasks of the files opts.Filter may hold in to
// the row groups (and, where the table's pages are small, the page ranges)
// it may hold in. Tasks carry no residual: nil means the reading scan's own
// filter, which is none. readSchema is the schema of the fields read. With
// a dynamic filter every row group without deletes is read by our reader,
// which judges it then.
func planTasks(ctx context.Context, tbl *table.Table, opts ScanOptions, sc, readSchema *iceberg.Schema, tasks []table.FileScanTask, stats *ScanStats) ([]scanPart, error) {
	parts := make([]scanPart, len(tasks))
	for i := range tasks {
		tasks[i].Residual = nil
		parts[i].task = tasks[i]
	}
	stats.DataFiles = len(tasks)
	// The row-group filter is opts.Filter itself: PlanFilter's widening is
	// about manifest partition summaries, not Parquet statistics.
	filter := opts.Filter
	if filter == nil {
		filter = iceberg.AlwaysTrue{}
	}
	f, err := newRowGroupFilter(sc, filter)
	if err != nil || f.trivial() && opts.Dynamic == nil {
		// Planning bound the same filter; should this binding still fail,
		// row groups are merely not pruned.
		return parts, nil
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	pages := newPageRead(tbl.Metadata().Properties(), readSchema, opts.Dynamic != nil)
	if parts, err = pruneRowGroups(ctx, fs, f, pages, tasks, stats); err != nil {
		return nil, fmt.Errorf("prune row groups: %w", err)
	}
	return parts, nil
}

// planFiles plans a scan of snapshot snapID (nil: current) whose schema is
// sc for filter (nil: all rows), through opts.Manifests, split as the
// table's read.split.target-size says.
func planFiles(ctx context.Context, tbl *table.Table, opts ScanOptions, sc *iceberg.Schema, snapID *int64, filter iceberg.BooleanExpression) ([]table.FileScanTask, error) {
	req := PlanRequest{Schema: sc, Filter: filter, CaseSensitive: true, Manifests: opts.Manifests,
		SplitSize: tbl.Metadata().Properties().GetInt64(table.ReadSplitTargetSizeKey, table.ReadSplitTargetSizeDefault)}
	if snapID != nil {
		if req.Snapshot = tbl.Metadata().SnapshotByID(*snapID); req.Snapshot == nil {
			return nil, fmt.Errorf("no snapshot %d", *snapID)
		}
	}
	tasks, err := PlanFiles(ctx, tbl, req)
	if err != nil {
		return nil, fmt.Errorf("plan files: %w", err)
	}
	return tasks, nil
}

func scanOptions(opts ScanOptions, snapID *int64, read []string) []table.ScanOption {
	so := []table.ScanOption{table.WithSelectedFields(read...)}
	if opts.Filter != nil {
		so = append(so, table.WithRowFilter(opts.Filter))
	}
	if snapID != nil {
		so = append(so, table.WithSnapshotID(*snapID))
	}
	if opts.Limit > 0 {
		so = append(so, table.WithLimit(opts.Limit))
	}
	if opts.BatchSize > 0 {
		so = append(so, table.WithArrowBatchSize(opts.BatchSize))
	}
	return so
}

// resolveSnapshot picks the snapshot to read: nil means the current one.
func resolveSnapshot(tbl *table.Table, opts ScanOptions) (*int64, error) {
	switch {
	case opts.SnapshotID != nil && opts.AsOfTimestampMs != nil:
		return nil, errors.New("cannot combine FOR VERSION AS OF with FOR TIMESTAMP AS OF")
	case opts.SnapshotID != nil:
		if tbl.Metadata().SnapshotByID(*opts.SnapshotID) == nil {
			return nil, fmt.Errorf("%w: %d", ErrNoSuchSnapshot, *opts.SnapshotID)
		}
		return opts.SnapshotID, nil
	case opts.AsOfTimestampMs != nil:
		return SnapshotAsOf(tbl, *opts.AsOfTimestampMs)
	}
	return nil, nil
}

// SnapshotAsOf returns the id of the snapshot that was current at tsMs: the
// latest snapshot-log entry at or before it.
func SnapshotAsOf(tbl *table.Table, tsMs int64) (*int64, error) {
	var found *int64
	for e := range tbl.Metadata().SnapshotLogs() {
		if e.TimestampMs <= tsMs {
			id := e.SnapshotID
			found = &id
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoSnapshotAsOf,
			time.UnixMilli(tsMs).UTC().Format("2006-01-02 15:04:05.999Z07:00"))
	}
	return found, nil
}

// schemaForSnapshot is the schema a scan of snapID uses: the snapshot's own
// (time travel reads the table as it was), else the current one.
func schemaForSnapshot(tbl *table.Table, snapID *int64) *iceberg.Schema {
	if snapID == nil {
		return tbl.Schema()
	}
	snap := tbl.Metadata().SnapshotByID(*snapID)
	if snap == nil || snap.SchemaID == nil {
		return tbl.Schema()
	}
	for _, s := range tbl.Metadata().Schemas() {
		if s.ID == *snap.SchemaID {
			return s
		}
	}
	return tbl.Schema()
}

// readColumns is the distinct set of columns to read for the requested ones.
func readColumns(sc *iceberg.Schema, cols []string) ([]string, error) {
	if cols == nil {
		names := make([]string, 0, sc.NumFields())
		for _, f := range sc.Fields() {
			names = append(names, f.Name)
		}
		return names, nil
	}
	if len(cols) == 0 {
		if sc.NumFields() == 0 {
			return nil, errors.New("table has no columns")
		}
		return []string{}, nil // row counts: the anchor column gives them
	}
	var read []string
	for _, c := range cols {
		// Only top-level columns: FindFieldByName also finds "a.b" paths.
		if f, ok := sc.FindFieldByName(c); !ok || f.Name != c {
			return nil, fmt.Errorf("%w: %q", ErrNoSuchColumn, c)
		}
		if !slices.Contains(read, c) {
			read = append(read, c)
		}
	}
	return read, nil
}

// scanRead is what a scan reads: the columns, anchor included, or with
// perFile the columns the anchors of its data files are still to be added
// to (anchorFiles).
type scanRead struct {
	names   []string
	perFile bool
}

// wantsLineage reports a request for _row_id or
// _last_updated_sequence_number.
func wantsLineage(cols []string) bool {
	return slices.Contains(cols, iceberg.RowIDColumnName) || slices.Contains(cols, iceberg.LastUpdatedSequenceNumberColumnName)
}

// outputSchema orders full's fields as cols asks; picks[i] is the field of
// full that output column i takes.
func outputSchema(full *arrow.Schema, cols []string) (*arrow.Schema, []string) {
	if cols == nil {
		names := make([]string, full.NumFields())
		for i, f := range full.Fields() {
			names[i] = f.Name
		}
		return full, names
	}
	fields := make([]arrow.Field, 0, len(cols))
	for _, c := range cols {
		i := full.FieldIndices(c)[0]
		fields = append(fields, full.Field(i))
	}
	return arrow.NewSchema(fields, nil), slices.Clone(cols)
}

// projectBatch builds the output batch: the picked columns converted to
// their contract types.
func projectBatch(rec arrow.RecordBatch, out *arrow.Schema, picks []string) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(picks))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for i, name := range picks {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			release()
			return nil, fmt.Errorf("column %q missing from scan output", name)
		}
		c, err := toContract(memory.DefaultAllocator, rec.Column(idx[0]))
		if err != nil {
			release()
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		if want := out.Field(i).Type; !arrow.TypeEqual(c.DataType(), want) {
			c.Release()
			release()
			return nil, fmt.Errorf("column %q: scan produced %s, expected %s", name, c.DataType(), want)
		}
		cols = append(cols, c)
	}
	b := array.NewRecordBatch(out, cols, rec.NumRows())
	release()
	return b, nil
}
