package wire

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/magmalake/magmalake/sql"
)

// PostgreSQL's binary dates and timestamps count from 2000-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86_400_000_000
)

// appendBinary appends value i of arr in PostgreSQL's binary send format for
// column type t. Types without a distinct binary form (text, json) send their
// text.
func appendBinary(buf []byte, t sql.Type, arr arrow.Array, i int) []byte {
	be := binary.BigEndian
	if t.Kind == sql.KindArray {
		if s, ok := arr.(*array.String); ok {
			return appendArrayBinary(buf, t, s.Value(i))
		}
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case *array.Int16:
		return appendInt(buf, t, int64(a.Value(i)))
	case *array.Int32:
		return appendInt(buf, t, int64(a.Value(i)))
	case *array.Int64:
		return appendInt(buf, t, a.Value(i))
	case *array.Uint32:
		return be.AppendUint32(buf, a.Value(i))
	case *array.Float32:
		if t.Kind == sql.KindFloat64 {
			return be.AppendUint64(buf, math.Float64bits(float64(a.Value(i))))
		}
		return be.AppendUint32(buf, math.Float32bits(a.Value(i)))
	case *array.Float64:
		if t.Kind == sql.KindFloat32 {
			return be.AppendUint32(buf, math.Float32bits(float32(a.Value(i))))
		}
		return be.AppendUint64(buf, math.Float64bits(a.Value(i)))
	case *array.Decimal128:
		var tmp [48]byte
		text := sql.AppendText(tmp[:0], t, arr, i)
		return appendNumericBinary(buf, text)
	case *sql.NumericArray:
		return appendNumericBinary(buf, []byte(a.Text(i)))
	case *array.Binary:
		return append(buf, a.Value(i)...)
	case *array.Date32:
		d := int32(a.Value(i))
		if d != math.MaxInt32 && d != math.MinInt32 {
			d -= pgEpochDays
		}
		return be.AppendUint32(buf, uint32(d))
	case *array.Time64:
		us := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			us /= 1000
		}
		return be.AppendUint64(buf, uint64(us))
	case *array.Timestamp:
		us := int64(a.Value(i))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			us *= 1_000_000
		case arrow.Millisecond:
			us *= 1000
		case arrow.Nanosecond:
			us /= 1000
		}
		if us != math.MaxInt64 && us != math.MinInt64 {
			us -= pgEpochMicros
		}
		return be.AppendUint64(buf, uint64(us))
	case *extensions.UUIDArray:
		return append(buf, a.Storage().(*array.FixedSizeBinary).Value(i)...)
	case *array.MonthDayNanoInterval:
		// interval_send: microseconds, days, months.
		v := a.Value(i)
		buf = be.AppendUint64(buf, uint64(v.Nanoseconds/1000))
		buf = be.AppendUint32(buf, uint32(v.Days))
		return be.AppendUint32(buf, uint32(v.Months))
	case *array.FixedSizeBinary:
		return append(buf, a.Value(i)...)
	}
	return sql.AppendText(buf, t, arr, i)
}

// appendInt sends an integer in the width its column type advertises.
func appendInt(buf []byte, t sql.Type, v int64) []byte {
	be := binary.BigEndian
	switch t.Kind {
	case sql.KindInt16:
		return be.AppendUint16(buf, uint16(v))
	case sql.KindInt32:
		return be.AppendUint32(buf, uint32(v))
	case sql.KindOID:
		return be.AppendUint32(buf, uint32(v))
	}
	return be.AppendUint64(buf, uint64(v))
}

// appendNumericBinary converts a plain decimal ("-12.340") to numeric_send's
// format: ndigits, weight, sign, dscale, then base-10000 digits.
func appendNumericBinary(buf, text []byte) []byte {
	be := binary.BigEndian
	sign := uint16(0)
	if len(text) > 0 && text[0] == '-' {
		sign, text = 0x4000, text[1:]
	}
	intPart, frac := text, []byte(nil)
	for k, ch := range text {
		if ch == '.' {
			intPart, frac = text[:k], text[k+1:]
			break
		}
	}
	// Base-10000 groups aligned on the decimal point.
	// Unconstrained numeric has any number of digits: size from the text.
	groups := make([]uint16, (len(intPart)+len(frac))/4+2)
	n := 0
	lead := (4 - len(intPart)%4) % 4
	intGroups := (len(intPart) + lead) / 4
	acc, cnt := 0, lead
	for _, ch := range intPart {
		acc = acc*10 + int(ch-'0')
		if cnt++; cnt == 4 {
			groups[n], n, acc, cnt = uint16(acc), n+1, 0, 0
		}
	}
	for _, ch := range frac {
		acc = acc*10 + int(ch-'0')
		if cnt++; cnt == 4 {
			groups[n], n, acc, cnt = uint16(acc), n+1, 0, 0
		}
	}
	if cnt > 0 {
		for ; cnt < 4; cnt++ {
			acc *= 10
		}
		groups[n], n = uint16(acc), n+1
	}
	weight := intGroups - 1
	first := 0
	for first < n && groups[first] == 0 {
		first++
		weight--
	}
	last := n
	for last > first && groups[last-1] == 0 {
		last--
	}
	if first == last {
		weight, sign = 0, 0
	}
	buf = be.AppendUint16(buf, uint16(last-first))
	buf = be.AppendUint16(buf, uint16(int16(weight)))
	buf = be.AppendUint16(buf, sign)
	buf = be.AppendUint16(buf, uint16(len(frac)))
	for _, g := range groups[first:last] {
		buf = be.AppendUint16(buf, g)
	}
	return buf
}
