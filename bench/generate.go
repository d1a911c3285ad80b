package bench

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// Column names of the generated table. k is uniform in [0, 100) and
// independent of the file layout, so "k = 7" hits 1% of rows in every file;
// id increases with the row number, so an id range covers a run of files;
// grp is constant within a file (the partition key of the partitioned layout).
const (
	colID     = "id"
	colK      = "k"
	colGrp    = "grp"
	colAmount = "amount"
	colPrice  = "price"
	colName   = "name"
	colTS     = "ts"
	colFlag   = "flag"
)

// row is one generated row; a pointer field is NULL when nil.
type row struct {
	id     int64
	k      int32
	grp    int32
	amount *float64
	price  int64 // cents of numeric(12,2)
	name   *string
	ts     int64 // µs since the epoch
	flag   bool
}

// shape fixes how many rows go to which file; every row is a pure function
// of its number and the shape, so a test can recount matches without reading.
type shape struct {
	rows  int64
	files int
	parts int // distinct grp values
}

func newShape(rows int64, files int) shape {
	return shape{rows: rows, files: files, parts: min(10, files)}
}

// fileOf is the file (chunk) row i lands in.
func (s shape) fileOf(i int64) int { return int(i * int64(s.files) / s.rows) }

// chunk is the row range [lo, hi) of file f.
func (s shape) chunk(f int) (lo, hi int64) {
	lo = (int64(f)*s.rows + int64(s.files) - 1) / int64(s.files)
	hi = (int64(f+1)*s.rows + int64(s.files) - 1) / int64(s.files)
	return lo, hi
}

// splitmix64 is a fixed, seedless hash: the data does not depend on the run.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// rowAt generates row i.
func (s shape) rowAt(i int64) row {
	h := splitmix64(uint64(i))
	r := row{
		id:    i,
		k:     int32(h % 100),
		grp:   int32(s.fileOf(i) % s.parts),
		price: int64((h >> 8) % 10_000_000),
		ts:    1_700_000_000_000_000 + int64((h>>16)%(365*86400))*1_000_000,
		flag:  (h>>40)&1 == 1,
	}
	if (h>>44)%50 != 0 {
		a := float64((h>>20)%1_000_000) / 7
		r.amount = &a
	}
	if (h>>50)%20 != 0 {
		n := fmt.Sprintf("name-%05d", (h>>24)%100_000)
		r.name = &n
	}
	return r
}

// tableSchema is the Iceberg schema of the generated table.
func tableSchema() (*iceberg.Schema, error) {
	cols := []struct {
		name string
		t    sql.Type
	}{
		{colID, sql.Int64}, {colK, sql.Int32}, {colGrp, sql.Int32}, {colAmount, sql.Float64},
		{colPrice, sql.Numeric(12, 2)}, {colName, sql.Text}, {colTS, sql.Timestamp}, {colFlag, sql.Bool},
	}
	fields := make([]iceberg.NestedField, len(cols))
	for i, c := range cols {
		it, err := c.t.IcebergType()
		if err != nil {
			return nil, err
		}
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.name, Type: it, Required: c.name == colID}
	}
	return iceberg.NewSchema(0, fields...), nil
}

// arrowSchema is the executor-typed Arrow schema WriteDataFiles takes.
func arrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: colID, Type: sql.Int64.ArrowType()},
		{Name: colK, Type: sql.Int32.ArrowType(), Nullable: true},
		{Name: colGrp, Type: sql.Int32.ArrowType(), Nullable: true},
		{Name: colAmount, Type: sql.Float64.ArrowType(), Nullable: true},
		{Name: colPrice, Type: sql.Numeric(12, 2).ArrowType(), Nullable: true},
		{Name: colName, Type: sql.Text.ArrowType(), Nullable: true},
		{Name: colTS, Type: sql.Timestamp.ArrowType(), Nullable: true},
		{Name: colFlag, Type: sql.Bool.ArrowType(), Nullable: true},
	}, nil)
}

// genBatchRows bounds the memory generation needs.
const genBatchRows = 65536

// fileBatches yields the rows of file f in batches.
func (s shape) fileBatches(f int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		lo, hi := s.chunk(f)
		for start := lo; start < hi; start += genBatchRows {
			if !yield(s.batch(start, min(start+genBatchRows, hi)), nil) {
				return
			}
		}
	}
}

func (s shape) batch(lo, hi int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema())
	defer b.Release()
	b.Reserve(int(hi - lo))
	for i := lo; i < hi; i++ {
		r := s.rowAt(i)
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.Int32Builder).Append(r.k)
		b.Field(2).(*array.Int32Builder).Append(r.grp)
		if r.amount != nil {
			b.Field(3).(*array.Float64Builder).Append(*r.amount)
		} else {
			b.Field(3).AppendNull()
		}
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(r.price))
		if r.name != nil {
			b.Field(5).(*array.StringBuilder).Append(*r.name)
		} else {
			b.Field(5).AppendNull()
		}
		b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts))
		b.Field(7).(*array.BooleanBuilder).Append(r.flag)
	}
	return b.NewRecordBatch()
}

// source is a generated table whose data files every case's copy shares.
type source struct {
	layout Layout
	shape  shape
	files  []iceberg.DataFile
}

func (l Layout) spec() lake.TableSpec {
	if l == Partitioned {
		return lake.TableSpec{Fields: []lake.PartitionField{{Source: colGrp, Transform: iceberg.IdentityTransform{}}}}
	}
	return lake.TableSpec{}
}

// generate writes the table once, one data file per chunk (a chunk holds a
// single grp value, so the partitioned fan-out also gives one file).
func generate(ctx context.Context, wh *lake.Warehouse, l Layout, sh shape) (*source, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, "src_"+string(l))
	tbl, err := wh.Tables().CreateTable(ctx, ident, sc, l.spec(), nil)
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", l, err)
	}
	src := &source{layout: l, shape: sh}
	for f := range sh.files {
		dfs, err := lake.WriteDataFiles(ctx, tbl, sh.fileBatches(f))
		if err != nil {
			return nil, fmt.Errorf("generate %s file %d: %w", l, f, err)
		}
		src.files = append(src.files, dfs...)
	}
	if _, err := lake.Append(ctx, wh, ident, src.files, nil); err != nil {
		return nil, fmt.Errorf("generate %s: %w", l, err)
	}
	return src, nil
}

// clone creates a fresh table over the source's data files: each case starts
// from the same, delete-free table (iceberg-go #2042 makes its copy-on-write
// wrong on tables that already carry deletes). Deletes never modify or remove
// a data file physically, so sharing the files is safe.
func (s *source) clone(ctx context.Context, wh *lake.Warehouse, name string, m Mode) (*table.Table, table.Identifier, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	if _, err := wh.Tables().CreateTable(ctx, ident, sc, s.layout.spec(), m.props()); err != nil {
		return nil, nil, fmt.Errorf("clone %s: %w", name, err)
	}
	tbl, err := lake.Append(ctx, wh, ident, s.files, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("clone %s: %w", name, err)
	}
	return tbl, ident, nil
}
