package sql

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

const fmtMicrosPerDay = 86_400_000_000

// AppendDate appends a date given as days since 1970-01-01 in PostgreSQL's ISO
// form: YYYY-MM-DD, years before 1 as "YYYY-MM-DD BC" (year 0 is 1 BC), and the
// int32 extremes as -infinity/infinity.
func AppendDate(buf []byte, days int64) []byte {
	switch days {
	case math.MaxInt32:
		return append(buf, "infinity"...)
	case math.MinInt32:
		return append(buf, "-infinity"...)
	}
	y, m, d := fmtCivil(days)
	buf = fmtYMD(buf, y, m, d)
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// AppendTime appends a time of day in microseconds as HH:MM:SS[.ffffff], the
// fraction without trailing zeros.
func AppendTime(buf []byte, us int64) []byte {
	return fmtClock(buf, us)
}

// AppendTimestamp appends microseconds since the epoch as PostgreSQL prints a
// timestamp, or a timestamptz in TimeZone UTC when tz is set (+00 suffix).
func AppendTimestamp(buf []byte, us int64, tz bool) []byte {
	switch us {
	case math.MaxInt64:
		return append(buf, "infinity"...)
	case math.MinInt64:
		return append(buf, "-infinity"...)
	}
	days := fmtFloorDiv(us, fmtMicrosPerDay)
	y, m, d := fmtCivil(days)
	buf = fmtYMD(buf, y, m, d)
	buf = append(buf, ' ')
	buf = fmtClock(buf, us-days*fmtMicrosPerDay)
	if tz {
		buf = append(buf, "+00"...)
	}
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

func fmtYMD(buf []byte, y int64, m, d int) []byte {
	if y <= 0 {
		y = 1 - y
	}
	buf = fmtPadded(buf, y, 4)
	buf = append(buf, '-')
	buf = fmtPadded(buf, int64(m), 2)
	buf = append(buf, '-')
	return fmtPadded(buf, int64(d), 2)
}

func fmtClock(buf []byte, us int64) []byte {
	sec := us / 1_000_000
	frac := us % 1_000_000
	buf = fmtPadded(buf, sec/3600, 2)
	buf = append(buf, ':')
	buf = fmtPadded(buf, sec/60%60, 2)
	buf = append(buf, ':')
	buf = fmtPadded(buf, sec%60, 2)
	if frac == 0 {
		return buf
	}
	var f [6]byte
	for k := 5; k >= 0; k-- {
		f[k] = byte('0' + frac%10)
		frac /= 10
	}
	n := 6
	for f[n-1] == '0' {
		n--
	}
	buf = append(buf, '.')
	return append(buf, f[:n]...)
}

// fmtPadded appends a non-negative v with at least width digits.
func fmtPadded(buf []byte, v int64, width int) []byte {
	var tmp [20]byte
	n := len(tmp)
	for v > 0 || n > len(tmp)-width {
		n--
		tmp[n] = byte('0' + v%10)
		v /= 10
	}
	return append(buf, tmp[n:]...)
}

// fmtCivil converts days since 1970-01-01 to a proleptic Gregorian
// astronomical year (0 = 1 BC), month and day (Howard Hinnant's algorithm).
func fmtCivil(z int64) (int64, int, int) {
	z += 719468
	era := fmtFloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := int(doy - (153*mp+2)/5 + 1)
	m := int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// fmtDaysFromCivil is the inverse of fmtCivil: days since 1970-01-01 of an
// astronomical year, month and day.
func fmtDaysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := fmtFloorDiv(y, 400)
	yoe := y - era*400
	mp := int64(m+9) % 12
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func fmtFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func fmtTimeMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1_000_000
	case arrow.Millisecond:
		return v * 1000
	case arrow.Nanosecond:
		return fmtFloorDiv(v, 1000)
	}
	return v
}
