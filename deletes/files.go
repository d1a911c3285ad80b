package deletes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// fileSink names and creates the files one Prepare writes, remembering every
// path before it is created so a failure can remove partial files too.
type fileSink struct {
	fs     iceio.WriteFileIO
	loc    table.LocationProvider
	prefix string

	mu      sync.Mutex // rewrites reserve paths in parallel
	n       int
	written []string
}

func newFileSink(ctx context.Context, tbl *table.Table) (*fileSink, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table io: %w", err)
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("table io %T cannot write files", fs)
	}
	loc, err := tbl.LocationProvider()
	if err != nil {
		return nil, fmt.Errorf("location provider: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &fileSink{fs: wfs, loc: loc, prefix: hex.EncodeToString(b[:])}, nil
}

// newPath reserves a fresh data-location path with the given suffix.
func (s *fileSink) newPath(suffix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	p := s.loc.NewDataLocation(fmt.Sprintf("%s-%05d-%s", s.prefix, s.n, suffix))
	s.written = append(s.written, p)
	return p
}

// removeAll deletes every file reserved so far (a failed Prepare).
func (s *fileSink) removeAll() {
	for _, p := range s.written {
		_ = s.fs.Remove(p)
	}
	s.written = nil
}

// countingWriter tracks the size of what a Parquet writer produced.
type countingWriter struct {
	w iceio.FileWriter
	n int64
}

// Close lets the Parquet writer close the file when it closes.
func (c *countingWriter) Close() error { return c.w.Close() }

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// parquetFile writes batches to one Parquet file and returns its footer
// metadata and size. next yields batches until it returns nil; each is
// released after writing.
func (s *fileSink) parquetFile(ctx context.Context, path string, sc *arrow.Schema, next func() (arrow.RecordBatch, error)) (*metadata.FileMetaData, int64, error) {
	out, err := s.fs.Create(path)
	if err != nil {
		return nil, 0, fmt.Errorf("create %s: %w", path, err)
	}
	cw := &countingWriter{w: out}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(sc, cw, props, pqarrow.DefaultWriterProps())
	if err != nil {
		_ = out.Close()
		return nil, 0, fmt.Errorf("parquet writer for %s: %w", path, err)
	}
	if err := writeBatches(ctx, fw, next); err != nil {
		fw.Close()
		return nil, 0, fmt.Errorf("write %s: %w", path, err)
	}
	if err := fw.Close(); err != nil {
		return nil, 0, fmt.Errorf("close %s: %w", path, err)
	}
	md, err := fw.FileMetadata()
	if err != nil {
		return nil, 0, fmt.Errorf("footer of %s: %w", path, err)
	}
	return md, cw.n, nil
}

func writeBatches(ctx context.Context, fw *pqarrow.FileWriter, next func() (arrow.RecordBatch, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := next()
		if err != nil || b == nil {
			return err
		}
		err = fw.WriteBuffered(b)
		b.Release()
		if err != nil {
			return err
		}
	}
}
