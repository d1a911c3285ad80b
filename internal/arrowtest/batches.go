// Package arrowtest makes Arrow batches for tests: random rows of every
// flat column type a table holds, for the Parquet writer's and the delete
// engine's tests alike.
package arrowtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// EveryLeafSchema has a column of each flat type a table holds, optional
// and required.
func EveryLeafSchema() *arrow.Schema {
	types := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String,
		arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Microsecond}, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		&arrow.Decimal128Type{Precision: 9, Scale: 2}, &arrow.Decimal128Type{Precision: 30, Scale: 5},
		&arrow.FixedSizeBinaryType{ByteWidth: 5}, extensions.NewUUIDType(),
	}
	var fields []arrow.Field
	for i, dt := range types {
		for _, nullable := range []bool{true, false} {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d_%v", i, nullable), Type: dt, Nullable: nullable})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// RandomBatch fills every column of sc with n random values, a fifth of an
// optional column's null.
func RandomBatch(sc *arrow.Schema, n int, rng *rand.Rand) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, f := range sc.Fields() {
		for range n {
			if f.Nullable && rng.IntN(5) == 0 {
				b.Field(i).AppendNull()
				continue
			}
			appendRandom(b.Field(i), rng)
		}
	}
	return b.NewRecordBatch()
}

func appendRandom(fb array.Builder, rng *rand.Rand) {
	v := rng.Int64N(1000) // low cardinality: dictionaries get used
	switch fb := fb.(type) {
	case *array.BooleanBuilder:
		fb.Append(v%2 == 0)
	case *array.Int32Builder:
		fb.Append(int32(v))
	case *array.Int64Builder:
		fb.Append(rng.Int64())
	case *array.Float32Builder:
		fb.Append(float32(v) / 7)
	case *array.Float64Builder:
		fb.Append(rng.Float64())
	case *array.StringBuilder:
		fb.Append(fmt.Sprintf("s%d", v))
	case *array.BinaryBuilder:
		fb.Append([]byte(fmt.Sprint(rng.Int64())))
	case *array.Date32Builder:
		fb.Append(arrow.Date32(v))
	case *array.Time64Builder:
		fb.Append(arrow.Time64(v * 1e6))
	case *array.TimestampBuilder:
		fb.Append(arrow.Timestamp(rng.Int64N(1 << 50)))
	case *array.Decimal128Builder:
		fb.Append(decimal128.FromI64(rng.Int64N(1e8)))
	case *extensions.UUIDBuilder:
		fb.Append(uuid.New())
	case *array.FixedSizeBinaryBuilder:
		fb.Append([]byte(fmt.Sprintf("%05d", v)))
	case *array.ListBuilder:
		fb.Append(true)
		for range v % 4 {
			appendRandom(fb.ValueBuilder(), rng)
		}
	default:
		panic(fmt.Sprintf("no generator for %T", fb))
	}
}
