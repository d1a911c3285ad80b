package lake

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/iceberg-go"
)

// singleValue appends to buf the Iceberg single-value serialization (the
// spec's appendix "Binary single-value serialization") of row i of arr, a
// column as Scan returns it.
type singleValue func(buf []byte, arr arrow.Array, i int) []byte

// singleValueOf is the serialization of a column of type t, and false for
// the types whose values Scan does not return exactly (fixed, which it
// returns as text; nanosecond timestamps, which it returns in
// microseconds) or that have no single-value form (nested types).
func singleValueOf(t iceberg.Type) (singleValue, bool) {
	switch t.(type) {
	case iceberg.BooleanType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			if arr.(*array.Boolean).Value(i) {
				return append(buf, 1)
			}
			return append(buf, 0)
		}, true
	case iceberg.Int32Type, iceberg.DateType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return binary.LittleEndian.AppendUint32(buf, uint32(int32At(arr, i)))
		}, true
	case iceberg.Int64Type, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return binary.LittleEndian.AppendUint64(buf, uint64(int64At(arr, i)))
		}, true
	case iceberg.Float32Type:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return binary.LittleEndian.AppendUint32(buf, math.Float32bits(arr.(*array.Float32).Value(i)))
		}, true
	case iceberg.Float64Type:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(arr.(*array.Float64).Value(i)))
		}, true
	case iceberg.StringType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return append(buf, arr.(*array.String).Value(i)...)
		}, true
	case iceberg.BinaryType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			return append(buf, arr.(*array.Binary).Value(i)...)
		}, true
	case iceberg.UUIDType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			u := arr.(*extensions.UUIDArray).Value(i)
			return append(buf, u[:]...)
		}, true
	case iceberg.DecimalType:
		return func(buf []byte, arr arrow.Array, i int) []byte {
			n := arr.(*array.Decimal128).Value(i)
			return appendMinimalTwosComplement(buf, n.HighBits(), n.LowBits())
		}, true
	}
	return nil, false
}

func int32At(arr arrow.Array, i int) int32 {
	switch a := arr.(type) {
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Int32:
		return a.Value(i)
	}
	n, _ := intAt(arr, i)
	return int32(n)
}

func int64At(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	n, _ := intAt(arr, i)
	return n
}

// appendMinimalTwosComplement appends a 128-bit integer as the fewest
// big-endian two's-complement bytes that hold it, which is how the spec
// serializes a decimal's unscaled value (Java's BigInteger.toByteArray).
func appendMinimalTwosComplement(buf []byte, hi int64, lo uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(hi))
	binary.BigEndian.PutUint64(b[8:], lo)
	s := b[:]
	for len(s) > 1 && (s[0] == 0 && s[1]&0x80 == 0 || s[0] == 0xff && s[1]&0x80 != 0) {
		s = s[1:]
	}
	return append(buf, s...)
}
