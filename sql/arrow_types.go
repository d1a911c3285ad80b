package sql

import "github.com/apache/arrow-go/v18/arrow"

// TypeFromArrow is the SQL type of a column of the executor's Arrow type
// (what a metadata table or a file read by read_parquet holds).
func TypeFromArrow(dt arrow.DataType) Type {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return Bool
	case *arrow.Int16Type:
		return Int16
	case *arrow.Int32Type:
		return Int32
	case *arrow.Int64Type:
		return Int64
	case *arrow.Uint32Type:
		return OID
	case *arrow.Float32Type:
		return Float32
	case *arrow.Float64Type:
		return Float64
	case *arrow.Decimal128Type:
		return Numeric(int(t.Precision), int(t.Scale))
	case *arrow.BinaryType:
		return Bytea
	case *arrow.Date32Type:
		return Date
	case *arrow.Time64Type:
		return Time
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return TimestampTZ
		}
		return Timestamp
	}
	if dt.ID() == arrow.EXTENSION {
		return UUID
	}
	return Text
}
