package lake

import (
	"context"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"io"
	"sync"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// writeWatch records the first error of any file created through it.
// iceberg-go's partitioned writer can drop a failed writer's error: when
// every partition's file fails (a full disk), WriteRecords yields no file
// and no error, so the rows would vanish silently. WriteDataFiles checks
// its output against its input and reports what the watch saw.
type writeWatch struct {
	mu   sync.Mutex
	err  error
	prog *progress.Progress // counts the bytes written, for the progress line
}

func (w *writeWatch) note(err error) error {
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	return err
}

func (w *writeWatch) first() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// watchedTable is tbl with its file IO watched by w.
func watchedTable(tbl *table.Table, w *writeWatch) *table.Table {
	fsF := func(ctx context.Context) (iceio.IO, error) {
		fs, err := tbl.FS(ctx)
		if err != nil {
			return nil, err
		}
		wfs, ok := fs.(iceio.WriteFileIO)
		if !ok {
			return fs, nil
		}
		return &watchedIO{WriteFileIO: wfs, w: w}, nil
	}
	return table.New(tbl.Identifier(), writingMetadata(tbl.Metadata()), tbl.MetadataLocation(), fsF, nil)
}

// writingMetadata is meta as writing data files needs it: without its
// snapshots where that copy is cheap. iceberg-go's WriteRecords builds
// a metadata builder from the table, deep-copying every snapshot, to read
// the schema, spec and properties; on a table of thousands of snapshots
// that copy was most of a one-row INSERT's write.
func writingMetadata(meta table.Metadata) table.Metadata {
	if m, _, ok := withoutSnapshots(meta); ok {
		return m
	}
	return meta
}

type watchedIO struct {
	iceio.WriteFileIO
	w *writeWatch
}

func (f *watchedIO) Create(name string) (iceio.FileWriter, error) {
	fw, err := f.WriteFileIO.Create(name)
	if err != nil {
		return nil, f.w.note(err)
	}
	return &watchedWriter{fw: fw, w: f.w}, nil
}

func (f *watchedIO) WriteFile(name string, p []byte) error {
	return f.w.note(f.WriteFileIO.WriteFile(name, p))
}

type watchedWriter struct {
	fw iceio.FileWriter
	w  *writeWatch
}

func (x *watchedWriter) Write(p []byte) (int, error) {
	n, err := x.fw.Write(p)
	x.w.prog.AddWritten(int64(n))
	return n, x.w.note(err)
}

// ReadFrom goes through Write so that its errors are seen too.
func (x *watchedWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{x}, r)
}

func (x *watchedWriter) Close() error { return x.w.note(x.fw.Close()) }

// checkWritten completes the error of a write: a failure that is not
// about a file gets the file error the watch saw (the cause, such as a full
// disk, behind iceberg-go's "writer is closed"), and a success whose files
// hold fewer rows than it was given, or that stopped reading its input,
// is a failure.
func checkWritten(werr error, files []iceberg.DataFile, rows int64, exhausted bool, w *writeWatch) error {
	cause := w.first()
	if werr != nil {
		if cause != nil && !errors.Is(werr, cause) {
			return errors.Join(cause, werr)
		}
		return werr
	}
	var got int64
	for _, f := range files {
		got += f.Count()
	}
	if got == rows && exhausted {
		return nil
	}
	if cause != nil {
		return cause
	}
	return fmt.Errorf("%w: data files hold %d rows, %d were written", errLostRows, got, rows)
}

var errLostRows = errors.New("the Parquet writer lost rows")
