package lake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// batchWriter is what writes batches into one Parquet file.
type batchWriter interface {
	// Write takes b over: it is released once written.
	Write(b arrow.RecordBatch) error
	// Written is the bytes flushed to the file so far (whole row groups).
	Written() int64
	Close() error
	FileMetadata() (*metadata.FileMetaData, error)
}

// newBatchWriter writes sc's batches to w: column by column in parallel when
// every column is a flat leaf, else through pqarrow's writer.
func newBatchWriter(sc *arrow.Schema, w io.Writer, props *parquet.WriterProperties) (batchWriter, error) {
	if flatSchema(sc) {
		return newColumnsWriter(sc, w, props)
	}
	fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	return serialWriter{fw}, nil
}

// serialWriter is pqarrow's writer, for nested schemas.
type serialWriter struct{ *pqarrow.FileWriter }

func (s serialWriter) Write(b arrow.RecordBatch) error {
	defer b.Release()
	return s.WriteBuffered(b)
}

func (s serialWriter) Written() int64 { return s.TotalBytesWritten() }

// flatSchema reports whether each field of sc is one Parquet leaf column.
func flatSchema(sc *arrow.Schema) bool {
	for _, f := range sc.Fields() {
		switch f.Type.ID() {
		case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW,
			arrow.LARGE_LIST_VIEW, arrow.MAP, arrow.DENSE_UNION, arrow.SPARSE_UNION, arrow.DICTIONARY,
			arrow.RUN_END_ENCODED:
			return false
		case arrow.EXTENSION:
			if st := f.Type.(arrow.ExtensionType).StorageType(); !flatSchema(arrow.NewSchema([]arrow.Field{{Type: st}}, nil)) {
				return false
			}
		}
	}
	return true
}

// columnsWriter writes a flat schema's batches to one Parquet file, encoding
// and compressing each column on a goroutine of its own. Encoding and zstd
// are most of a rewrite's CPU, and pqarrow's writer runs the columns of a
// row group one after another on one core. Row groups are buffered in
// memory (as pqarrow's WriteBuffered does) so the columns can be written at
// once, and the file is the same as that writer's: one row group per
// max-row-group-length rows.
type columnsWriter struct {
	w       *file.Writer
	schema  *arrow.Schema
	maxRows int64

	rg     file.BufferedRowGroupWriter
	rgRows int64
	lanes  []*columnLane
	busy   sync.WaitGroup // columns of the open row group still being written

	mu  sync.Mutex
	err error // the first lane's error
}

// columnLane writes one column's arrays in the order they were sent.
type columnLane struct {
	ctx      context.Context // its own arrow write context: they are not shareable
	nullable bool
	jobs     chan laneJob
	levels   []int16
}

// laneJob is an array to write into cw, or (arr nil) the end of cw's row
// group.
type laneJob struct {
	cw  file.ColumnChunkWriter
	arr arrow.Array
}

func newColumnsWriter(sc *arrow.Schema, w io.Writer, props *parquet.WriterProperties) (*columnsWriter, error) {
	arrProps := pqarrow.DefaultWriterProps()
	psc, err := pqarrow.ToParquet(sc, props, arrProps)
	if err != nil {
		return nil, err
	}
	if psc.NumColumns() != sc.NumFields() {
		return nil, fmt.Errorf("schema has %d fields but %d parquet columns", sc.NumFields(), psc.NumColumns())
	}
	meta := make(metadata.KeyValueMetadata, 0)
	for i, k := range sc.Metadata().Keys() {
		_ = meta.Append(k, sc.Metadata().Values()[i])
	}
	pw, err := file.NewParquetWriterWithError(w, psc.Root(), file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return nil, err
	}
	cw := &columnsWriter{w: pw, schema: sc, maxRows: props.MaxRowGroupLength()}
	for _, f := range sc.Fields() {
		lane := &columnLane{ctx: pqarrow.NewArrowWriteContext(context.Background(), &arrProps),
			nullable: f.Nullable, jobs: make(chan laneJob, 4)}
		cw.lanes = append(cw.lanes, lane)
		go cw.run(lane)
	}
	return cw, nil
}

func (c *columnsWriter) run(l *columnLane) {
	for j := range l.jobs {
		if c.failed() == nil {
			if err := l.do(j); err != nil {
				c.fail(err)
			}
		}
		if j.arr != nil {
			j.arr.Release()
		}
		c.busy.Done()
	}
}

func (l *columnLane) do(j laneJob) error {
	if j.arr == nil {
		return flushPage(j.cw)
	}
	return l.write(j)
}

// flushPage encodes and compresses the values cw still buffers into a page
// (which closing the row group would do, one column after another). A
// column whose page statistics show nothing buffered, or that keeps none,
// is left for the close.
func flushPage(cw file.ColumnChunkWriter) error {
	st := cw.PageStatistics()
	if st == nil || st.NumValues()+st.NullCount() == 0 {
		return nil
	}
	f, ok := cw.(interface{ FlushCurrentPage() error })
	if !ok {
		return nil
	}
	return f.FlushCurrentPage()
}

// write encodes one array into its column chunk. A flat optional column's
// definition levels are its validity; a required one has none.
func (l *columnLane) write(j laneJob) error {
	var def []int16
	if j.cw.Descr().MaxDefinitionLevel() > 0 {
		n := j.arr.Len()
		if cap(l.levels) < n {
			l.levels = make([]int16, n)
		}
		def = l.levels[:n]
		for i := range def {
			def[i] = 1
			if j.arr.IsNull(i) {
				def[i] = 0
			}
		}
	}
	return pqarrow.WriteArrowToColumn(l.ctx, j.cw, j.arr, def, nil, l.nullable)
}

func (c *columnsWriter) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

func (c *columnsWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Write hands b's columns to the lanes, starting a row group when one fills.
func (c *columnsWriter) Write(b arrow.RecordBatch) error {
	b, err := c.conform(b)
	if err != nil {
		return err
	}
	defer b.Release()
	for off, n := int64(0), b.NumRows(); off < n; {
		if err := c.failed(); err != nil {
			return err
		}
		if c.rg == nil {
			if c.rg, err = c.w.AppendBufferedRowGroupChecked(); err != nil {
				return err
			}
			c.rgRows = 0
		}
		take := min(n-off, c.maxRows-c.rgRows)
		for i, lane := range c.lanes {
			cw, err := c.rg.Column(i)
			if err != nil {
				return err
			}
			arr := b.Column(i)
			if take == n {
				arr.Retain()
			} else {
				arr = array.NewSlice(arr, off, off+take)
			}
			c.busy.Add(1)
			lane.jobs <- laneJob{cw: cw, arr: arr}
		}
		off += take
		c.rgRows += take
		if c.rgRows == c.maxRows {
			if err := c.closeRowGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}

// conform casts a batch whose column types differ from the file's (files of
// one table read back with other physical types) to the file's; b is
// released in exchange for the result.
func (c *columnsWriter) conform(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if b.Schema().Equal(c.schema) {
		return b, nil
	}
	defer b.Release()
	if b.NumCols() != int64(c.schema.NumFields()) {
		return nil, fmt.Errorf("batch has %d columns, file %d", b.NumCols(), c.schema.NumFields())
	}
	cols := make([]arrow.Array, b.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range b.Columns() {
		want := c.schema.Field(i).Type
		if arrow.TypeEqual(a.DataType(), want) {
			a.Retain()
			cols[i] = a
			continue
		}
		cast, err := compute.CastArray(context.Background(), a, compute.SafeCastOptions(want))
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.schema.Field(i).Name, err)
		}
		cols[i] = cast
	}
	return array.NewRecordBatch(c.schema, cols, b.NumRows()), nil
}

// closeRowGroup has the lanes cut their last pages, waits for them and
// writes the row group to the file.
func (c *columnsWriter) closeRowGroup() error {
	if c.rg == nil {
		return nil
	}
	for i, lane := range c.lanes {
		cw, err := c.rg.Column(i)
		if err != nil {
			return err
		}
		c.busy.Add(1)
		lane.jobs <- laneJob{cw: cw}
	}
	c.busy.Wait()
	if err := c.failed(); err != nil {
		return err
	}
	err := c.rg.Close()
	c.rg = nil
	return err
}

// Written is the bytes of the row groups flushed so far.
func (c *columnsWriter) Written() int64 { return c.w.TotalBytesWritten() }

// Close finishes the last row group, stops the lanes and writes the footer;
// after an error it only stops the lanes and closes the file.
func (c *columnsWriter) Close() error {
	if c.lanes == nil {
		return nil
	}
	err := c.closeRowGroup()
	c.busy.Wait()
	for _, l := range c.lanes {
		close(l.jobs)
	}
	c.lanes = nil
	return errors.Join(err, c.w.Close())
}

func (c *columnsWriter) FileMetadata() (*metadata.FileMetaData, error) { return c.w.FileMetadata() }
