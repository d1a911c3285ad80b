package sql

import (
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// AppendText appends the PostgreSQL 15 text output of value i of arr, a column
// of SQL type t, as a server with DateStyle ISO, TimeZone UTC and
// extra_float_digits 1 prints it. The caller checks arr.IsNull(i) first: NULL
// has no text form. It allocates nothing for the common types so that the
// wire DataRow path stays allocation-free.
func AppendText(buf []byte, t Type, arr arrow.Array, i int) []byte {
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case *array.Int8:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(buf, a.Value(i), 10)
	case *array.Uint32:
		return strconv.AppendUint(buf, uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(buf, a.Value(i), 10)
	case *array.Float32:
		return AppendFloat(buf, float64(a.Value(i)), 32)
	case *array.Float64:
		return AppendFloat(buf, a.Value(i), 64)
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		n := a.Value(i)
		return AppendDecimal(buf, n.HighBits(), n.LowBits(), int(scale))
	case *array.String:
		if t.Bpchar {
			return AppendBpchar(buf, a.Value(i), t.Length)
		}
		return append(buf, a.Value(i)...)
	case *array.LargeString:
		return append(buf, a.Value(i)...)
	case *array.Binary:
		return fmtBytea(buf, a.Value(i))
	case *array.LargeBinary:
		return fmtBytea(buf, a.Value(i))
	case *array.Date32:
		return AppendDate(buf, int64(a.Value(i)))
	case *array.Time64:
		return AppendTime(buf, fmtTimeMicros(int64(a.Value(i)), a.DataType().(*arrow.Time64Type).Unit))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		us := fmtTimeMicros(int64(a.Value(i)), tt.Unit)
		return AppendTimestamp(buf, us, t.Kind == KindTimestampTZ || (t.Kind != KindTimestamp && tt.TimeZone != ""))
	case *extensions.UUIDArray:
		return AppendUUID(buf, a.Storage().(*array.FixedSizeBinary).Value(i))
	case *NumericArray:
		return append(buf, a.Text(i)...)
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return append(buf, FormatInterval(Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000})...)
	case *array.FixedSizeBinary:
		if t.Kind == KindUUID && a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth == 16 {
			return AppendUUID(buf, a.Value(i))
		}
		return fmtBytea(buf, a.Value(i))
	}
	// Nested and rarely used types: Arrow's own rendering is the best we have.
	return append(buf, arr.ValueStr(i)...)
}

// AppendBpchar appends a char(n) value blank-padded to n characters, as
// PostgreSQL stores and prints it (n == 0: as it is).
func AppendBpchar(buf []byte, s string, n int) []byte {
	buf = append(buf, s...)
	for pad := n - utf8.RuneCountInString(s); pad > 0; pad-- {
		buf = append(buf, ' ')
	}
	return buf
}

func fmtBytea(buf, b []byte) []byte {
	buf = append(buf, '\\', 'x')
	n := len(buf)
	buf = append(buf, make([]byte, hex.EncodedLen(len(b)))...)
	hex.Encode(buf[n:], b)
	return buf
}

// AppendUUID appends the canonical lower-case 8-4-4-4-12 form of a 16-byte uuid.
func AppendUUID(buf, u []byte) []byte {
	const digits = "0123456789abcdef"
	for j, c := range u {
		if j == 4 || j == 6 || j == 8 || j == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, digits[c>>4], digits[c&0xf])
	}
	return buf
}
