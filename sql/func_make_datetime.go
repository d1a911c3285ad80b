package sql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// make_date, make_time and make_timestamp build a value from its fields,
// as PostgreSQL's do: integer fields, seconds in double precision; a
// negative year is BC and there is no year 0; hour 24 and second 60 are
// accepted as long as the time is at most 24:00:00. Errors are 22008 with
// PostgreSQL's messages.
func makeDateTimeFunctions() []Function {
	return []Function{
		{Name: "make_date", Strict: true, Signatures: sigs("integer,integer,integer"), bind: fieldsSig(3, false, Date),
			row: fieldsRow(func(ints []int64, _ float64) (any, error) { return makeDate(ints[0], ints[1], ints[2]) })},
		{Name: "make_time", Strict: true, Signatures: sigs("integer,integer,double precision"), bind: fieldsSig(2, true, Time),
			row: fieldsRow(func(ints []int64, sec float64) (any, error) { return makeTime(ints[0], ints[1], sec) })},
		{Name: "make_timestamp", Strict: true, Signatures: sigs("integer,integer,integer,integer,integer,double precision"),
			bind: fieldsSig(5, true, Timestamp), row: fieldsRow(makeTimestamp)},
	}
}

// fieldsSig binds a constructor of ints integer fields and, when sec, a
// trailing seconds field, returning ret.
func fieldsSig(ints int, sec bool, ret Type) bindFunc {
	n := ints
	if sec {
		n++
	}
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) != n {
			return nil, noFunction(name, args)
		}
		for i, a := range args {
			// Types first, so that a 42883 names the arguments as written.
			switch k := a.Type().Kind; {
			case k == KindUnknown:
			case i < ints && k != KindInt16 && k != KindInt32, i == ints && !a.Type().IsNumeric():
				return nil, noFunction(name, args)
			}
		}
		for i := range args {
			if i < ints {
				if err := b.intArg(name, args, i); err != nil {
					return nil, err
				}
				continue
			}
			var err error
			if args[i], err = b.toFloat8(args[i]); err != nil {
				return nil, err
			}
		}
		return &Func{Name: name, Args: args, T: ret}, nil
	}
}

// toFloat8 is e as double precision: an untyped literal read as one, a
// number cast (PostgreSQL's implicit casts to float8).
func (b *binder) toFloat8(e Expr) (Expr, error) {
	switch {
	case isUnknown(e):
		return b.coerceUnknown(e, Float64)
	case e.Type().Kind == KindFloat64:
		return e, nil
	}
	return &Cast{X: e, T: Float64}, nil
}

// fieldsRow computes a constructor from one row's fields: the integers,
// then the seconds.
func fieldsRow(build func(ints []int64, sec float64) (any, error)) func(*evaluator, *Func) rowFunc {
	return valueOfErr(func(a []any) (any, error) {
		ints := make([]int64, 0, len(a))
		var sec float64
		for _, v := range a {
			switch v := v.(type) {
			case int64:
				ints = append(ints, v)
			case float64:
				sec = v
			}
		}
		return build(ints, sec)
	})
}

// makeTimestamp is make_timestamp: a date and a time of day.
func makeTimestamp(ints []int64, sec float64) (any, error) {
	days, err := makeDate(ints[0], ints[1], ints[2])
	if err != nil {
		return nil, err
	}
	clock, err := makeTime(ints[3], ints[4], sec)
	if err != nil {
		return nil, err
	}
	us := days.(int64)*usPerDay + clock.(int64)
	if us < minTimestampPG || us >= endTimestampPG {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s",
			ints[0], ints[1], ints[2], ints[3], ints[4], pgSeconds(sec))
	}
	return us, nil
}

// makeDate is make_date: days since 1970-01-01.
func makeDate(year, month, day int64) (any, error) {
	fields := fmt.Sprintf("%d-%02d-%02d", year, month, day)
	y := year
	if y < 0 {
		y++ // 1 BC is year 0 of the proleptic calendar
	}
	if year == 0 || month < 1 || month > 12 || day < 1 || day > int64(daysIn(int(y), time.Month(month))) {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date field value out of range: %s", fields)
	}
	days := daysFromCivil(int(y), int(month), int(day))
	if days < minDateDays || days >= endDateDays {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: %s", fields)
	}
	return days, nil
}

// makeTime is make_time: microseconds since midnight, the seconds rounded
// to the microsecond before the range check (PostgreSQL's
// float_time_overflows).
func makeTime(hour, minute int64, sec float64) (any, error) {
	us := math.RoundToEven(sec * 1e6)
	if hour < 0 || hour > 24 || minute < 0 || minute >= 60 || math.IsNaN(sec) || us < 0 || us > 60e6 ||
		(hour*60+minute)*60*1_000_000+int64(us) > usPerDay {
		return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", hour, minute, pgSeconds(sec))
	}
	return (hour*60+minute)*60*1_000_000 + int64(us), nil
}

// pgSeconds prints seconds as PostgreSQL's messages do (C's %02g, with its
// own NaN and Infinity).
func pgSeconds(sec float64) string {
	switch {
	case math.IsNaN(sec):
		return "NaN"
	case math.IsInf(sec, 1):
		return "Infinity"
	case math.IsInf(sec, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(sec, 'g', 6, 64)
	if i := strings.Index(s, "e"); i >= 0 && len(s)-i == 3 {
		s = s[:i+2] + "0" + s[i+2:] // C writes at least two exponent digits
	}
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}
