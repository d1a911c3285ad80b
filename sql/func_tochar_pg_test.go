package sql

import (
	"math/rand"
	"strings"
)

// to_char: every datetime keyword (with FM, TM, TH/th, SP) alone and in
// random templates with literals, quotes and backslashes, over
// timestamps, timestamptz and dates (BC, leap days, year ends, ISO week
// edges, infinities); number templates over integers, floats and numerics
// (negative, zero, huge, NaN and infinities; V scaling past the integer
// types' range, and by more digits than they hold).

var (
	tcTimes = []string{"timestamp '2024-02-29 13:05:09.123456'", "timestamp '2000-01-01 00:00:00'", "timestamp '1999-12-31 23:59:59.999999'",
		"timestamp '0044-03-15 12:00:00 BC'", "timestamp '0001-01-01 00:00:00 BC'", "timestamp '0001-12-31 11:59:59'",
		"timestamp '2021-01-03 07:08:09.5'", "timestamp '2020-12-31 12:00:00'", "timestamp '2019-12-30 00:00:01'",
		"timestamp '1900-02-28 01:02:03'", "timestamp '10000-06-15 18:30:00'", "timestamp '2101-07-04 00:00:00'",
		"timestamp '0099-01-01 00:00:00 BC'", "timestamp '1000-01-01 00:00:00 BC'",
		"timestamptz '2024-07-14 22:15:30.000001+00'", "timestamptz '2005-01-01 00:00:00+00'", "timestamptz '0500-05-05 05:05:05+00 BC'",
		"date '2024-02-29'", "date '2023-01-01'", "date '0001-01-01 BC'", "date '2008-12-29'", "date '1582-10-15'",
		"'infinity'::timestamp", "'-infinity'::timestamptz", "'infinity'::date", "NULL::timestamp", "NULL::date"}
	tcKeywords = []string{"YYYY", "YYY", "YY", "Y", "Y,YYY", "IYYY", "IYY", "IY", "I", "MM", "Mon", "MON", "mon", "Month", "MONTH", "month",
		"DD", "DDD", "D", "ID", "IDDD", "Day", "DAY", "day", "Dy", "DY", "dy", "HH", "HH12", "HH24", "MI", "SS", "MS", "US",
		"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "SSSS", "SSSSS", "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.",
		"AD", "BC", "ad", "bc", "A.D.", "B.C.", "a.d.", "b.c.", "TZ", "tz", "TZH", "TZM", "OF", "of", "tzh", "tzm",
		"Q", "WW", "W", "IW", "CC", "J", "RM", "rm", "yyyy", "mm", "dd", "hh24", "mi", "ss", "us", "ms", "iw", "q", "j", "cc", "w", "ww",
		"ff3", "sssss", "iddd", "id", "y,yyy", "FX", "fx", "Ff1", "yYyY", "dAY", "mONTH", "Mi", "mI"}
	tcDecor  = []string{"FM", "TM", "fm", "tm", "FMTM", ""}
	tcSuffix = []string{"TH", "th", "SP", "", "THth"}
	tcLits   = []string{"-", "/", " ", ":", "T", `"text"`, `"a\"b"`, `\"`, `\`, "é", `"YYYY"`, "x", ",", ".", `"`, `"unterminated`, "日"}
	tcNums   = []string{"0", "1", "-1", "5", "12", "123", "-123", "1234567", "2147483647", "(-2147483647 - 1)", "9000000000",
		"(-9223372036854775807 - 1)", "(7)::smallint", "0.0", "0.5", "-0.5", "1.25", "-1.25", "12.345", "0.001", "99999.999",
		"123456789012345678901234567890.123", "1e-20", "-1e25", "0.25::float8", "-0.5::float8", "2.5::float8", "1e300::float8",
		"'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8", "12345.678::real", "-0.001::real", "3.999::real",
		"'NaN'::real", "1e-5::float8", "-0::float8", "999.5", "9.995", "0.05::float8", "NULL::int", "NULL::numeric",
		"214748364", "214748365", "-214748365", "-2", "-3", "922337203685477580::int8", "922337203685477581::int8"}
	tcNumFormats = []string{"9", "99", "999", "9999", "99999999999", "0", "00", "0000", "09999", "9990", "999.99", "990.00",
		"0.00", ".99", "9.9", "FM999.99", "FM990.00", "FM9.9", "FM9999", "FM0000", "S999", "999S", "S9.99", "9.99S", "FMS999",
		"999MI", "MI999", "999PL", "PL999", "SG999", "999SG", "999PR", "FM999PR", "9,999", "9G999", "9,999,999.99", "FM9,999,999.99",
		"9D99", "L999", "999th", "999TH", "FM999th", "FMRN", "RN", "rn", "FMrn", "9.99EEEE", "9EEEE", "99.9999EEEE", "EEEE",
		"999V99", "9V9", "V999", "99V", "\"Value: \"999", "9\"x\"9", "9 9 9", "B999", "C999", "SP999", "9999.9999", "FM9999.9999",
		"00.0", "FM00.0", "0.0SG", "PR999", "999.99.9", "99V9.9", "9.9V9", "SS999", "S999S", "S999MI", "999.9EEEE9", "9EEEEEEEE",
		"FM9.99EEEE", "9,", ",9", "99,99", "FM99,99", "9.9,9", "FMSG999", "FMPL999", "FMMI999", "", "9.99999999999999999999",
		"RNth", "SGRN", "FM9.0999", "FM0.9900", "0999.0900", "L9G9D9", "9V999999999", "9V9999999999", "9V9999999999999999999"}
)

func corpusToChar() []string {
	g := &exprGen{rng: rand.New(rand.NewSource(15))}
	var out []string
	// Each keyword alone, decorated.
	for _, k := range tcKeywords {
		for _, ts := range []string{tcTimes[0], tcTimes[3], tcTimes[7], tcTimes[14], tcTimes[17]} {
			out = append(out, "to_char("+ts+", "+literalSQL(k)+")")
		}
		for _, dec := range tcDecor {
			for _, suf := range tcSuffix {
				out = append(out, "to_char("+g.pick(tcTimes[:22]...)+", "+literalSQL(dec+k+suf)+")")
			}
		}
	}
	// Random templates over every value.
	for k := 0; k < 1500; k++ {
		var b strings.Builder
		for n := 1 + g.rng.Intn(5); n > 0; n-- {
			if g.rng.Intn(3) == 0 {
				b.WriteString(g.pick(tcLits...))
			} else {
				b.WriteString(g.pick(tcDecor...) + g.pick(tcKeywords...) + g.pick(tcSuffix...))
			}
		}
		out = append(out, "to_char("+g.pick(tcTimes...)+", "+literalSQL(b.String())+")")
	}
	out = append(out, "to_char(timestamp '2024-01-01', '')", "to_char(timestamp '2024-01-01', NULL)", "to_char('2024-01-01', 'YYYY')",
		"to_char(NULL, 'YYYY')", "to_char(timestamp '2024-01-01')", "to_char(true, '9')", "to_char('x'::text, '9')",
		"to_char(timestamp '2024-01-01', 5)", "to_char(timestamp '2024-01-01', 'YYYY'::varchar)", "to_char(1, '')", "to_char(1, NULL)",
		"to_char(NULL::int, '9')", "to_char(now(), 'YYYY') = extract(year from current_date)::text",
		"to_char(current_date, 'YYYY-MM-DD') = current_date::text", "length(to_char(clock_timestamp(), 'HH24:MI:SS.US')) = 15",
		"to_char(localtimestamp, 'TZ')", "to_char(now(), 'TZ')")
	// Numbers: every format over every value.
	for _, f := range tcNumFormats {
		for _, v := range tcNums {
			out = append(out, "to_char("+v+", "+literalSQL(f)+")")
		}
	}
	return out
}
