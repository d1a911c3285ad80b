package sql

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// CoerceText is InputStyle.CoerceText with the default style (ISO, MDY),
// for text whose reading no session setting changes.
func CoerceText(s string, t Type) (any, error) { return InputStyle{}.CoerceText(s, t) }

// CoerceText converts the text form of a value, as a quoted literal or a text
// parameter would be read, to a datum of t. Errors carry PostgreSQL's
// SQLSTATE (22P02, 22003, 22007, 22008, 22001). INSERT and COPY reuse it.
func (in InputStyle) CoerceText(s string, t Type) (any, error) {
	switch t.Kind {
	case KindBool:
		return parseBool(s)
	case KindInt16, KindInt32, KindInt64, KindOID:
		return parseInt(s, t)
	case KindFloat32, KindFloat64:
		return parseFloat(s, t)
	case KindNumeric:
		return parseNumeric(s, t)
	case KindText, KindUnknown:
		return s, nil
	case KindJSON:
		if !json.Valid([]byte(s)) {
			return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type json")
		}
		return s, nil
	case KindVarchar:
		if t.Length > 0 && len([]rune(strings.TrimRight(s, " "))) > t.Length {
			return nil, pgerr.Errorf(pgerr.StringDataRightTruncation, "value too long for type %s", t)
		}
		if t.Bpchar {
			return strings.TrimRight(s, " "), nil
		}
		return truncRunes(s, t.Length), nil
	case KindBytea:
		return parseBytea(s)
	case KindDate, KindTime, KindTimestamp, KindTimestampTZ:
		return coerceDateTime(s, t, in.DateOrder)
	case KindUUID:
		return parseUUID(s)
	case KindArray:
		return in.coerceArrayText(s, t)
	case KindInterval:
		return ParseInterval(s, t.Fields)
	case KindRecord:
		return s, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "input of type %s is not supported", t)
}

// castVarchar is an explicit cast to varchar(n) or char(n): longer values are
// cut to n; char(n) keeps its value without trailing blanks (see Type.Bpchar).
func castVarchar(s string, to Type) string {
	s = truncRunes(s, to.Length)
	if to.Bpchar {
		return strings.TrimRight(s, " ")
	}
	return s
}

func truncRunes(s string, n int) string {
	if n <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func invalidInput(t Type, s string) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", t, s)
}

func parseBool(s string) (any, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch {
	case v == "":
	case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "on", v == "1":
		return true, nil
	case strings.HasPrefix("false", v), strings.HasPrefix("no", v), len(v) >= 2 && strings.HasPrefix("off", v), v == "0":
		return false, nil
	}
	return nil, invalidInput(Bool, s)
}

func intRange(t Type) (int64, int64) {
	switch t.Kind {
	case KindInt16:
		return math.MinInt16, math.MaxInt16
	case KindInt32:
		return math.MinInt32, math.MaxInt32
	case KindOID:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

func parseInt(s string, t Type) (any, error) {
	v := strings.TrimSpace(s)
	digits := strings.TrimLeft(v, "+-")
	if len(v)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil, invalidInput(t, s)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	lo, hi := intRange(t)
	if t.Kind == KindOID {
		lo = math.MinInt32 // oidin takes negative int4 values as their bits: '-1' is 4294967295
	}
	if err != nil || n < lo || n > hi {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, t)
	}
	if n < 0 && t.Kind == KindOID {
		n = int64(uint32(n))
	}
	return n, nil
}

func parseFloat(s string, t Type) (any, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch strings.TrimPrefix(v, "+") {
	case "nan":
		return math.NaN(), nil
	case "infinity", "inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	if v == "" || strings.ContainsAny(v, "xp_in") {
		return nil, invalidInput(t, s)
	}
	bits := 64
	if t.Kind == KindFloat32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(v, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, t)
		}
		return nil, invalidInput(t, s)
	}
	if f == 0 && nonZeroMantissa(v) {
		// Underflow: ParseFloat rounds to zero, PostgreSQL's float input
		// refuses a value too small for the type ('1e-46'::real).
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, t)
	}
	return f, nil
}

// nonZeroMantissa reports a digit other than 0 before a number's exponent.
func nonZeroMantissa(v string) bool {
	if i := strings.IndexByte(v, 'e'); i >= 0 {
		v = v[:i]
	}
	return strings.ContainsAny(v, "123456789")
}

func parseNumeric(s string, t Type) (any, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch strings.TrimLeft(v, "+-") {
	case "nan", "infinity", "inf":
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "numeric %s is not supported", s)
	}
	d, err := readNumeric(v)
	if err != nil {
		if se, ok := err.(*pgerr.Error); ok && se.Code == pgerr.NumericValueOutOfRange {
			return nil, err
		}
		return nil, invalidInput(Numeric(0, 0), s)
	}
	return applyNumericTypmod(d, t)
}

// applyNumericTypmod rounds to t's scale and checks its precision (22003).
func applyNumericTypmod(d Decimal, t Type) (Decimal, error) {
	if t.Precision == 0 {
		if d.intDigits() > numericMaxDigits {
			return Decimal{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		return d, nil
	}
	r := d.Rescale(t.Scale)
	if r.intDigits() > t.Precision-t.Scale {
		return Decimal{}, &pgerr.Error{Code: pgerr.NumericValueOutOfRange, Message: "numeric field overflow",
			Detail: "A field with precision " + strconv.Itoa(t.Precision) + ", scale " + strconv.Itoa(t.Scale) + " must round to an absolute value less than 10^" + strconv.Itoa(t.Precision-t.Scale) + "."}
	}
	return r, nil
}

func parseBytea(s string) (any, error) {
	if strings.HasPrefix(s, `\x`) {
		return parseByteaHex(s[2:])
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s)+0 && isOctal(s[i+1:i+4]):
			n, _ := strconv.ParseUint(s[i+1:i+4], 8, 8)
			out = append(out, byte(n))
			i += 3
		default:
			return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return out, nil
}

// parseByteaHex reads bytea's hex format: pairs of digits, blanks between
// pairs. PostgreSQL's errors are 22023 and name the one bad character.
func parseByteaHex(h string) ([]byte, error) {
	out := make([]byte, 0, len(h)/2)
	for i := 0; i < len(h); {
		switch h[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		hi := hexVal(h[i])
		if hi < 0 {
			return nil, badHexDigit(h[i:])
		}
		if i+1 >= len(h) {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		lo := hexVal(h[i+1])
		if lo < 0 {
			return nil, badHexDigit(h[i+1:])
		}
		out = append(out, byte(hi<<4|lo))
		i += 2
	}
	return out, nil
}

// badHexDigit names the character at the start of s.
func badHexDigit(s string) error {
	_, n := utf8.DecodeRuneInString(s)
	return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[:n])
}

func isOctal(s string) bool {
	return len(s) == 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7'
}

// parseUUID reads a uuid as PostgreSQL's uuid_in: 32 hex digits, a hyphen
// allowed after each group of four, the whole optionally in braces, and
// nothing else (no blanks).
func parseUUID(s string) (any, error) {
	v := s
	braces := strings.HasPrefix(v, "{")
	if braces {
		v = v[1:]
	}
	var out [16]byte
	for i := range out {
		if len(v) < 2 || hexVal(v[0]) < 0 || hexVal(v[1]) < 0 {
			return nil, invalidInput(UUID, s)
		}
		out[i] = byte(hexVal(v[0])<<4 | hexVal(v[1]))
		v = v[2:]
		if i%2 == 1 && i < len(out)-1 && strings.HasPrefix(v, "-") {
			v = v[1:]
		}
	}
	if braces {
		if !strings.HasPrefix(v, "}") {
			return nil, invalidInput(UUID, s)
		}
		v = v[1:]
	}
	if v != "" {
		return nil, invalidInput(UUID, s)
	}
	return out, nil
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// castDatum converts d of type from to type to as CAST does (explicit cast);
// text is read in the style in.
func (in InputStyle) castDatum(d any, from, to Type) (any, error) {
	if d == nil {
		return nil, nil
	}
	if from.Kind == KindUnknown || (from.IsString() && !to.IsString() && to.Kind != KindUnknown) {
		s, _ := d.(string)
		if from.Bpchar {
			// The I/O conversion reads char(n)'s output, blank-padded
			// to n: 'x'::char(3)::bytea is \x782020.
			s = string(AppendBpchar(nil, s, from.Length))
		}
		if to.Kind == KindVarchar {
			return castVarchar(s, to), nil
		}
		return in.CoerceText(s, to)
	}
	if from.Kind == KindArray && to.Kind == KindArray {
		return in.castArray(d.(string), from, to)
	}
	switch to.Kind {
	case KindJSON:
		// Only text is read as json; json has no cast from other types.
		if from.Kind != KindJSON {
			return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
		}
		return d, nil
	case KindText, KindUnknown:
		return formatDatum(d, from), nil
	case KindVarchar:
		return castVarchar(formatDatum(d, from), to), nil
	}
	if from.Kind == to.Kind && to.Kind != KindNumeric {
		return d, nil
	}
	switch to.Kind {
	case KindInt16, KindInt32, KindInt64, KindOID:
		return castToInt(d, from, to)
	case KindFloat32, KindFloat64:
		return castToFloat(d, from, to)
	case KindNumeric:
		return castToNumeric(d, from, to)
	case KindBool:
		if v, ok := d.(int64); ok && from.Kind == KindInt32 {
			return v != 0, nil
		}
	case KindDate:
		switch from.Kind {
		case KindTimestamp, KindTimestampTZ:
			return timestampToDate(d.(int64)), nil
		}
	case KindTimestamp, KindTimestampTZ:
		switch from.Kind {
		case KindDate:
			return dateAsTimestamp(d.(int64))
		case KindTimestamp, KindTimestampTZ:
			return d, nil
		}
	case KindTime:
		switch from.Kind {
		case KindTimestamp, KindTimestampTZ:
			us := d.(int64)
			if us == math.MaxInt64 || us == math.MinInt64 {
				return nil, nil // an infinite timestamp has no time of day: NULL
			}
			return wrapTimeOfDay(us), nil
		case KindInterval:
			return wrapTimeOfDay(d.(Interval).Micros), nil // the time part, around the clock
		}
	case KindInterval:
		if from.Kind == KindTime {
			return Interval{Micros: d.(int64)}, nil
		}
	}
	return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
}

const usPerDay = 86400 * 1000000

// dateToTimestamp and timestampToDate keep ±infinity infinite. A date
// past the last timestamp this representation holds orders after every
// finite timestamp and before infinity, as PostgreSQL compares dates it
// cannot convert.
func dateToTimestamp(days int64) int64 {
	switch {
	case days == math.MaxInt32:
		return math.MaxInt64
	case days == math.MinInt32:
		return math.MinInt64
	case days >= endTimestampPG/usPerDay+1:
		return math.MaxInt64 - 1
	}
	return days * usPerDay
}

// dateAsTimestamp converts a date to a timestamp (a cast, date ± interval,
// date + time): 22008 past the last timestamp instead of a value that
// wrapped around.
func dateAsTimestamp(days int64) (int64, error) {
	ts := dateToTimestamp(days)
	if ts == math.MaxInt64-1 {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return ts, nil
}

func timestampToDate(us int64) int64 {
	switch us {
	case math.MaxInt64:
		return math.MaxInt32
	case math.MinInt64:
		return math.MinInt32
	}
	return floorDiv(us, usPerDay)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func outOfRange(t Type) *pgerr.Error {
	if t.Kind == KindOID {
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "OID out of range")
	}
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "%s out of range", t)
}

func castToInt(d any, from, to Type) (any, error) {
	if from.Kind == KindOID || to.Kind == KindOID {
		return castOID(d, from, to)
	}
	lo, hi := intRange(to)
	var n int64
	switch v := d.(type) {
	case int64:
		n = v
	case bool:
		if to.Kind != KindInt32 {
			return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
		}
		if v {
			return int64(1), nil
		}
		return int64(0), nil
	case float64:
		r := math.RoundToEven(v)
		if !isFloatInt(r) || r < float64(lo) || r > float64(hi) {
			return nil, outOfRange(to)
		}
		n = int64(r)
	case Decimal:
		r := v.Rescale(0)
		if !r.Coef.IsInt64() {
			return nil, outOfRange(to)
		}
		n = r.Coef.Int64()
	default:
		return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
	}
	if n < lo || n > hi {
		return nil, outOfRange(to)
	}
	return n, nil
}

// castOID is PostgreSQL's casts between oid and the integers: int4 and
// oid are binary coercible, so a negative int4 (or int2) is the oid of
// its bits and an oid past 2^31 is a negative int4; int8 to oid checks
// the range; oid to int8 widens. No other type casts to or from oid.
func castOID(d any, from, to Type) (any, error) {
	n, ok := d.(int64)
	switch {
	case !ok, from.Kind == KindOID && to.Kind == KindInt16, from.Kind != KindOID && !isInteger(from):
		return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
	case to.Kind == KindInt32:
		return int64(int32(uint32(n))), nil
	case to.Kind != KindOID, from.Kind == KindOID:
		return n, nil
	case from.Kind == KindInt64:
		if n < 0 || n > math.MaxUint32 {
			return nil, outOfRange(to)
		}
		return n, nil
	}
	return int64(uint32(n)), nil
}

func castToFloat(d any, from, to Type) (any, error) {
	var f float64
	switch v := d.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	case Decimal:
		// PostgreSQL converts through the float's text input, which refuses a
		// value beyond the type's range or too small to be told from zero.
		r := v.Rat()
		if to.Kind == KindFloat32 {
			f32, _ := r.Float32()
			f = float64(f32)
		} else {
			f, _ = r.Float64()
		}
		if math.IsInf(f, 0) || f == 0 && r.Sign() != 0 {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", v.String(), to)
		}
	default:
		return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
	}
	if to.Kind == KindFloat32 {
		r := float32(f)
		if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		f = float64(r)
	}
	return f, nil
}

func castToNumeric(d any, from, to Type) (any, error) {
	var dec Decimal
	switch v := d.(type) {
	case int64:
		dec = DecimalFromInt(v)
	case Decimal:
		dec = v
	case float64:
		if math.IsInf(v, 0) && to.Precision > 0 {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "numeric field overflow")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot convert %s to numeric: not supported", formatDatum(v, from))
		}
		// PostgreSQL goes through %.15g (float8) or %.6g (float4).
		digits := 15
		if from.Kind == KindFloat32 {
			digits = 6
		}
		dec, _ = ParseDecimal(strconv.FormatFloat(v, 'g', digits, 64))
	default:
		return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", from.SigName(), to.SigName())
	}
	return applyNumericTypmod(dec, to)
}

// ratFloor and ratCeil are the integer floor and ceiling of r.
func ratFloor(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q
}

func ratCeil(r *big.Rat) *big.Int {
	q := ratFloor(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}
