package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/magmalake/magmalake/sql"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// compareCells orders two non-null values of the same Arrow type the way
// PostgreSQL's default btree operators do: NaN equals NaN and sorts above every
// other float, -0 equals 0, text and bytea compare bytewise (C collation).
func compareCells(a arrow.Array, i int, b arrow.Array, j int) int {
	switch x := a.(type) {
	case *array.Boolean:
		return cmpBool(x.Value(i), b.(*array.Boolean).Value(j))
	case *array.Int16:
		return cmp.Compare(x.Value(i), b.(*array.Int16).Value(j))
	case *array.Int32:
		return cmp.Compare(x.Value(i), b.(*array.Int32).Value(j))
	case *array.Int64:
		return cmp.Compare(x.Value(i), b.(*array.Int64).Value(j))
	case *array.Uint32:
		return cmp.Compare(x.Value(i), b.(*array.Uint32).Value(j))
	case *array.Float32:
		return cmpFloat(float64(x.Value(i)), float64(b.(*array.Float32).Value(j)))
	case *array.Float64:
		return cmpFloat(x.Value(i), b.(*array.Float64).Value(j))
	case *array.Decimal128:
		return cmpDecimal(x, i, b.(*array.Decimal128), j)
	case *sql.NumericArray:
		return x.Decimal(i).Cmp(b.(*sql.NumericArray).Decimal(j))
	case *array.String:
		return cmp.Compare(x.Value(i), b.(*array.String).Value(j))
	case *array.LargeString:
		return cmp.Compare(x.Value(i), b.(*array.LargeString).Value(j))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.Date32:
		return cmp.Compare(x.Value(i), b.(*array.Date32).Value(j))
	case *array.Time64:
		return cmp.Compare(x.Value(i), b.(*array.Time64).Value(j))
	case *array.Timestamp:
		return cmp.Compare(x.Value(i), b.(*array.Timestamp).Value(j))
	case *extensions.UUIDArray:
		u, v := x.Value(i), b.(*extensions.UUIDArray).Value(j)
		return bytes.Compare(u[:], v[:])
	case *array.FixedSizeBinary:
		return bytes.Compare(x.Value(i), b.(*array.FixedSizeBinary).Value(j))
	case *array.MonthDayNanoInterval:
		return sql.CompareDatums(sql.IntervalT, sql.DatumAt(x, sql.IntervalT, i), sql.DatumAt(b, sql.IntervalT, j))
	}
	panic(fmt.Sprintf("compareCells: unsupported arrow type %s", a.DataType()))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b) // -0 == 0 under cmp.Compare
}

func cmpDecimal(a *array.Decimal128, i int, b *array.Decimal128, j int) int {
	as := a.DataType().(*arrow.Decimal128Type).Scale
	bs := b.DataType().(*arrow.Decimal128Type).Scale
	x, y := a.Value(i), b.Value(j)
	switch {
	case as > bs:
		return x.BigInt().Cmp(rescaleBig(y, bs, as))
	case as < bs:
		return rescaleBig(x, as, bs).Cmp(y.BigInt())
	}
	return x.Cmp(y)
}

// appendKey appends a canonical encoding of value i of arr to buf: equal
// values under PostgreSQL's equality (NaN = NaN, -0 = 0, NULL = NULL for
// grouping) get equal encodings.
func appendKey(buf []byte, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	switch x := arr.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case *array.Int16:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Int32:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Uint32:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Float32:
		return appendFloatKey(buf, float64(x.Value(i)))
	case *array.Float64:
		return appendFloatKey(buf, x.Value(i))
	case *array.Decimal128:
		// Values of one column share a scale, so the raw integer is canonical.
		v := x.Value(i)
		buf = binary.LittleEndian.AppendUint64(buf, v.LowBits())
		return binary.LittleEndian.AppendUint64(buf, uint64(v.HighBits()))
	case *sql.NumericArray:
		return appendBytesKey(buf, []byte(sql.NumericKey(x.Text(i))))
	case *array.String:
		return appendBytesKey(buf, []byte(x.Value(i)))
	case *array.LargeString:
		return appendBytesKey(buf, []byte(x.Value(i)))
	case *array.Binary:
		return appendBytesKey(buf, x.Value(i))
	case *array.Date32:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Time64:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Timestamp:
		return binary.LittleEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *extensions.UUIDArray:
		v := x.Value(i)
		return append(buf, v[:]...)
	case *array.FixedSizeBinary:
		return appendBytesKey(buf, x.Value(i))
	case *array.MonthDayNanoInterval:
		// Equal intervals ('1 mon', '30 days') group together.
		days, us := sql.IntervalKey(sql.DatumAt(x, sql.IntervalT, i).(sql.Interval))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(days))
		return binary.LittleEndian.AppendUint64(buf, uint64(us))
	}
	panic(fmt.Sprintf("appendKey: unsupported arrow type %s", arr.DataType()))
}

func appendFloatKey(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		f = math.NaN()
	case f == 0:
		f = 0
	}
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
}

func appendBytesKey(buf, v []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
	return append(buf, v...)
}
