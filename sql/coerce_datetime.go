package sql

import (
	"math"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// Date and time input: everything PostgreSQL's datetime input reads (see
// datetime_lex.go and datetime_decode.go), with the field order of the
// session's DateStyle, which InputStyle carries.
// 'infinity' and '-infinity' are the int32 (date) and int64 (timestamp)
// extremes, which the output functions print back as such. The words that
// need the statement's time ('now', 'today', 'tomorrow', 'yesterday') are
// 0A000: CoerceText does not know it.

// Days and microseconds between 1970-01-01 and the limits PostgreSQL keeps:
// dates from Julian day 0 (4714-11-24 BC) to 5874897-12-31, timestamps from
// 4714-11-24 BC to 294276-12-31 (the end cut to what fits in int64
// microseconds since 1970, 294247-01-10, below the infinity sentinel).
const (
	julianEpochDays = 2440588 // Julian day number of 1970-01-01
	dateEndJulian   = 2147483494
	pgEpochDays     = 10957 // 1970-01-01 to 2000-01-01
	minTimestampPG  = -211813488000000000
	endTimestampPG  = 9223371331200000000
	pgEpochMicros   = pgEpochDays * usPerDay
)

// dtTypeName is the type as PostgreSQL's input functions name it in errors.
func dtTypeName(t Type) string {
	switch t.Kind {
	case KindDate:
		return "date"
	case KindTime:
		return "time"
	case KindTimestampTZ:
		return "timestamp with time zone"
	}
	return "timestamp"
}

// quoted is "s" as PostgreSQL quotes input in messages: verbatim.
func quoted(s string) string { return `"` + s + `"` }

func dateTimeErr(t Type, s string) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %s", dtTypeName(t), quoted(s))
}

// dtError is PostgreSQL's error for a decoding failure of s as t.
func dtError(fail dtFail, f *dtFields, t Type, s string) error {
	switch fail {
	case failField:
		return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %s", quoted(s))
	case failMonthDay:
		e := pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %s", quoted(s))
		e.Hint = `Perhaps you need a different "datestyle" setting.`
		return e
	case failZoneOffset:
		return pgerr.Errorf(pgerr.InvalidTimeZoneDisplacementValue, "time zone displacement out of range: %s", quoted(s))
	case failZoneName:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "time zone %s not recognized", quoted(f.badZone))
	}
	return dateTimeErr(t, s)
}

// decodeFor decodes s for type t, refusing the words that need the
// statement's time.
func decodeFor(s string, t Type, order DateOrder) (*dtFields, error) {
	f, fail := decodeDateTime(s, order, t.Kind == KindTime)
	if fail != failNone {
		return nil, dtError(fail, f, t, s)
	}
	switch f.special {
	case spNow, spToday, spTomorrow, spYesterday:
		word := [...]string{spNow: "now", spToday: "today", spTomorrow: "tomorrow", spYesterday: "yesterday"}[f.special]
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "special %s value %s is not supported", dtTypeName(t), quoted(word))
	}
	return f, nil
}

// coerceDateTime reads s as a date/time type t with the DateStyle field order.
func coerceDateTime(s string, t Type, order DateOrder) (any, error) {
	switch t.Kind {
	case KindDate:
		return parseDateOrder(s, order)
	case KindTime:
		return parseTimeOrder(s, order)
	}
	return parseTimestampOrder(s, t, order)
}

func parseDateOrder(s string, order DateOrder) (any, error) {
	f, err := decodeFor(s, Date, order)
	if err != nil {
		return nil, err
	}
	switch f.special {
	case spEpoch:
		return int64(0), nil
	case spLate:
		return int64(math.MaxInt32), nil
	case spEarly:
		return int64(math.MinInt32), nil
	}
	days, ok := civilDays(f.year, f.month, f.day)
	if !ok || days+julianEpochDays < 0 || days+julianEpochDays >= dateEndJulian {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: %s", quoted(s))
	}
	return days, nil
}

// civilDays is days since 1970-01-01, false for years outside what
// PostgreSQL's Julian day arithmetic covers.
func civilDays(y, m, d int64) (int64, bool) {
	if y < -4713 || y == -4713 && m < 11 || y > 5874898 || y == 5874898 && m >= 6 {
		return 0, false
	}
	return fmtDaysFromCivil(y, int(m), int(d)), true
}

func parseTimeOrder(s string, order DateOrder) (any, error) {
	f, err := decodeFor(s, Time, order)
	if err != nil {
		return nil, err
	}
	return clockMicros(f), nil
}

func clockMicros(f *dtFields) int64 {
	return ((f.hour*60+f.min)*60+f.sec)*1e6 + f.fsec
}

func parseTimestampOrder(s string, t Type, order DateOrder) (any, error) {
	f, err := decodeFor(s, t, order)
	if err != nil {
		return nil, err
	}
	switch f.special {
	case spEpoch:
		return int64(0), nil
	case spLate:
		return int64(math.MaxInt64), nil
	case spEarly:
		return int64(math.MinInt64), nil
	}
	us, ok := timestampMicros(f, t.Kind == KindTimestampTZ)
	if !ok {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: %s", quoted(s))
	}
	return us, nil
}

// timestampMicros is the decoded local time as microseconds since 1970; for
// timestamptz the zone given (UTC if none) is taken off. timestamp without
// time zone ignores a zone in its input, as PostgreSQL does.
func timestampMicros(f *dtFields, withZone bool) (int64, bool) {
	days, ok := civilDays(f.year, f.month, f.day)
	if !ok {
		return 0, false
	}
	pgDays := days - pgEpochDays
	if pgDays > math.MaxInt64/usPerDay-1 || pgDays < math.MinInt64/usPerDay+1 {
		return 0, false
	}
	us := pgDays*usPerDay + clockMicros(f)
	if withZone {
		us -= zoneOffset(f, days) * 1e6
	}
	if us < minTimestampPG || us >= endTimestampPG || us >= math.MaxInt64-pgEpochMicros {
		return 0, false
	}
	return us + pgEpochMicros, true
}

// zoneOffset is the offset east of UTC in seconds: the numeric one or
// abbreviation given, or a named zone's at that local time.
func zoneOffset(f *dtFields, days int64) int64 {
	if f.loc == nil {
		return f.zone
	}
	y, m, d := fmtCivil(days)
	local := time.Date(int(y), time.Month(m), d, int(f.hour), int(f.min), int(f.sec), 0, f.loc)
	_, off := local.Zone()
	return int64(off)
}

// roundDateTime rounds a time or timestamp datum to round microseconds as
// PostgreSQL's AdjustTimestampForTypmod and AdjustTimeForTypmod do: a
// timestamp half-way rounds away from zero counted from PostgreSQL's epoch
// (2000-01-01), so 1990-01-01 00:00:00.5 goes down and 2024-01-01
// 00:00:00.5 up; a time half-way rounds up (23:59:59.5 to 24:00:00);
// infinities stay.
func roundDateTime(d any, t Type, round int64) any {
	us, ok := d.(int64)
	if !ok || round <= 1 {
		return d
	}
	switch t.Kind {
	case KindTime:
		return (us + round/2) / round * round
	case KindTimestamp, KindTimestampTZ:
		if us == math.MaxInt64 || us == math.MinInt64 {
			return d
		}
		pg := us - pgEpochMicros
		if pg >= 0 {
			pg = (pg + round/2) / round * round
		} else {
			pg = -((-pg + round/2) / round * round)
		}
		return pg + pgEpochMicros
	}
	return d
}
