package sql

import (
	"errors"
	"math"
	"math/big"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// extract / date_part and date_trunc over date, time, timestamp and
// timestamptz (sessions run in UTC, so timestamptz's fields are UTC's).
// extract answers numeric (PostgreSQL 14 and later), date_part double
// precision. interval is not a type magmalake has.

// dtUnits maps the unit spellings PostgreSQL's DecodeUnits and
// DecodeSpecial accept to one canonical name.
var dtUnits = func() map[string]string {
	m := map[string]string{}
	for canon, spellings := range map[string]string{
		"microseconds":    "microsecond microseconds microsecon us usec usecs useconds",
		"milliseconds":    "millisecond milliseconds millisecon ms msec msecs mseconds",
		"second":          "second seconds s sec secs",
		"minute":          "minute minutes m min mins",
		"hour":            "hour hours h hr hrs",
		"day":             "day days d",
		"week":            "week weeks w",
		"month":           "month months mon mons",
		"quarter":         "quarter qtr",
		"year":            "year years y yr yrs",
		"decade":          "decade decades dec decs",
		"century":         "century centuries c cent",
		"millennium":      "millennium millennia mil mils",
		"epoch":           "epoch",
		"dow":             "dow",
		"isodow":          "isodow",
		"doy":             "doy",
		"isoyear":         "isoyear",
		"julian":          "julian j",
		"timezone":        "timezone",
		"timezone_hour":   "timezone_h timezone_hour",
		"timezone_minute": "timezone_m timezone_minute",
	} {
		for _, s := range strings.Fields(spellings) {
			m[s] = canon
		}
	}
	return m
}()

func dateTimePartFunctions() []Function {
	return []Function{
		// EXTRACT(field FROM x) arrives as __extract('field', x) and binds
		// to extract, an internal name (PostgreSQL's extract is syntax).
		{Name: "__extract", Alias: "extract", bind: bindDateTimeParts},
		{Name: "extract", Strict: true, row: perRow(dateTimePartsScalar)},
		{Name: "date_part", Strict: true, bind: bindDateTimeParts, row: perRow(dateTimePartsScalar),
			Signatures: sigs("text,timestamp with time zone | text,interval | text,date | text,time without time zone | text,timestamp without time zone")},
		{Name: "date_trunc", Strict: true, bind: bindDateTimeParts, row: perRow(dateTimePartsScalar),
			Signatures: sigs("text,timestamp with time zone | text,timestamp without time zone")},
	}
}

// bindDateTimeParts binds __extract (EXTRACT), date_part and date_trunc.
func bindDateTimeParts(b callBinder, name string, args []Expr) (Expr, error) {
	// EXTRACT's messages name the function it stands for
	fname := map[string]string{"__extract": "pg_catalog.extract"}[name]
	if fname == "" {
		fname = name
	}
	if len(args) != 2 {
		return nil, noFunction(fname, args)
	}
	if err := b.textArgs(fname, args[:1]); err != nil {
		return nil, err
	}
	src, err := b.dateTimeSource(fname, args)
	if err != nil {
		return nil, err
	}
	args[1] = src
	switch name {
	case "__extract":
		return &Func{Name: "extract", Args: args, T: Numeric(0, 0)}, nil
	case "date_part":
		return &Func{Name: "date_part", Args: args, T: Float64}, nil
	}
	if src.Type().Kind == KindTime {
		// PostgreSQL truncates a time as an interval
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "date_trunc of a time (an interval) is not supported: type interval is not supported")
	}
	return &Func{Name: "date_trunc", Args: args, T: src.Type()}, nil
}

// dateTimeSource resolves the second argument: an untyped one reads as
// timestamptz (the preferred datetime type), so does a date given to
// date_trunc; date_part of a date is taken of the date as a timestamp.
func (b callBinder) dateTimeSource(fname string, args []Expr) (Expr, error) {
	x := args[1]
	if isUnknown(x) {
		// date, time, timestamp[tz] and interval forms fit alike
		return nil, functionNotUnique(fname, args[0].Type(), Unknown)
	}
	switch k := x.Type().Kind; {
	case k == KindDate && fname == "date_trunc":
		return &Cast{X: x, T: TimestampTZ}, nil
	case k == KindDate && fname == "date_part":
		return &Cast{X: x, T: Timestamp}, nil
	case k == KindDate, k == KindTime, k == KindTimestamp, k == KindTimestampTZ:
		return x, nil
	case k == KindInterval && fname != "date_trunc":
		return x, nil
	}
	return nil, noFunction(fname, args)
}

// dateTimePartsScalar computes one row.
func dateTimePartsScalar(x *Func, a []any) (any, error) {
	unit := strings.ToLower(a[0].(string))
	t := x.Args[1].Type()
	canon, known := dtUnits[unit]
	if x.Name == "date_trunc" {
		return dateTrunc(unit, canon, known, a[1].(int64), t)
	}
	if !known {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unit %q not recognized for type %s", unit, t)
	}
	if t.Kind == KindInterval {
		v, err := intervalPart(canon, a[1].(Interval))
		if err != nil || x.Name != "date_part" {
			return v, err
		}
		f, _ := v.Rat().Float64()
		return f, nil
	}
	if sign := infiniteSign(a[1].(int64), t); sign != 0 && (t.Kind != KindDate || dateUnit(canon)) {
		return infinitePart(x.Name, canon, sign, t)
	}
	v, err := extractPart(canon, a[1].(int64), t)
	if errors.Is(err, errUnitNotSupported) {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "unit %q not supported for type %s", unit, t)
	}
	if err != nil {
		return nil, err
	}
	if x.Name == "date_part" {
		f, _ := v.Rat().Float64()
		return f, nil
	}
	return v, nil
}

// dateUnit reports a unit EXTRACT takes from a date.
func dateUnit(unit string) bool {
	switch unit {
	case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
		return false
	}
	return true
}

// infiniteSign is 1 or -1 for an infinite date or timestamp, else 0.
func infiniteSign(v int64, t Type) int {
	switch {
	case t.Kind == KindTime:
		return 0
	case v == math.MaxInt64 || t.Kind == KindDate && v == math.MaxInt32:
		return 1
	case v == math.MinInt64 || t.Kind == KindDate && v == math.MinInt32:
		return -1
	}
	return 0
}

// infinitePart is a field of an infinite value: the infinity itself for
// the fields that grow with time, NULL for the others, as PostgreSQL 15.
func infinitePart(fn, unit string, sign int, t Type) (any, error) {
	switch unit {
	case "year", "decade", "century", "millennium", "julian", "isoyear", "epoch":
		if fn == "date_part" {
			return math.Inf(sign), nil
		}
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "numeric infinity is not supported (extract %s from an infinite %s)", unit, t)
	}
	return nil, nil
}

// errUnitNotSupported says a known unit does not apply to the type; the
// caller words the error with both.
var errUnitNotSupported = errors.New("unit not supported for type")

// dtParts are a value's calendar and clock fields; year is astronomical
// (0 is 1 BC).
type dtParts struct {
	days                 int64
	year                 int64
	month, day           int
	hour, min, sec, usec int64
	date                 bool
}

func splitDateTime(v int64, t Type) dtParts {
	var us int64
	days := v
	switch t.Kind {
	case KindTimestamp, KindTimestampTZ:
		days = floorDiv(v, usPerDay)
		us = v - days*usPerDay
	case KindTime:
		days, us = 0, v
	}
	y, m, d := fmtCivil(days)
	return dtParts{days: days, year: y, month: m, day: d, date: t.Kind == KindDate,
		hour: us / 3_600_000_000, min: us / 60_000_000 % 60, sec: us / 1_000_000 % 60, usec: us % 1_000_000}
}

// extractPart is EXTRACT's numeric value of one field.
func extractPart(unit string, v int64, t Type) (Decimal, error) {

	f := splitDateTime(v, t)
	secUS := f.sec*1_000_000 + f.usec
	clock := t.Kind != KindDate
	calendar := t.Kind != KindTime
	dec := func(n int64, scale int) Decimal { return Decimal{Coef: big.NewInt(n), Scale: scale} }
	num := func(n int64) Decimal { return DecimalFromInt(n) }
	switch {
	case unit == "microseconds" && clock:
		return num(secUS), nil
	case unit == "milliseconds" && clock:
		return dec(secUS, 3), nil
	case unit == "second" && clock:
		return dec(secUS, 6), nil
	case unit == "minute" && clock:
		return num(f.min), nil
	case unit == "hour" && clock:
		return num(f.hour), nil
	case unit == "epoch":
		switch t.Kind {
		case KindDate:
			return num(v * 86400), nil
		}
		return dec(v, 6), nil
	case (unit == "timezone" || unit == "timezone_hour" || unit == "timezone_minute") && t.Kind == KindTimestampTZ:
		return num(0), nil
	case !calendar:
		return Decimal{}, errUnitNotSupported
	}
	return calendarPart(unit, f)
}

// calendarPart is a date field of EXTRACT.
func calendarPart(unit string, f dtParts) (Decimal, error) {
	y := f.year
	var n int64
	switch unit {
	case "day":
		n = int64(f.day)
	case "month":
		n = int64(f.month)
	case "quarter":
		n = int64((f.month-1)/3 + 1)
	case "week":
		_, w := isoWeek(f.days)
		n = w
	case "year":
		n = y
		if y <= 0 {
			n = y - 1
		}
	case "decade":
		n = y / 10
		if y <= 0 {
			n = -((8 - (y - 1)) / 10)
		}
	case "century":
		n = (y + 99) / 100
		if y <= 0 {
			n = -((99 - (y - 1)) / 100)
		}
	case "millennium":
		n = (y + 999) / 1000
		if y <= 0 {
			n = -((999 - (y - 1)) / 1000)
		}
	case "isoyear":
		n, _ = isoWeek(f.days)
		if n <= 0 {
			n--
		}
	case "dow":
		n = isoDow(f.days) % 7
	case "isodow":
		n = isoDow(f.days)
	case "doy":
		n = f.days - fmtDaysFromCivil(y, 1, 1) + 1
	case "julian":
		return julianPart(f), nil
	default:
		return Decimal{}, errUnitNotSupported
	}
	return DecimalFromInt(n), nil
}

// julianPart is the Julian day, a timestamp's with the time of day as a
// fraction at numeric division's scale.
func julianPart(f dtParts) Decimal {
	j := DecimalFromInt(f.days + 2440588)
	us := ((f.hour*60+f.min)*60+f.sec)*1_000_000 + f.usec
	if f.date {
		return j
	}
	frac := DecimalFromInt(us).Div(DecimalFromInt(86400 * 1_000_000))
	return j.add(frac)
}

// isoDow is the ISO day of the week, Monday 1 to Sunday 7.
func isoDow(days int64) int64 {
	// 1970-01-01 was a Thursday (4).
	return (floorMod(days+3, 7)) + 1
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// isoWeek is the ISO 8601 week-numbering year and week of a date.
func isoWeek(days int64) (int64, int64) {
	y, _, _ := fmtCivil(days)
	for _, year := range []int64{y + 1, y, y - 1} {
		start := isoYearStart(year)
		if days >= start {
			return year, (days-start)/7 + 1
		}
	}
	return y, 1
}

// isoYearStart is the Monday of ISO week 1 of year: the week with 4 January.
func isoYearStart(year int64) int64 {
	jan4 := fmtDaysFromCivil(year, 1, 4)
	return jan4 - (isoDow(jan4) - 1)
}

// dateTrunc truncates v (µs, a timestamp or timestamptz) to unit.
func dateTrunc(unit, canon string, known bool, v int64, t Type) (any, error) {
	if v == math.MaxInt64 || v == math.MinInt64 {
		return v, nil // whatever the unit, as PostgreSQL
	}
	switch canon {
	case "epoch", "dow", "doy", "isodow", "isoyear", "julian":
		known = false // words EXTRACT knows that are not units of time
	}
	if !known {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unit %q not recognized for type %s", unit, t)
	}
	f := splitDateTime(v, t)
	clock := func(h, m, s, us int64) int64 {
		return f.days*usPerDay + ((h*60+m)*60+s)*1_000_000 + us
	}
	ymd := func(y int64, m, d int) int64 { return fmtDaysFromCivil(y, m, d) * usPerDay }
	y := f.year
	switch canon {
	case "microseconds":
		return v, nil
	case "milliseconds":
		return clock(f.hour, f.min, f.sec, f.usec/1000*1000), nil
	case "second":
		return clock(f.hour, f.min, f.sec, 0), nil
	case "minute":
		return clock(f.hour, f.min, 0, 0), nil
	case "hour":
		return clock(f.hour, 0, 0, 0), nil
	case "day":
		return clock(0, 0, 0, 0), nil
	case "week":
		return (f.days - (isoDow(f.days) - 1)) * usPerDay, nil
	case "month":
		return ymd(y, f.month, 1), nil
	case "quarter":
		return ymd(y, 3*((f.month-1)/3)+1, 1), nil
	case "year":
		return ymd(y, 1, 1), nil
	case "decade":
		if y > 0 {
			return ymd(y/10*10, 1, 1), nil
		}
		return ymd(-((8-(y-1))/10)*10, 1, 1), nil
	case "century":
		if y > 0 {
			return ymd((y+99)/100*100-99, 1, 1), nil
		}
		return ymd(-((99-(y-1))/100)*100+1, 1, 1), nil
	case "millennium":
		if y > 0 {
			return ymd((y+999)/1000*1000-999, 1, 1), nil
		}
		return ymd(-((999-(y-1))/1000)*1000+1, 1, 1), nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "unit %q not supported for type %s", unit, t)
}
