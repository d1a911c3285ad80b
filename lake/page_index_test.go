package lake

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestPageIndexDescribesPages checks the page index magmalake writes
// against the pages' values: each page's first row as its header gives it,
// and the bounds and null count pageStats reads from the index equal the
// page's own minimum, maximum (NaN aside) and nulls, over columns with
// nulls, pages of nulls only, NaN and decimals. (arrow-go leaves the
// statistics out of the headers of a file with a page index.)
func TestPageIndexDescribesPages(t *testing.T) {
	tbl, _ := pgTable(t, 3) // magmalake's writer
	ctx := context.Background()
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, task := range tasks {
		src, err := OpenSized(fs, task.File.FilePath(), task.File.FileSizeBytes())
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := file.NewParquetReader(src)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		md := rdr.MetaData()
		for rg := range md.NumRowGroups() {
			nrows := md.RowGroup(rg).NumRows()
			for col := range md.Schema.NumColumns() {
				if !pageStatsReadable(md.Schema.Column(col)) {
					continue
				}
				indexed, ok := readIndexedPageColumn(rdr, rg, col, nrows)
				if !ok {
					t.Fatalf("%s row group %d column %d: no usable page index", task.File.FilePath(), rg, col)
				}
				headers, ok, err := readPageHeaders(rdr, rg, col, nrows)
				if err != nil || !ok {
					t.Fatalf("row group %d column %d: headers: %v %v", rg, col, ok, err)
				}
				if !reflect.DeepEqual(indexed.first, headers.first) || !reflect.DeepEqual(indexed.rows, headers.rows) {
					t.Fatalf("row group %d column %d: pages start at %v (index) and %v (headers)", rg, col, indexed.first, headers.first)
				}
				chunk, err := fr.RowGroup(rg).Column(col).Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				values := array.NewSlice(chunk.Chunk(0), 0, int64(chunk.Chunk(0).Len()))
				chunk.Release()
				typ := iceTypeOfColumn(t, tbl, md.Schema.Column(col).Name())
				for i := range indexed.stats {
					got := pageStats(indexed.descr, indexed.stats[i], indexed.rows[i], typ, false)
					lo, hi, nulls := pageBounds(t, values, indexed.first[i], indexed.rows[i])
					if got.nulls != nulls || !sameLiteral(got.lo, lo) || !sameLiteral(got.hi, hi) {
						t.Fatalf("row group %d column %d page %d: index says [%v, %v] with %d nulls; the page holds [%v, %v] with %d",
							rg, col, i, got.lo, got.hi, got.nulls, lo, hi, nulls)
					}
					pages++
				}
				values.Release()
			}
		}
		if err := rdr.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if pages < 50 {
		t.Fatalf("compared %d pages; the table should have more", pages)
	}
}

// pageBounds are the least and greatest non-NaN values of rows [first,
// first+n) of a (nil when there are none) and their null count.
func pageBounds(t *testing.T, a arrow.Array, first, n int64) (lo, hi iceberg.Literal, nulls int64) {
	t.Helper()
	for r := first; r < first+n; r++ {
		if a.IsNull(int(r)) {
			nulls++
			continue
		}
		var v iceberg.Literal
		switch x := a.(type) {
		case *array.Int32:
			v = iceberg.Int32Literal(x.Value(int(r)))
		case *array.Int64:
			v = iceberg.Int64Literal(x.Value(int(r)))
		case *array.Float32:
			if math.IsNaN(float64(x.Value(int(r)))) {
				continue
			}
			v = iceberg.Float32Literal(x.Value(int(r)))
		case *array.Float64:
			if math.IsNaN(x.Value(int(r))) {
				continue
			}
			v = iceberg.Float64Literal(x.Value(int(r)))
		case *array.Date32:
			v = iceberg.DateLiteral(iceberg.Date(x.Value(int(r))))
		case *array.Timestamp:
			v = iceberg.TimestampLiteral(iceberg.Timestamp(x.Value(int(r))))
		case *array.Time64:
			v = iceberg.TimeLiteral(iceberg.Time(x.Value(int(r))))
		case *array.Boolean:
			v = iceberg.BoolLiteral(x.Value(int(r)))
		case *array.Decimal128:
			v = iceberg.DecimalLiteral{Val: x.Value(int(r)), Scale: int(x.DataType().(*arrow.Decimal128Type).Scale)}
		default:
			t.Fatalf("no bounds for %s", a.DataType())
		}
		if c, ok := compareLiterals(v, lo); lo == nil || ok && c < 0 {
			lo = v
		}
		if c, ok := compareLiterals(v, hi); hi == nil || ok && c > 0 {
			hi = v
		}
	}
	return lo, hi, nulls
}

func sameLiteral(a, b iceberg.Literal) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	c, ok := compareLiterals(a, b)
	return ok && c == 0
}

func iceTypeOfColumn(t *testing.T, tbl *table.Table, name string) iceberg.Type {
	t.Helper()
	f, ok := tbl.Schema().FindFieldByName(name)
	if !ok {
		t.Fatalf("no field %s", name)
	}
	return f.Type
}
