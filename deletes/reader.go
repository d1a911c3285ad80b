package deletes

import (
	"context"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// positionalReader reads a Parquet data or delete file batch by batch,
// telling the callback each batch's first row position: iceberg-go exposes no
// _pos, so positions are counted here from the start of the file.
type positionalReader struct {
	fs            iceio.IO
	nameMapping   iceberg.NameMapping
	formatVersion int
	batchSize     int64
	mem           memory.Allocator
	withFieldIDs  bool // stamp PARQUET:field_id on output, for batches written back
	// opened, when set, sees the file's footer before the first batch (a
	// rewrite copies its layout).
	opened func(md *metadata.FileMetaData)
	// memo, when set, remembers projections that only relabel columns.
	memo *projectionMemo
	// cache, when set, keeps the batches of small files across statements.
	cache *FileCache
	// keys, when set, remembers the projection part of cache keys by
	// requested schema: a plan reads every file through the same few,
	// and writing one out (name mapping included) per file was a fifth
	// of what planning a cached file allocated.
	keys *sync.Map
	// reads, when set, are the reads the statement's progress line
	// planned; what is read of those files counts there.
	reads *fileReads
}

// fileReads are a reader's planned reads by path (see progress.Progress).
type fileReads struct {
	mu sync.Mutex
	m  map[string]*progress.FileRead
}

// plan counts a read of path (size bytes) in prog.
func (r *fileReads) plan(prog *progress.Progress, path string, size int64) *progress.FileRead {
	fr := prog.PlanRead(size)
	if fr == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*progress.FileRead{}
	}
	r.m[path] = fr
	return fr
}

// of is path's planned read; nil (counting nothing) if there is none.
func (r *fileReads) of(path string) *progress.FileRead {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[path]
}

// end ends every planned read.
func (r *fileReads) end() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, fr := range r.m {
		fr.Done()
	}
}

// batchFunc receives a batch in the requested schema and the position of its
// first row. The batch is released after the call returns.
type batchFunc func(batch arrow.RecordBatch, base int64) error

// countingFile counts the bytes a reader pulls from storage, for EXPLAIN
// ANALYZE and for tests asserting a file was never opened.
type countingFile struct {
	iceio.File
	n  int64
	fr *progress.FileRead // the statement's progress line's read of it, if planned
	// quiet: the file was read whole into memory at open and counted then.
	quiet bool
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	c.count(n)
	return n, err
}

func (c *countingFile) count(n int) {
	if !c.quiet {
		c.n += int64(n)
		c.fr.Add(int64(n))
	}
}

// Prefetch passes on to the file: what it prefetches is counted when read.
func (c *countingFile) Prefetch(ranges []lake.ByteRange) { lake.Prefetch(c.File, ranges) }

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.count(n)
	return n, err
}

// read streams path's rows (size bytes as its manifest says; 0: unknown) projected onto requested (renames, added columns
// and type promotion handled by iceberg-go) and returns the bytes read.
func (r positionalReader) read(ctx context.Context, path string, size int64, requested *iceberg.Schema, fn batchFunc) (int64, error) {
	if r.cache == nil || size <= 0 || size > lake.WholeReadMax {
		return r.readFile(ctx, path, size, requested, fn)
	}
	key := r.cacheKey(path, requested)
	if ok, err := r.cache.replay(key, progress.Of(ctx), fn); ok {
		return 0, err
	}
	cf := &cachedFile{key: key}
	n, err := r.readFile(ctx, path, size, requested, func(b arrow.RecordBatch, base int64) error {
		b.Retain()
		cf.batches = append(cf.batches, b)
		cf.bases = append(cf.bases, base)
		cf.bytes += batchBytes(b)
		return fn(b, base)
	})
	if err != nil {
		releaseAll(cf.batches)
		return n, err
	}
	r.cache.add(cf)
	return n, nil
}

// readFile is read from storage; its planned read, if any, ends with it.
func (r positionalReader) readFile(ctx context.Context, path string, size int64, requested *iceberg.Schema, fn batchFunc) (int64, error) {
	fr := r.reads.of(path)
	defer fr.Done()
	f, whole, err := lake.OpenWhole(r.fs, path, size)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	cf := &countingFile{File: f, fr: fr}
	if whole { // read from storage already; what the reader takes is memory
		cf.count(int(size))
		cf.quiet = true
	}
	defer cf.Close()
	if err := r.readOpen(ctx, cf, requested, fn); err != nil {
		return cf.n, fmt.Errorf("read %s: %w", path, err)
	}
	return cf.n, nil
}

func (r positionalReader) readOpen(ctx context.Context, f iceio.File, requested *iceberg.Schema, fn batchFunc) error {
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	defer pr.Close()
	if r.opened != nil {
		r.opened(pr.MetaData())
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: r.batchSize}, r.mem)
	if err != nil {
		return err
	}
	arrowSchema, err := fr.Schema()
	if err != nil {
		return err
	}
	fileSchema, err := table.ArrowSchemaToIceberg(arrowSchema, true, r.nameMapping)
	if err != nil {
		return fmt.Errorf("map file schema: %w", err)
	}
	leaves, pruned := selectColumns(pr, fileSchema, requested)
	lake.Prefetch(f, lake.ChunkRanges(pr.MetaData(), nil, leaves))
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	var base int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			return nil
		}
		if err != nil {
			return err
		}
		n := rec.NumRows()
		progress.Of(ctx).AddRows(n)
		rec.Retain() // the projection may hand rec back as is
		out, err := r.project(ctx, requested, pruned, rec)
		rec.Release()
		if err != nil {
			return err
		}
		err = fn(out, base)
		out.Release()
		if err != nil {
			return err
		}
		base += n
	}
}

// project maps a file batch onto the requested schema. An empty request still
// yields a batch of the right length, so callers can count rows.
func (r positionalReader) project(ctx context.Context, requested, fileSchema *iceberg.Schema, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(requested.Fields()) == 0 {
		return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, rec.NumRows()), nil
	}
	if out, ok := r.memo.project(requested, rec, r.mem); ok {
		return out, nil
	}
	// Columns the file lacks take their initial-defaults, which iceberg-go
	// reads in its typed form only.
	out, err := table.ToRequestedSchema(ctx, lake.ReadableSchema(requested), fileSchema, rec, table.SchemaOptions{FormatVersion: r.formatVersion, IncludeFieldIDs: r.withFieldIDs})
	if err != nil {
		return nil, fmt.Errorf("project batch: %w", err)
	}
	r.memo.learn(requested, rec, out)
	return out, nil
}

// selectColumns picks the leaf columns of the top-level fields requested, and
// the file schema restricted to them (in file order, as the batches come).
// At least one column is read so batches carry the row count.
func selectColumns(pr *file.Reader, fileSchema *iceberg.Schema, requested *iceberg.Schema) ([]int, *iceberg.Schema) {
	want := map[int]bool{}
	for _, f := range requested.Fields() {
		want[f.ID] = true
	}
	roots := map[int]bool{}
	var kept []iceberg.NestedField
	for i, f := range fileSchema.Fields() {
		if want[f.ID] {
			roots[i] = true
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 && len(fileSchema.Fields()) > 0 {
		roots[0] = true
		kept = append(kept, fileSchema.Fields()[0])
	}
	descr := pr.MetaData().Schema
	var leaves []int
	for j := 0; j < descr.NumColumns(); j++ {
		if roots[descr.Root().FieldIndexByField(descr.ColumnRoot(j))] {
			leaves = append(leaves, j)
		}
	}
	return leaves, iceberg.NewSchema(fileSchema.ID, kept...)
}

// requestedSchema builds a schema of the named current-schema columns in the
// given order, skipping duplicates.
func requestedSchema(sc *iceberg.Schema, names []string, caseSensitive bool) (*iceberg.Schema, error) {
	seen := map[int]bool{}
	var fields []iceberg.NestedField
	for _, n := range names {
		var f iceberg.NestedField
		var ok bool
		if caseSensitive {
			f, ok = sc.FindFieldByName(n)
		} else {
			f, ok = sc.FindFieldByNameCaseInsensitive(n)
		}
		if !ok {
			return nil, fmt.Errorf("column %q not in table schema", n)
		}
		if !seen[f.ID] {
			seen[f.ID] = true
			fields = append(fields, f)
		}
	}
	return iceberg.NewSchema(sc.ID, fields...), nil
}
