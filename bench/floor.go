package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Batch sizes of the floor's reads: the engine's, for planning and for
// rewriting.
const (
	floorBatchRows        = 1 << 16
	floorRewriteBatchRows = 1 << 16
)

// floor is the physical minimum of a delete, done by hand with arrow-go's
// Parquet reader and no engine: plan the files, read the predicate columns
// of every file the partition data does not settle, and test rows with a
// hard-coded Go function. Copy-on-write also reads each partially matching
// file whole and writes its survivors (zstd, as the engine writes).
type floor struct {
	tbl  *table.Table
	fs   iceio.IO
	pred predicate
	mode Mode
	tmp  string // where copy-on-write output goes (removed afterwards)

	matched atomic.Int64
}

// measureFloor runs the floor and returns its time and the rows it matched.
func measureFloor(ctx context.Context, tbl *table.Table, p predicate, m Mode, tmp string) (time.Duration, int64, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return 0, 0, err
	}
	fl := &floor{tbl: tbl, fs: fs, pred: p, mode: m, tmp: tmp}
	start := time.Now()
	err = fl.run(ctx)
	took := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("floor of %s: %w", p.name, err)
	}
	return took, fl.matched.Load(), nil
}

func (fl *floor) run(ctx context.Context) error {
	tasks, err := fl.tbl.Scan(table.WithRowFilter(fl.pred.filter)).PlanFiles(ctx)
	if err != nil {
		return err
	}
	var toRead []iceberg.DataFile
	for _, t := range tasks {
		if _, settled := t.Residual.(iceberg.AlwaysTrue); settled {
			fl.matched.Add(t.File.Count()) // a partition drop: metadata only
			continue
		}
		toRead = append(toRead, t.File)
	}
	return parallel(ctx, len(toRead), func(i int) error { return fl.file(ctx, toRead[i], i) })
}

// file decides one data file, and for copy-on-write rewrites it.
func (fl *floor) file(ctx context.Context, df iceberg.DataFile, i int) error {
	var matched int64
	err := fl.read(ctx, df.FilePath(), fl.pred.columns, func(b arrow.RecordBatch) error {
		cols := b.Columns()
		for r := 0; r < int(b.NumRows()); r++ {
			if fl.pred.match(cols, r) {
				matched++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fl.matched.Add(matched)
	if fl.mode != CopyOnWrite || matched == 0 || matched == df.Count() {
		return nil
	}
	return fl.rewrite(ctx, df, filepath.Join(fl.tmp, fmt.Sprintf("floor-%d.parquet", i)))
}

// rewrite reads df whole and writes the rows the predicate does not match,
// laid out as the engine lays out a rewrite (zstd, iceberg-go's page and
// row-group sizes, dictionaries only on the columns the source file kept
// dictionary-encoded): a floor that re-encoded more than the engine would
// not be a floor.
func (fl *floor) rewrite(ctx context.Context, df iceberg.DataFile, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer os.Remove(out)
	bw := &floorSink{Writer: bufio.NewWriterSize(f, 1<<20), f: f}
	var fw *pqarrow.FileWriter
	err = fl.readWith(ctx, df.FilePath(), nil, func(md *metadata.FileMetaData, b arrow.RecordBatch) error {
		if fw == nil {
			var err error
			if fw, err = pqarrow.NewFileWriter(b.Schema(), bw, floorWriterProps(md), pqarrow.DefaultWriterProps()); err != nil {
				return err
			}
		}
		kept, err := fl.survivors(ctx, b)
		if err != nil {
			return err
		}
		defer kept.Release()
		return fw.WriteBuffered(kept)
	})
	if fw != nil {
		err = errors.Join(err, fw.Close())
	} else {
		err = errors.Join(err, f.Close())
	}
	return err
}

// floorSink buffers the floor's output as the engine buffers its own; the
// Parquet writer closes it.
type floorSink struct {
	*bufio.Writer
	f *os.File
}

func (s *floorSink) Close() error { return errors.Join(s.Flush(), s.f.Close()) }

// floorWriterProps turns dictionary encoding off for every column the source
// file wrote without one (by column path: the floor writes the file's own
// schema back).
func floorWriterProps(md *metadata.FileMetaData) *parquet.WriterProperties {
	props := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(1 << 20),
		parquet.WithDataPageSize(1 << 20),
		parquet.WithDataPageVersion(parquet.DataPageV2),
		parquet.WithBatchSize(20000),
		parquet.WithDictionaryPageSizeLimit(2 << 20),
	}
	for j := 0; j < md.Schema.NumColumns(); j++ {
		path := md.Schema.Column(j).Path()
		dict := md.NumRowGroups() > 0
		for rg := 0; rg < md.NumRowGroups() && dict; rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(j)
			dict = err == nil && cc.HasDictionaryPage() && !fellBackToPlain(cc)
		}
		props = append(props, parquet.WithDictionaryFor(path, dict), parquet.WithDictionaryCostFallbackFor(path, true))
	}
	return parquet.NewWriterProperties(props...)
}

func fellBackToPlain(cc *metadata.ColumnChunkMetaData) bool {
	for _, st := range cc.EncodingStats() {
		if st.PageType.String() != "DICTIONARY_PAGE" && st.Encoding != parquet.Encodings.RLEDict && st.Encoding != parquet.Encodings.PlainDict {
			return true
		}
	}
	return false
}

func (fl *floor) survivors(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(fl.pred.columns))
	for k, name := range fl.pred.columns {
		idx := b.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("column %s not in file", name)
		}
		cols[k] = b.Column(idx[0])
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(int(b.NumRows()))
	for r := 0; r < int(b.NumRows()); r++ {
		bld.UnsafeAppend(!fl.pred.match(cols, r))
	}
	mask := bld.NewArray()
	defer mask.Release()
	return compute.FilterRecordBatch(ctx, b, mask, compute.DefaultFilterOptions())
}

// read streams the named columns (all when nil) of a Parquet file.
func (fl *floor) read(ctx context.Context, path string, names []string, fn func(arrow.RecordBatch) error) error {
	return fl.readWith(ctx, path, names, func(_ *metadata.FileMetaData, b arrow.RecordBatch) error { return fn(b) })
}

// readWith is read, also handing fn the file's footer.
func (fl *floor) readWith(ctx context.Context, path string, names []string, fn func(*metadata.FileMetaData, arrow.RecordBatch) error) error {
	f, err := fl.fs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer pr.Close()
	batch := int64(floorBatchRows)
	if names == nil {
		batch = floorRewriteBatchRows
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: batch}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	var leaves []int
	for _, n := range names {
		j := pr.MetaData().Schema.ColumnIndexByName(n)
		if j < 0 {
			return fmt.Errorf("column %s not in %s", n, path)
		}
		leaves = append(leaves, j)
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for {
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(pr.MetaData(), rec); err != nil {
			return err
		}
	}
}

// parallel runs fn(0..n-1) on GOMAXPROCS goroutines; the first error wins.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		mu   sync.Mutex
		errs error
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					errs = errors.Join(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return errs
}
