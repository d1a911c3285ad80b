package lake

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// TestSingleValueMatchesIcebergGo: each type ANALYZE sketches serializes
// a value as iceberg-go's literals do (the spec's single-value
// serialization), from the Arrow arrays Scan returns.
func TestSingleValueMatchesIcebergGo(t *testing.T) {
	mem := memory.DefaultAllocator
	u := uuid.MustParse("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	cases := []struct {
		typ iceberg.Type
		arr func() arrow.Array
		lit iceberg.Literal
	}{
		{iceberg.PrimitiveTypes.Bool, func() arrow.Array {
			b := array.NewBooleanBuilder(mem)
			b.Append(true)
			return b.NewArray()
		}, iceberg.NewLiteral(true)},
		{iceberg.PrimitiveTypes.Int32, func() arrow.Array {
			b := array.NewInt32Builder(mem)
			b.Append(-7)
			return b.NewArray()
		}, iceberg.NewLiteral(int32(-7))},
		{iceberg.PrimitiveTypes.Int64, func() arrow.Array {
			b := array.NewInt64Builder(mem)
			b.Append(1 << 40)
			return b.NewArray()
		}, iceberg.NewLiteral(int64(1 << 40))},
		{iceberg.PrimitiveTypes.Float32, func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(-1.5)
			return b.NewArray()
		}, iceberg.NewLiteral(float32(-1.5))},
		{iceberg.PrimitiveTypes.Float64, func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.Append(3.25)
			return b.NewArray()
		}, iceberg.NewLiteral(3.25)},
		{iceberg.PrimitiveTypes.Date, func() arrow.Array {
			b := array.NewDate32Builder(mem)
			b.Append(19000)
			return b.NewArray()
		}, iceberg.NewLiteral(iceberg.Date(19000))},
		{iceberg.PrimitiveTypes.Time, func() arrow.Array {
			b := array.NewTime64Builder(mem, arrow.FixedWidthTypes.Time64us.(*arrow.Time64Type))
			b.Append(3_600_000_001)
			return b.NewArray()
		}, iceberg.NewLiteral(iceberg.Time(3_600_000_001))},
		{iceberg.PrimitiveTypes.TimestampTz, func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
			b.Append(1_700_000_000_000_001)
			return b.NewArray()
		}, iceberg.NewLiteral(iceberg.Timestamp(1_700_000_000_000_001))},
		{iceberg.PrimitiveTypes.String, func() arrow.Array {
			b := array.NewStringBuilder(mem)
			b.Append("héllo")
			return b.NewArray()
		}, iceberg.NewLiteral("héllo")},
		{iceberg.PrimitiveTypes.Binary, func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			b.Append([]byte{0, 1, 2})
			return b.NewArray()
		}, iceberg.NewLiteral([]byte{0, 1, 2})},
		{iceberg.PrimitiveTypes.UUID, func() arrow.Array {
			b := extensions.NewUUIDBuilder(mem)
			b.Append(u)
			return b.NewArray()
		}, iceberg.NewLiteral(u)},
	}
	for _, unscaled := range []int64{0, 1, -1, 127, 128, -128, -129, 32767, 1 << 40, -(1 << 40)} {
		cases = append(cases, struct {
			typ iceberg.Type
			arr func() arrow.Array
			lit iceberg.Literal
		}{iceberg.DecimalTypeOf(20, 2), func() arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 2})
			b.Append(decimal128.FromI64(unscaled))
			return b.NewArray()
		}, iceberg.NewLiteral(iceberg.Decimal{Val: decimal128.FromI64(unscaled), Scale: 2})})
	}
	for _, c := range cases {
		sv, ok := singleValueOf(c.typ)
		if !ok {
			t.Fatalf("%s: not sketched", c.typ)
		}
		arr := c.arr()
		got := sv(nil, arr, 0)
		arr.Release()
		want, err := c.lit.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s %v: %x, iceberg-go %x", c.typ, c.lit, got, want)
		}
	}
	for _, typ := range []iceberg.Type{iceberg.FixedTypeOf(4), iceberg.PrimitiveTypes.TimestampNs} {
		if _, ok := singleValueOf(typ); ok {
			t.Errorf("%s is sketched, though Scan does not return its values as stored", typ)
		}
	}
}
