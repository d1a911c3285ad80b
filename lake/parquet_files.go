package lake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetFiles reads plain local Parquet files, not an Iceberg table's: the
// read_parquet table function. Every file must have the first one's
// columns; values get the executor's Arrow types, as a scan's do.
type ParquetFiles struct {
	paths []string
	// footers are read when the files are opened (planning) and used by
	// the scan that follows, so each file's footer is read once.
	footers []*metadata.FileMetaData
	schema  *arrow.Schema // contract types
	batch   int
}

// OpenParquetFiles reads the footers of paths and checks that they agree.
func OpenParquetFiles(paths []string, batchSize int) (*ParquetFiles, error) {
	if len(paths) == 0 {
		return nil, errors.New("no Parquet file to read")
	}
	p := &ParquetFiles{paths: paths, batch: batchSize}
	for _, path := range paths {
		s, md, err := parquetSchema(path)
		if err != nil {
			return nil, err
		}
		p.footers = append(p.footers, md)
		if p.schema == nil {
			p.schema = s
			continue
		}
		if !s.Equal(p.schema) {
			return nil, fmt.Errorf("%s has the columns (%s) but %s has (%s); read them separately",
				path, describeFields(s), paths[0], describeFields(p.schema))
		}
	}
	return p, nil
}

// Schema is the files' columns in the executor's Arrow types.
func (p *ParquetFiles) Schema() *arrow.Schema { return p.schema }

// parquetSchema is a file's columns in contract types, and its footer.
func parquetSchema(path string) (*arrow.Schema, *metadata.FileMetaData, error) {
	pr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := fr.Schema()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		fields[i] = arrow.Field{Name: f.Name, Type: contractType(f.Type), Nullable: true}
	}
	return arrow.NewSchema(fields, nil), pr.MetaData(), nil
}

func describeFields(s *arrow.Schema) string {
	parts := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		parts[i] = f.Name + " " + f.Type.String()
	}
	return strings.Join(parts, ", ")
}

// Batches streams columns cols (indexes into Schema, in that order) of
// every file in turn. With no columns the batches carry only row counts.
func (p *ParquetFiles) Batches(ctx context.Context, cols []int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for i, path := range p.paths {
			if err := p.readFile(ctx, path, p.footers[i], cols, yield); err != nil {
				if !errors.Is(err, errStopped) {
					yield(nil, fmt.Errorf("read %s: %w", path, err))
				}
				return
			}
		}
	}
}

// errStopped reports that the consumer stopped early.
var errStopped = errors.New("stopped")

func (p *ParquetFiles) readFile(ctx context.Context, path string, footer *metadata.FileMetaData, cols []int, yield func(arrow.RecordBatch, error) bool) error {
	pr, err := file.OpenParquetFile(path, false, file.WithMetadata(footer))
	if err != nil {
		return err
	}
	defer pr.Close()
	if len(cols) == 0 {
		return p.countOnly(pr.NumRows(), yield)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: int64(p.batch)}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	fields := slices.Clone(cols)
	slices.Sort(fields)
	fields = slices.Compact(fields)
	var leaves []int
	for _, f := range fields {
		leaves = append(leaves, leafColumns(fr.Manifest.Fields[f])...)
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
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
		out, err := p.pick(rec, fields, cols)
		if err != nil {
			return err
		}
		if !yield(out, nil) {
			return errStopped
		}
	}
}

// pick reorders a record holding fields (ascending) into cols' order, in
// contract types.
func (p *ParquetFiles) pick(rec arrow.RecordBatch, fields, cols []int) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, 0, len(cols))
	release := func() {
		for _, a := range arrs {
			a.Release()
		}
	}
	out := make([]arrow.Field, 0, len(cols))
	for _, c := range cols {
		k, _ := slices.BinarySearch(fields, c)
		a, err := toContract(memory.DefaultAllocator, rec.Column(k))
		if err != nil {
			release()
			return nil, fmt.Errorf("column %s: %w", p.schema.Field(c).Name, err)
		}
		arrs = append(arrs, a)
		out = append(out, p.schema.Field(c))
	}
	b := array.NewRecordBatch(arrow.NewSchema(out, nil), arrs, rec.NumRows())
	release()
	return b, nil
}

// countOnly yields column-less batches adding up to rows.
func (p *ParquetFiles) countOnly(rows int64, yield func(arrow.RecordBatch, error) bool) error {
	empty := arrow.NewSchema(nil, nil)
	size := int64(max(p.batch, 1))
	for rows > 0 {
		n := min(rows, size)
		rows -= n
		if !yield(array.NewRecordBatch(empty, nil, n), nil) {
			return errStopped
		}
	}
	return nil
}

// leafColumns are the Parquet leaf columns under one top-level field.
func leafColumns(f pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return []int{f.ColIndex}
	}
	var out []int
	for _, c := range f.Children {
		out = append(out, leafColumns(c)...)
	}
	return out
}
