package lake

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// TestLayoutStoresDecimalsAsIntegers: decimals of precision up to 9 are
// stored as INT32, up to 18 as INT64 and wider as FLBA (as Iceberg Java and
// Spark write them), through both of the writer's paths (the parallel
// columns writer and pqarrow's, for a nested schema), and read back exactly:
// negatives, zero, the largest values of each precision and NULLs.
func TestLayoutStoresDecimalsAsIntegers(t *testing.T) {
	precisions := []int32{1, 9, 10, 15, 18, 19, 38}
	want := []parquet.Type{parquet.Types.Int32, parquet.Types.Int32, parquet.Types.Int64, parquet.Types.Int64,
		parquet.Types.Int64, parquet.Types.FixedLenByteArray, parquet.Types.FixedLenByteArray}
	var fields []arrow.Field
	for _, p := range precisions {
		fields = append(fields, arrow.Field{Name: "d" + string(rune('a'+len(fields))), Type: &arrow.Decimal128Type{Precision: p, Scale: p / 3}, Nullable: true})
	}
	for _, nested := range []bool{false, true} {
		fs := fields
		if nested {
			fs = append(fs[:len(fs):len(fs)], arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true})
		}
		sc := arrow.NewSchema(fs, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i, p := range precisions {
			db := b.Field(i).(*array.Decimal128Builder)
			max := decimal128.GetMaxValue(p)
			db.Append(max)
			db.Append(max.Negate())
			db.Append(decimal128.FromI64(0))
			db.AppendNull()
			db.Append(decimal128.FromI64(-12345 % int64(max.LowBits()+1)))
		}
		if nested {
			lb := b.Field(len(precisions)).(*array.ListBuilder)
			for range 5 {
				lb.Append(true)
				lb.ValueBuilder().(*array.Int64Builder).Append(1)
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		props, err := ParquetLayout{}.WriterProperties(sc)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := newBatchWriter(sc, &buf, props)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := w.(serialWriter); ok != nested {
			t.Fatalf("nested %v: writer %T", nested, w)
		}
		rec.Retain()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		md := footer(t, buf.Bytes())
		for i, p := range precisions {
			if got := md.Schema.Column(i).PhysicalType(); got != want[i] {
				t.Errorf("nested %v: decimal(%d) stored as %s, want %s", nested, p, got, want[i])
			}
		}
		tbl := readAll(t, buf.Bytes())
		for i := range precisions {
			got := tbl.Column(i).Data().Chunk(0)
			if !array.Equal(got, rec.Column(i)) {
				t.Errorf("nested %v: column %s reads back %v, wrote %v", nested, sc.Field(i).Name, got, rec.Column(i))
			}
		}
		tbl.Release()
		rec.Release()
	}
}
