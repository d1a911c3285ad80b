package deletes

import (
	"context"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"github.com/magmalake/magmalake/internal/rowruns"
	"iter"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// rewriteFile is copy-on-write for one partially deleted file: read it whole
// with positions, drop matched ∪ existing ∪ equality-deleted rows, and write
// the survivors under the original spec and partition tuple. Dropping by
// position (not re-reading with NOT filter) is what keeps earlier deletes
// deleted (iceberg-go #2042) and avoids three-valued NOT.
func rewriteFile(ctx context.Context, tbl *table.Table, sink *fileSink, plan *RowDelete) (iceberg.DataFile, int64, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, 0, err
	}
	layout := lake.ParquetLayout{Props: tbl.Properties()}
	rd := positionalReader{fs: fs, nameMapping: tbl.NameMapping(), formatVersion: tbl.Metadata().Version(),
		batchSize: rewriteBatchRows, mem: memory.DefaultAllocator, withFieldIDs: true,
		opened: func(md *metadata.FileMetaData) { layout.Dictionary = dictionaryColumns(md) }, reads: &fileReads{}}
	// The plan read the file already: the progress line counts this read too.
	rd.reads.plan(progress.Of(ctx), plan.File.FilePath(), plan.File.FileSizeBytes())
	defer rd.reads.end()
	count := plan.File.Count()
	keep := plan.dropped().KeepMaskBytes(count)
	// The reader runs as a coroutine of the writer (iter.Pull): each hands
	// the other the thread directly, where a goroutine and a channel woke a
	// parked thread per batch, which a busy machine delays.
	lineage, keepLineage := lineageOf(tbl, plan.Task)
	var readErr error
	survivors := func(yield func(arrow.RecordBatch) bool) {
		_, readErr = rd.read(ctx, plan.File.FilePath(), plan.File.FileSizeBytes(), readSchemaFor(tbl), func(b arrow.RecordBatch, base int64) error {
			kept, err := lineage.survivorsOf(ctx, b, base, keep, count, keepLineage)
			if err != nil || kept == nil {
				return err
			}
			if !yield(kept) {
				return errRewriteStopped
			}
			return nil
		})
	}
	next, stop := iter.Pull(survivors)
	defer stop()
	// The first batch also means the reader has seen the footer (layout).
	first, ok := next()
	if !ok {
		return nil, 0, fmt.Errorf("rewrite %s: no surviving rows: %w", plan.File.FilePath(), readErr)
	}
	path := sink.newPath("rewrite.parquet")
	md, size, err := sink.parquetFileWith(ctx, path, first.Schema(), layout, func() (arrow.RecordBatch, error) {
		if first != nil {
			b := first
			first = nil
			return b, nil
		}
		b, ok := next()
		if !ok {
			return nil, readErr
		}
		return b, nil
	})
	if first != nil { // never handed to the writer
		first.Release()
	}
	if err != nil {
		return nil, 0, fmt.Errorf("rewrite %s: %w", plan.File.FilePath(), err)
	}
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema: readSchemaFor(tbl), Spec: specOf(tbl, plan.File), Format: iceberg.ParquetFile,
		Metadata: md, FilePath: path, FileSize: size, Content: iceberg.EntryContentData,
		PartitionValues: plan.File.Partition(), Properties: tbl.Properties(),
		FormatVersion: tbl.Metadata().Version(),
	})
	if err != nil {
		return nil, 0, fmt.Errorf("describe rewritten %s: %w", path, err)
	}
	return df, size, nil
}

// errRewriteStopped ends a rewrite's read when its writer stopped early.
var errRewriteStopped = errors.New("rewrite stopped")

// rewriteBatchRows is larger than planning's batches: a rewrite decodes and
// re-encodes every column, and projection, filtering and writer calls cost
// per batch.
const rewriteBatchRows = 1 << 16

// keepUndeleted filters b (rows base.. of a file of count rows) down to the
// rows set in keep, a bitmap over the whole file; nil when none remain. A
// batch without dropped rows passes through uncopied.
func keepUndeleted(ctx context.Context, b arrow.RecordBatch, base int64, keep []byte, count int64) (arrow.RecordBatch, error) {
	n := b.NumRows()
	if base+n > count {
		return nil, fmt.Errorf("file holds more rows than its record count %d", count)
	}
	kept := bitutil.CountSetBits(keep, int(base), int(n))
	switch kept {
	case 0:
		return nil, nil
	case int(n):
		b.Retain()
		return b, nil
	}
	if out, ok := rowruns.Copy(b, rowruns.BitmapRuns(keep, int(base), int(n)), kept); ok {
		return out, nil
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, int(n),
		[]*memory.Buffer{nil, memory.NewBufferBytes(keep)}, nil, 0, int(base))
	defer data.Release()
	mask := array.NewBooleanData(data)
	defer mask.Release()
	out, err := compute.FilterRecordBatch(ctx, b, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("filter survivors: %w", err)
	}
	return out, nil
}

func specOf(tbl *table.Table, df iceberg.DataFile) iceberg.PartitionSpec {
	if s := tbl.Metadata().PartitionSpecByID(int(df.SpecID())); s != nil {
		return *s
	}
	return *iceberg.UnpartitionedSpec
}

// writeDeletionVectors writes one Puffin file holding, per partially deleted
// data file, a vector with its whole delete set (new ∪ existing): a reader
// that finds a vector uses it alone.
func writeDeletionVectors(ctx context.Context, tbl *table.Table, sink *fileSink, plans []*RowDelete) ([]iceberg.DataFile, error) {
	meta := tbl.Metadata()
	w := dv.NewDVWriter(sink.fs, func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	for _, p := range plans {
		path, spec, part := p.File.FilePath(), p.File.SpecID(), p.File.Partition()
		if p.Existing != nil && !p.Existing.IsEmpty() {
			w.Load(path, p.Existing, spec, part)
		}
		pos := make([]int64, len(p.Positions))
		for i, v := range p.Positions {
			pos[i] = int64(v)
		}
		if err := w.Add(path, pos, spec, part); err != nil {
			return nil, fmt.Errorf("deletion vector for %s: %w", path, err)
		}
	}
	files, err := w.Flush(ctx, sink.newPath("deletes.puffin"))
	if err != nil {
		return nil, fmt.Errorf("write deletion vectors: %w", err)
	}
	return files, nil
}

// writePositionDeletes writes one v2 position delete file per partition,
// rows sorted by file path then position, under the data files' spec and
// partition tuple.
func writePositionDeletes(ctx context.Context, tbl *table.Table, sink *fileSink, plans []*RowDelete) ([]iceberg.DataFile, error) {
	groups := map[string][]*RowDelete{}
	var keys []string
	for _, p := range plans {
		k := fmt.Sprintf("%d/%v", p.File.SpecID(), sortedPartition(p.File.Partition()))
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	var out []iceberg.DataFile
	for _, k := range keys {
		df, err := writePositionDeleteFile(ctx, tbl, sink, groups[k])
		if err != nil {
			return nil, err
		}
		out = append(out, df)
	}
	return out, nil
}

func sortedPartition(part map[int]any) string {
	ids := slices.Sorted(func(yield func(int) bool) {
		for id := range part {
			if !yield(id) {
				return
			}
		}
	})
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, "%d=%#v;", id, part[id])
	}
	return sb.String()
}

func writePositionDeleteFile(ctx context.Context, tbl *table.Table, sink *fileSink, plans []*RowDelete) (iceberg.DataFile, error) {
	slices.SortFunc(plans, func(a, b *RowDelete) int { return strings.Compare(a.File.FilePath(), b.File.FilePath()) })
	rec := positionDeleteBatch(plans)
	path := sink.newPath("deletes.parquet")
	md, size, err := sink.parquetFileWith(ctx, path, rec.Schema(), positionDeleteLayout(tbl), func() (arrow.RecordBatch, error) {
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
	args := table.DataFileArgs{
		Schema: iceberg.PositionalDeleteSchema, Spec: specOf(tbl, plans[0].File), Format: iceberg.ParquetFile,
		Metadata: md, FilePath: path, FileSize: size, Content: iceberg.EntryContentPosDeletes,
		PartitionValues: plans[0].File.Partition(), FormatVersion: tbl.Metadata().Version(),
	}
	if len(plans) == 1 {
		ref := plans[0].File.FilePath()
		args.ReferencedDataFile = &ref
	}
	df, err := table.DataFileFromMetadata(args)
	if err != nil {
		return nil, fmt.Errorf("describe position deletes %s: %w", path, err)
	}
	return df, nil
}

// positionDeleteBatch holds the (file_path, pos) rows of plans, in order.
// file_path is a dictionary array, one entry per data file: appending and
// then hashing the same long path for every row cost more than the rest of
// the file, and the Parquet writer takes the dictionary as it is.
func positionDeleteBatch(plans []*RowDelete) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	dict := array.NewStringBuilder(mem)
	defer dict.Release()
	idx := array.NewInt32Builder(mem)
	defer idx.Release()
	pos := array.NewInt64Builder(mem)
	defer pos.Release()
	for i, p := range plans {
		dict.Append(p.File.FilePath())
		idx.Reserve(len(p.Positions))
		pos.Reserve(len(p.Positions))
		for _, v := range p.Positions { // ascending already
			idx.UnsafeAppend(int32(i))
			pos.UnsafeAppend(int64(v))
		}
	}
	sc := table.PositionalDeleteArrowSchema
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: sc.Field(0).Type}
	fields := sc.Fields()
	fields[0].Type = dt
	dictArr, idxArr, posArr := dict.NewArray(), idx.NewArray(), pos.NewArray()
	defer dictArr.Release()
	defer idxArr.Release()
	defer posArr.Release()
	paths := array.NewDictionaryArray(dt, idxArr, dictArr)
	defer paths.Release()
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), []arrow.Array{paths, posArr}, int64(posArr.Len()))
}

// positionDeleteLayout dictionary-encodes file_path and delta-encodes pos:
// ascending positions never repeat, and their deltas pack into a few bits
// where plain pages held 8 bytes each for zstd to grind through.
func positionDeleteLayout(tbl *table.Table) lake.ParquetLayout {
	l := lake.ParquetLayout{Props: tbl.Properties(), Encoding: map[int]parquet.Encoding{}}
	if f, ok := iceberg.PositionalDeleteSchema.FindFieldByName("pos"); ok {
		l.Encoding[f.ID] = parquet.Encodings.DeltaBinaryPacked
	}
	return l
}
