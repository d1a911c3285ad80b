package sql

import (
	"encoding/hex"
	"fmt"
	"strconv"
)

// formatDatum is PostgreSQL's text output of a datum (DateStyle ISO, TimeZone
// UTC, extra_float_digits 1), built on format.go's appenders so casts to text
// print exactly what the wire sends.
func formatDatum(d any, t Type) string {
	if d == nil {
		return ""
	}
	switch t.Kind {
	case KindBool:
		if d.(bool) {
			return "true"
		}
		return "false"
	case KindInt16, KindInt32, KindInt64, KindOID:
		return strconv.FormatInt(d.(int64), 10)
	case KindFloat32:
		return string(AppendFloat(nil, d.(float64), 32))
	case KindFloat64:
		return string(AppendFloat(nil, d.(float64), 64))
	case KindNumeric:
		return d.(Decimal).String()
	case KindBytea:
		return `\x` + hex.EncodeToString(d.([]byte))
	case KindDate:
		return string(AppendDate(nil, d.(int64)))
	case KindTime:
		return string(AppendTime(nil, d.(int64)))
	case KindTimestamp:
		return string(AppendTimestamp(nil, d.(int64), false))
	case KindTimestampTZ:
		return string(AppendTimestamp(nil, d.(int64), true))
	case KindUUID:
		u := d.([16]byte)
		return string(AppendUUID(nil, u[:]))
	case KindInterval:
		return FormatInterval(d.(Interval))
	}
	if s, ok := d.(string); ok {
		return s
	}
	return fmt.Sprint(d)
}

// castTextDatum keeps a string as a string type, applying varchar(n) (22001).
func castTextDatum(s string, t Type) (any, error) {
	if t.Kind == KindVarchar {
		return CoerceText(s, t)
	}
	return s, nil
}
