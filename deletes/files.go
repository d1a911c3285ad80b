package deletes

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"io"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
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
	w    iceio.FileWriter
	n    int64
	prog *progress.Progress // the statement's progress line, if any
}

// Close lets the Parquet writer close the file when it closes.
func (c *countingWriter) Close() error { return c.w.Close() }

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.prog.AddWritten(int64(n))
	return n, err
}

// parquetFile writes batches to one Parquet file with the default layout
// (see parquetFileWith).
func (s *fileSink) parquetFile(ctx context.Context, path string, sc *arrow.Schema, next func() (arrow.RecordBatch, error)) (*metadata.FileMetaData, int64, error) {
	return s.parquetFileWith(ctx, path, sc, parquetLayout{}, next)
}

// parquetFileWith writes batches to one Parquet file laid out as l and
// returns its footer metadata and size. next yields batches until it returns
// nil; each is released after writing.
func (s *fileSink) parquetFileWith(ctx context.Context, path string, sc *arrow.Schema, l parquetLayout, next func() (arrow.RecordBatch, error)) (*metadata.FileMetaData, int64, error) {
	props, err := l.writerProperties(sc)
	if err != nil {
		return nil, 0, fmt.Errorf("parquet properties for %s: %w", path, err)
	}
	out, err := s.fs.Create(path)
	if err != nil {
		return nil, 0, fmt.Errorf("create %s: %w", path, err)
	}
	// Page writes are small; buffering them saves a syscall each.
	cw := &countingWriter{w: out, prog: progress.Of(ctx)}
	bw := &bufferedFile{Writer: bufio.NewWriterSize(cw, 1<<20), c: cw}
	fw, err := newBatchWriter(sc, bw, props)
	if err != nil {
		_ = out.Close()
		return nil, 0, fmt.Errorf("parquet writer for %s: %w", path, err)
	}
	if err := writeBatches(ctx, fw, l.limit, next); err != nil {
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

// bufferedFile flushes its buffer before closing the file under it.
type bufferedFile struct {
	*bufio.Writer
	c io.Closer
}

func (b *bufferedFile) Close() error {
	return errors.Join(b.Flush(), b.c.Close())
}

// writeBatches writes next's batches until it returns nil or, with a limit,
// until the file holds limit bytes.
func writeBatches(ctx context.Context, fw batchWriter, limit int64, next func() (arrow.RecordBatch, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if limit > 0 && fw.Written() >= limit {
			return nil
		}
		b, err := next()
		if err != nil || b == nil {
			return err
		}
		b = lake.ParquetSafeBatch(b)
		if err := fw.Write(b); err != nil {
			return err
		}
	}
}

// Parquet layout defaults, iceberg-go's (table/internal/parquet_files.go),
// so a rewritten file is laid out like the appended file it replaces; but
// the row-group limit is the one magmalake gives the tables it creates
// (lake.DefaultRowGroupRows): a table without the property (made by another
// engine) still gets row groups a selective scan can skip. The table's
// write.parquet.row-group-limit, page-size-bytes, page-row-limit and
// dict-size-bytes win over them.
const (
	layoutRowGroupRows  = lake.DefaultRowGroupRows
	layoutPageBytes     = 1 << 20
	layoutWriteBatch    = 20000
	layoutDictPageBytes = 2 << 20
)

// parquetLayout is how a delete lays out one Parquet file. The zero value is
// iceberg-go's layout with its default codec (zstd).
type parquetLayout struct {
	props iceberg.Properties // table properties: compression codec and level
	// dictionary says, by leaf field id, whether to dictionary-encode a
	// column: a rewrite keeps the source file's choice, which skips hashing
	// every value of a column whose dictionary would be dropped anyway.
	// Columns absent here get a dictionary that falls back to plain encoding
	// before the first page when it does not pay (as iceberg-go does).
	dictionary map[int]bool
	// encoding, by leaf field id, overrides the value encoding (no
	// dictionary then).
	encoding map[int]parquet.Encoding
	// limit ends the file once this many bytes are written (0: no limit).
	limit int64
}

func (l parquetLayout) writerProperties(sc *arrow.Schema) (*parquet.WriterProperties, error) {
	codec := layoutCodec(l.props.Get(propCompressionCodec, "zstd"))
	base := []parquet.WriterProperty{
		parquet.WithCompression(codec),
		parquet.WithCompressionLevel(l.props.GetInt(propCompressionLevel, compress.DefaultCompressionLevel)),
		parquet.WithMaxRowGroupLength(l.rowGroupRows()),
		parquet.WithDataPageSize(l.positive(lake.PropPageSizeBytes, layoutPageBytes)),
		parquet.WithDataPageVersion(parquet.DataPageV2),
		parquet.WithBatchSize(l.positive(lake.PropPageRowLimit, layoutWriteBatch)),
		parquet.WithDictionaryPageSizeLimit(l.positive(lake.PropDictSizeBytes, layoutDictPageBytes)),
	}
	psc, err := pqarrow.ToParquet(sc, parquet.NewWriterProperties(base...), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	for i := 0; i < psc.NumColumns(); i++ {
		col := psc.Column(i)
		enc, ok := l.encoding[int(col.SchemaNode().FieldID())]
		if !ok && iceberg.IsMetadataColumn(int(col.SchemaNode().FieldID())) {
			// Row ids are unique and mostly ascend by one, sequence numbers
			// repeat one value per source file: a dictionary would hash
			// every value (and for row ids be dropped), while their deltas
			// pack into a few bits or none, leaving zstd little to do.
			enc, ok = parquet.Encodings.DeltaBinaryPacked, true
		}
		if ok {
			base = append(base, parquet.WithDictionaryFor(col.Path(), false), parquet.WithEncodingFor(col.Path(), enc))
			continue
		}
		if dict, ok := l.dictionary[int(col.SchemaNode().FieldID())]; ok && !dict {
			base = append(base, parquet.WithDictionaryFor(col.Path(), false))
			continue
		}
		base = append(base, parquet.WithDictionaryCostFallbackFor(col.Path(), true))
	}
	return parquet.NewWriterProperties(base...), nil
}

// rowGroupRows is the table's row-group limit, or the default when it has
// none or one that is not a positive number (iceberg-go's own writer
// refuses such a value; a delete should not fail on it).
func (l parquetLayout) rowGroupRows() int64 {
	return l.positive(lake.PropRowGroupLimit, layoutRowGroupRows)
}

// positive is the table's value of an integer layout property, or def when
// it has none or one that is not a positive number.
func (l parquetLayout) positive(key string, def int64) int64 {
	if n := l.props.GetInt(key, int(def)); n > 0 {
		return int64(n)
	}
	return def
}

// Table properties the layout honours (Iceberg's names).
const (
	propCompressionCodec = "write.parquet.compression-codec"
	propCompressionLevel = "write.parquet.compression-level"
)

// layoutCodec maps a codec name; an unknown one (iceberg-go warns and writes
// uncompressed) gets the default rather than failing the statement.
func layoutCodec(name string) compress.Compression {
	switch strings.ToLower(name) {
	case "snappy":
		return compress.Codecs.Snappy
	case "gzip":
		return compress.Codecs.Gzip
	case "brotli":
		return compress.Codecs.Brotli
	case "lz4", "lz4raw":
		return compress.Codecs.Lz4Raw
	case "uncompressed", "none":
		return compress.Codecs.Uncompressed
	}
	return compress.Codecs.Zstd
}

// dictionaryColumns reports, by leaf field id, whether every row group of a
// file kept its column dictionary-encoded (no fallback to plain pages).
// Leaves without field ids are left out.
func dictionaryColumns(md *metadata.FileMetaData) map[int]bool {
	out := map[int]bool{}
	if md.NumRowGroups() == 0 {
		return out
	}
	for j := 0; j < md.Schema.NumColumns(); j++ {
		id := int(md.Schema.Column(j).SchemaNode().FieldID())
		if id < 0 {
			continue
		}
		dict := true
		for rg := 0; rg < md.NumRowGroups() && dict; rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(j)
			dict = err == nil && cc.HasDictionaryPage() && dataPagesDictEncoded(cc)
		}
		out[id] = dict
	}
	return out
}

// dataPagesDictEncoded is false when a data page of the chunk fell back to
// another encoding; without page encoding stats the dictionary page decides.
func dataPagesDictEncoded(cc *metadata.ColumnChunkMetaData) bool {
	for _, st := range cc.EncodingStats() {
		if st.PageType.String() == "DICTIONARY_PAGE" {
			continue
		}
		if st.Encoding != parquet.Encodings.RLEDict && st.Encoding != parquet.Encodings.PlainDict {
			return false
		}
	}
	return true
}
