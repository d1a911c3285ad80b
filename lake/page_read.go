package lake

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// pageReader reads pageTasks: what iceberg-go's reader would return for
// their row groups, limited to their row ranges.
type pageReader struct {
	fs        iceio.IO
	requested *iceberg.Schema // the scan's read schema
	tblSchema *iceberg.Schema
	props     iceberg.Properties
	batch     int64 // rows per batch at most
	// dynamic, when not nil, narrows each part as it is read (ScanOptions.Dynamic).
	dynamic func() iceberg.BooleanExpression
}

// read yields the batches of pt, in row order; it returns false when yield
// asked to stop or an error was yielded.
func (r pageReader) read(ctx context.Context, pt pageTask, yield func(arrow.RecordBatch, error) bool) bool {
	err := r.readRanges(ctx, pt, yield)
	if errors.Is(err, errStopped) {
		return false
	}
	if err != nil {
		yield(nil, fmt.Errorf("read %s by pages: %w", pt.task.File.FilePath(), err))
		return false
	}
	return true
}

func (r pageReader) readRanges(ctx context.Context, pt pageTask, yield func(arrow.RecordBatch, error) bool) (err error) {
	src, err := OpenSized(r.fs, pt.task.File.FilePath(), pt.task.File.FileSizeBytes())
	if err != nil {
		return err
	}
	// The page index too: seeking to a range consults it (one GET with
	// the chunks on object storage, coalesced).
	held, err := holdChunks(src, append(ChunkRanges(pt.md, []int{pt.rg}, pt.leaves), PageIndexRanges(pt.md, pt.rg)...))
	if err != nil {
		return errors.Join(err, src.Close())
	}
	// Buffered streams: arrow-go makes a page reader at every seek to a
	// row, which without them copies the column's whole chunk.
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled, props.BufferSize = true, pageStreamBuffer
	rdr, err := file.NewParquetReader(held, file.WithMetadata(pt.md), file.WithReadProps(props))
	if err != nil {
		return errors.Join(err, src.Close())
	}
	defer func() { err = errors.Join(err, rdr.Close()) }()
	ranges, err := r.narrow(rdr, pt)
	if err != nil || len(ranges) == 0 {
		return err
	}
	fr, err := r.fileReader(rdr, ranges)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(ctx, pt.leaves, []int{pt.rg})
	if err != nil {
		return err
	}
	defer rr.Release()
	fileSchema, err := r.fileSchema(rr)
	if err != nil {
		return err
	}
	for _, rg := range ranges {
		if err := r.readRange(ctx, rr, fileSchema, rg, yield); err != nil {
			return err
		}
	}
	return nil
}

// pageStreamBuffer is the buffer of a page read's column streams.
const pageStreamBuffer = 64 << 10

// fileReader reads rdr in batches no longer than the longest of ranges
// (nor the scan's batch): a range's last batch decodes no rows past it.
func (r pageReader) fileReader(rdr *file.Reader, ranges []rowRange) (*pqarrow.FileReader, error) {
	longest := int64(1)
	for _, rg := range ranges {
		longest = max(longest, rg.end-rg.start)
	}
	return pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{Parallel: true, BatchSize: min(longest, r.batch)}, memory.DefaultAllocator)
}

func (r pageReader) fileSchema(rr pqarrow.RecordReader) (*iceberg.Schema, error) {
	return table.ArrowSchemaToIcebergWithOptions(rr.Schema(), table.ArrowToIcebergOptions{
		TableSchema: r.tblSchema, TableProperties: r.props,
	})
}

// readRange seeks rr to the range's first row and yields its rows.
func (r pageReader) readRange(ctx context.Context, rr pqarrow.RecordReader, fileSchema *iceberg.Schema, rg rowRange, yield func(arrow.RecordBatch, error) bool) error {
	if err := rr.SeekToRow(rg.start); err != nil {
		return fmt.Errorf("seek to row %d: %w", rg.start, err)
	}
	for left := rg.end - rg.start; left > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !rr.Next() {
			if err := rr.Err(); err != nil {
				return err
			}
			return fmt.Errorf("rows %d to %d: the row group ended early", rg.start, rg.end)
		}
		rec := rr.RecordBatch()
		n := min(rec.NumRows(), left)
		part := rec.NewSlice(0, n)
		out, err := table.ToRequestedSchema(ctx, r.requested, fileSchema, part, table.SchemaOptions{TableProperties: r.props})
		part.Release()
		if err != nil {
			return err
		}
		left -= n
		if !yield(out, nil) {
			return errStopped
		}
	}
	return nil
}

// readParts reads a planned scan's parts in order: runs of tasks through
// iceberg-go's reader (scan.ReadTasks, which decodes their files in
// parallel), page parts through pr. Page parts are read ahead on up to
// GOMAXPROCS goroutines, each holding at most a few batches, so a scan of
// many narrowed row groups decodes them in parallel too; the consumer takes
// every part's batches in plan order, so no read waits on a later one.
func readParts(ctx context.Context, scan *table.Scan, parts []scanPart, pr pageReader) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		ahead := startPageParts(ctx, parts, pr)
		defer ahead.stop(cancel)
		for i := 0; i < len(parts); {
			if parts[i].page != nil {
				if !ahead.drain(i, yield) {
					return
				}
				i++
				continue
			}
			j := i
			var run []table.FileScanTask
			for ; j < len(parts) && parts[j].page == nil; j++ {
				run = append(run, parts[j].task)
			}
			if !readRun(ctx, scan, run, yield) {
				return
			}
			i = j
		}
	}
}

// readRun yields the batches of tasks read by iceberg-go; false when the
// consumer stopped or an error was yielded.
func readRun(ctx context.Context, scan *table.Scan, tasks []table.FileScanTask, yield func(arrow.RecordBatch, error) bool) bool {
	_, batches, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		yield(nil, err)
		return false
	}
	for rec, err := range batches {
		if !yield(rec, err) || err != nil {
			return false
		}
	}
	return true
}

// pageResult is one batch (or the error) of a page part.
type pageResult struct {
	rec arrow.RecordBatch
	err error
}

// pagesAhead reads the page parts of a scan ahead of its consumer.
type pagesAhead struct {
	out map[int]chan pageResult // by part index
	wg  sync.WaitGroup
	// slots bound the parts started and not yet drained: a part of a
	// small row group ends as soon as its batches sit in its channel, and
	// without the bound every later part would be decoded ahead, held in
	// memory, and read before a top-N's bound could skip its pages.
	slots chan struct{}
}

func startPageParts(ctx context.Context, parts []scanPart, pr pageReader) *pagesAhead {
	a := &pagesAhead{out: map[int]chan pageResult{}, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	var order []int
	for i, p := range parts {
		if p.page != nil {
			a.out[i] = make(chan pageResult, 2)
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return a
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		// Parts start in plan order: the one the consumer waits on has
		// always started, since every earlier one was drained, freeing
		// its slot.
		for k, i := range order {
			if ctx.Err() != nil {
				for _, rest := range order[k:] {
					close(a.out[rest])
				}
				return
			}
			select {
			case a.slots <- struct{}{}:
			case <-ctx.Done():
				for _, rest := range order[k:] {
					close(a.out[rest])
				}
				return
			}
			a.wg.Add(1)
			go func(i int) {
				defer a.wg.Done()
				a.readPart(ctx, parts[i].page, pr, a.out[i])
			}(i)
		}
	}()
	return a
}

// readPart sends the batches of pt to out, then closes it.
func (a *pagesAhead) readPart(ctx context.Context, pt *pageTask, pr pageReader, out chan<- pageResult) {
	defer close(out)
	pr.read(ctx, *pt, func(rec arrow.RecordBatch, err error) bool {
		select {
		case out <- pageResult{rec, err}:
			return err == nil
		case <-ctx.Done():
			if rec != nil {
				rec.Release()
			}
			return false
		}
	})
}

// drain yields the batches of part i; false when the consumer stopped or
// an error was yielded.
func (a *pagesAhead) drain(i int, yield func(arrow.RecordBatch, error) bool) bool {
	for r := range a.out[i] {
		if !yield(r.rec, r.err) || r.err != nil {
			return false
		}
	}
	<-a.slots // the part ended: the next may start
	return true
}

// stop cancels the reads still going, waits for them, and releases what
// they sent that nobody took.
func (a *pagesAhead) stop(cancel context.CancelFunc) {
	cancel()
	for _, ch := range a.out {
		go func() {
			for r := range ch {
				if r.rec != nil {
					r.rec.Release()
				}
			}
		}()
	}
	a.wg.Wait()
}

// newPageReader reads page parts of a scan of tbl returning readSchema's
// fields, in batches of at most batch rows (0: the table's
// read.parquet.batch-size).
func newPageReader(ctx context.Context, tbl *table.Table, readSchema *iceberg.Schema, batch int) (pageReader, error) {
	fs, err := FS(ctx, tbl)
	if err != nil {
		return pageReader{}, err
	}
	props := tbl.Metadata().Properties()
	if batch <= 0 {
		batch = props.GetInt(table.ParquetBatchSizeKey, table.ParquetBatchSizeDefault)
	}
	return pageReader{fs: fs, requested: readSchema, tblSchema: tbl.Schema(), props: props, batch: int64(batch)}, nil
}

// heldFile serves reads of the byte ranges it holds from memory. arrow-go
// reads a column chunk whole each time it makes a page reader for it: once
// when the record reader starts, again on every seek to a row.
type heldFile struct {
	iceio.File
	held spans
}

// holdChunks reads ranges of f once (object storage: coalesced, in
// parallel) and returns f serving them from memory.
func holdChunks(f iceio.File, ranges []ByteRange) (*heldFile, error) {
	Prefetch(f, ranges)
	h := &heldFile{File: f}
	for _, r := range ranges {
		data := make([]byte, r.Len)
		if _, err := f.ReadAt(data, r.Off); err != nil {
			return nil, fmt.Errorf("read bytes %d to %d: %w", r.Off, r.Off+r.Len, err)
		}
		h.held.add(span{off: r.Off, data: data})
	}
	return h, nil
}

func (h *heldFile) ReadAt(p []byte, off int64) (int, error) {
	if h.held.read(p, off) {
		return len(p), nil
	}
	return h.File.ReadAt(p, off)
}
