package deletes

import (
	"context"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"iter"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// writeSurvivors streams the live rows of each group's files into new data
// files of the table (its current spec and target size) and counts them.
// A group of the current spec is written by the rewrite's own writer (the
// columns encoded in parallel, the rows never converted out of the file's
// types); one of an older spec is partitioned again by iceberg-go's.
func writeSurvivors(ctx context.Context, head *table.Table, groups []optimizeGroup) ([]iceberg.DataFile, int64, *lake.RowMoves, error) {
	fs, err := head.FS(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	sink, err := newFileSink(ctx, head)
	if err != nil {
		return nil, 0, nil, err
	}
	moves := lake.NewRowMoves()
	rd := positionalReader{fs: fs, nameMapping: head.NameMapping(), formatVersion: head.Metadata().Version(),
		batchSize: rewriteBatchRows, mem: memory.DefaultAllocator, withFieldIDs: true, memo: &projectionMemo{}, reads: &fileReads{}}
	// The plan read the files already: the progress line counts these reads too.
	for _, g := range groups {
		for _, p := range g.plans {
			rd.reads.plan(progress.Of(ctx), p.File.FilePath(), p.File.FileSizeBytes())
		}
	}
	defer rd.reads.end()
	var added, foreign []iceberg.DataFile
	var written int64
	for _, g := range groups {
		var files []iceberg.DataFile
		var n int64
		if int(g.plans[0].File.SpecID()) == head.Metadata().DefaultPartitionSpec() {
			layout := &sourceLayout{}
			grd := rd
			grd.opened = layout.opened
			rows := survivorRows(ctx, grd, head, g.plans)
			files, n, err = writeGroupFiles(ctx, head, sink, g, layout, rows)
			// A group whose rows do not add up is not recorded: a
			// concurrent delete of its files makes the rewrite plan again.
			if err == nil {
				moves.Add(moveGroup(g, files))
			}
		} else {
			// Partitioned again by iceberg-go's writer: where a row went is
			// not known, so a concurrent delete of these files makes the
			// rewrite plan again.
			rows := survivorRows(ctx, rd, head, g.plans)
			files, n, err = writeRowsWith(ctx, head, executorTyped(rows), lineageWriter(head))
			foreign = append(foreign, files...)
		}
		if err != nil {
			sink.removeAll()
			removeDataFiles(head, foreign)
			return nil, 0, nil, err
		}
		added = append(added, files...)
		written += n
	}
	return added, written, moves, nil
}

// moveGroup describes where one group's live rows went: its files' rows
// in plan order, into files in order.
func moveGroup(g optimizeGroup, files []iceberg.DataFile) lake.MoveGroup {
	var mg lake.MoveGroup
	for i := range g.plans {
		p := &g.plans[i]
		mg.Inputs = append(mg.Inputs, lake.MovedInput{Path: p.File.FilePath(), Dropped: slices.Collect(p.dropped().Positions()), Count: p.File.Count()})
	}
	for _, f := range files {
		mg.Outputs = append(mg.Outputs, lake.MovedOutput{Path: f.FilePath(), Rows: f.Count()})
	}
	return mg
}

// writeGroupFiles writes one partition's rows as files of the table's
// target size: a file ends at the first batch after its flushed row groups
// reach it.
func writeGroupFiles(ctx context.Context, head *table.Table, sink *fileSink, g optimizeGroup, src *sourceLayout, rows RowSource) ([]iceberg.DataFile, int64, error) {
	next, stop := iter.Pull2(rows)
	defer stop()
	target := int64(head.Properties().GetInt(table.WriteTargetFileSizeBytesKey, table.WriteTargetFileSizeBytesDefault))
	layout := lake.ParquetLayout{Props: head.Properties(), Limit: target}
	var files []iceberg.DataFile
	var n int64
	for done := false; !done; {
		first, err, ok := next()
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			break
		}
		pull := func() (arrow.RecordBatch, error) {
			if b := first; b != nil {
				first = nil
				n += b.NumRows()
				return b, nil
			}
			b, err, ok := next()
			if err != nil || !ok {
				done = true
				return nil, err
			}
			n += b.NumRows()
			return b, nil
		}
		layout.Dictionary = src.dictionary()
		path := sink.newPath("optimize.parquet")
		md, size, err := sink.parquetFileWith(ctx, path, first.Schema(), layout, pull)
		if first != nil {
			first.Release()
		}
		if err != nil {
			return nil, 0, err
		}
		df, err := table.DataFileFromMetadata(table.DataFileArgs{
			Schema: readSchemaFor(head), Spec: head.Spec(), Format: iceberg.ParquetFile,
			Metadata: md, FilePath: path, FileSize: size, Content: iceberg.EntryContentData,
			PartitionValues: g.plans[0].File.Partition(), Properties: head.Properties(),
			FormatVersion: head.Metadata().Version(),
		})
		if err != nil {
			return nil, 0, fmt.Errorf("describe %s: %w", path, err)
		}
		files = append(files, df)
	}
	return files, n, nil
}

// executorTyped converts batches read from data files to the engine's
// types, which iceberg-go's writer takes.
func executorTyped(rows RowSource) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range rows {
			if err == nil {
				var eb arrow.RecordBatch
				eb, err = lake.ToExecutorTypes(b)
				b.Release()
				b = eb
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

// survivorRows yields the live rows of plans' files, as the reader gives
// them (the table's current schema, and the row lineage columns on v3), in
// file order, reading up to readWorkers files at once ahead of the writer.
func survivorRows(ctx context.Context, rd positionalReader, head *table.Table, plans []RowDelete) RowSource {
	srcs := make([]RowSource, len(plans))
	requested := readSchemaFor(head) // one schema: the projection memo knows it by pointer
	for i := range plans {
		srcs[i] = fileSurvivors(ctx, rd, head, requested, &plans[i])
	}
	return prefetchedAll(ctx, srcs, readWorkers(), prefetchDepth)
}

// readWorkers is how many files a rewrite reads at once: the writer's
// column lanes take the cores too, so more would only hold more batches.
func readWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 2)) }

// fileSurvivors yields the live rows of one planned file.
func fileSurvivors(ctx context.Context, rd positionalReader, head *table.Table, requested *iceberg.Schema, plan *RowDelete) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		count := plan.File.Count()
		keep := plan.dropped().KeepMaskBytes(count)
		lineage, keepLineage := lineageOf(head, plan.Task)
		stopped := false
		_, err := rd.read(ctx, plan.File.FilePath(), plan.File.FileSizeBytes(), requested, func(b arrow.RecordBatch, base int64) error {
			kept, err := lineage.survivorsOf(ctx, b, base, keep, count, keepLineage)
			if err != nil || kept == nil {
				return err
			}
			if !yield(kept, nil) {
				stopped = true
				return errRewriteStopped
			}
			return nil
		})
		if err != nil && !stopped {
			yield(nil, fmt.Errorf("read %s: %w", plan.File.FilePath(), err))
		}
	}
}

// sourceLayout remembers the encodings of the first file a group's reader
// opens (the reader runs ahead on a goroutine of its own). A rewrite keeps
// a column's choice of no dictionary, which spares hashing every value of
// a column whose dictionary the writer would drop anyway.
type sourceLayout struct {
	mu   sync.Mutex
	dict map[int]bool
}

func (s *sourceLayout) opened(md *metadata.FileMetaData) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dict == nil {
		s.dict = dictionaryColumns(md)
	}
}

func (s *sourceLayout) dictionary() map[int]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dict
}
