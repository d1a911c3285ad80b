package lake

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// The executor relies on one Arrow type per SQL type (see sql.Type.ArrowType):
// every batch this package returns uses only the types contractType yields.

// contractType maps an Arrow type iceberg-go may produce to the one the
// executor expects. Nested and fixed types become String holding JSON text.
func contractType(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.BooleanType, *arrow.Int32Type, *arrow.Int64Type, *arrow.Float32Type,
		*arrow.Float64Type, *arrow.Decimal128Type, *arrow.StringType, *arrow.BinaryType,
		*arrow.Date32Type:
		return dt
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return arrow.PrimitiveTypes.Int32
	case *arrow.Uint32Type, *arrow.Uint64Type:
		return arrow.PrimitiveTypes.Int64
	case *arrow.LargeStringType, *arrow.StringViewType:
		return arrow.BinaryTypes.String
	case *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return arrow.BinaryTypes.Binary
	case *arrow.Date64Type:
		return arrow.FixedWidthTypes.Date32
	case *arrow.Time32Type, *arrow.Time64Type:
		return arrow.FixedWidthTypes.Time64us
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return &arrow.TimestampType{Unit: arrow.Microsecond}
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case *extensions.UUIDType:
		return dt
	}
	return arrow.BinaryTypes.String
}

// contractSchemaFor is the output schema for Iceberg schema sc.
func contractSchemaFor(sc *iceberg.Schema) (*arrow.Schema, error) {
	as, err := table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("arrow schema: %w", err)
	}
	return contractSchema(as), nil
}

// contractSchema rewrites each top-level field of s to its contract type.
func contractSchema(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		fields[i] = arrow.Field{Name: f.Name, Type: contractType(f.Type), Nullable: f.Nullable, Metadata: f.Metadata}
	}
	return arrow.NewSchema(fields, nil)
}

// toContract converts arr to contractType(arr.DataType()). The result is a
// new reference the caller releases.
func toContract(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	want := contractType(arr.DataType())
	if arrow.TypeEqual(want, arr.DataType()) {
		arr.Retain()
		return arr, nil
	}
	switch want.ID() {
	case arrow.INT32, arrow.INT64:
		return convertInts(mem, arr, want)
	case arrow.BINARY:
		return convertBinary(mem, arr)
	case arrow.DATE32:
		return convertDate64(mem, arr.(*array.Date64)), nil
	case arrow.TIME64:
		return convertTime(mem, arr)
	case arrow.TIMESTAMP:
		return convertTimestamp(mem, arr, want.(*arrow.TimestampType))
	case arrow.STRING:
		if isStringLike(arr.DataType()) {
			return convertString(mem, arr)
		}
		return toJSONStrings(mem, arr)
	}
	return nil, fmt.Errorf("no conversion from %s to %s", arr.DataType(), want)
}

func isStringLike(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

type stringValuer interface {
	arrow.Array
	Value(int) string
}

type bytesValuer interface {
	arrow.Array
	Value(int) []byte
}

// appender is an Arrow builder of values of type T.
type appender[T any] interface {
	array.Builder
	Append(T)
}

// copyValues fills b with value(i) for each row of arr, keeping its nulls,
// and releases b.
func copyValues[T any](b appender[T], arr arrow.Array, value func(int) T) arrow.Array {
	defer b.Release()
	b.Reserve(arr.Len())
	for i := range arr.Len() {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(value(i))
	}
	return b.NewArray()
}

func convertString(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	src, ok := arr.(stringValuer)
	if !ok {
		return nil, fmt.Errorf("cannot read %s as string", arr.DataType())
	}
	return copyValues[string](array.NewStringBuilder(mem), arr, src.Value), nil
}

func convertBinary(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	src, ok := arr.(bytesValuer)
	if !ok {
		return nil, fmt.Errorf("cannot read %s as binary", arr.DataType())
	}
	return copyValues[[]byte](array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary), arr, src.Value), nil
}

// intAt reads the integer at i of any integer array.
func intAt(arr arrow.Array, i int) (int64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i)), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Uint8:
		return int64(a.Value(i)), true
	case *array.Uint16:
		return int64(a.Value(i)), true
	case *array.Uint32:
		return int64(a.Value(i)), true
	case *array.Uint64:
		return int64(a.Value(i)), true
	}
	return 0, false
}

func convertInts(mem memory.Allocator, arr arrow.Array, want arrow.DataType) (arrow.Array, error) {
	b := array.NewBuilder(mem, want)
	defer b.Release()
	for i := range arr.Len() {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, ok := intAt(arr, i)
		if !ok {
			return nil, fmt.Errorf("cannot read %s as integer", arr.DataType())
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			bb.Append(int32(v))
		case *array.Int64Builder:
			bb.Append(v)
		}
	}
	return b.NewArray(), nil
}

func convertDate64(mem memory.Allocator, arr *array.Date64) arrow.Array {
	return copyValues(array.NewDate32Builder(mem), arr, func(i int) arrow.Date32 {
		return arrow.Date32(int64(arr.Value(i)) / 86_400_000)
	})
}

func convertTime(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	var micros func(int) arrow.Time64
	switch a := arr.(type) {
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		micros = func(i int) arrow.Time64 { return arrow.Time64(rescale(int64(a.Value(i)), unit, arrow.Microsecond)) }
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		micros = func(i int) arrow.Time64 { return arrow.Time64(rescale(int64(a.Value(i)), unit, arrow.Microsecond)) }
	default:
		return nil, fmt.Errorf("cannot read %s as time", arr.DataType())
	}
	return copyValues(array.NewTime64Builder(mem, &arrow.Time64Type{Unit: arrow.Microsecond}), arr, micros), nil
}

func convertTimestamp(mem memory.Allocator, arr arrow.Array, want *arrow.TimestampType) (arrow.Array, error) {
	src, ok := arr.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("cannot read %s as timestamp", arr.DataType())
	}
	unit := src.DataType().(*arrow.TimestampType).Unit
	if unit == arrow.Microsecond {
		// Same values, only the zone label differs: relabel without copying.
		d := arr.Data()
		nd := array.NewData(want, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		defer nd.Release()
		return array.MakeFromData(nd), nil
	}
	return copyValues(array.NewTimestampBuilder(mem, want), arr, func(i int) arrow.Timestamp {
		return arrow.Timestamp(rescale(int64(src.Value(i)), unit, arrow.Microsecond))
	}), nil
}

// rescale converts v from unit from to unit to, flooring toward minus infinity.
func rescale(v int64, from, to arrow.TimeUnit) int64 {
	f, t := int64(from.Multiplier()), int64(to.Multiplier()) // nanoseconds per unit
	switch {
	case f == t:
		return v
	case f > t: // coarser source: scale up
		return v * (f / t)
	}
	d := t / f
	q := v / d
	if v%d != 0 && v < 0 {
		q--
	}
	return q
}
