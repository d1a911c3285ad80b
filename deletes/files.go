package deletes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
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

// parquetFile writes batches to one Parquet file with the default layout
// (see parquetFileWith).
func (s *fileSink) parquetFile(ctx context.Context, path string, sc *arrow.Schema, next func() (arrow.RecordBatch, error)) (*metadata.FileMetaData, int64, error) {
	return s.parquetFileWith(ctx, path, sc, lake.ParquetLayout{}, next)
}

// parquetFileWith writes batches to one Parquet file laid out as l and
// returns its footer metadata and size (lake.WriteParquetFile).
func (s *fileSink) parquetFileWith(ctx context.Context, path string, sc *arrow.Schema, l lake.ParquetLayout, next func() (arrow.RecordBatch, error)) (*metadata.FileMetaData, int64, error) {
	return lake.WriteParquetFile(ctx, s.fs, path, sc, l, next)
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
