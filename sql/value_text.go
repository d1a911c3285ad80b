package sql

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// formatDatum is PostgreSQL's text output of a datum (DateStyle ISO, TimeZone
// UTC, extra_float_digits 1). It is the private fallback for casts to text
// until format.go's AppendText exists; both must print the same.
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
		return formatFloat(d.(float64), 32)
	case KindFloat64:
		return formatFloat(d.(float64), 64)
	case KindNumeric:
		return d.(Decimal).String()
	case KindBytea:
		return `\x` + hex.EncodeToString(d.([]byte))
	case KindDate:
		return formatDate(d.(int64))
	case KindTime:
		return formatClock(d.(int64))
	case KindTimestamp:
		us := d.(int64)
		days := floorDiv(us, usPerDay)
		return formatDate(days) + " " + formatClock(us-days*usPerDay)
	case KindTimestampTZ:
		return formatDatum(d, Timestamp) + "+00"
	case KindUUID:
		u := d.([16]byte)
		h := hex.EncodeToString(u[:])
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	if s, ok := d.(string); ok {
		return s
	}
	return fmt.Sprint(d)
}

// formatFloat prints the shortest round-trip digits the way PostgreSQL's
// float8out/float4out do: exponent form below 1e-4 or from 1e15 (1e6 for real).
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	maxExp := 15
	if bits == 32 {
		maxExp = 6
	}
	var out string
	switch {
	case exp < -4 || exp >= maxExp:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out += fmt.Sprintf("e%s%02d", sign, exp)
	case exp < 0:
		out = "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= len(digits):
		out = digits + strings.Repeat("0", exp+1-len(digits))
	default:
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		return "-" + out
	}
	return out
}

func formatDate(days int64) string {
	tm := civilFromDays(days)
	y := tm.Year()
	if y <= 0 {
		return fmt.Sprintf("%04d-%02d-%02d BC", 1-y, tm.Month(), tm.Day())
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, tm.Month(), tm.Day())
}

func formatClock(us int64) string {
	sec := us / 1e6
	frac := us % 1e6
	s := fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return s
}

// castTextDatum keeps a string as a string type, applying varchar(n) (22001).
func castTextDatum(s string, t Type) (any, error) {
	if t.Kind == KindVarchar {
		return CoerceText(s, t)
	}
	return s, nil
}
