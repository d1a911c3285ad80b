package sql

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// Interval is PostgreSQL's interval: months, days and microseconds kept
// apart (a month is not a fixed number of days, nor a day of hours across
// a DST change), each with its own sign. Arrow holds it as
// MonthDayNanoInterval.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

const (
	usPerSecond = 1_000_000
	usPerMinute = 60 * usPerSecond
	usPerHour   = 60 * usPerMinute
)

// spanKey is the interval's length as interval_cmp measures it (a month is
// 30 days, a day 24 hours), as whole days and the microseconds left:
// equal intervals ('1 mon' and '30 days') have equal keys.
func (v Interval) spanKey() (days, micros int64) {
	days = int64(v.Months)*30 + int64(v.Days) + floorDiv(v.Micros, usPerDay)
	return days, v.Micros - floorDiv(v.Micros, usPerDay)*usPerDay
}

func compareIntervals(a, b Interval) int {
	ad, au := a.spanKey()
	bd, bu := b.spanKey()
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpInt(au, bu)
}

// IntervalKey is the grouping key of an interval: equal intervals share it.
func IntervalKey(v Interval) (days, micros int64) { return v.spanKey() }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// intervalUnits maps PostgreSQL's unit words (singular, plural and short
// forms) to a unit.
var intervalUnits = map[string]string{
	"microsecond": "us", "microseconds": "us", "us": "us", "usec": "us", "usecs": "us", "useconds": "us",
	"millisecond": "ms", "milliseconds": "ms", "ms": "ms", "msec": "ms", "msecs": "ms", "mseconds": "ms",
	"second": "s", "seconds": "s", "sec": "s", "secs": "s", "s": "s",
	"minute": "min", "minutes": "min", "min": "min", "mins": "min", "m": "min",
	"hour": "h", "hours": "h", "hr": "h", "hrs": "h", "h": "h",
	"day": "d", "days": "d", "d": "d",
	"week": "w", "weeks": "w", "w": "w",
	"month": "mon", "months": "mon", "mon": "mon", "mons": "mon",
	"year": "y", "years": "y", "yr": "y", "yrs": "y", "y": "y",
	"decade": "dec", "decades": "dec", "dec": "dec", "decs": "dec",
	"century": "c", "centuries": "c", "cent": "c",
	"millennium": "mil", "millennia": "mil", "millenniums": "mil", "mil": "mil", "mils": "mil",
}

// ParseInterval reads PostgreSQL's interval input: "1 year 2 mons",
// "3 days 04:05:06.5", "-1 week ago", "@ 2 hours", "90 minutes",
// ISO 8601 "P1Y2M3DT4H5M6S"; field is the type's trailing field
// (interval '5' day) that a bare number counts, "" for seconds.
func ParseInterval(s, field string) (Interval, error) {
	bad := func() error {
		return pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(t, "p") {
		v, ok := parseISOInterval(t[1:])
		if !ok {
			return Interval{}, bad()
		}
		return v, nil
	}
	t = strings.TrimSpace(strings.TrimPrefix(t, "@"))
	if t == "" {
		return Interval{}, bad()
	}
	var acc intervalAcc
	ago := false
	seen := 0 // the fields given so far: each at most once, as PostgreSQL requires
	words := strings.Fields(t)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "ago" && i == len(words)-1:
			ago = true
		case strings.Contains(w, ":"):
			if seen&clockFields != 0 || !acc.addClock(w) {
				return Interval{}, bad()
			}
			seen |= clockFields
			// PostgreSQL 15 reads the fields right to left and a clock sets
			// the time outright: what fractions of days or months to its
			// right spilled into the time is lost. Kept for equal answers.
			acc.clockSet = true
		default:
			num, unit := splitNumberUnit(w)
			if num == "" {
				return Interval{}, bad()
			}
			if unit == "" && i+1 < len(words) {
				if _, ok := intervalUnits[words[i+1]]; ok {
					unit = words[i+1]
					i++
				}
			}
			if unit == "" {
				unit = lastField(field)
			}
			u, ok := intervalUnits[unit]
			mask := unitField[u]
			if u == "s" && strings.Contains(num, ".") {
				mask = allSecondFields // fractional seconds give the sub-second fields too
			}
			if !ok || seen&mask != 0 {
				return Interval{}, bad()
			}
			seen |= mask
			whole, frac, ok := splitFraction(num)
			if !ok || !acc.add(whole, frac, u) {
				return Interval{}, bad()
			}
		}
	}
	v, ok := acc.interval()
	if !ok {
		return Interval{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	if ago {
		v = negateInterval(v)
	}
	return v, nil
}

// lastField is the unit a bare number counts under interval's field
// qualifier (DAY TO SECOND counts seconds).
func lastField(field string) string {
	f := strings.Fields(field)
	if len(f) == 0 {
		return "second"
	}
	return f[len(f)-1]
}

// splitNumberUnit splits "5days" / "5" / "-1.5" into number and unit.
func splitNumberUnit(w string) (string, string) {
	j := 0
	for j < len(w) && (w[j] == '+' || w[j] == '-' || w[j] == '.' || w[j] >= '0' && w[j] <= '9' || (w[j] == 'e' && j > 0)) {
		j++
	}
	return w[:j], w[j:]
}

// unitField is the field bit of each unit; a clock (hh:mm:ss) sets hours,
// minutes and every second field.
var unitField = map[string]int{"us": 1, "ms": 2, "s": 4, "min": 8, "h": 16, "d": 32, "w": 64,
	"mon": 128, "y": 256, "dec": 512, "c": 1024, "mil": 2048}

const (
	allSecondFields = 1 | 2 | 4
	clockFields     = allSecondFields | 8 | 16
)

// intervalAcc sums the parts of an interval as they are read; fractions of
// months spill into days and fractions of days into microseconds, as
// PostgreSQL does (1.5 months is 1 mon 15 days).
type intervalAcc struct {
	months, days, micros float64
	clockSet             bool // a clock was read: later spills into the time drop
}

// splitFraction reads a number as its integer part and its fraction,
// both with the number's sign, as PostgreSQL reads interval fields (so
// -6.10 mon is -6 months and -0.10 of one, exactly).
func splitFraction(num string) (whole, frac float64, ok bool) {
	neg := strings.HasPrefix(num, "-")
	digits := strings.TrimLeft(num, "+-")
	ip, fp, _ := strings.Cut(digits, ".")
	if ip == "" && fp == "" || strings.ContainsAny(ip+fp, "+-.e") {
		f, err := strconv.ParseFloat(num, 64) // exponents: as written
		if err != nil {
			return 0, 0, false
		}
		return math.Trunc(f), f - math.Trunc(f), true
	}
	if ip != "" {
		w, err := strconv.ParseInt(ip, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		whole = float64(w)
	}
	if fp != "" {
		f, err := strconv.ParseFloat("0."+fp, 64)
		if err != nil {
			return 0, 0, false
		}
		frac = f
	}
	if neg {
		whole, frac = -whole, -frac
	}
	return whole, frac, true
}

// add adds whole+frac of unit the way DecodeInterval does: sub-day units
// into the time, days and weeks with their fraction into the time,
// months with theirs into days (of 30) and the time, years and larger
// rounding their fraction to whole months.
func (a *intervalAcc) add(whole, frac float64, unit string) bool {
	switch unit {
	case "us":
		a.micros += math.RoundToEven(whole + frac)
	case "ms":
		a.micros += math.RoundToEven((whole + frac) * 1000)
	case "s":
		a.micros += whole*usPerSecond + math.RoundToEven(frac*usPerSecond)
	case "min":
		a.micros += whole * usPerMinute
		a.fractSeconds(frac, 60)
	case "h":
		a.micros += whole * usPerHour
		a.fractSeconds(frac, 3600)
	case "d":
		a.days += whole
		a.fractSeconds(frac, 86400)
	case "w":
		a.days += whole * 7
		a.fractDays(frac, 7)
	case "mon":
		a.months += whole
		a.fractDays(frac, 30)
	case "y":
		a.months += whole*12 + math.RoundToEven(frac*12)
	case "dec":
		a.months += whole*120 + math.RoundToEven(frac*120)
	case "c":
		a.months += whole*1200 + math.RoundToEven(frac*1200)
	case "mil":
		a.months += whole*12000 + math.RoundToEven(frac*12000)
	default:
		return false
	}
	return true
}

// fractSeconds is AdjustFractSeconds: frac of scale seconds into the time.
func (a *intervalAcc) fractSeconds(frac, scale float64) {
	if frac == 0 || a.clockSet {
		return
	}
	frac *= scale
	sec := math.Trunc(frac)
	a.micros += sec*usPerSecond + math.RoundToEven((frac-sec)*usPerSecond)
}

// fractDays is AdjustFractDays: frac of scale days into days and the time.
func (a *intervalAcc) fractDays(frac, scale float64) {
	if frac == 0 {
		return
	}
	frac *= scale
	d := math.Trunc(frac)
	a.days += d
	a.fractSeconds(frac-d, 86400)
}

// addClock reads [-]hh:mm[:ss[.frac]] (or mm:ss.frac when it has a
// fraction and two parts, as PostgreSQL reads 1:30.5).
func (a *intervalAcc) addClock(w string) bool {
	neg := strings.HasPrefix(w, "-")
	w = strings.TrimLeft(w, "+-")
	parts := strings.Split(w, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	var vals [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 || i < len(parts)-1 && strings.Contains(p, ".") {
			return false
		}
		vals[i] = f
	}
	us := vals[0]*usPerHour + vals[1]*usPerMinute + vals[2]*usPerSecond
	if len(parts) == 2 && strings.Contains(parts[1], ".") {
		us = vals[0]*usPerMinute + vals[1]*usPerSecond
	}
	if neg {
		us = -us
	}
	a.micros += math.Round(us)
	return true
}

func (a *intervalAcc) interval() (Interval, bool) {
	if !fitsInt32(a.months) || !fitsInt32(a.days) || math.Abs(a.micros) > math.MaxInt64/2 {
		return Interval{}, false
	}
	return Interval{Months: int32(a.months), Days: int32(a.days), Micros: int64(math.Round(a.micros))}, true
}

// parseISOInterval reads ISO 8601's format with designators after the P:
// nY nM nW nD T nH nM nS.
func parseISOInterval(t string) (Interval, bool) {
	var acc intervalAcc
	inTime := false
	for t != "" {
		if t[0] == 't' {
			inTime, t = true, t[1:]
			continue
		}
		num, rest := splitNumberUnit(t)
		if num == "" || rest == "" {
			return Interval{}, false
		}
		whole, frac, ok := splitFraction(num)
		if !ok {
			return Interval{}, false
		}
		unit := map[byte]string{'y': "y", 'm': "mon", 'w': "w", 'd': "d"}[rest[0]]
		if inTime {
			unit = map[byte]string{'h': "h", 'm': "min", 's': "s"}[rest[0]]
		}
		if unit == "" || !acc.add(whole, frac, unit) {
			return Interval{}, false
		}
		t = rest[1:]
	}
	v, ok := acc.interval()
	return v, ok
}

func negateInterval(v Interval) Interval {
	return Interval{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}
}

// FormatInterval is interval_out in IntervalStyle postgres: "1 year 2 mons
// -3 days +04:05:06.5".
func FormatInterval(v Interval) string {
	var b strings.Builder
	zero, before := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !zero {
			b.WriteByte(' ')
		}
		if before && n > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteByte(' ')
		b.WriteString(unit)
		if n != 1 {
			b.WriteByte('s')
		}
		before, zero = n < 0, false
	}
	part(int64(v.Months/12), "year")
	part(int64(v.Months%12), "mon")
	part(int64(v.Days), "day")
	if zero || v.Micros != 0 {
		if !zero {
			b.WriteByte(' ')
		}
		us := v.Micros
		switch {
		case us < 0:
			b.WriteByte('-')
			us = -us
		case before:
			b.WriteByte('+')
		}
		fmt.Fprintf(&b, "%02d:%02d:%02d", us/usPerHour, us/usPerMinute%60, us/usPerSecond%60)
		if frac := us % usPerSecond; frac != 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%06d", frac), "0"))
		}
	}
	return b.String()
}

// addInterval is timestamp + interval (µs since the epoch): months on the
// calendar (the day clamped to the month's end), then days, then time.
func addInterval(us int64, v Interval) (int64, error) {
	if us == math.MaxInt64 || us == math.MinInt64 {
		return us, nil // ±infinity
	}
	if v.Months != 0 {
		t := time.UnixMicro(us).UTC()
		y, m, d := t.Date()
		total := int(m) - 1 + int(v.Months)
		ny, nm := y+floorDivInt(total, 12), total-floorDivInt(total, 12)*12+1
		if last := daysIn(ny, time.Month(nm)); d > last {
			d = last
		}
		clock := us - floorDiv(us, usPerDay)*usPerDay
		us = daysFromCivil(ny, nm, d)*usPerDay + clock
	}
	// Days, then time, each step in range, as PostgreSQL's
	// timestamp_pl_interval; checked, since 2147483647 days of
	// microseconds is past int64.
	days := int64(v.Days)
	if days > math.MaxInt64/usPerDay || days < math.MinInt64/usPerDay {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	for _, step := range []int64{days * usPerDay, v.Micros} {
		next, ok := addChecked(us, step)
		if !ok || next < minTimestampPG || next >= endTimestampPG {
			return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		us = next
	}
	return us, nil
}

// addChecked is a + b, false when it overflows int64.
func addChecked(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func floorDivInt(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// intervalArith is interval op interval or interval op number.
func intervalArith(op string, l, r any, lt, rt Type) (any, error) {
	switch {
	case lt.Kind == KindInterval && rt.Kind == KindInterval:
		// In floats, so that neither side is negated first (-2147483648
		// days has no negation, the difference may still fit).
		a, b := l.(Interval), r.(Interval)
		sign := 1.0
		if op == "-" {
			sign = -1
		}
		return checkedInterval(float64(a.Months)+sign*float64(b.Months), float64(a.Days)+sign*float64(b.Days),
			float64(a.Micros)+sign*float64(b.Micros))
	case lt.Kind == KindInterval:
		return scaleInterval(l.(Interval), toDomain(r, rt, Float64).(float64), op)
	}
	return scaleInterval(r.(Interval), toDomain(l, lt, Float64).(float64), op)
}

// scaleInterval is interval * f or interval / f, fractions spilling down
// (months to days at 30 days, days to time) with interval_mul's and
// interval_div's arithmetic, roundings included.
func scaleInterval(v Interval, f float64, op string) (any, error) {
	div := op == "/"
	if div && f == 0 {
		return nil, divByZero()
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	apply := func(x float64) float64 {
		if div {
			return x / f
		}
		return x * f
	}
	months, days := apply(float64(v.Months)), apply(float64(v.Days))
	rm, rd := math.Trunc(months), math.Trunc(days)
	monthDays := (months - rm) * 30
	if div {
		monthDays = tsRound(monthDays)
	}
	sec := (days - rd + monthDays - math.Trunc(monthDays)) * 86400
	if div {
		sec = tsRound(sec)
	}
	if math.Abs(sec) >= 86400 {
		whole := math.Trunc(sec / 86400)
		rd += whole
		sec -= whole * 86400
	}
	rd += math.Trunc(monthDays)
	return checkedInterval(rm, rd, math.RoundToEven(apply(float64(v.Micros))+sec*usPerSecond))
}

// tsRound rounds seconds to microseconds, as PostgreSQL's TSROUND does.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// fitsInt32 reports a whole interval field in int32's range, whose lowest
// value -2147483648 is a field PostgreSQL keeps (interval '-2147483648 days').
func fitsInt32(x float64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

func checkedInterval(months, days, micros float64) (any, error) {
	if !fitsInt32(months) || !fitsInt32(days) || math.Abs(micros) >= math.MaxInt64 {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return Interval{Months: int32(months), Days: int32(days), Micros: int64(micros)}, nil
}

// timestampDiff is timestamp - timestamp: days and time, as PostgreSQL
// justifies the difference's hours into days.
func timestampDiff(a, b int64) (any, error) {
	if a == math.MaxInt64 || a == math.MinInt64 || b == math.MaxInt64 || b == math.MinInt64 {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := a - b
	if (b > 0 && d > a) || (b < 0 && d < a) {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	days := d / usPerDay
	return Interval{Days: int32(days), Micros: d - days*usPerDay}, nil
}

// intervalArithType is the result type of an operator over intervals and
// date/time values, or false when it is not one of those.
func intervalArithType(op string, l, r Type) (Type, bool) {
	li, ri := l.Kind == KindInterval, r.Kind == KindInterval
	ts := func(t Type) bool { return t.Kind == KindTimestamp || t.Kind == KindTimestampTZ }
	switch {
	case li && ri && (op == "+" || op == "-"):
		return IntervalT, true
	case li && r.IsNumeric() && (op == "*" || op == "/"), ri && l.IsNumeric() && op == "*":
		return IntervalT, true
	case ts(l) && ri && (op == "+" || op == "-"):
		return Type{Kind: l.Kind}, true
	case li && ts(r) && op == "+":
		return Type{Kind: r.Kind}, true
	case l.Kind == KindDate && ri && (op == "+" || op == "-"), li && r.Kind == KindDate && op == "+":
		return Timestamp, true
	case l.Kind == KindTime && ri && (op == "+" || op == "-"), li && r.Kind == KindTime && op == "+":
		return Time, true
	case l.Kind == KindTime && r.Kind == KindTime && op == "-":
		return IntervalT, true
	case l.Kind == KindDate && r.Kind == KindTime && op == "+", l.Kind == KindTime && r.Kind == KindDate && op == "+":
		return Timestamp, true
	case isDateTime(l) && isDateTime(r) && (ts(l) || ts(r)) && op == "-":
		return IntervalT, true // a date beside a timestamp is one, at midnight
	}
	return Unknown, false
}

// datetimeArith computes the operators intervalArithType types.
func datetimeArith(op string, t Type, l, r any, lt, rt Type) (any, error) {
	li, ri := lt.Kind == KindInterval, rt.Kind == KindInterval
	switch {
	case li && ri, li && rt.IsNumeric(), ri && lt.IsNumeric():
		return intervalArith(op, l, r, lt, rt)
	case lt.Kind == KindTime || rt.Kind == KindTime:
		return timeArith(op, l, r, lt, rt)
	case ri:
		v := r.(Interval)
		if op == "-" {
			v = negateInterval(v)
		}
		return addIntervalTo(l, lt, v)
	case li:
		return addIntervalTo(r, rt, l.(Interval))
	}
	a, err := toTimestampMicros(l, lt)
	if err != nil {
		return nil, err
	}
	b, err := toTimestampMicros(r, rt)
	if err != nil {
		return nil, err
	}
	return timestampDiff(a, b)
}

// addIntervalTo is a date or timestamp datum plus v.
func addIntervalTo(d any, t Type, v Interval) (any, error) {
	us, err := toTimestampMicros(d, t)
	if err != nil {
		return nil, err
	}
	return addInterval(us, v)
}

// toTimestampMicros is a date or timestamp datum as µs since the epoch.
func toTimestampMicros(d any, t Type) (int64, error) {
	if t.Kind == KindDate {
		return dateAsTimestamp(d.(int64))
	}
	return d.(int64), nil
}

// intervalPart is EXTRACT(unit FROM interval): the fields as the interval
// holds them (not normalised), epoch with a year of 365.25 days and a
// month of 30, as PostgreSQL counts.
func intervalPart(unit string, v Interval) (Decimal, error) {
	whole := func(n int64) Decimal { return Decimal{Coef: big.NewInt(n)} }
	micros := func(n int64) Decimal { return Decimal{Coef: big.NewInt(n), Scale: 6} }
	years := int64(v.Months / 12)
	switch unit {
	case "epoch":
		// In big integers: 2147483647 days is past int64's microseconds.
		us := new(big.Int).Mul(big.NewInt(years), big.NewInt(31_557_600*usPerSecond))
		days := int64(v.Months%12)*30 + int64(v.Days)
		us.Add(us, new(big.Int).Mul(big.NewInt(days), big.NewInt(usPerDay)))
		return Decimal{Coef: us.Add(us, big.NewInt(v.Micros)), Scale: 6}, nil
	case "millennium":
		return whole(years / 1000), nil
	case "century":
		return whole(years / 100), nil
	case "decade":
		return whole(years / 10), nil
	case "year":
		return whole(years), nil
	case "quarter":
		return whole(int64(v.Months%12)/3 + 1), nil
	case "month":
		return whole(int64(v.Months % 12)), nil
	case "day":
		return whole(int64(v.Days)), nil
	case "hour":
		return whole(v.Micros / usPerHour), nil
	case "minute":
		return whole(v.Micros / usPerMinute % 60), nil
	case "second":
		return micros(v.Micros % usPerMinute), nil
	case "milliseconds":
		return Decimal{Coef: big.NewInt(v.Micros % usPerMinute), Scale: 3}, nil
	case "microseconds":
		return whole(v.Micros % usPerMinute), nil
	}
	return Decimal{}, pgerr.Errorf(pgerr.FeatureNotSupported, "unit %q not supported for type interval", unit)
}

// AddInterval is timestamp + interval over µs since the epoch.
func AddInterval(us int64, v Interval) (int64, error) { return addInterval(us, v) }

// timeArith is the operators with a time operand: time ± interval and
// interval + time take the interval's time part only and wrap around
// midnight (PostgreSQL's time_pl_interval); time - time is an interval of
// microseconds; date + time and time + date are a timestamp, an infinite
// date staying infinite.
func timeArith(op string, l, r any, lt, rt Type) (any, error) {
	switch {
	case lt.Kind == KindTime && rt.Kind == KindTime:
		return Interval{Micros: l.(int64) - r.(int64)}, nil
	case rt.Kind == KindInterval:
		step := r.(Interval).Micros
		if op == "-" {
			step = -step
		}
		return wrapTimeOfDay(l.(int64) + step%usPerDay), nil
	case lt.Kind == KindInterval:
		return wrapTimeOfDay(r.(int64) + l.(Interval).Micros%usPerDay), nil
	case lt.Kind == KindDate:
		return dateAtTime(l.(int64), r.(int64))
	}
	return dateAtTime(r.(int64), l.(int64))
}

// wrapTimeOfDay brings µs into [0, 24:00).
func wrapTimeOfDay(us int64) int64 {
	return us - floorDiv(us, usPerDay)*usPerDay
}

// dateAtTime is date + time as a timestamp.
func dateAtTime(days, us int64) (any, error) {
	ts, err := dateAsTimestamp(days)
	if err != nil {
		return nil, err
	}
	if ts == math.MaxInt64 || ts == math.MinInt64 {
		return ts, nil
	}
	if ts+us >= endTimestampPG {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	return ts + us, nil
}
