package lake

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// Column defaults (format v3's initial-default and write-default) are kept
// in table metadata as the spec's JSON single-value serialization has them:
// numbers for int, long, float and double, strings for decimals ("14.20"),
// dates ("2017-11-16"), times ("22:31:08.123456"), timestamps
// ("2017-11-16T22:31:08.123456", with "+00:00" for timestamptz), uuids and
// binary (hex). That is what Java, PyIceberg and iceberg-go read a schema's
// JSON into. iceberg-go holds a default built in memory as a typed value
// instead (Date, Timestamp, Decimal, ...) and writes it as it holds it: a
// date as its day number, a timestamp as microseconds, a decimal as an
// object without its value. So schemas are brought to the JSON form before
// they are committed (SpecSchema), and the same form is what a table read
// back from its metadata file holds, whether or not it was cached.
//
// iceberg-go v0.7.0's readers, which fill a column missing from a data file
// with its initial-default, take dates, times and timestamps only as
// numbers: scans hand them ReadableSchema's typed values.

// ErrDefaultValue reports a default that cannot be stored or read as a
// value of its column's type.
var ErrDefaultValue = errors.New("column default")

// maxExactJSONInt is the largest integer every reader of a metadata file
// reads back exactly: encoding/json (iceberg-go) decodes numbers as float64.
const maxExactJSONInt = 1 << 53

// SpecDefault is v, a default of a field of type t in any form iceberg-go
// or a metadata file holds one, in the JSON single-value form: bool,
// float64 or string; nil stays nil.
func SpecDefault(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	typed, err := TypedDefault(t, v)
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case iceberg.BooleanType, iceberg.StringType:
		return typed, nil
	case iceberg.Int32Type:
		return float64(typed.(int32)), nil
	case iceberg.Int64Type:
		n := typed.(int64)
		if n > maxExactJSONInt || n < -maxExactJSONInt {
			return nil, fmt.Errorf("%w: %d is beyond the integers a metadata file keeps exactly (±2^53)", ErrDefaultValue, n)
		}
		return float64(n), nil
	case iceberg.Float32Type:
		f := typed.(float32)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("%w: %v is not a JSON number", ErrDefaultValue, f)
		}
		// The shortest decimal that reads back as f: 1.1, not 1.100000023841858.
		d, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
		return d, nil
	case iceberg.Float64Type:
		f := typed.(float64)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%w: %v is not a JSON number", ErrDefaultValue, f)
		}
		return f, nil
	case iceberg.DecimalType:
		d := typed.(iceberg.Decimal)
		return d.Val.ToString(int32(t.Scale())), nil
	case iceberg.DateType:
		return isoDate(int64(typed.(iceberg.Date))), nil
	case iceberg.TimeType:
		return isoTime(int64(typed.(iceberg.Time)) * 1000), nil
	case iceberg.TimestampType:
		return isoTimestamp(int64(typed.(iceberg.Timestamp))*1000, 6, ""), nil
	case iceberg.TimestampTzType:
		return isoTimestamp(int64(typed.(iceberg.Timestamp))*1000, 6, "+00:00"), nil
	case iceberg.TimestampNsType:
		return isoTimestamp(int64(typed.(iceberg.TimestampNano)), 9, ""), nil
	case iceberg.TimestampTzNsType:
		return isoTimestamp(int64(typed.(iceberg.TimestampNano)), 9, "+00:00"), nil
	case iceberg.UUIDType:
		return typed.(uuid.UUID).String(), nil
	case iceberg.BinaryType, iceberg.FixedType:
		return hex.EncodeToString(typed.([]byte)), nil
	}
	return nil, fmt.Errorf("%w: a %s column cannot have a default", ErrDefaultValue, t)
}

// TypedDefault is v, a default of a field of type t (in the JSON form, or
// as iceberg-go holds one), as iceberg-go's typed value: bool, int32,
// int64, float32, float64, string, Decimal, Date, Time, Timestamp (both
// timestamp types), TimestampNano, uuid.UUID or []byte. Numbers for dates,
// times and timestamps (day counts and microseconds, as iceberg-go writes
// them) are read too.
func TypedDefault(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	out, err := typedDefault(t, v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (%s) is not a %s value: %w", ErrDefaultValue, describeDefault(v), jsonKind(v), t, err)
	}
	return out, nil
}

func typedDefault(t iceberg.Type, v any) (any, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case iceberg.StringType:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case iceberg.Int32Type:
		n, err := defaultInteger(v)
		if err != nil {
			return nil, err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, errors.New("out of range")
		}
		return int32(n), nil
	case iceberg.Int64Type:
		return defaultInteger(v)
	case iceberg.Float32Type:
		f, err := defaultFloat(v)
		return float32(f), err
	case iceberg.Float64Type:
		return defaultFloat(v)
	case iceberg.DecimalType:
		return decimalOf(t, v)
	case iceberg.DateType:
		if s, ok := v.(string); ok {
			days, err := parseISODate(s)
			return iceberg.Date(days), err
		}
		n, err := defaultInteger(v)
		return iceberg.Date(n), err
	case iceberg.TimeType:
		if s, ok := v.(string); ok {
			ns, err := parseISOTime(s)
			return iceberg.Time(ns / 1000), err
		}
		n, err := defaultInteger(v)
		return iceberg.Time(n), err
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if s, ok := v.(string); ok {
			ns, err := parseISOTimestamp(s, t.Equals(iceberg.PrimitiveTypes.TimestampTz))
			return iceberg.Timestamp(ns / 1000), err
		}
		n, err := defaultInteger(v)
		return iceberg.Timestamp(n), err
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if s, ok := v.(string); ok {
			ns, err := parseISOTimestamp(s, t.Equals(iceberg.PrimitiveTypes.TimestampTzNs))
			return iceberg.TimestampNano(ns), err
		}
		n, err := defaultInteger(v)
		return iceberg.TimestampNano(n), err
	case iceberg.UUIDType:
		switch u := v.(type) {
		case uuid.UUID:
			return u, nil
		case [16]byte:
			return uuid.UUID(u), nil
		case string:
			return uuid.Parse(u)
		}
	case iceberg.BinaryType:
		return bytesOf(v, -1)
	case iceberg.FixedType:
		return bytesOf(v, t.Len())
	default:
		return nil, errors.New("the type takes no default")
	}
	return nil, errors.New("wrong kind of value")
}

// defaultInteger reads an integer held as a Go integer or a JSON number.
func defaultInteger(v any) (int64, error) {
	if n, ok := integerOf(v); ok {
		return n, nil
	}
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt64 {
			return 0, errors.New("not an integer")
		}
		return int64(n), nil
	case json.Number:
		return n.Int64()
	}
	return 0, errors.New("wrong kind of value")
}

func defaultFloat(v any) (float64, error) {
	if f, ok := floatOf(v); ok {
		return f, nil
	}
	if n, ok := v.(json.Number); ok {
		return n.Float64()
	}
	return 0, errors.New("wrong kind of value")
}

// decimalOf reads a decimal from its string (the spec's form) or a number,
// exactly at t's scale.
func decimalOf(t iceberg.DecimalType, v any) (iceberg.Decimal, error) {
	var text string
	switch d := v.(type) {
	case iceberg.Decimal:
		if d.Scale == t.Scale() {
			return d, nil
		}
		text = d.String()
	case string:
		text = d
	case float64:
		text = strconv.FormatFloat(d, 'f', -1, 64)
	case json.Number:
		text = d.String()
	default:
		return iceberg.Decimal{}, errors.New("wrong kind of value")
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return iceberg.Decimal{}, errors.New("not a decimal")
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale())), nil)))
	if !r.IsInt() {
		return iceberg.Decimal{}, fmt.Errorf("more than %d digits after the point", t.Scale())
	}
	n := decimal128.FromBigInt(r.Num())
	if r.Num().BitLen() > 127 || !n.FitsInPrecision(int32(t.Precision())) {
		return iceberg.Decimal{}, fmt.Errorf("more than %d digits", t.Precision())
	}
	return iceberg.Decimal{Val: n, Scale: t.Scale()}, nil
}

// bytesOf reads binary from bytes or the spec's hex (and the base64
// iceberg-go v0.6.0 wrote); size is a fixed type's length, else -1.
func bytesOf(v any, size int) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = append([]byte(nil), x...)
	case iceberg.BinaryLiteral:
		b = append([]byte(nil), x...)
	case iceberg.FixedLiteral:
		b = append([]byte(nil), x...)
	case string:
		var err error
		if b, err = hex.DecodeString(x); err != nil || size >= 0 && len(b) != size {
			if b64, err64 := base64.StdEncoding.DecodeString(x); err64 == nil && (size < 0 || len(b64) == size) {
				return b64, nil
			}
			if err != nil {
				return nil, errors.New("not hexadecimal")
			}
		}
	default:
		return nil, errors.New("wrong kind of value")
	}
	if size >= 0 && len(b) != size {
		return nil, fmt.Errorf("%d bytes, not %d", len(b), size)
	}
	return b, nil
}

// isoDate is day number days as ISO 8601 writes it: four-digit years, a
// sign before others (Java's LocalDate does the same).
func isoDate(days int64) string {
	return isoDateOf(time.Unix(days*86400, 0).UTC())
}

func isoDateOf(t time.Time) string {
	y := t.Year()
	year := fmt.Sprintf("%04d", y)
	switch {
	case y > 9999:
		year = "+" + strconv.Itoa(y)
	case y < 0:
		year = fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%s-%02d-%02d", year, int(t.Month()), t.Day())
}

// isoTime is ns nanoseconds past midnight as HH:MM:SS.ffffff.
func isoTime(ns int64) string {
	us := ns / 1000
	return fmt.Sprintf("%02d:%02d:%02d.%06d", us/3600e6, us/60e6%60, us/1e6%60, us%1e6)
}

// isoTimestamp is ns nanoseconds since the epoch with digits (6 or 9)
// fractional digits, then zone.
func isoTimestamp(ns int64, digits int, zone string) string {
	t := time.Unix(floorDiv(ns, 1e9), floorMod(ns, 1e9)).UTC()
	frac := fmt.Sprintf("%09d", t.Nanosecond())[:digits]
	return fmt.Sprintf("%sT%02d:%02d:%02d.%s%s", isoDateOf(t), t.Hour(), t.Minute(), t.Second(), frac, zone)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// parseISODate reads [+-]YYYY-MM-DD as a day number.
func parseISODate(s string) (int64, error) {
	sign := 1
	rest := s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		if rest[0] == '-' {
			sign = -1
		}
		rest = rest[1:]
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return 0, errors.New("not an ISO 8601 date")
	}
	y, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	d, err3 := strconv.Atoi(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, errors.New("not an ISO 8601 date")
	}
	t := time.Date(sign*y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || t.Day() != d {
		return 0, errors.New("no such day")
	}
	return floorDiv(t.Unix(), 86400), nil
}

// parseISOTime reads HH:MM[:SS[.fraction]] as nanoseconds past midnight.
func parseISOTime(s string) (int64, error) {
	bad := errors.New("not an ISO 8601 time")
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || len(parts[0]) != 2 || len(parts[1]) != 2 {
		return 0, bad
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if errors.Join(err1, err2) != nil || h > 24 || m > 59 {
		return 0, bad
	}
	ns := int64(h)*3600e9 + int64(m)*60e9
	if len(parts) == 3 {
		sec, frac, _ := strings.Cut(parts[2], ".")
		sv, err := strconv.Atoi(sec)
		if err != nil || len(sec) != 2 || sv > 59 || len(frac) > 9 {
			return 0, bad
		}
		ns += int64(sv) * 1e9
		if frac != "" {
			f, err := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
			if err != nil {
				return 0, bad
			}
			ns += int64(f)
		}
	}
	if ns > 24*3600e9 {
		return 0, bad
	}
	return ns, nil
}

// parseISOTimestamp reads date T time, with a zone offset (Z or ±HH:MM)
// when zoned, as nanoseconds since the epoch (UTC for zoned ones).
func parseISOTimestamp(s string, zoned bool) (int64, error) {
	date, clock, ok := strings.Cut(s, "T")
	if !ok {
		return 0, errors.New("not an ISO 8601 timestamp")
	}
	var offset int64
	if zoned {
		var err error
		if clock, offset, err = cutZone(clock); err != nil {
			return 0, err
		}
	}
	days, err := parseISODate(date)
	if err != nil {
		return 0, err
	}
	ns, err := parseISOTime(clock)
	if err != nil {
		return 0, err
	}
	return days*86400e9 + ns - offset, nil
}

// cutZone splits a time's zone offset (Z, ±HH:MM) off, as nanoseconds east
// of UTC.
func cutZone(clock string) (string, int64, error) {
	if strings.HasSuffix(clock, "Z") {
		return strings.TrimSuffix(clock, "Z"), 0, nil
	}
	i := strings.LastIndexAny(clock, "+-")
	if i < 0 || len(clock)-i != 6 || clock[i+3] != ':' {
		return "", 0, errors.New("a timestamptz needs a zone offset")
	}
	h, err1 := strconv.Atoi(clock[i+1 : i+3])
	m, err2 := strconv.Atoi(clock[i+4:])
	if errors.Join(err1, err2) != nil {
		return "", 0, errors.New("bad zone offset")
	}
	off := int64(h)*3600e9 + int64(m)*60e9
	if clock[i] == '-' {
		off = -off
	}
	return clock[:i], off, nil
}

// describeDefault shows a default in an error: the JSON it is written as.
func describeDefault(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonKind names the JSON kind v would be written as.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int32, int64, json.Number, iceberg.Date, iceberg.Time, iceberg.Timestamp, iceberg.TimestampNano:
		return "a number"
	case map[string]any, iceberg.Decimal:
		return "an object"
	case []any:
		return "an array"
	}
	return "a value"
}

// defaultFunc rewrites a non-nil default of a primitive field of type t.
type defaultFunc func(t iceberg.Type, v any) (any, error)

// SpecSchema is sc with every default in the JSON form (SpecDefault); sc
// itself when it has none.
func SpecSchema(sc *iceberg.Schema) (*iceberg.Schema, error) {
	return mapDefaults(sc, SpecDefault)
}

// ReadableSchema is sc with every default as iceberg-go's typed value
// (TypedDefault), the form its readers fill missing columns from; sc itself
// when it has none. A default that cannot be read is left as it is, for
// the reader to report should it need it.
func ReadableSchema(sc *iceberg.Schema) *iceberg.Schema {
	out, _ := mapDefaults(sc, func(t iceberg.Type, v any) (any, error) {
		if typed, err := TypedDefault(t, v); err == nil {
			return typed, nil
		}
		return v, nil
	})
	return out
}

func mapDefaults(sc *iceberg.Schema, fn defaultFunc) (*iceberg.Schema, error) {
	fields, changed, err := mapFieldDefaults(sc.Fields(), fn)
	if err != nil || !changed {
		return sc, err
	}
	return iceberg.NewSchemaWithIdentifiers(sc.ID, sc.IdentifierFieldIDs, fields...), nil
}

// mapFieldDefaults applies fn to the defaults of fields and of the fields
// nested in them; changed reports whether there was any.
func mapFieldDefaults(fields []iceberg.NestedField, fn defaultFunc) (out []iceberg.NestedField, changed bool, err error) {
	out = make([]iceberg.NestedField, len(fields))
	for i, f := range fields {
		if _, primitive := f.Type.(iceberg.PrimitiveType); primitive {
			for _, d := range []*any{&f.InitialDefault, &f.WriteDefault} {
				if *d == nil {
					continue
				}
				changed = true
				if *d, err = fn(f.Type, *d); err != nil {
					return nil, false, fmt.Errorf("column %q: %w", f.Name, err)
				}
			}
		} else {
			var sub bool
			if f.Type, sub, err = mapTypeDefaults(f.Type, fn); err != nil {
				return nil, false, err
			}
			changed = changed || sub
		}
		out[i] = f
	}
	return out, changed, nil
}

// mapTypeDefaults applies fn to the defaults of the fields nested in t.
func mapTypeDefaults(t iceberg.Type, fn defaultFunc) (iceberg.Type, bool, error) {
	switch t := t.(type) {
	case *iceberg.StructType:
		fields, changed, err := mapFieldDefaults(t.FieldList, fn)
		if err != nil || !changed {
			return t, false, err
		}
		return &iceberg.StructType{FieldList: fields}, true, nil
	case *iceberg.ListType:
		elem, changed, err := mapTypeDefaults(t.Element, fn)
		if err != nil || !changed {
			return t, false, err
		}
		return &iceberg.ListType{ElementID: t.ElementID, Element: elem, ElementRequired: t.ElementRequired}, true, nil
	case *iceberg.MapType:
		key, kc, err := mapTypeDefaults(t.KeyType, fn)
		if err != nil {
			return t, false, err
		}
		val, vc, err := mapTypeDefaults(t.ValueType, fn)
		if err != nil || !kc && !vc {
			return t, false, err
		}
		return &iceberg.MapType{KeyID: t.KeyID, KeyType: key, ValueID: t.ValueID, ValueType: val, ValueRequired: t.ValueRequired}, true, nil
	}
	return t, false, nil
}

// UnreadableDefaults names the columns of sc with a default that cannot be
// read: what an earlier version wrote for a decimal (an object without its
// value), or what another writer got wrong.
func UnreadableDefaults(sc *iceberg.Schema) []string {
	var names []string
	for _, f := range sc.Fields() {
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			continue
		}
		_, errI := SpecDefault(f.Type, f.InitialDefault)
		_, errW := SpecDefault(f.Type, f.WriteDefault)
		if errI != nil || errW != nil {
			names = append(names, f.Name)
		}
	}
	return names
}

// withoutUnreadableDefaults is tbl with the defaults that cannot be read
// left out of its schemas, for a schema change to start from: iceberg-go's
// compares every field's default with itself, and an object (the decimal
// an earlier version wrote) fails the comparison, so no ALTER TABLE,
// not even the SET DEFAULT that replaces it, could commit. tbl itself when
// its current schema has none.
func withoutUnreadableDefaults(tbl *table.Table) *table.Table {
	if len(UnreadableDefaults(tbl.Schema())) == 0 {
		return tbl
	}
	drop := func(sc *iceberg.Schema) *iceberg.Schema {
		out, _ := mapDefaults(sc, func(t iceberg.Type, v any) (any, error) {
			if _, err := SpecDefault(t, v); err != nil {
				return nil, nil
			}
			return v, nil
		})
		return out
	}
	return table.New(tbl.Identifier(), &schemaView{Metadata: tbl.Metadata(), conv: drop}, tbl.MetadataLocation(), tbl.FS, nil)
}

// widenedInitialDefaults is sc, a schema evolved from base, with the
// initial-default of each column promoted from float to double as the
// float value it was, widened (1.1 as a float reads as 1.100000023841858),
// as the rows written before the column was added read, like every other
// row written as a float. The write-default is a new value of the new type,
// as PostgreSQL casts the default anew. Other promotions keep the value's
// JSON as it is.
func widenedInitialDefaults(base, sc *iceberg.Schema) *iceberg.Schema {
	fields := sc.Fields()
	changed := false
	for i, f := range fields {
		old, ok := base.FindFieldByID(f.ID)
		if !ok || f.InitialDefault == nil || !old.Type.Equals(iceberg.PrimitiveTypes.Float32) || !f.Type.Equals(iceberg.PrimitiveTypes.Float64) {
			continue
		}
		if v, err := TypedDefault(old.Type, f.InitialDefault); err == nil {
			fields[i].InitialDefault = float64(v.(float32))
			changed = true
		}
	}
	if !changed {
		return sc
	}
	return iceberg.NewSchemaWithIdentifiers(sc.ID, sc.IdentifierFieldIDs, fields...)
}
