package sql

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/google/uuid"

	"github.com/magmalake/magmalake/pgerr"
)

// A datum is one SQL value as the evaluator holds it; nil is NULL. Its Go
// type follows the SQL Kind it belongs to:
//
//	bool: bool                     int2/int4/int8/oid: int64
//	real/double: float64           numeric: Decimal
//	text/varchar/json/unknown: string   bytea: []byte
//	date: int64 days since 1970-01-01
//	time, timestamp, timestamptz: int64 microseconds (since midnight / the epoch, UTC)
//	uuid: [16]byte
//
// Real values are float64 holding a float32-representable number.

// DatumAt reads row i of arr, an array of t.ArrowType(), as a datum.
func DatumAt(arr arrow.Array, t Type, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return DecimalFromNum128(a.Value(i), int(a.DataType().(*arrow.Decimal128Type).Scale))
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *extensions.UUIDArray:
		return [16]byte(a.Value(i))
	case *NumericArray:
		return a.Decimal(i)
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
	}
	panic(fmt.Sprintf("sql: no datum for arrow type %s (%s)", arr.DataType(), t))
}

// AppendValue is InputStyle.AppendValue with the default style, for values
// that are not text a session reads (catalog rows, aggregate results).
func AppendValue(b array.Builder, t Type, v any) error { return InputStyle{}.AppendValue(b, t, v) }

// AppendValue appends v to b, a builder of t.ArrowType(). v is a datum of t
// or any stmt.Param form (string text, time.Time, [16]byte, ...), converted
// exactly as a parameter would be: INSERT ... VALUES and COPY use this.
func (in InputStyle) AppendValue(b array.Builder, t Type, v any) error {
	d, err := in.CoerceParam(v, t)
	if err != nil {
		return err
	}
	return appendDatum(b, t, d)
}

// AppendDatum appends d, a datum of t (as DatumAt returns it), to b, a
// builder of t.ArrowType().
func AppendDatum(b array.Builder, t Type, d any) error { return appendDatum(b, t, d) }

func appendDatum(b array.Builder, t Type, d any) error {
	if d == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(d.(bool))
	case *array.Int16Builder:
		bb.Append(int16(d.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(d.(int64)))
	case *array.Int64Builder:
		bb.Append(d.(int64))
	case *array.Uint32Builder:
		bb.Append(uint32(d.(int64)))
	case *array.Float32Builder:
		bb.Append(float32(d.(float64)))
	case *array.Float64Builder:
		bb.Append(d.(float64))
	case *array.Decimal128Builder:
		dt := bb.Type().(*arrow.Decimal128Type)
		n, ok := d.(Decimal).Num128(int(dt.Precision), int(dt.Scale))
		if !ok {
			return pgerr.Errorf(pgerr.NumericValueOutOfRange, "numeric field overflow")
		}
		bb.Append(n)
	case *array.StringBuilder:
		bb.Append(d.(string))
	case *array.BinaryBuilder:
		bb.Append(d.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.(int64)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(d.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.(int64)))
	case *extensions.UUIDBuilder:
		bb.Append(uuid.UUID(d.([16]byte)))
	case *NumericBuilder:
		return bb.Append(d.(Decimal))
	case *array.MonthDayNanoIntervalBuilder:
		v := d.(Interval)
		bb.Append(arrow.MonthDayNanoInterval{Months: v.Months, Days: v.Days, Nanoseconds: v.Micros * 1000})
	default:
		return fmt.Errorf("append %s value to %T: unsupported builder", t, b)
	}
	return nil
}

// CoerceParam converts a Go value (an stmt.Param form or a datum) to a datum
// of t, reading text in the style in.
func (in InputStyle) CoerceParam(v any, t Type) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		if t.Kind == KindUnknown || t.IsString() || t.Kind == KindJSON {
			return castTextDatum(x, t)
		}
		return in.CoerceText(x, t)
	case time.Time:
		return timeToDatum(x, t)
	case int:
		return in.castDatum(int64(x), Int64, t)
	case int32:
		return in.castDatum(int64(x), Int32, t)
	case int64:
		return in.castDatum(x, Int64, t)
	case float32:
		return in.castDatum(float64(x), Float32, t)
	case float64:
		return in.castDatum(x, Float64, t)
	case bool:
		return in.castDatum(x, Bool, t)
	case Decimal:
		return in.castDatum(x, Numeric(0, x.Scale), t)
	case []byte:
		if t.Kind == KindBytea || t.Kind == KindUnknown {
			return x, nil
		}
		return in.CoerceText(string(x), t)
	case [16]byte:
		if t.Kind == KindUUID || t.Kind == KindUnknown {
			return x, nil
		}
		return in.castDatum(x, UUID, t)
	case uuid.UUID:
		return in.CoerceParam([16]byte(x), t)
	}
	return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unsupported value %T for type %s", v, t)
}

func timeToDatum(tm time.Time, t Type) (any, error) {
	tm = tm.UTC()
	switch t.Kind {
	case KindDate:
		y, m, d := tm.Date()
		return daysFromCivil(y, int(m), d), nil
	case KindTimestamp, KindTimestampTZ, KindUnknown:
		return tm.UnixMicro(), nil
	case KindTime:
		return int64(tm.Hour()*3600+tm.Minute()*60+tm.Second())*1e6 + int64(tm.Nanosecond()/1000), nil
	case KindText, KindVarchar:
		return formatDatum(tm.UnixMicro(), TimestampTZ), nil
	}
	return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot use a time value as %s", t)
}

// daysFromCivil is days since 1970-01-01 in the proleptic Gregorian calendar.
func daysFromCivil(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func civilFromDays(days int64) time.Time {
	return time.Unix(days*86400, 0).UTC()
}

// isFloatInt reports whether f is integral and within int64.
func isFloatInt(f float64) bool {
	return f == math.Trunc(f) && f >= -9.223372036854775808e18 && f < 9.223372036854775808e18
}
